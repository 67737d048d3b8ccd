//! Claude Code's own slash commands, bundled skills and workflows, and built-in agents: the
//! names a user's skill or command can collide with, and the rows that complete the command
//! table. Read from the Claude Code 2.1.332 bundle (its built-in command list, its bundled-skill
//! registrations) and checked with `claude -p` (the `system/init` message lists the commands a
//! headless session has); the public docs (`/en/commands`) name most of them.

/// What kind of built-in a name is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BuiltinKind {
    /// A command implemented in the client (`/clear`, `/model`), or one of its prompt commands
    /// (`/init`).
    Command,
    /// A bundled skill: a prompt command a local skill of the same name replaces (but not
    /// its aliases).
    BundledSkill,
    /// A bundled workflow (`/deep-research`); in the table just after the skill folders'
    /// commands, before plugin commands.
    BundledWorkflow,
    /// A skill of a plugin built into Claude Code (`/plugin-authoring`); after bundled skills.
    PluginSkill,
}

/// Who may use a built-in, by how they sign in (`availability` in Claude Code).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Availability {
    Everyone,
    /// claude.ai subscribers only.
    ClaudeAi,
    /// claude.ai subscribers and Anthropic Console (API key) users, not third-party providers.
    FirstParty,
}

/// One built-in of the command table.
#[derive(Debug, Clone, Copy)]
pub struct Builtin {
    pub name: &'static str,
    pub aliases: &'static [&'static str],
    pub kind: BuiltinKind,
    /// `prompt`, `local` or `local-jsx`: how it runs in a headless session where it has one,
    /// else interactively.
    pub command_type: &'static str,
    /// In the interactive CLI's table (from the bundle; gated-off commands are left out).
    pub interactive: bool,
    /// In a headless (`-p`, SDK) session's table (measured: `system/init`'s `slash_commands`).
    pub headless: bool,
    pub availability: Availability,
}

/// The Claude Code version these tables describe.
pub const BUILTINS_VERSION: &str = "2.1.332";

const fn entry(
    name: &'static str,
    aliases: &'static [&'static str],
    kind: BuiltinKind,
    command_type: &'static str,
    interactive: bool,
    headless: bool,
    availability: Availability,
) -> Builtin {
    Builtin { name, aliases, kind, command_type, interactive, headless, availability }
}

/// Every built-in, in Claude Code 2.1.332's table order within each kind (bundled workflows,
/// bundled skills in registration order, built-in plugin skills, then commands). Commands that
/// exist in an interactive and a headless variant are one row.
pub const BUILTINS: &[Builtin] = {
    use Availability::{ClaudeAi as CA, Everyone as E, FirstParty as FP};
    use BuiltinKind::{BundledSkill as S, BundledWorkflow as W, Command as C, PluginSkill as P};
    const I: bool = true;
    const N: bool = false;
    &[
        entry("deep-research", &[], W, "prompt", I, I, E),
        // Bundled skills, as a headless session registers them.
        entry("dataviz", &[], S, "prompt", I, I, E),
        entry("update-config", &[], S, "prompt", I, I, E),
        entry("verify", &[], S, "prompt", I, I, E),
        entry("debug", &[], S, "prompt", I, I, E),
        entry("code-review", &["review"], S, "prompt", I, I, E),
        entry("simplify", &[], S, "prompt", I, I, E),
        entry("batch", &[], S, "prompt", I, I, E),
        entry("fewer-permission-prompts", &[], S, "prompt", I, I, E),
        entry("doctor", &["checkup"], S, "prompt", I, I, E),
        entry("loop", &["proactive"], S, "prompt", I, I, E),
        entry("schedule", &["routines"], S, "prompt", I, I, CA),
        entry("claude-api", &[], S, "prompt", I, I, E),
        entry("keybindings-help", &[], S, "prompt", I, I, E),
        entry("workflow-authoring", &[], S, "prompt", I, I, E),
        entry("run", &[], S, "prompt", I, I, E),
        entry("run-skill-generator", &[], S, "prompt", I, I, E),
        entry("plugin-authoring", &[], P, "prompt", I, I, E),
        // Commands.
        entry("add-dir", &[], C, "local-jsx", I, N, E),
        entry("agents", &[], C, "local", I, I, E),
        entry("auto-mode-setup", &[], C, "local", I, I, E),
        entry("autocompact", &[], C, "local", I, I, E),
        entry("fork", &[], C, "local-jsx", I, N, E),
        entry("branch", &[], C, "local-jsx", I, N, E),
        entry("btw", &[], C, "local-jsx", I, N, E),
        entry("cd", &[], C, "local-jsx", I, N, E),
        entry("chrome", &[], C, "local-jsx", I, N, CA),
        entry("clear", &["reset", "new"], C, "local", I, I, E),
        entry("color", &[], C, "local", I, I, E),
        entry("compact", &[], C, "local", I, I, E),
        entry("config", &["settings"], C, "local", I, I, E),
        entry("output-style", &[], C, "local", I, I, E),
        entry("copy", &[], C, "local-jsx", I, N, E),
        entry("desktop", &["app"], C, "local-jsx", I, N, CA),
        entry("context", &[], C, "local", I, I, E),
        entry("diff", &[], C, "local-jsx", I, N, E),
        entry("background", &["bg"], C, "local-jsx", I, N, E),
        entry("effort", &[], C, "local", I, I, E),
        entry("exit", &["quit"], C, "local-jsx", I, N, E),
        entry("fast", &[], C, "local", I, I, E),
        entry("focus", &[], C, "local", I, I, E),
        entry("heapdump", &[], C, "local", I, I, E),
        entry("help", &[], C, "local-jsx", I, N, E),
        entry("ide", &[], C, "local-jsx", I, N, E),
        entry("init", &[], C, "prompt", I, I, E),
        entry("keybindings", &[], C, "local", I, N, E),
        entry("install-github-app", &[], C, "local-jsx", I, N, FP),
        entry("install-slack-app", &[], C, "local", I, N, CA),
        entry("mcp", &[], C, "local", I, I, E),
        entry("memory", &[], C, "local-jsx", I, N, E),
        entry("mobile", &["ios", "android"], C, "local-jsx", I, N, E),
        entry("model", &[], C, "local", I, I, E),
        entry("remote-env", &[], C, "local-jsx", I, N, FP),
        entry("__remote-workflow", &[], C, "local", N, I, E),
        entry("workflow-launch-exec", &[], C, "local", N, I, E),
        entry("plugin", &["plugins", "marketplace"], C, "local-jsx", I, N, E),
        entry("release-notes", &[], C, "local-jsx", I, N, E),
        entry("reload-plugins", &[], C, "local", I, I, E),
        entry("reload-skills", &[], C, "local", I, I, E),
        entry("rename", &["name"], C, "local", I, I, E),
        entry("resume", &["continue"], C, "local-jsx", I, N, E),
        entry("setup-bedrock", &[], C, "local-jsx", I, N, E),
        entry("setup-vertex", &[], C, "local-jsx", I, N, E),
        entry("skills", &[], C, "local-jsx", I, N, E),
        entry("status", &[], C, "local-jsx", I, N, E),
        entry("statusline", &[], C, "prompt", I, N, E),
        entry("stickers", &[], C, "local", I, N, E),
        entry("theme", &[], C, "local-jsx", I, N, E),
        entry("tui", &[], C, "local-jsx", I, N, E),
        entry("feedback", &[], C, "local-jsx", I, N, E),
        entry("bug", &["share"], C, "local-jsx", I, N, E),
        entry("ultrareview", &[], C, "local-jsx", I, N, E),
        entry("ultraplan", &[], C, "local-jsx", I, N, CA),
        entry("rewind", &["checkpoint", "undo"], C, "local", I, N, E),
        entry("security-review", &[], C, "prompt", I, I, E),
        entry("terminal-setup", &[], C, "local-jsx", I, N, E),
        entry("scroll-speed", &[], C, "local-jsx", I, N, E),
        entry("upgrade", &[], C, "local-jsx", I, N, CA),
        entry("usage", &["cost", "stats"], C, "local", I, I, E),
        entry("insights", &[], C, "prompt", I, I, E),
        entry("web-setup", &[], C, "local-jsx", I, N, CA),
        entry("remote-control", &["rc"], C, "local-jsx", I, N, E),
        entry("voice", &[], C, "local", I, N, CA),
        entry("recap", &[], C, "local", I, I, E),
        entry("permissions", &["allowed-tools"], C, "local-jsx", I, N, E),
        entry("plan", &[], C, "local-jsx", I, N, E),
        entry("powerup", &[], C, "local-jsx", I, N, E),
        entry("privacy-settings", &[], C, "local-jsx", I, N, E),
        entry("goal", &[], C, "local", I, I, E),
        entry("hooks", &[], C, "local-jsx", I, N, E),
        entry("export", &[], C, "local-jsx", I, N, E),
        entry("sandbox", &[], C, "local-jsx", I, N, E),
        entry("login", &[], C, "local-jsx", I, N, FP),
        entry("logout", &[], C, "local-jsx", I, N, FP),
        entry("passes", &[], C, "local-jsx", I, N, CA),
        entry("list-agents", &["peers"], C, "local", I, I, E),
        entry("tasks", &["bashes"], C, "local-jsx", I, N, E),
        entry("autofix-pr", &[], C, "local-jsx", I, N, FP),
        entry("teleport", &["tp"], C, "local-jsx", I, N, FP),
        entry("workflows", &[], C, "local-jsx", I, N, E),
        entry("team-onboarding", &[], C, "prompt", I, I, E),
        entry("radio", &[], C, "local", I, N, E),
        // Present in the bundle but switched off in a default build; their names and aliases
        // still count as taken (a plugin's bare alias equal to one is dropped).
        entry("wellbeing", &["breaks", "break-reminder", "downtime"], C, "local-jsx", N, N, E),
        entry("pause-memory", &["memory-pause", "toggle-memory"], C, "local", N, N, E),
        entry("vim", &[], C, "local-jsx", N, N, E),
        entry("restart", &["update"], C, "local", N, N, E),
        entry("session", &["remote"], C, "local-jsx", N, N, E),
        entry("stop", &[], C, "local-jsx", N, N, E),
        entry("subtask", &[], C, "local-jsx", N, N, E),
    ]
};

/// The built-in named `name` (not following aliases).
pub fn named(name: &str) -> Option<&'static Builtin> {
    BUILTINS.iter().find(|b| b.name == name)
}

/// The built-in a name or alias refers to.
pub fn builtin(name: &str) -> Option<&'static Builtin> {
    named(name).or_else(|| BUILTINS.iter().find(|b| b.aliases.contains(&name)))
}

/// Whether a name or alias is taken by a built-in (bundled skills and commands alike, switched
/// off or not): Claude Code 2.1.332 drops a plugin's bare alias equal to one.
pub fn is_taken(name: &str) -> bool {
    builtin(name).is_some()
}

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

/// Claude Code's own subagents, which a user or project agent of the same name replaces
/// (2.1.332, headless, API key; `claude-code-guide` joins them interactively).
pub const BUILTIN_AGENTS: &[&str] = &["claude", "Explore", "general-purpose", "Plan", "statusline-setup"];

/// A built-in's row in the command table.
#[derive(Debug, Clone, Copy)]
pub struct TableEntry {
    pub name: &'static str,
    pub kind: BuiltinKind,
    pub origin: crate::model::Origin,
    /// `prompt`, `local` or `local-jsx`.
    pub command_type: &'static str,
    pub aliases: &'static [&'static str],
    pub builtin: &'static Builtin,
}

/// The built-ins in command-table order (bundled workflows, bundled skills, built-in plugin
/// skills, then commands; Claude Code 2.1.332), built once. Workflows go before plugin
/// commands in the whole table; the resolver and the runtime place them.
pub fn table() -> &'static [TableEntry] {
    use crate::model::Origin;
    static TABLE: std::sync::OnceLock<Vec<TableEntry>> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        BUILTINS
            .iter()
            .map(|b| TableEntry {
                name: b.name,
                kind: b.kind,
                origin: if b.kind == BuiltinKind::Command { Origin::Builtin } else { Origin::Bundled },
                command_type: b.command_type,
                aliases: b.aliases,
                builtin: b,
            })
            .collect()
    })
}

/// Whether `name` is a built-in command's (not a bundled skill's or workflow's).
pub fn is_command(name: &str) -> bool {
    named(name).is_some_and(|b| b.kind == BuiltinKind::Command)
}

/// MCP server names a local Claude Code 2.1.332 keeps for its own servers, compared after
/// characters outside `[A-Za-z0-9_-]` become `_` (case kept): an entry with one never loads.
const RESERVED_MCP_NAMES: &[&str] = &[
    "hearthbot",
    "remote-devices",
    "claude_ai",
    "ccr-email",
    "webagent",
    "claude-code-remote",
    "Claude Preview",
    "Claude Browser",
    "claude-in-chrome",
    "Claude in Chrome",
    "computer-use",
    "workspace",
    "claude-device",
    "Slack sign-in (Claude Code tag)",
];

/// Whether Claude Code refuses an MCP server of this name.
pub fn is_reserved_mcp_name(name: &str) -> bool {
    let normalize = |n: &str| -> String {
        n.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' || c == '-' { c } else { '_' }).collect()
    };
    let name = normalize(name);
    RESERVED_MCP_NAMES.iter().any(|r| normalize(r) == name)
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
    fn bundled_skill_details_name_bundled_skills() {
        assert!(BUNDLED_SKILLS.windows(2).all(|w| w[0].name < w[1].name));
        for b in BUNDLED_SKILLS {
            assert!(
                named(b.name).is_some_and(|n| matches!(n.kind, BuiltinKind::BundledSkill | BuiltinKind::PluginSkill)),
                "{} is not a bundled skill",
                b.name
            );
        }
        assert_eq!(bundled_skill("batch").map(|b| b.model_invocable), Some(false));
        assert!(bundled_skill("simplify").is_some_and(|b| b.model_invocable && b.description.is_some()));
    }

    #[test]
    fn names_and_aliases_are_unique() {
        let mut seen = std::collections::BTreeSet::new();
        for b in BUILTINS {
            for name in std::iter::once(&b.name).chain(b.aliases) {
                assert!(seen.insert(*name), "`{name}` is taken twice");
            }
        }
    }

    #[test]
    fn lookups() {
        assert_eq!(builtin("review").map(|b| (b.name, b.kind)), Some(("code-review", BuiltinKind::BundledSkill)));
        assert_eq!(builtin("clear").map(|b| (b.name, b.kind)), Some(("clear", BuiltinKind::Command)));
        assert_eq!(builtin("checkup").map(|b| b.name), Some("doctor"));
        assert_eq!(builtin("deep-research").map(|b| b.kind), Some(BuiltinKind::BundledWorkflow));
        assert_eq!(builtin("marketplace").map(|b| b.name), Some("plugin"));
        assert_eq!(builtin("bashes").map(|b| b.name), Some("tasks"));
        assert!(is_taken("downtime"), "a switched-off command's alias still counts");
        assert_eq!(builtin("deploy").map(|b| b.name), None);
        assert!(is_command("init") && !is_command("loop"));
    }
}
