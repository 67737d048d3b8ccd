//! Claude Code's built-in slash commands, the names a user's skill or command can collide
//! with. Taken from the v2.1.240 documentation (`/en/commands`, FORMATS §7.1); the resolver
//! of the lock issue places them in the command table.

/// What kind of built-in a name is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BuiltinKind {
    /// A command implemented in the client (`/clear`, `/model`).
    Command,
    /// A bundled skill: a prompt command a local skill of the same name replaces (but not
    /// its aliases).
    BundledSkill,
    /// A bundled workflow (`/deep-research`).
    BundledWorkflow,
}

/// The Claude Code version these tables describe.
pub const BUILTINS_VERSION: &str = "2.1.240";

/// Built-in commands, sorted by name.
pub const BUILTIN_COMMANDS: &[(&str, BuiltinKind)] = {
    use BuiltinKind::{BundledSkill as S, BundledWorkflow as W, Command as C};
    &[
        ("add-dir", C),
        ("advisor", C),
        ("agents", C),
        ("artifacts", C),
        ("autocompact", C),
        ("autofix-pr", C),
        ("background", C),
        ("batch", S),
        ("branch", C),
        ("btw", C),
        ("bug", C),
        ("cd", C),
        ("chrome", C),
        ("claude-api", S),
        ("clear", C),
        ("code-review", S),
        ("color", C),
        ("compact", C),
        ("config", C),
        ("context", C),
        ("copy", C),
        ("dataviz", S),
        ("debug", S),
        ("deep-research", W),
        ("design-login", C),
        ("design-sync", S),
        ("desktop", C),
        ("diff", C),
        ("doctor", S),
        ("effort", C),
        ("exit", C),
        ("export", C),
        ("fast", C),
        ("feedback", C),
        ("fewer-permission-prompts", S),
        ("focus", C),
        ("fork", C),
        ("goal", C),
        ("heapdump", C),
        ("help", C),
        ("hooks", C),
        ("ide", C),
        ("import", C),
        ("init", C),
        ("insights", C),
        ("install-github-app", C),
        ("install-slack-app", C),
        ("keybindings", C),
        ("list-agents", C),
        ("login", C),
        ("logout", C),
        ("loop", S),
        ("mcp", C),
        ("memory", C),
        ("mobile", C),
        ("model", C),
        ("passes", C),
        ("permissions", C),
        ("plan", C),
        ("plugin", C),
        ("powerup", C),
        ("pr-comments", C),
        ("privacy-settings", C),
        ("radio", C),
        ("recap", C),
        ("release-notes", C),
        ("reload-plugins", C),
        ("reload-skills", C),
        ("remote-control", C),
        ("remote-env", C),
        ("rename", C),
        ("resume", C),
        ("rewind", C),
        ("run", S),
        ("run-skill-generator", S),
        ("sandbox", C),
        ("schedule", C),
        ("scroll-speed", C),
        ("security-review", C),
        ("setup-bedrock", C),
        ("setup-vertex", C),
        ("simplify", S),
        ("skills", C),
        ("status", C),
        ("statusline", C),
        ("stickers", C),
        ("stop", C),
        ("subtask", C),
        ("tasks", C),
        ("team-onboarding", C),
        ("teleport", C),
        ("terminal-setup", C),
        ("theme", C),
        ("tui", C),
        ("ultraplan", C),
        ("ultrareview", C),
        ("upgrade", C),
        ("usage", C),
        ("usage-credits", C),
        ("verify", S),
        ("vim", C),
        ("voice", C),
        ("web-setup", C),
        ("workflows", C),
    ]
};

/// Aliases of built-in commands: (alias, command), sorted by alias. The docs list `review`,
/// `cost` and `stats` both as commands and as aliases (of `code-review` and `usage`); they are
/// aliases here, as "`/review` still runs the bundled skill" says (FORMATS §1.7, §7.1).
pub const BUILTIN_ALIASES: &[(&str, &str)] = &[
    ("allowed-tools", "permissions"),
    ("android", "mobile"),
    ("app", "desktop"),
    ("bg", "background"),
    ("checkpoint", "rewind"),
    ("checkup", "doctor"),
    ("continue", "resume"),
    ("cost", "usage"),
    ("ios", "mobile"),
    ("new", "clear"),
    ("proactive", "loop"),
    ("quit", "exit"),
    ("rc", "remote-control"),
    ("reset", "clear"),
    ("review", "code-review"),
    ("routines", "schedule"),
    ("settings", "config"),
    ("share", "bug"),
    ("stats", "usage"),
    ("undo", "rewind"),
];

/// Built-in commands of type `local` (the others render UI: `local-jsx`). SEMANTICS §2.8
/// names these as the bridge-safe local commands.
pub const LOCAL_COMMANDS: &[&str] = &["clear", "compact", "context", "cost", "files", "release-notes", "summary"];

/// Claude Code's own subagents, which a user or project agent of the same name replaces.
pub const BUILTIN_AGENTS: &[&str] = &["Explore", "Plan", "general-purpose"];

/// A built-in's row in the command table.
#[derive(Debug, Clone, Copy)]
pub struct TableEntry {
    pub name: &'static str,
    pub kind: BuiltinKind,
    pub origin: crate::lock::model::Origin,
    /// `prompt` (bundled), `local` or `local-jsx`.
    pub command_type: &'static str,
    pub aliases: &'static [&'static str],
}

/// The built-ins in command-table order (bundled skills, bundled workflows, then commands;
/// Claude Code 2.1.332), built once.
pub fn table() -> &'static [TableEntry] {
    use crate::lock::model::Origin;
    static TABLE: std::sync::OnceLock<Vec<TableEntry>> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        let mut rows = Vec::with_capacity(BUILTIN_COMMANDS.len());
        for group in [BuiltinKind::BundledSkill, BuiltinKind::BundledWorkflow, BuiltinKind::Command] {
            for &(name, kind) in BUILTIN_COMMANDS.iter().filter(|(_, k)| *k == group) {
                let (origin, command_type) = match kind {
                    BuiltinKind::Command if LOCAL_COMMANDS.contains(&name) => (Origin::Builtin, "local"),
                    BuiltinKind::Command => (Origin::Builtin, "local-jsx"),
                    _ => (Origin::Bundled, "prompt"),
                };
                let aliases: Vec<&'static str> =
                    BUILTIN_ALIASES.iter().filter(|(_, c)| *c == name).map(|(a, _)| *a).collect();
                rows.push(TableEntry { name, kind, origin, command_type, aliases: Vec::leak(aliases) });
            }
        }
        rows
    })
}

/// Whether `name` is a built-in command's (not a bundled skill's). The table is sorted.
pub fn is_command(name: &str) -> bool {
    BUILTIN_COMMANDS
        .binary_search_by(|(n, _)| (*n).cmp(name))
        .is_ok_and(|i| BUILTIN_COMMANDS[i].1 == BuiltinKind::Command)
}

/// Built-ins of older versions, still worth treating as reserved (2026-01 docs).
pub const RETIRED_COMMANDS: &[&str] = &["bashes", "output-style", "todos"];

/// The built-in a name refers to, following aliases.
pub fn builtin(name: &str) -> Option<(&'static str, BuiltinKind)> {
    let target = BUILTIN_ALIASES.iter().find(|(alias, _)| *alias == name).map_or(name, |(_, command)| *command);
    BUILTIN_COMMANDS.iter().find(|(n, _)| *n == target).copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_are_sorted_unique_and_aliases_resolve() {
        for pair in BUILTIN_COMMANDS.windows(2) {
            assert!(pair[0].0 < pair[1].0, "sort BUILTIN_COMMANDS: `{}` before `{}`", pair[0].0, pair[1].0);
        }
        for pair in BUILTIN_ALIASES.windows(2) {
            assert!(pair[0].0 < pair[1].0, "sort BUILTIN_ALIASES: `{}` before `{}`", pair[0].0, pair[1].0);
        }
        for (alias, command) in BUILTIN_ALIASES {
            assert!(BUILTIN_COMMANDS.iter().any(|(n, _)| n == command), "alias `{alias}` names no command `{command}`");
            assert!(!BUILTIN_COMMANDS.iter().any(|(n, _)| n == alias), "alias `{alias}` is also a command");
        }
    }

    #[test]
    fn lookups() {
        assert_eq!(builtin("review"), Some(("code-review", BuiltinKind::BundledSkill)));
        assert_eq!(builtin("clear"), Some(("clear", BuiltinKind::Command)));
        assert_eq!(builtin("checkup"), Some(("doctor", BuiltinKind::BundledSkill)));
        assert_eq!(builtin("deep-research"), Some(("deep-research", BuiltinKind::BundledWorkflow)));
        assert_eq!(builtin("deploy"), None);
    }
}
