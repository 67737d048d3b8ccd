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

/// What Claude Code 2.1.332 registers for a bundled skill, read from its bundle: the text the
/// Skill listing shows, and whether the model may invoke it (`disableModelInvocation`). Bundled
/// skills not listed here (their description lives in a variable capc could not pin down) show
/// their name alone and are model-invocable. `verify` is model-invocable only under a condition
/// of Claude Code's own; capc lists it.
#[derive(Debug, Clone, Copy)]
pub struct BundledSkill {
    pub name: &'static str,
    pub description: Option<&'static str>,
    pub when_to_use: Option<&'static str>,
    pub model_invocable: bool,
}

/// Sorted by name.
pub const BUNDLED_SKILLS: &[BundledSkill] = &[
    BundledSkill {
        name: "batch",
        description: Some(
            r#"Research and plan a large-scale change, then execute it in parallel across 5–30 isolated worktree agents that each open a PR."#,
        ),
        when_to_use: Some(
            r#"Use when the user wants to make a sweeping, mechanical change across many files (migrations, refactors, bulk renames) that can be decomposed into independent parallel units."#,
        ),
        model_invocable: false,
    },
    BundledSkill {
        name: "dataviz",
        description: Some(
            r#"Use this skill whenever you are about to create ANY chart, graph, plot, dashboard, or data visualization, in ANY output medium — an HTML or React artifact, inline SVG, plotting code in any library (matplotlib, plotly, d3, Recharts, …), an image/PNG you will render and upload, or a chart shared into Slack. Read it BEFORE writing the first line of chart code, choosing chart colors, building a stat tile / meter / KPI row, or laying out a dashboard. When the destination is a first-party document connector (host-designated, never self-described) that renders live charts, hand it the rows (inline, or as an uploaded data file the chart cites) rather than a rendered PNG/SVG — a picture of a chart loses hover, data inspection and per-value comments. Produces visualizations that read as one system — elegant, accessible, consistent in light and dark — using a brand-neutral placeholder palette you swap for your own. Teaches a design-system-agnostic method: a form heuristic, a color formula with a runnable validator, mark specs, and interaction rules. A validated default palette is documented in `references/palette.md` — swap that file's values for your brand's. Triggers on: "chart", "graph", "plot", "data viz", "visualization", "dashboard", "analytics", "visualize data", "categorical colors", "sequential / diverging palette", "stat tile", "sparkline", "heatmap", "legend", "axis", "tooltip", "chart colors", "color by series"."#,
        ),
        when_to_use: None,
        model_invocable: true,
    },
    BundledSkill {
        name: "debug",
        description: Some(r#"Enable debug logging for this session and help diagnose issues"#),
        when_to_use: None,
        model_invocable: false,
    },
    BundledSkill { name: "design-sync", description: None, when_to_use: None, model_invocable: false },
    BundledSkill {
        name: "doctor",
        description: Some(
            r#"Health-check the user's Claude Code setup and fix issues: diagnose installation health — what the `claude doctor` terminal diagnostics cover — from local data (duplicate or leftover installs, PATH, unparseable settings files, broken or colliding agent definitions, skills whose frontmatter fails to parse); find unused skills, MCP servers, and plugins versus their context cost and disable dead weight; deduplicate local CLAUDE.md files against checked-in ones; trim checked-in CLAUDE.md files by cutting content a session could derive from the codebase (directory layouts, tech-stack lists, architecture overviews) while keeping gotchas, rationale, and non-standard conventions; migrate always-loaded CLAUDE.md guidance into lazy skills and nested CLAUDE.md files; flag slow hooks and context-heavy extensions; check the installed version is current; make auto mode the default permission mode; and pre-approve frequently denied read-only commands. Use when the user asks for a doctor run, checkup, audit, tune-up, or cleanup of their Claude Code setup or configuration."#,
        ),
        when_to_use: None,
        model_invocable: true,
    },
    BundledSkill {
        name: "fewer-permission-prompts",
        description: Some(
            r#"Scan your transcripts for common read-only Bash and MCP tool calls, then add a prioritized allowlist to project .claude/settings.json to reduce permission prompts."#,
        ),
        when_to_use: None,
        model_invocable: true,
    },
    BundledSkill {
        name: "loop",
        description: Some(
            r#"Run a prompt or slash command on a recurring interval (e.g. /loop 5m /foo). Omit the interval to let the model self-pace."#,
        ),
        when_to_use: Some(
            r#"When the user wants to set up a recurring task, poll for status, or run something repeatedly on an interval (e.g. "check the deploy every 5 minutes", "keep running /babysit-prs"). Do NOT invoke for one-off tasks."#,
        ),
        model_invocable: true,
    },
    BundledSkill { name: "run-skill-generator", description: None, when_to_use: None, model_invocable: false },
    BundledSkill {
        name: "simplify",
        description: Some(
            r#"Review the changed code for reuse, simplification, efficiency, and altitude cleanups, then apply the fixes. Quality only — it does not hunt for bugs; use /code-review for that."#,
        ),
        when_to_use: None,
        model_invocable: true,
    },
    BundledSkill {
        name: "verify",
        description: Some(
            r#"Verify that a code change actually does what it's supposed to by exercising it end-to-end and observing behavior — drive the affected flow, not just tests or typecheck. Run before committing nontrivial changes; bootstraps this repo's project verify skill if none exists yet. Don't invoke it on a diff that only touches tests, docs, or other code with no runtime surface to drive (a change to product source always has one) — there's nothing to observe."#,
        ),
        when_to_use: None,
        model_invocable: true,
    },
];

/// A bundled skill's details, when capc knows them.
pub fn bundled_skill(name: &str) -> Option<&'static BundledSkill> {
    BUNDLED_SKILLS.binary_search_by(|b| b.name.cmp(name)).ok().map(|i| &BUNDLED_SKILLS[i])
}

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
    pub origin: crate::model::Origin,
    /// `prompt` (bundled), `local` or `local-jsx`.
    pub command_type: &'static str,
    pub aliases: &'static [&'static str],
}

/// The built-ins in command-table order (bundled skills, bundled workflows, then commands;
/// Claude Code 2.1.332), built once.
pub fn table() -> &'static [TableEntry] {
    use crate::model::Origin;
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

/// Marketplace names reserved for Anthropic (v2.1.240 docs, plus three that
/// `claude plugin validate` 2.1.332 also exempts).
pub const RESERVED_MARKETPLACES: &[&str] = &[
    "anthropic-plugin-directory",
    "claude-plugin-directory",
    "claude-tag-plugins",
    "claude-code-marketplace",
    "claude-code-plugins",
    "claude-plugins-official",
    "claude-plugins-community",
    "claude-community",
    "anthropic-marketplace",
    "anthropic-plugins",
    "agent-skills",
    "anthropic-agent-skills",
    "knowledge-work-plugins",
    "life-sciences",
    "claude-for-legal",
    "claude-for-financial-services",
    "financial-services-plugins",
    "first-party-plugins",
    "healthcare",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bundled_skill_details_are_sorted_and_name_bundled_skills() {
        assert!(BUNDLED_SKILLS.windows(2).all(|w| w[0].name < w[1].name));
        for b in BUNDLED_SKILLS {
            assert!(
                BUILTIN_COMMANDS.iter().any(|(n, k)| *n == b.name && *k == BuiltinKind::BundledSkill),
                "{} is not a bundled skill",
                b.name
            );
        }
        assert_eq!(bundled_skill("batch").map(|b| b.model_invocable), Some(false));
        assert!(bundled_skill("simplify").is_some_and(|b| b.model_invocable && b.description.is_some()));
    }

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
