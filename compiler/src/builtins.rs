//! Claude Code's own slash commands, bundled skills and workflows, and built-in agents: the
//! names a user's skill or command can collide with, and the rows that complete the command
//! table. Read from the Claude Code bundle (its built-in command list, its bundled-skill
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

/// How an entry of the command table runs, in Claude Code's words: a `prompt` becomes a
/// model request, a `local` command answers in text, a `local-jsx` one draws an interface.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CommandType {
    Prompt,
    Local,
    LocalJsx,
}

impl CommandType {
    /// `prompt`, `local` or `local-jsx`, as Claude Code's table and capc's outputs name it.
    pub fn as_str(self) -> &'static str {
        match self {
            CommandType::Prompt => "prompt",
            CommandType::Local => "local",
            CommandType::LocalJsx => "local-jsx",
        }
    }
}

/// One built-in of the command table.
#[derive(Debug, Clone, Copy)]
pub struct Builtin {
    pub name: &'static str,
    pub aliases: &'static [&'static str],
    pub kind: BuiltinKind,
    /// How it runs in a headless session where it has one, else interactively.
    pub command_type: CommandType,
    /// In the interactive CLI's table (from the bundle; gated-off commands are left out).
    pub interactive: bool,
    /// In a headless (`-p`, SDK) session's table (measured: `system/init`'s `slash_commands`).
    pub headless: bool,
    pub availability: Availability,
}

const fn entry(
    name: &'static str,
    aliases: &'static [&'static str],
    kind: BuiltinKind,
    command_type: CommandType,
    interactive: bool,
    headless: bool,
    availability: Availability,
) -> Builtin {
    Builtin { name, aliases, kind, command_type, interactive, headless, availability }
}

/// Every built-in, in Claude Code's table order within each kind (bundled workflows,
/// bundled skills in registration order, built-in plugin skills, then commands). Commands that
/// exist in an interactive and a headless variant are one row.
pub const BUILTINS: &[Builtin] = {
    use Availability::{ClaudeAi as CA, Everyone as E, FirstParty as FP};
    use BuiltinKind::{BundledSkill as S, BundledWorkflow as W, Command as C, PluginSkill as P};
    use CommandType::{Local as LO, LocalJsx as JSX, Prompt as PR};
    const I: bool = true;
    const N: bool = false;
    &[
        entry("deep-research", &[], W, PR, I, I, E),
        // Bundled skills, as a headless session registers them.
        entry("dataviz", &[], S, PR, I, I, E),
        entry("update-config", &[], S, PR, I, I, E),
        entry("verify", &[], S, PR, I, I, E),
        entry("debug", &[], S, PR, I, I, E),
        entry("code-review", &["review"], S, PR, I, I, E),
        entry("simplify", &[], S, PR, I, I, E),
        entry("batch", &[], S, PR, I, I, E),
        entry("fewer-permission-prompts", &[], S, PR, I, I, E),
        entry("doctor", &["checkup"], S, PR, I, I, E),
        entry("loop", &["proactive"], S, PR, I, I, E),
        entry("schedule", &["routines"], S, PR, I, I, CA),
        entry("claude-api", &[], S, PR, I, I, E),
        entry("keybindings-help", &[], S, PR, I, I, E),
        entry("workflow-authoring", &[], S, PR, I, I, E),
        entry("run", &[], S, PR, I, I, E),
        entry("run-skill-generator", &[], S, PR, I, I, E),
        entry("plugin-authoring", &[], P, PR, I, I, E),
        // Commands.
        entry("add-dir", &[], C, JSX, I, N, E),
        entry("agents", &[], C, LO, I, I, E),
        entry("auto-mode-setup", &[], C, LO, I, I, E),
        entry("autocompact", &[], C, LO, I, I, E),
        entry("fork", &[], C, JSX, I, N, E),
        entry("branch", &[], C, JSX, I, N, E),
        entry("btw", &[], C, JSX, I, N, E),
        entry("cd", &[], C, JSX, I, N, E),
        entry("chrome", &[], C, JSX, I, N, CA),
        entry("clear", &["reset", "new"], C, LO, I, I, E),
        entry("color", &[], C, LO, I, I, E),
        entry("compact", &[], C, LO, I, I, E),
        entry("config", &["settings"], C, LO, I, I, E),
        entry("output-style", &[], C, LO, I, I, E),
        entry("copy", &[], C, JSX, I, N, E),
        entry("desktop", &["app"], C, JSX, I, N, CA),
        entry("context", &[], C, LO, I, I, E),
        entry("diff", &[], C, JSX, I, N, E),
        entry("background", &["bg"], C, JSX, I, N, E),
        entry("effort", &[], C, LO, I, I, E),
        entry("exit", &["quit"], C, JSX, I, N, E),
        entry("fast", &[], C, LO, I, I, E),
        entry("focus", &[], C, LO, I, I, E),
        entry("heapdump", &[], C, LO, I, I, E),
        entry("help", &[], C, JSX, I, N, E),
        entry("ide", &[], C, JSX, I, N, E),
        entry("init", &[], C, PR, I, I, E),
        entry("keybindings", &[], C, LO, I, N, E),
        entry("install-github-app", &[], C, JSX, I, N, FP),
        entry("install-slack-app", &[], C, LO, I, N, CA),
        entry("mcp", &[], C, LO, I, I, E),
        entry("memory", &[], C, JSX, I, N, E),
        entry("mobile", &["ios", "android"], C, JSX, I, N, E),
        entry("model", &[], C, LO, I, I, E),
        entry("remote-env", &[], C, JSX, I, N, FP),
        entry("__remote-workflow", &[], C, LO, N, I, E),
        entry("workflow-launch-exec", &[], C, LO, N, I, E),
        entry("plugin", &["plugins", "marketplace"], C, JSX, I, N, E),
        entry("release-notes", &[], C, JSX, I, N, E),
        entry("reload-plugins", &[], C, LO, I, I, E),
        entry("reload-skills", &[], C, LO, I, I, E),
        entry("rename", &["name"], C, LO, I, I, E),
        entry("resume", &["continue"], C, JSX, I, N, E),
        entry("setup-bedrock", &[], C, JSX, I, N, E),
        entry("setup-vertex", &[], C, JSX, I, N, E),
        entry("skills", &[], C, JSX, I, N, E),
        entry("status", &[], C, JSX, I, N, E),
        entry("statusline", &[], C, PR, I, N, E),
        entry("stickers", &[], C, LO, I, N, E),
        entry("theme", &[], C, JSX, I, N, E),
        entry("tui", &[], C, JSX, I, N, E),
        entry("feedback", &[], C, JSX, I, N, E),
        entry("bug", &["share"], C, JSX, I, N, E),
        entry("ultrareview", &[], C, JSX, I, N, E),
        entry("ultraplan", &[], C, JSX, I, N, CA),
        entry("rewind", &["checkpoint", "undo"], C, LO, I, N, E),
        entry("security-review", &[], C, PR, I, I, E),
        entry("terminal-setup", &[], C, JSX, I, N, E),
        entry("scroll-speed", &[], C, JSX, I, N, E),
        entry("upgrade", &[], C, JSX, I, N, CA),
        entry("usage", &["cost", "stats"], C, LO, I, I, E),
        entry("insights", &[], C, PR, I, I, E),
        entry("web-setup", &[], C, JSX, I, N, CA),
        entry("remote-control", &["rc"], C, JSX, I, N, E),
        entry("voice", &[], C, LO, I, N, CA),
        entry("recap", &[], C, LO, I, I, E),
        entry("permissions", &["allowed-tools"], C, JSX, I, N, E),
        entry("plan", &[], C, JSX, I, N, E),
        entry("powerup", &[], C, JSX, I, N, E),
        entry("privacy-settings", &[], C, JSX, I, N, E),
        entry("goal", &[], C, LO, I, I, E),
        entry("hooks", &[], C, JSX, I, N, E),
        entry("export", &[], C, JSX, I, N, E),
        entry("sandbox", &[], C, JSX, I, N, E),
        entry("login", &[], C, JSX, I, N, FP),
        entry("logout", &[], C, JSX, I, N, FP),
        entry("passes", &[], C, JSX, I, N, CA),
        entry("list-agents", &["peers"], C, LO, I, I, E),
        entry("tasks", &["bashes"], C, JSX, I, N, E),
        entry("autofix-pr", &[], C, JSX, I, N, FP),
        entry("teleport", &["tp"], C, JSX, I, N, FP),
        entry("workflows", &[], C, JSX, I, N, E),
        entry("team-onboarding", &[], C, PR, I, I, E),
        entry("radio", &[], C, LO, I, N, E),
        // Present in the bundle but switched off in a default build; their names and aliases
        // still count as taken (a plugin's bare alias equal to one is dropped).
        entry("wellbeing", &["breaks", "break-reminder", "downtime"], C, JSX, N, N, E),
        entry("pause-memory", &["memory-pause", "toggle-memory"], C, LO, N, N, E),
        entry("vim", &[], C, JSX, N, N, E),
        entry("restart", &["update"], C, LO, N, N, E),
        entry("session", &["remote"], C, JSX, N, N, E),
        entry("stop", &[], C, JSX, N, N, E),
        entry("subtask", &[], C, JSX, N, N, E),
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
/// off or not): Claude Code drops a plugin's bare alias equal to one.
pub(crate) fn is_taken(name: &str) -> bool {
    builtin(name).is_some()
}

/// When Claude Code registers a bundled skill.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gate {
    Always,
    /// Not with `CLAUDE_CODE_DISABLE_CRON`.
    Cron,
    /// Not with `CLAUDE_CODE_DISABLE_WORKFLOWS`.
    Workflows,
    /// Only for a claude.ai sign-in.
    ClaudeAi,
}

/// Where a bundled entry comes from, which decides how switches and the listing budget treat it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BundledSource {
    /// A bundled skill: off with `CLAUDE_CODE_DISABLE_BUNDLED_SKILLS`; keeps its description
    /// when the listing is over budget.
    Bundled,
    /// A built-in prompt command (`init`, `security-review`): off with
    /// `CLAUDE_CODE_DISABLE_BUNDLED_SKILLS`, but cut to its name like a user's skill.
    Builtin,
    /// A skill of a built-in plugin (`plugin-authoring`): stays when bundled skills are off.
    BuiltinPlugin,
}

/// A bundled skill or built-in prompt command as Claude Code registers it: the text
/// its Skill listing shows, who may invoke it, and when it exists.
#[derive(Debug, Clone, Copy)]
pub struct BundledSkill {
    pub name: &'static str,
    pub description: Option<&'static str>,
    pub when_to_use: Option<&'static str>,
    /// In the Skill listing of a headless (`-p`) session when its gate holds. `doctor` and
    /// `verify` are registered but not listed there; the four the model may not invoke never are.
    pub listed: bool,
    pub model_invocable: bool,
    /// The user can type it; `keybindings-help` is the model's alone (and not named to the user).
    pub user_invocable: bool,
    pub gate: Gate,
    pub source: BundledSource,
    /// The prompt it sends when typed, where that is fixed text.
    pub prompt: Option<&'static str>,
}

/// In the order Claude Code registers them, which is the order of the Skill listing
/// and of the commands named to the user; the unlisted ones last. Their texts are the ones
/// Claude Code ([`crate::model::CLAUDE_CODE_VERSION`]) sends (`tests/oracle/scenarios/turn-baseline`,
/// `turn-auth-oauth`, `turn-expand-builtin-prompt`).
pub const BUNDLED_SKILLS: &[BundledSkill] = &[
    BundledSkill {
        name: "dataviz",
        description: Some(
            r#"Use this skill whenever you are about to create ANY chart, graph, plot, dashboard, or data visualization, in ANY output medium — an HTML or React artifact, inline SVG, plotting code in any library (matplotlib, plotly, d3, Recharts, …), an image/PNG you will render and upload, or a chart shared into Slack. Read it BEFORE writing the first line of chart code, choosing chart colors, building a stat tile / meter / KPI row, or laying out a dashboard. When the destination is a first-party document connector (host-designated, never self-described) that renders live charts, hand it the rows (inline, or as an uploaded data file the chart cites) rather than a rendered PNG/SVG — a picture of a chart loses hover, data inspection and per-value comments. Produces visualizations that read as one system — elegant, accessible, consistent in light and dark — using a brand-neutral placeholder palette you swap for your own. Teaches a design-system-agnostic method: a form heuristic, a color formula with a runnable validator, mark specs, and interaction rules. A validated default palette is documented in `references/palette.md` — swap that file's values for your brand's. Triggers on: "chart", "graph", "plot", "data viz", "visualization", "dashboard", "analytics", "visualize data", "categorical colors", "sequential / diverging palette", "stat tile", "sparkline", "heatmap", "legend", "axis", "tooltip", "chart colors", "color by series"."#,
        ),
        when_to_use: None,
        listed: true,
        model_invocable: true,
        user_invocable: true,
        gate: Gate::Always,
        source: BundledSource::Bundled,
        prompt: None,
    },
    BundledSkill {
        name: "update-config",
        description: Some(
            r#"Use this skill to configure the Claude Code harness via settings.json. Automated behaviors ("from now on when X", "each time X", "whenever X", "before/after X") require hooks configured in settings.json - the harness executes these, not Claude, so memory/preferences cannot fulfill them. Also use for: permissions ("allow X", "add permission", "move permission to"), env vars ("set X=Y"), hook troubleshooting, or any changes to settings.json/settings.local.json files. Examples: "allow npm commands", "add bq permission to global settings", "move permission to user settings", "set DEBUG=true", "when claude stops show X". For simple settings like theme/model, suggest the /config command."#,
        ),
        when_to_use: None,
        listed: true,
        model_invocable: true,
        user_invocable: true,
        gate: Gate::Always,
        source: BundledSource::Bundled,
        prompt: None,
    },
    BundledSkill {
        name: "keybindings-help",
        description: Some(
            r#"Use when the user wants to customize keyboard shortcuts, rebind keys, add chord bindings, or modify ~/.claude/keybindings.json. Examples: "rebind ctrl+s", "add a chord shortcut", "change the submit key", "customize keybindings"."#,
        ),
        when_to_use: None,
        listed: true,
        model_invocable: true,
        user_invocable: false,
        gate: Gate::Always,
        source: BundledSource::Bundled,
        prompt: None,
    },
    BundledSkill {
        name: "code-review",
        description: Some(
            r#"Review the current diff, or a PR number/branch/path target, for correctness bugs (plus broken CLAUDE.md rules and cleanups where the model's recipe covers them; see /simplify) at the effort level given first, before any target (low|medium|high|xhigh|max: from few high-confidence findings to many, some uncertain); with no level given, it reuses the level you typed last. Pass --comment to post findings as inline PR comments, or --fix to apply them to the working tree after the review. Pass --max-findings <n> to report up to n findings, or --max-findings all for every finding. The choice stays until you pass --max-findings default."#,
        ),
        when_to_use: Some(
            r#"Use the max level only when the user, or instructions such as CLAUDE.md or a skill, explicitly ask for it, never on your own judgment: it is the costliest level and starts many reviewer subagents."#,
        ),
        listed: true,
        model_invocable: true,
        user_invocable: true,
        gate: Gate::Always,
        source: BundledSource::Bundled,
        prompt: None,
    },
    BundledSkill {
        name: "simplify",
        description: Some(
            r#"Review the changed code for reuse, simplification, efficiency, and altitude cleanups, then apply the fixes. Quality only — it does not hunt for bugs; use /code-review for that."#,
        ),
        when_to_use: None,
        listed: true,
        model_invocable: true,
        user_invocable: true,
        gate: Gate::Always,
        source: BundledSource::Bundled,
        prompt: None,
    },
    BundledSkill {
        name: "fewer-permission-prompts",
        description: Some(
            r#"Scan your transcripts for common read-only Bash and MCP tool calls, then add a prioritized allowlist to project .claude/settings.json to reduce permission prompts."#,
        ),
        when_to_use: None,
        listed: true,
        model_invocable: true,
        user_invocable: true,
        gate: Gate::Always,
        source: BundledSource::Bundled,
        prompt: None,
    },
    BundledSkill {
        name: "loop",
        description: Some(
            r#"Run a prompt or slash command on a recurring interval (e.g. /loop 5m /foo). Omit the interval to let the model self-pace."#,
        ),
        when_to_use: Some(
            r#"When the user wants to set up a recurring task, poll for status, or run something repeatedly on an interval (e.g. "check the deploy every 5 minutes", "keep running /babysit-prs"). Do NOT invoke for one-off tasks."#,
        ),
        listed: true,
        model_invocable: true,
        user_invocable: true,
        gate: Gate::Cron,
        source: BundledSource::Bundled,
        prompt: None,
    },
    BundledSkill {
        name: "schedule",
        description: Some(
            r#"Create, update, list, or run cloud scheduled tasks (formerly "routines"): each starts a cloud agent on a cron schedule or once at a set time."#,
        ),
        when_to_use: Some(
            r#"When the user wants to schedule a recurring cloud agent, set up automated tasks, create a cron job for Claude Code, or manage their cloud scheduled tasks (people may still call them "routines"). Also use when the user wants a one-time scheduled run ("run this once at 3pm", "remind me to check X tomorrow")."#,
        ),
        listed: true,
        model_invocable: true,
        user_invocable: true,
        gate: Gate::ClaudeAi,
        source: BundledSource::Bundled,
        prompt: None,
    },
    BundledSkill {
        name: "claude-api",
        description: Some(
            r#"Reference for the Claude API / Anthropic SDK — model ids, pricing, params, streaming, tool use, MCP, agents, caching, token counting, model migration.
TRIGGER — read FIRST, before you answer, run a command or open a file (already started? read it now); don't skip because it "looks like a one-liner" — whenever: the prompt names Claude/Anthropic in any form (Claude, Anthropic, Fable, Opus, Sonnet, Haiku, `anthropic`, `@anthropic-ai`, `claude-*`, `us.anthropic.*`, `[1m]`); the user asks about an LLM (pricing/model choice/limits/caching) — never answer from memory; OR the task is LLM-shaped with provider unstated (agent/MCP/tool-definition/multi-agent/RAG/LLM-judge/computer-use; generate/summarize/extract/classify/rewrite/converse over NL; debugging refusals/cutoffs/streaming/tool-calls/tokens).
SKIP only when another provider is being worked on (overrides all triggers): OpenAI/GPT/Gemini/Llama/Mistral/Cohere/Ollama named in the query; OR `grep -rE 'openai|langchain_openai|google.generativeai|genai|mistralai|cohere|ollama'` over the project hits (run this grep FIRST if no provider named — don't Read the file; if nothing hits, load this skill)."#,
        ),
        when_to_use: None,
        listed: true,
        model_invocable: true,
        user_invocable: true,
        gate: Gate::Always,
        source: BundledSource::Bundled,
        prompt: None,
    },
    BundledSkill {
        name: "workflow-authoring",
        description: Some(
            r#"Reference for writing a Workflow tool script (script API and gotchas, resume, quality patterns, worked examples). Load before authoring a script for a workflow the user already opted into; it does not itself authorize running one."#,
        ),
        when_to_use: None,
        listed: true,
        model_invocable: true,
        user_invocable: true,
        gate: Gate::Workflows,
        source: BundledSource::Bundled,
        prompt: None,
    },
    BundledSkill {
        name: "run",
        description: Some(
            r#"Launch and drive this project's app to see a change working. Use when asked to run, start, or screenshot the app, or to confirm a change works in the real app (not just tests). First looks for a project skill that already covers launching the app; otherwise falls back to built-in patterns per project type (CLI, server, TUI, Electron, browser-driven, library)."#,
        ),
        when_to_use: None,
        listed: true,
        model_invocable: true,
        user_invocable: true,
        gate: Gate::Always,
        source: BundledSource::Bundled,
        prompt: None,
    },
    BundledSkill {
        name: "plugin-authoring",
        description: Some(
            r#"Make a mod: a change to Claude's own interface or behaviour, such as a theme, a panel or pane that stays beside the chat and updates, a band, status line, toast, slash command, or hook on tool calls. Use to make, change or debug a mod or its hooks module."#,
        ),
        when_to_use: None,
        listed: true,
        model_invocable: true,
        user_invocable: true,
        gate: Gate::Always,
        source: BundledSource::BuiltinPlugin,
        prompt: None,
    },
    BundledSkill {
        name: "init",
        description: Some(r#"Initialize a new CLAUDE.md file with codebase documentation"#),
        when_to_use: None,
        listed: true,
        model_invocable: true,
        user_invocable: true,
        gate: Gate::Always,
        source: BundledSource::Builtin,
        prompt: Some(INIT_PROMPT),
    },
    BundledSkill {
        name: "security-review",
        description: Some(r#"Complete a security review of the pending changes on the current branch"#),
        when_to_use: None,
        listed: true,
        model_invocable: true,
        user_invocable: true,
        gate: Gate::Always,
        source: BundledSource::Builtin,
        prompt: None,
    },
    BundledSkill {
        name: "batch",
        description: Some(
            r#"Research and plan a large-scale change, then execute it in parallel across 5–30 isolated worktree agents that each open a PR."#,
        ),
        when_to_use: Some(
            r#"Use when the user wants to make a sweeping, mechanical change across many files (migrations, refactors, bulk renames) that can be decomposed into independent parallel units."#,
        ),
        listed: false,
        model_invocable: false,
        user_invocable: true,
        gate: Gate::Always,
        source: BundledSource::Bundled,
        prompt: None,
    },
    BundledSkill {
        name: "debug",
        description: Some(r#"Enable debug logging for this session and help diagnose issues"#),
        when_to_use: None,
        listed: false,
        model_invocable: false,
        user_invocable: true,
        gate: Gate::Always,
        source: BundledSource::Bundled,
        prompt: None,
    },
    BundledSkill {
        name: "design-sync",
        description: None,
        when_to_use: None,
        listed: false,
        model_invocable: false,
        user_invocable: true,
        gate: Gate::Always,
        source: BundledSource::Bundled,
        prompt: None,
    },
    BundledSkill {
        name: "doctor",
        description: Some(
            r#"Health-check the user's Claude Code setup and fix issues: diagnose installation health — what the `claude doctor` terminal diagnostics cover — from local data (duplicate or leftover installs, PATH, unparseable settings files, broken or colliding agent definitions, skills whose frontmatter fails to parse); find unused skills, MCP servers, and plugins versus their context cost and disable dead weight; deduplicate local CLAUDE.md files against checked-in ones; trim checked-in CLAUDE.md files by cutting content a session could derive from the codebase (directory layouts, tech-stack lists, architecture overviews) while keeping gotchas, rationale, and non-standard conventions; migrate always-loaded CLAUDE.md guidance into lazy skills and nested CLAUDE.md files; flag slow hooks and context-heavy extensions; check the installed version is current; make auto mode the default permission mode; and pre-approve frequently denied read-only commands. Use when the user asks for a doctor run, checkup, audit, tune-up, or cleanup of their Claude Code setup or configuration."#,
        ),
        when_to_use: None,
        listed: false,
        model_invocable: true,
        user_invocable: true,
        gate: Gate::Always,
        source: BundledSource::Bundled,
        prompt: None,
    },
    BundledSkill {
        name: "run-skill-generator",
        description: None,
        when_to_use: None,
        listed: false,
        model_invocable: false,
        user_invocable: true,
        gate: Gate::Always,
        source: BundledSource::Bundled,
        prompt: None,
    },
    BundledSkill {
        name: "verify",
        description: Some(
            r#"Verify that a code change actually does what it's supposed to by exercising it end-to-end and observing behavior — drive the affected flow, not just tests or typecheck. Run before committing nontrivial changes; bootstraps this repo's project verify skill if none exists yet. Don't invoke it on a diff that only touches tests, docs, or other code with no runtime surface to drive (a change to product source always has one) — there's nothing to observe."#,
        ),
        when_to_use: None,
        listed: false,
        model_invocable: true,
        user_invocable: true,
        gate: Gate::Always,
        source: BundledSource::Bundled,
        prompt: None,
    },
];

/// `/init`'s prompt, as Claude Code ([`crate::model::CLAUDE_CODE_VERSION`]) sends it.
pub(crate) const INIT_PROMPT: &str = r#"Please analyze this codebase and create a CLAUDE.md file, which will be given to future instances of Claude Code to operate in this repository.

What to add:
1. Commands that will be commonly used, such as how to build, lint, and run tests. Include the necessary commands to develop in this codebase, such as how to run a single test.
2. High-level code architecture and structure so that future instances can be productive more quickly. Focus on the "big picture" architecture that requires reading multiple files to understand.

Usage notes:
- If there's already a CLAUDE.md, suggest improvements to it.
- When you make the initial CLAUDE.md, do not repeat yourself and do not include obvious instructions like "Provide helpful error messages to users", "Write unit tests for all new utilities", "Never include sensitive information (API keys, tokens) in code or commits".
- Avoid listing every component or file structure that can be easily discovered.
- Don't include generic development practices.
- If there are Cursor rules (in .cursor/rules/ or .cursorrules) or Copilot rules (in .github/copilot-instructions.md), make sure to include the important parts.
- If there is a README.md, make sure to include the important parts.
- Do not make up information such as "Common Development Tasks", "Tips for Development", "Support and Documentation" unless this is expressly included in other files that you read.
- Be sure to prefix the file with the following text:

```
# CLAUDE.md

This file provides guidance to Claude Code (claude.ai/code) when working with code in this repository.
```"#;

/// `/security-review`'s prompt outside a git repository, as Claude Code ([`crate::model::CLAUDE_CODE_VERSION`]) sends it; `{cwd}` is the
/// working directory. Inside one, its prompt is built from the repository and capc has no copy.
pub const SECURITY_REVIEW_OUTSIDE_GIT: &str = r#"Tell the user: /security-review needs to run inside a git repository, but the current working directory (`{cwd}`) is not one.

If the repository is in a subdirectory, `cd` into it first and then re-run /security-review.

If this is a self-hosted runner session created without a `git_repository` source, either add one at session creation so the runner clones it and sets the working directory, or `cd` into the cloned repo before running the review."#;

/// A bundled skill or built-in prompt command, by name.
pub fn bundled_skill(name: &str) -> Option<&'static BundledSkill> {
    BUNDLED_SKILLS.iter().find(|b| b.name == name)
}

/// When Claude Code offers a built-in agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AgentGate {
    Always,
    /// Not with `CLAUDE_CODE_DISABLE_EXPLORE_PLAN_AGENTS`.
    ExplorePlan,
    /// Not with `CLAUDE_CODE_DISABLE_AGENT_VIEW`.
    AgentView,
}

/// One of Claude Code's own subagents, which a user or project agent of the same name replaces.
#[derive(Debug, Clone, Copy)]
pub struct BuiltinAgent {
    pub name: &'static str,
    /// What the agent listing says it is for.
    pub description: &'static str,
    /// The listing's `(Tools: …)` text.
    pub tools: &'static str,
    pub gate: AgentGate,
}

/// The built-in agents of a headless Claude Code session, with the texts its agent
/// listing sends (`tests/oracle/scenarios/turn-baseline`). An interactive session also has
/// `claude-code-guide`, whose text capc does not have.
pub const BUILTIN_AGENTS: &[BuiltinAgent] = &[
    BuiltinAgent {
        name: "claude",
        description: r#"Catch-all for any task that doesn't fit a more specific agent. FleetView's default when no agent name is typed."#,
        tools: "*",
        gate: AgentGate::AgentView,
    },
    BuiltinAgent {
        name: "Explore",
        description: r#"Read-only search agent for broad fan-out searches — when answering means sweeping many files, directories, or naming conventions and you only need the conclusion, not the file dumps. It reads excerpts rather than whole files, so it locates code; it doesn't review or audit it. Specify search breadth: "medium" for moderate exploration, "very thorough" for multiple locations and naming conventions."#,
        tools: "All tools except Agent, Artifact, ArtifactComments, ArtifactData, ArtifactCheck, ExitPlanMode, Edit, Write, NotebookEdit",
        gate: AgentGate::ExplorePlan,
    },
    BuiltinAgent {
        name: "general-purpose",
        description: r#"General-purpose agent for researching complex questions, searching for code, and executing multi-step tasks. When you are searching for a keyword or file and are not confident that you will find the right match in the first few tries use this agent to perform the search for you."#,
        tools: "*",
        gate: AgentGate::Always,
    },
    BuiltinAgent {
        name: "Plan",
        description: r#"Software architect agent for designing implementation plans. Use this when you need to plan the implementation strategy for a task. Returns step-by-step plans, identifies critical files, and considers architectural trade-offs."#,
        tools: "All tools except Agent, Artifact, ArtifactComments, ArtifactData, ArtifactCheck, ExitPlanMode, Edit, Write, NotebookEdit",
        gate: AgentGate::ExplorePlan,
    },
    BuiltinAgent {
        name: "statusline-setup",
        description: r#"Use this agent to configure the user's Claude Code status line setting."#,
        tools: "Read, Edit",
        gate: AgentGate::Always,
    },
];

/// A built-in agent, by name.
pub fn builtin_agent(name: &str) -> Option<&'static BuiltinAgent> {
    BUILTIN_AGENTS.iter().find(|a| a.name == name)
}

/// A built-in's row in the command table.
#[derive(Debug, Clone, Copy)]
pub struct TableEntry {
    pub name: &'static str,
    pub kind: BuiltinKind,
    pub origin: crate::model::Origin,
    pub command_type: CommandType,
    pub aliases: &'static [&'static str],
    pub builtin: &'static Builtin,
}

/// The built-ins in command-table order (bundled workflows, bundled skills, built-in plugin
/// skills, then commands, as Claude Code orders them), built once. Workflows go before plugin
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

/// MCP server names a local Claude Code keeps for its own servers, compared after
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
pub(crate) fn is_reserved_mcp_name(name: &str) -> bool {
    let name = crate::names::normalize_server(name);
    RESERVED_MCP_NAMES.iter().any(|r| crate::names::normalize_server(r) == name)
}

/// Marketplace names reserved for Anthropic (the plugin-marketplaces docs,
/// https://code.claude.com/docs/en/plugin-marketplaces, plus three that `claude plugin validate`
/// also exempts).
pub(crate) const RESERVED_MARKETPLACES: &[&str] = &[
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
    use crate::model::CLAUDE_CODE_VERSION;
    use serde_json::Value;

    /// A table `scripts/claude-code-tables` extracts into `compiler/data/claude-code/`.
    fn extracted(text: &str) -> Value {
        let data: Value = serde_json::from_str(text).expect("the extracted table parses");
        assert_eq!(
            data["claude_code"], CLAUDE_CODE_VERSION,
            "regenerate it: scripts/claude-code-tables {CLAUDE_CODE_VERSION}"
        );
        data
    }

    /// Command rows Claude Code builds with a function (a prompt command, a command moved to a
    /// plugin) rather than as an object literal, so the extracted command table cannot hold them.
    const BUILT_BY_A_FUNCTION: &[&str] = &["login", "security-review", "vim"];

    #[test]
    fn every_command_row_is_a_command_of_the_extracted_table_with_its_aliases() {
        let data = extracted(include_str!("../data/claude-code/commands.json"));
        let commands = data["commands"].as_object().expect("commands");
        for row in BUILTINS.iter().filter(|b| b.kind == BuiltinKind::Command) {
            let Some(found) = commands.get(row.name) else {
                assert!(BUILT_BY_A_FUNCTION.contains(&row.name), "`/{}` is not a command of Claude Code", row.name);
                continue;
            };
            let mut aliases = row.aliases.to_vec();
            aliases.sort_unstable();
            assert_eq!(found["aliases"], serde_json::json!(aliases), "`/{}`'s aliases", row.name);
            let types = found["type"].as_array().expect("types");
            assert!(
                types.iter().any(|t| t == row.command_type.as_str()),
                "`/{}` runs as {}, Claude Code's object says {types:?}",
                row.name,
                row.command_type.as_str()
            );
        }
        for name in BUILT_BY_A_FUNCTION {
            assert!(commands.get(*name).is_none(), "`/{name}` is now an object of the table: check it there");
        }
    }

    #[test]
    fn every_bundled_skill_is_registered_in_the_extracted_table() {
        let data = extracted(include_str!("../data/claude-code/bundled-skills.json"));
        let registered: Vec<&str> =
            data["registered"].as_array().expect("registered").iter().filter_map(Value::as_str).collect();
        // `claude-api` is registered by a loader of its own (its text is fetched when used).
        for skill in BUNDLED_SKILLS.iter().filter(|b| b.source == BundledSource::Bundled && b.name != "claude-api") {
            assert!(registered.contains(&skill.name), "`{}` is registered as a bundled skill", skill.name);
        }
    }

    #[test]
    fn the_hook_events_are_the_extracted_table() {
        let data = extracted(include_str!("../data/claude-code/hook-events.json"));
        let in_file = data["events"].as_array().expect("events").len();
        assert_eq!(crate::decl::hooks::hook_events_data().claude_code, CLAUDE_CODE_VERSION);
        assert_eq!(crate::decl::hooks::EVENTS.len(), in_file, "every event of the file is read");
        assert!(in_file > 30, "{in_file} events");
        for event in ["PreToolUse", "SessionStart", "PreSkillShellCommand", "WorktreeRemove"] {
            assert!(crate::decl::hooks::EVENTS.contains(&event), "`{event}`");
        }
        assert!(crate::decl::hooks::EVENTS.is_sorted(), "sorted, as did-you-mean reads them");
    }

    #[test]
    fn the_read_only_flag_table_is_of_this_version() {
        // Read by capc-grammar (which does not know the version); its version line is checked here.
        let text = include_str!("../data/claude-code/bash-read-only-flags.tsv");
        let version = text.lines().find_map(|l| l.strip_prefix("# Claude Code: ")).expect("a version line");
        assert_eq!(version, CLAUDE_CODE_VERSION, "regenerate it: scripts/claude-code-tables {CLAUDE_CODE_VERSION}");
    }

    #[test]
    fn bundled_skills_are_unique_and_listed_ones_have_their_text() {
        for (i, b) in BUNDLED_SKILLS.iter().enumerate() {
            assert!(BUNDLED_SKILLS[..i].iter().all(|o| o.name != b.name), "`{}` twice", b.name);
            assert!(
                !b.listed || b.model_invocable && b.description.is_some(),
                "`{}` is listed without its text",
                b.name
            );
        }
        assert_eq!(bundled_skill("batch").map(|b| b.model_invocable), Some(false));
        assert!(bundled_skill("simplify").is_some_and(|b| b.model_invocable && b.description.is_some()));
        assert_eq!(bundled_skill("init").map(|b| b.prompt.is_some()), Some(true));
        assert!(SECURITY_REVIEW_OUTSIDE_GIT.contains("{cwd}"));
        assert!(builtin_agent("Explore").is_some() && builtin_agent("explore").is_none());
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
