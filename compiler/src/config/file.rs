//! capc.toml as written ([`File`]), the types serde reads it into, and its JSON Schema.

use super::{Level, ALL};
use crate::rules;
use schemars::JsonSchema;
use serde::Deserialize;
use std::collections::BTreeMap;

/// The names a configuration file may have, in the order they are looked for.
pub const FILE_NAMES: [&str; 2] = ["capc.toml", ".capc.toml"];

/// A configuration file larger than this is refused.
pub(crate) const MAX_CONFIG_BYTES: u64 = 1024 * 1024;

/// capc.toml as written.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct File {
    /// The Claude Code version whose behaviour the rules follow. capc follows exactly one
    /// version; any other value is an error, so a repository that pins a version is
    /// told when its capc no longer matches it.
    pub claude_code: Option<String>,
    /// Only these rules report (rule ids, as `capc rules` lists them). Without it, every rule
    /// reports.
    pub select: Option<Vec<String>>,
    /// These rules never report, even when `select` names them.
    #[serde(default)]
    pub ignore: Vec<String>,
    /// The severity of a rule: `"error"`, `"warning"`, `"info"`, or `"off"` to turn it off.
    #[serde(default)]
    pub rules: BTreeMap<String, Level>,
    /// Files and folders capc never reads, in gitignore syntax, relative to this file's folder
    /// (`"backups/"`, `"/scratch/**/*.json"`).
    #[serde(default)]
    pub exclude: Vec<String>,
    /// Rules whose findings are suppressed in the files a pattern matches (gitignore syntax,
    /// relative to this file's folder): `"backups/**" = ["unknown-field"]`; `"ALL"` stands for
    /// every rule, as in ruff.
    #[serde(default)]
    pub(crate) per_path_ignores: BTreeMap<String, Vec<String>>,
    /// Leave out what `.gitignore` (inside a git repository, with git's excludes) and `.ignore`
    /// files name (default `true`; `--no-ignore` turns it off for one run).
    pub respect_ignore_files: Option<bool>,
    /// A user scope: a home folder whose `.claude/` holds skills, commands, agents and settings
    /// (`--user-dir`).
    pub user_dir: Option<String>,
    /// A managed scope: the folder of `managed-settings.json` (`--managed-dir`).
    pub managed_dir: Option<String>,
    /// Folders whose `.claude/` skills, commands and agents are read, as `claude --add-dir`
    /// reads them (`--add-dir`).
    pub add_dir: Option<Vec<String>>,
    /// Plugin folders loaded as `claude --plugin-dir` loads them, in order (`--plugin-dir`).
    pub plugin_dir: Option<Vec<String>>,
    /// A ceiling on the tokens the folder adds to every turn before the conversation: the Skill
    /// listing as sent and the MCP tools sent up front, as `capc ls --budget` sums them for each
    /// context window of `[listing-budget]` (rule `max-context-tokens`). No ceiling without it.
    pub max_context_tokens: Option<u64>,
    /// The Skill listing's budget (rule `listing-budget`, `capc ls --budget`).
    pub listing_budget: Option<ListingBudgetFile>,
}

/// `[listing-budget]` as written.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct ListingBudgetFile {
    /// The context windows the team's sessions run with, each a number of tokens or
    /// `{ tokens = N, bytes-per-token = B }` (Claude Code counts 3 bytes per token for its
    /// current models, 4 for older ones). Default: `[1000000]`, the window of Claude Code's default model.
    pub context_windows: Vec<WindowFile>,
}

/// One context window in `[listing-budget]`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum WindowFile {
    Tokens(u64),
    #[serde(rename_all = "kebab-case")]
    Table {
        tokens: u64,
        bytes_per_token: Option<u64>,
    },
}

/// A context window the Skill listing is measured for: the budget is `tokens` ×
/// `bytes_per_token` × `skillListingBudgetFraction` characters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ContextWindow {
    pub tokens: u64,
    pub bytes_per_token: u64,
}

/// The context window of Claude Code's default model, and the bytes per token its
/// listing budget counts for it.
pub const DEFAULT_CONTEXT_WINDOW: ContextWindow = ContextWindow { tokens: 1_000_000, bytes_per_token: 3 };

/// The JSON Schema of capc.toml (`schema/capc.toml.schema.json`), from the [`File`] type.
pub fn schema() -> String {
    let mut root = schemars::schema_for!(File);
    let meta = root.schema.metadata();
    meta.id = Some("urn:capc:capc.toml".to_string());
    meta.title = Some("capc.toml".to_string());
    meta.description = Some(
        "The configuration of capc, the capability compiler for Claude Code: which rules report, \
         at which severity, which files are read, and the scopes of a check."
            .to_string(),
    );
    // Rule ids are the registry's: listing them lets editors complete and check them.
    let ids: Vec<serde_json::Value> = rules::RULES.iter().map(|r| r.id.into()).collect();
    let text = serde_json::to_string_pretty(&root).unwrap_or_default();
    let mut value: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
    let rule_id = serde_json::json!({ "type": "string", "enum": ids });
    if let Some(properties) = value.pointer_mut("/properties") {
        for key in ["select", "ignore"] {
            if let Some(items) = properties.pointer_mut(&format!("/{key}/items")) {
                *items = rule_id.clone();
            }
        }
        if let Some(rules) = properties.pointer_mut("/rules") {
            rules["propertyNames"] = rule_id.clone();
        }
        if let Some(map) = properties.pointer_mut("/per-path-ignores/additionalProperties/items") {
            let mut ids = ids.clone();
            ids.push(ALL.into());
            *map = serde_json::json!({ "type": "string", "enum": ids });
        }
        if let Some(version) = properties.pointer_mut("/claude-code") {
            version["enum"] = serde_json::json!([crate::model::CLAUDE_CODE_VERSION]);
        }
    }
    let mut out = serde_json::to_string_pretty(&value).unwrap_or_default();
    out.push('\n');
    out
}
