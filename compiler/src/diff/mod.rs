//! `capc diff`: what a change to the declarations changes in what Claude Code loads, read from
//! two locks (each a lock file, a folder resolved on the fly, or a git revision: `revision`).
//!
//! Entries are matched by identity (a command by name and file, a server by name, scope and
//! file, a permission rule by its text, behavior and file, …) and compared field by field; a
//! hook or rule has no identity beyond its text, so it is only added or removed. Names are
//! compared by what they reach: the command table is rebuilt from each lock (its static
//! entries, then the built-ins of `crate::builtins`) and every name, display name and alias
//! looked up in both, as Claude Code looks them up (`crate::names::lookup`'s rule: an exact
//! name first, then the first display name or alias). Each change is weighed as it is found:
//! the ones that give Claude Code more power than before are **escalations** (`escalate.rs`).
//!
//! The report is plain data (`Report`), rendered by `render` for people, Markdown and JSON
//! (whose schema is derived from these types: `schema/capc-diff.schema.json`).

mod compare;
mod escalate;
mod pairing;
pub mod render;
mod reroutes;
pub mod revision;
mod runs;
pub mod text;

use crate::model::Lock;
use schemars::JsonSchema;
use serde::Serialize;

/// The version of `capc diff --format json` this build writes.
pub(crate) const DIFF_VERSION: u32 = 1;

/// What `capc diff` found between two locks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Report {
    /// Format version; `1`.
    pub version: u32,
    /// What was compared: the older side.
    pub old: Side,
    /// The newer side.
    pub new: Side,
    /// Every change: first those of what a session in the folder loads, then those of each
    /// marketplace plugin (by `plugin`); each group by section (commands, agents, MCP servers,
    /// MCP tools, hooks, permission rules, plugins, instructions, pins, what runs, settings, in
    /// that order), then by subject and class.
    pub changes: Vec<Change>,
    pub summary: Summary,
}

/// One side of the comparison.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Side {
    /// As given on the command line (`HEAD`, `.`, `old/capabilities.lock`).
    pub arg: String,
    /// How it was read: `lock` (a lock file), `tree` (a folder resolved as `capc lock` would),
    /// `revision-tree` (the folder at a git revision, resolved from its sources).
    pub read_as: String,
    /// The git commit, for a revision.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    /// Errors `capc check` finds in a resolved tree (the diff still shows what resolves).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub errors: usize,
    /// Files of a resolved tree that Claude Code loads but its ignore files or capc.toml's
    /// `exclude` hide from `capc check` and `capc lock` (the diff reads them all the same).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hidden: Vec<String>,
    /// For a folder or revision holding a `capabilities.lock`: whether that lock is what `capc
    /// lock` writes from the sources beside it. The diff is computed from the sources either
    /// way; the lock is only its author's claim about them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub committed_lock: Option<LockClaim>,
}

/// What a folder's or revision's own `capabilities.lock` claims, against its sources.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct LockClaim {
    pub state: ClaimState,
    /// How many entries differ between the lock and its sources (for `stale`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub differences: usize,
}

/// Whether a committed lock matches its sources.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum ClaimState {
    /// The lock is what `capc lock` writes from the sources.
    Matches,
    /// It is not: it does not describe its own sources.
    Stale,
    /// This capc cannot read it (another format version, not a lock, not a regular file).
    Unreadable,
}

impl LockClaim {
    /// A sentence for reports, about the side `arg`; `None` when the lock matches.
    pub fn note(&self, arg: &str) -> Option<String> {
        match self.state {
            ClaimState::Matches => None,
            ClaimState::Stale => Some(format!(
                "the capabilities.lock of `{arg}` does not match its sources ({}); the diff is computed from the sources",
                crate::plural::count(self.differences, "difference")
            )),
            ClaimState::Unreadable => Some(format!(
                "the capabilities.lock of `{arg}` is not a lock this capc reads; the diff is computed from the sources"
            )),
        }
    }
}

/// One change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Change {
    pub section: Section,
    pub class: Class,
    /// What changed: `/review`, `github`, `allow Bash(*)`, `PreToolUse Bash: ./check.sh`,
    /// `lint@acme`, `mcp-server github: npx @modelcontextprotocol/server-github`.
    pub subject: String,
    /// For a change in what a marketplace of the folder lists: the plugin (`name@marketplace`)
    /// it is in, as installing the plugin from that marketplace gives it (`[[marketplace_plugin]]`);
    /// no session in the folder loads it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plugin: Option<String>,
    /// What kind of entry it is, briefly (`skill, project`; `stdio, project`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub what: Option<String>,
    /// Field by field, for `changed` and `rerouted`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fields: Vec<FieldChange>,
    /// The files that cause the change (the entry's file on each side).
    pub files: Vec<String>,
    /// Why the change gives Claude Code more power than before; empty when it does not.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub escalations: Vec<String>,
    /// For an added or changed instruction file whose text both sides hold: how its lines
    /// changed (an added file: its first lines), credentials masked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text_diff: Option<TextDiff>,
}

/// The lines of an instruction file that changed, as a unified diff without file headers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct TextDiff {
    /// At most 40 lines: `@@ -1,3 +1,4 @@` hunk headers, then each line of the hunk marked
    /// ` ` (unchanged), `-` (removed) or `+` (added), without its line ending.
    pub lines: Vec<String>,
    /// How many more added or removed lines follow the ones shown (`git diff -- PATH` shows
    /// them).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub more: usize,
}

impl Change {
    pub fn is_escalation(&self) -> bool {
        !self.escalations.is_empty()
    }

    /// Every credential in the change's text replaced by its `sha256:<hex>`: a lock written
    /// by hand or by an older capc may hold one (a pin's `https://user:TOKEN@host`), and a
    /// report is posted where the lock's readers may not be allowed to see it. A changed
    /// secret still shows as a change, since its hash changes.
    fn hide_secrets(&mut self) {
        let hide = |text: &mut String| {
            if let Some(hidden) = crate::secrets::redact_words(text) {
                *text = hidden;
            }
        };
        hide(&mut self.subject);
        self.plugin.iter_mut().for_each(hide);
        self.what.iter_mut().for_each(hide);
        self.files.iter_mut().for_each(hide);
        self.escalations.iter_mut().for_each(hide);
        for field in &mut self.fields {
            field.old.iter_mut().chain(field.new.iter_mut()).for_each(hide);
        }
    }
}

/// One field of a changed entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct FieldChange {
    pub field: String,
    /// The old value, as text; absent when the field was not set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub old: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub new: Option<String>,
}

/// The part of the lock a change is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Section {
    /// Skills and commands, and the names of the command table.
    Command,
    Agent,
    McpServer,
    /// What the lock's MCP servers offer (`[[mcp_tool]]`, recorded by `capc lock --connect`).
    McpTool,
    Hook,
    Permission,
    Plugin,
    /// The instruction files sent to the model (`[[instruction]]`).
    Instruction,
    /// The output styles a session can select (`[[output_style]]`): the selected one replaces
    /// (or joins) Claude Code's own instructions in every turn.
    OutputStyle,
    /// What the folder pulls in from outside (`[[pin]]`).
    Pin,
    /// What Claude Code may run (`[[run]]`): helpers, status lines, an agent's or skill's own
    /// servers and hooks, and the scripts, gates and pins of every row.
    Run,
    /// Settings that widen what Claude Code may do (`[[setting]]`): the permission mode,
    /// added directories, the sandbox, `env`.
    Setting,
    /// The policy switches in force and the declarations they remove (`[[policy]]`,
    /// `[[removed_by_policy]]`).
    Policy,
    /// Files Claude Code loads that ignore files or `exclude` hide from `capc check` and
    /// `capc lock` (the diff reads them regardless).
    HiddenFile,
}

impl Section {
    pub const ALL: [Section; 14] = [
        Section::Command,
        Section::Agent,
        Section::McpServer,
        Section::McpTool,
        Section::Hook,
        Section::Permission,
        Section::Plugin,
        Section::Instruction,
        Section::OutputStyle,
        Section::Pin,
        Section::Run,
        Section::Setting,
        Section::Policy,
        Section::HiddenFile,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Section::Command => "command",
            Section::Agent => "agent",
            Section::McpServer => "mcp-server",
            Section::McpTool => "mcp-tool",
            Section::Hook => "hook",
            Section::Permission => "permission",
            Section::Plugin => "plugin",
            Section::Instruction => "instruction",
            Section::OutputStyle => "output-style",
            Section::Pin => "pin",
            Section::Run => "run",
            Section::Setting => "setting",
            Section::Policy => "policy",
            Section::HiddenFile => "hidden-file",
        }
    }

    /// The heading of the section in reports.
    pub fn title(self) -> &'static str {
        match self {
            Section::Command => "Commands and skills",
            Section::Agent => "Agents",
            Section::McpServer => "MCP servers",
            Section::McpTool => "MCP tools: what each server offers",
            Section::Hook => "Hooks",
            Section::Permission => "Permission rules",
            Section::Plugin => "Plugins",
            Section::Instruction => "Instructions: what the model is told",
            Section::OutputStyle => "Output styles: what replaces Claude Code's instructions",
            Section::Pin => "Pins: what is pulled in from outside",
            Section::Run => "What runs: commands Claude Code may start",
            Section::Setting => "Settings that widen what Claude Code may do",
            Section::Policy => "Policy switches and what they remove",
            Section::HiddenFile => "Hidden by ignore files or `exclude`",
        }
    }
}

/// What kind of change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Class {
    Added,
    Removed,
    /// The same entry with other values.
    Changed,
    /// A name now reaches a different entry (shadowing gained or lost, an alias or display
    /// name captured).
    Rerouted,
}

impl Class {
    pub fn as_str(self) -> &'static str {
        match self {
            Class::Added => "added",
            Class::Removed => "removed",
            Class::Changed => "changed",
            Class::Rerouted => "rerouted",
        }
    }
}

/// Counts by class.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Summary {
    pub added: usize,
    pub removed: usize,
    pub changed: usize,
    pub rerouted: usize,
    /// Changes that are escalations (of any class).
    pub escalations: usize,
}

/// What `--fail-on` can name: a class, `escalation`, or `any` change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailOn {
    Class(Class),
    Escalation,
    Any,
}

impl FailOn {
    /// Reads `added`, `removed`, `changed`, `rerouted`, `escalation` or `any`.
    pub fn parse(word: &str) -> Option<FailOn> {
        Some(match word.trim() {
            "added" => FailOn::Class(Class::Added),
            "removed" => FailOn::Class(Class::Removed),
            "changed" => FailOn::Class(Class::Changed),
            "rerouted" => FailOn::Class(Class::Rerouted),
            "escalation" | "escalations" => FailOn::Escalation,
            "any" => FailOn::Any,
            _ => return None,
        })
    }
}

impl Report {
    /// Whether a change of a class in `fail_on` was found.
    pub fn fails(&self, fail_on: &[FailOn]) -> bool {
        self.changes.iter().any(|c| {
            fail_on.iter().any(|f| match f {
                FailOn::Class(class) => c.class == *class,
                FailOn::Escalation => c.is_escalation(),
                FailOn::Any => true,
            })
        })
    }

    pub fn escalations(&self) -> impl Iterator<Item = &Change> {
        self.changes.iter().filter(|c| c.is_escalation())
    }
}

/// Compares two locks.
pub fn diff(old: &Lock, new: &Lock, old_side: Side, new_side: Side) -> Report {
    let mut changes = compare::changes(old, new);
    changes.extend(hidden_changes(&old_side, &new_side));
    changes.iter_mut().for_each(Change::hide_secrets);
    // What a session loads first, then each marketplace plugin's changes together, the entry
    // itself first.
    let key = |c: &Change| {
        let entry_last = c.plugin.is_some() && c.section != Section::Plugin;
        (c.plugin.clone(), entry_last, c.section, c.subject.clone(), c.class, c.files.clone())
    };
    changes.sort_by_cached_key(key);
    let mut summary = Summary::default();
    for c in &changes {
        match c.class {
            Class::Added => summary.added += 1,
            Class::Removed => summary.removed += 1,
            Class::Changed => summary.changed += 1,
            Class::Rerouted => summary.rerouted += 1,
        }
        if c.is_escalation() {
            summary.escalations += 1;
        }
    }
    Report { version: DIFF_VERSION, old: old_side, new: new_side, changes, summary }
}

/// Compares two sides as `revision::load` read them: [`diff`], then each added or changed
/// instruction file's text diff (`text`).
pub fn diff_loaded(old: revision::ReadSide, new: revision::ReadSide) -> Report {
    let mut report = diff(&old.lock, &new.lock, old.side, new.side);
    text::attach(&mut report, &old.texts, &new.texts);
    report
}

/// Files newly hidden by the new side's ignore files or `exclude` (an escalation: the change
/// hides from `capc check` and `capc lock` what Claude Code loads), and files no longer hidden.
fn hidden_changes(old: &Side, new: &Side) -> Vec<Change> {
    let change = |class: Class, path: &String, escalations: Vec<String>| Change {
        section: Section::HiddenFile,
        class,
        subject: path.clone(),
        what: Some("hidden from capc check and capc lock".to_string()),
        fields: Vec::new(),
        files: vec![path.clone()],
        escalations,
        plugin: None,
        text_diff: None,
    };
    let newly = new.hidden.iter().filter(|p| !old.hidden.contains(p)).map(|p| {
        let why =
            "a change to ignore files or capc.toml's `exclude` hides this file from `capc check` and `capc lock`, \
                   yet Claude Code loads it";
        change(Class::Added, p, vec![why.to_string()])
    });
    let no_longer =
        old.hidden.iter().filter(|p| !new.hidden.contains(p)).map(|p| change(Class::Removed, p, Vec::new()));
    newly.chain(no_longer).collect()
}

/// The JSON Schema of `capc diff --format json`, as committed in `schema/capc-diff.schema.json`.
pub fn report_schema() -> String {
    let mut root = schemars::schema_for!(Report);
    let meta = root.schema.metadata();
    meta.id = Some(format!("urn:capc:diff:v{DIFF_VERSION}"));
    meta.title = Some(format!("capc diff --format json, version {DIFF_VERSION}"));
    meta.description = Some(
        "What changes between two capabilities.lock files (or folders, or git revisions): added, removed, \
         changed and rerouted entries, each with its files and, for escalations, why."
            .to_string(),
    );
    if let Some(schemars::schema::Schema::Object(version)) =
        root.schema.object.as_mut().and_then(|object| object.properties.get_mut("version"))
    {
        version.const_value = Some(DIFF_VERSION.into());
    }
    let text =
        serde_json::to_string_pretty(&root).unwrap_or_else(|e| format!("\"capc could not write the schema: {e}\""));
    format!("{text}\n")
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Hook, McpServer, Origin, Ref, Scope};

    fn side(arg: &str) -> Side {
        Side {
            arg: arg.to_string(),
            read_as: "lock".to_string(),
            commit: None,
            errors: 0,
            hidden: Vec::new(),
            committed_lock: None,
        }
    }

    fn empty() -> Lock {
        crate::lock::resolve::empty_lock()
    }

    fn server(scope: Scope, path: &str, command: &str) -> McpServer {
        McpServer {
            name: "db".to_string(),
            normalized: "db".to_string(),
            scope,
            path: path.to_string(),
            command: Some(command.to_string()),
            ..McpServer::default()
        }
    }

    #[test]
    fn a_server_that_takes_a_name_reroutes_it_and_escalates() {
        let mut old = empty();
        old.mcp_servers = vec![server(Scope::Project, ".mcp.json", "db-mcp")];
        let mut new = empty();
        let mut hidden = server(Scope::Project, ".mcp.json", "db-mcp");
        hidden.shadowed_by = Some(Box::new(Ref {
            name: "db".to_string(),
            origin: Origin::Mcp,
            scope: Scope::Local,
            path: Some("~/.claude.json".to_string()),
            rule: "mcp-scope-order".to_string(),
        }));
        new.mcp_servers = vec![server(Scope::Local, "~/.claude.json", "evil-mcp"), hidden];
        let report = diff(&old, &new, side("old"), side("new"));
        let rerouted: Vec<&Change> = report.changes.iter().filter(|c| c.class == Class::Rerouted).collect();
        assert_eq!(rerouted.len(), 1, "{report:#?}");
        assert_eq!(rerouted[0].section, Section::McpServer);
        assert_eq!(rerouted[0].files, ["~/.claude.json", ".mcp.json"]);
        assert!(rerouted[0].escalations[0].contains("now connects to the local server"), "{:?}", rerouted[0]);
        // The shadowing itself is not a field change of the hidden entry.
        assert!(!report.changes.iter().any(|c| c.class == Class::Changed), "{report:#?}");
    }

    #[test]
    fn a_changed_hook_is_one_removed_and_one_added() {
        let hook = |run: &str| Hook {
            event: "PreToolUse".to_string(),
            matcher: Some("Bash".to_string()),
            kind: "command".to_string(),
            run: Some(run.to_string()),
            path: ".claude/settings.json".to_string(),
            ..Hook::default()
        };
        let (mut old, mut new) = (empty(), empty());
        old.hooks = vec![hook("./guard.sh")];
        new.hooks = vec![hook("./guard.sh --strict")];
        let report = diff(&old, &new, side("old"), side("new"));
        let classes: Vec<(Class, bool)> = report.changes.iter().map(|c| (c.class, c.is_escalation())).collect();
        assert_eq!(classes, [(Class::Removed, false), (Class::Added, true)]);
        assert!(report.fails(&[FailOn::Escalation]) && !report.fails(&[FailOn::Class(Class::Changed)]));
    }

    #[test]
    fn facts_an_older_lock_did_not_record_are_no_change_while_their_file_is_unchanged() {
        use crate::model::{Command, Pin, PinOf, Source};
        let source = |path: &str| Source { path: path.to_string(), kind: "skill".into(), sha256: "ab".repeat(32) };
        let mut old = empty();
        old.sources = vec![source(".claude/skills/status/SKILL.md"), source(".mcp.json")];
        old.commands = vec![Command {
            name: "status".to_string(),
            path: ".claude/skills/status/SKILL.md".to_string(),
            ..Command::default()
        }];
        let mut new = old.clone();
        new.commands[0].shell_injections = thin_vec::thin_vec!["git status".to_string()];
        new.pins = vec![Pin {
            of: PinOf::McpServer,
            name: "github".to_string(),
            path: ".mcp.json".to_string(),
            via: "npx".to_string(),
            package: "@modelcontextprotocol/server-github".to_string(),
            exact: None,
            requested: None,
        }];
        let report = diff(&old, &new, side("old"), side("new"));
        assert!(report.changes.is_empty(), "{report:#?}");
        // Once the file changes, the injection is news.
        new.sources[0].sha256 = "cd".repeat(32);
        let report = diff(&old, &new, side("old"), side("new"));
        assert!(report.changes[0].escalations.iter().any(|e| e.contains("new `!` injection")), "{report:#?}");
    }

    #[test]
    fn identical_locks_have_no_changes() {
        let lock = empty();
        let report = diff(&lock, &lock, side("a"), side("b"));
        assert!(report.changes.is_empty());
        assert!(!report.fails(&[FailOn::Any]));
    }
}
