//! What a turn is asked in: [`TurnContext`] names everything besides the lock and the MCP state
//! that changes Claude Code's answer; its defaults are a headless (`claude -p`) run signed in
//! with an API key in a folder that has not been trusted, with the default model's context
//! window. Every per-turn module reads it; it reads none of them.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// How Claude Code was started.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Entry {
    /// `claude -p` or the Agent SDK (`--output-format stream-json` sends the same request).
    #[default]
    Headless,
    /// The terminal UI.
    Interactive,
}

/// How the user is signed in, and to which provider.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Auth {
    /// An Anthropic API key (`console`, the name capc used before, is read as this).
    #[default]
    #[serde(alias = "console")]
    ApiKey,
    /// A claude.ai subscription (OAuth).
    ClaudeAi,
    /// Amazon Bedrock (`CLAUDE_CODE_USE_BEDROCK`).
    Bedrock,
    /// Google Vertex AI (`CLAUDE_CODE_USE_VERTEX`).
    Vertex,
    /// Another provider (Foundry, a gateway): treated as Vertex, which capc has measured.
    ThirdParty,
}

impl Auth {
    /// Signed in with Anthropic itself (an API key or claude.ai), not through a cloud provider.
    pub(crate) fn first_party(self) -> bool {
        matches!(self, Auth::ApiKey | Auth::ClaudeAi)
    }
}

/// `--permission-mode`: the grammar's, which the Bash check reads too.
pub use capc_grammar::PermissionMode;

/// A context's `permission_mode`, as `--permission-mode`'s word.
mod permission_mode {
    use super::PermissionMode;
    use serde::{Deserialize, Deserializer, Serializer};

    pub(super) fn serialize<S: Serializer>(mode: &PermissionMode, to: S) -> Result<S::Ok, S::Error> {
        to.serialize_str(mode.as_str())
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(from: D) -> Result<PermissionMode, D::Error> {
        let word = String::deserialize(from)?;
        PermissionMode::parse(&word).ok_or_else(|| {
            serde::de::Error::custom(format!(
                "option '--permission-mode <mode>' argument '{word}' is invalid. Allowed choices are acceptEdits, auto, bypassPermissions, manual, dontAsk, plan."
            ))
        })
    }
}

/// [`Auth`]'s words, for the schema (with `console`, read as `api-key`).
#[derive(schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
#[allow(dead_code)]
enum AuthWord {
    ApiKey,
    Console,
    ClaudeAi,
    Bedrock,
    Vertex,
    ThirdParty,
}

/// `--permission-mode`'s words, for the schema: the grammar's `PermissionMode::CHOICES`.
struct PermissionModeWord;

impl schemars::JsonSchema for PermissionModeWord {
    fn schema_name() -> String {
        "PermissionModeWord".to_string()
    }

    fn json_schema(_: &mut schemars::gen::SchemaGenerator) -> schemars::schema::Schema {
        use schemars::schema::{InstanceType, Metadata, SchemaObject};
        SchemaObject {
            metadata: Some(Box::new(Metadata {
                description: Some("`--permission-mode`'s words, for the schema.".to_string()),
                ..Metadata::default()
            })),
            instance_type: Some(InstanceType::String.into()),
            enum_values: Some(PermissionMode::CHOICES.iter().map(|mode| mode.as_str().into()).collect()),
            ..SchemaObject::default()
        }
        .into()
    }
}

/// Permission rules added during the session (answers to prompts, `/permissions`).
#[derive(Debug, Clone, Default, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SessionRules {
    #[serde(default)]
    pub allow: Vec<String>,
    #[serde(default)]
    pub ask: Vec<String>,
    #[serde(default)]
    pub deny: Vec<String>,
}

/// One skill's entry of `skillUsage` in `~/.claude.json`.
#[derive(Debug, Clone, Copy, Default, Deserialize, Serialize, schemars::JsonSchema)]
pub struct SkillUsage {
    #[serde(rename = "usageCount", default)]
    pub(crate) usage_count: f64,
    /// Milliseconds since the epoch.
    #[serde(rename = "lastUsedAt", default)]
    pub(crate) last_used_at: f64,
}

/// The context window of Claude Code's default model (Opus 5.5), in tokens.
pub const DEFAULT_CONTEXT_WINDOW: u64 = 1_000_000;
/// Bytes per token the listing budget assumes for that model (4 for older models).
pub(crate) const DEFAULT_BYTES_PER_TOKEN: u64 = 3;

/// What a turn is computed from, besides the lock and the MCP state. Every field has the
/// default of a headless run with an API key in an untrusted folder.
#[derive(Debug, Clone, Default, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TurnContext {
    #[serde(default)]
    pub entry: Entry,
    #[serde(default)]
    #[schemars(with = "AuthWord")]
    pub auth: Auth,
    /// The folder's trust dialog was accepted (`hasTrustDialogAccepted`).
    #[serde(default)]
    pub trusted: bool,
    #[serde(default, with = "permission_mode")]
    #[schemars(with = "PermissionModeWord")]
    pub permission_mode: PermissionMode,
    /// Environment variables and settings keys, by name (`ENABLE_TOOL_SEARCH`,
    /// `CLAUDE_CODE_DISABLE_CRON`, `skillOverrides`, `skillListingMaxDescChars`, …; docs/session.md
    /// lists what each changes).
    #[serde(default)]
    pub flags: BTreeMap<String, Value>,
    /// `--tools`: only these built-in tools (`[]` or `[""]`: none; `["default"]`: all).
    #[serde(default)]
    pub tools: Option<Vec<String>>,
    /// `--disallowedTools`: deny rules.
    #[serde(default)]
    pub disallowed_tools: Vec<String>,
    /// `--allowedTools`: allow rules.
    #[serde(default)]
    pub allowed_tools: Vec<String>,
    #[serde(default)]
    pub session_rules: SessionRules,
    /// Files read or edited so far, relative to the project root with `/`.
    #[serde(default)]
    pub touched_files: Vec<String>,
    /// The model's context window, in tokens (default 1,000,000).
    #[serde(default)]
    pub context_window: Option<u64>,
    /// Bytes per token for the listing budget (default 3).
    #[serde(default)]
    pub bytes_per_token: Option<u64>,
    /// `skillUsage` of `~/.claude.json`: which skills keep their description first when the
    /// listing is over budget.
    #[serde(default)]
    pub skill_usage: BTreeMap<String, SkillUsage>,
    /// The time `skill_usage` is weighed at, in milliseconds since the epoch; without it
    /// every recorded use counts as recent.
    #[serde(default)]
    pub now: Option<u64>,
}

/// A `skillOverrides` level, weakest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Override {
    On,
    /// Listed as `- name` only.
    NameOnly,
    /// Not listed; the user may still type it.
    UserInvocableOnly,
    /// Gone: not listed, and typing it says it is disabled.
    Off,
}

impl TurnContext {
    /// A switch that is on: `true`, a non-zero number, or a string other than ``, `0`,
    /// `false`, `no`, `off`.
    pub fn flag(&self, name: &str) -> bool {
        match self.flags.get(name) {
            Some(Value::Bool(b)) => *b,
            Some(Value::Number(n)) => n.as_f64().is_some_and(|v| v != 0.0),
            Some(Value::String(s)) => {
                !matches!(s.trim().to_ascii_lowercase().as_str(), "" | "0" | "false" | "no" | "off")
            }
            _ => false,
        }
    }
    pub(crate) fn flag_text(&self, name: &str) -> Option<String> {
        match self.flags.get(name)? {
            Value::String(s) => Some(s.clone()),
            Value::Bool(b) => Some(b.to_string()),
            Value::Number(n) => Some(n.to_string()),
            _ => None,
        }
    }
    /// A numeric setting or variable (`"2000"` as well as `2000`).
    pub(crate) fn flag_number(&self, name: &str) -> Option<f64> {
        match self.flags.get(name)? {
            Value::Number(n) => n.as_f64(),
            Value::String(s) => s.trim().parse().ok(),
            _ => None,
        }
    }
    pub fn context_window(&self) -> u64 {
        self.context_window.filter(|w| *w > 0).unwrap_or(DEFAULT_CONTEXT_WINDOW)
    }
    pub fn bytes_per_token(&self) -> u64 {
        self.bytes_per_token.filter(|b| *b > 0).unwrap_or(DEFAULT_BYTES_PER_TOKEN)
    }
    /// `CLAUDE_CODE_SIMPLE`: Bash, Edit and Read only, no listings.
    pub fn simple(&self) -> bool {
        self.flag("CLAUDE_CODE_SIMPLE")
    }
    /// Bundled skills and built-in prompt commands are off.
    pub(crate) fn no_bundled(&self) -> bool {
        self.flag("disableBundledSkills") || self.flag("CLAUDE_CODE_DISABLE_BUNDLED_SKILLS")
    }
    /// Whether Claude Code sends its attribution reminder (`Attribution for git commits
    /// and pull requests …`) with a turn: unless the settings leave both lines empty —
    /// `attribution` naming `commit` or `pr` (an absent one keeps its default line) with both
    /// `""`, or, without those, `includeCoAuthoredBy: false`.
    pub(crate) fn attribution_reminder(&self) -> bool {
        if let Some(Value::Object(attribution)) = self.flags.get("attribution") {
            let (commit, pr) = (attribution.get("commit"), attribution.get("pr"));
            if commit.is_some() || pr.is_some() {
                let empty = |line: Option<&Value>| matches!(line, Some(Value::String(s)) if s.is_empty());
                return !(empty(commit) && empty(pr));
            }
        }
        !matches!(self.flags.get("includeCoAuthoredBy"), Some(Value::Bool(false)))
    }
    /// The `skillOverrides` level of a skill.
    pub(crate) fn skill_override(&self, name: &str) -> Override {
        let Some(Value::Object(map)) = self.flags.get("skillOverrides") else { return Override::On };
        match map.get(name).and_then(Value::as_str) {
            Some("name-only") => Override::NameOnly,
            Some("user-invocable-only") => Override::UserInvocableOnly,
            Some("off") => Override::Off,
            _ => Override::On,
        }
    }
    /// A skill's usage score: `usageCount × max(0.5^(days/7), 0.1)`.
    pub(crate) fn usage_score(&self, name: &str) -> f64 {
        let Some(usage) = self.skill_usage.get(name) else { return 0.0 };
        let days = self.now.map_or(0.0, |now| ((now as f64 - usage.last_used_at) / 86_400_000.0).max(0.0));
        usage.usage_count * 0.5f64.powf(days / 7.0).max(0.1)
    }
}
