//! The tool pool of a turn as Claude Code sends it (`tests/oracle/scenarios/turn-*`):
//! which built-in tools exist in this context, which tools are deferred behind ToolSearch and
//! announced instead of sent, the order of the `tools` array, and where
//! `DeferredToolPlaceholder` goes.
//!
//! * **Built-ins** depend on the entry point, the sign-in and switches (see [`CONDITIONS_FILE`]);
//!   `--tools` keeps only the tools it names; whole-tool deny rules (settings, `--disallowedTools`,
//!   the session) remove tools. Glob and Grep exist only without Bash, Monitor only with it.
//! * **Order**: built-ins sorted as `localeCompare` sorts (see `collate`), then MCP tools sorted
//!   the same way; a name once (MCP tools with one name after normalization: the first wins).
//! * **Deferred**: MCP tools (unless the server or the tool says `alwaysLoad`), the three MCP
//!   resource tools, and the built-ins marked so. With tool search on they are left out of the
//!   `tools` array and named in the announcement, in code-unit order.
//! * **`ENABLE_TOOL_SEARCH`**: unset, truthy, `auto:0` or an unknown value → on; falsy,
//!   `auto:100` → off; `auto`/`auto:N` → on only when the deferrable tools exceed N% (default
//!   10) of the context window. Claude Code measures that with the token-counting API; capc has
//!   no tokenizer and uses Claude Code's own fallback, characters against 2.5 per token, over
//!   what it knows of the tools (names, and MCP descriptions). Below the threshold every tool is
//!   sent and, as Claude Code does, the announcement is still made. `CLAUDE_CODE_SIMPLE` and
//!   `CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS` turn tool search off.
//! * **`DeferredToolPlaceholder`**: whenever tool search is on (even when ToolSearch itself is
//!   denied or not among `--tools`), it is inserted before the last tool sent.

use crate::context::{Auth, Entry, TurnContext};
use crate::mcp::{McpState, McpTool};
use crate::permissions::Permissions;
use capc_compiler::builtins::Measured;
use capc_grammar::{Behavior, MatchContext, PermissionRule, ToolCall};
use serde::Serialize;
use std::sync::{Arc, OnceLock};

/// One tool of the pool.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct ToolView {
    pub name: Arc<str>,
    /// `builtin` or `mcp`.
    pub origin: &'static str,
    /// Left out of the request and announced instead, to be loaded through ToolSearch.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    #[schemars(default)]
    pub deferred: bool,
}

/// The name of the stub tool that keeps deferred loading on.
pub(crate) const PLACEHOLDER: &str = "DeferredToolPlaceholder";

/// When a session has a built-in tool (capc's reading of each condition; which tool has which
/// is data, [`CONDITIONS_FILE`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
enum When {
    Always,
    /// Only without Bash (Glob, Grep).
    NoBash,
    /// Only with Bash (Monitor).
    WithBash,
    /// Not with `CLAUDE_CODE_DISABLE_CRON`.
    Cron,
    /// Not with `CLAUDE_CODE_DISABLE_WORKFLOWS`; the main thread only.
    Workflows,
    /// Not with `CLAUDE_CODE_DISABLE_WEB_FETCH`.
    WebFetch,
    /// Not on Bedrock.
    WebSearch,
    /// The main thread only (not in a subagent's pool).
    MainThread,
    /// With a claude.ai sign-in.
    ClaudeAi,
    /// `CLAUDE_CODE_ENABLE_TODO_TOOLS`.
    TodoTools,
    /// `CLAUDE_CODE_USE_POWERSHELL_TOOL`.
    #[serde(rename = "powershell")]
    PowerShell,
    /// The interactive entry point.
    Interactive,
    /// A loaded plugin declares an LSP server (the lock's `[[lsp_server]]`).
    LspServers,
}

/// When a session has each built-in tool: every tool the oracle recordings show Claude Code
/// sending, with the condition measured for it and the scenarios that show it (the bundle
/// decides these at run time, so they are not extracted). Whether a tool is deferred is the
/// bundle's own flag, read from [`TOOLS_FILE`]; a test checks that every tool here is a tool
/// there and replays the scenarios. ToolSearch and the MCP resource tools are added by
/// [`tool_pool`].
const CONDITIONS_FILE: &str = include_str!("../../compiler/data/claude-code/measured/tool-conditions.json");

/// A row of [`CONDITIONS_FILE`].
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(not(test), allow(dead_code))]
struct Condition {
    tool: String,
    when: When,
    scenarios: Vec<String>,
    note: Option<String>,
}

/// [`CONDITIONS_FILE`], read once (a file that does not parse reads as no tools: a test checks
/// it parses).
fn conditions_file() -> &'static Measured<Condition> {
    static FILE: OnceLock<Measured<Condition>> = OnceLock::new();
    FILE.get_or_init(|| Measured::read(CONDITIONS_FILE))
}

/// Each built-in tool with its condition, in the file's order.
fn conditions() -> impl Iterator<Item = (&'static str, When)> {
    conditions_file().rows.iter().map(|c| (c.tool.as_str(), c.when))
}

/// Claude Code's built-in tool objects, as `scripts/claude-code-tables` extracts them: each
/// tool's name and whether it is deferred behind ToolSearch.
const TOOLS_FILE: &str = include_str!("../../compiler/data/claude-code/tools.json");

#[derive(serde::Deserialize)]
struct ToolsFile {
    /// The release the file was extracted from (a test ties it to the version capc follows).
    #[cfg_attr(not(test), allow(dead_code))]
    claude_code: String,
    tools: std::collections::BTreeMap<String, ToolObject>,
}

#[derive(serde::Deserialize)]
struct ToolObject {
    deferred: bool,
}

/// [`TOOLS_FILE`], read once (a file that does not parse reads as no tools: a test checks it
/// parses and names every tool of [`CONDITIONS_FILE`]).
fn tools_file() -> &'static ToolsFile {
    static FILE: OnceLock<ToolsFile> = OnceLock::new();
    FILE.get_or_init(|| {
        serde_json::from_str(TOOLS_FILE)
            .unwrap_or_else(|_| ToolsFile { claude_code: String::new(), tools: Default::default() })
    })
}

/// Whether Claude Code defers a built-in tool behind ToolSearch.
fn deferred(name: &str) -> bool {
    tools_file().tools.get(name).is_some_and(|t| t.deferred)
}

/// `CLAUDE_CODE_SIMPLE`'s whole pool.
const SIMPLE_TOOLS: &[&str] = &["Bash", "Edit", "Read"];

/// Shown once any connected server offers resources; deferred.
const RESOURCE_TOOLS: &[&str] = &["ListMcpResourcesTool", "ReadMcpResourceDirTool", "ReadMcpResourceTool"];

/// Tools a forked skill's subagent does not get.
const MAIN_THREAD_ONLY: &[&str] = &["ScheduleWakeup", "Workflow"];

/// How `ENABLE_TOOL_SEARCH` and the switches set tool search.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SearchMode {
    /// Every tool sent, nothing announced.
    Standard,
    /// Deferred tools left out and announced; ToolSearch in the pool.
    On,
    /// On when the deferrable tools exceed this share (%) of the context window.
    Auto(f64),
}

/// The tool-search mode of a context.
pub(crate) fn search_mode(cx: &TurnContext) -> SearchMode {
    if cx.simple() || cx.flag("CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS") {
        return SearchMode::Standard;
    }
    let Some(value) = cx.flag_text("ENABLE_TOOL_SEARCH") else { return SearchMode::On };
    let value = value.trim().to_ascii_lowercase();
    if let Some(rest) = value.strip_prefix("auto") {
        // `auto:N` with N not a number acts as `auto` (Claude Code logs it).
        let percent = rest.strip_prefix(':').and_then(|n| n.trim().parse::<f64>().ok()).unwrap_or(10.0);
        return if percent <= 0.0 {
            SearchMode::On
        } else if percent >= 100.0 {
            SearchMode::Standard
        } else {
            SearchMode::Auto(percent)
        };
    }
    match value.as_str() {
        "0" | "false" | "no" | "off" => SearchMode::Standard,
        _ => SearchMode::On,
    }
}

/// What [`tool_pool`] computes.
#[derive(Debug, Clone, Default)]
pub struct Pool {
    pub tools: Vec<ToolView>,
    pub tool_search: bool,
    /// The announcement, in its order, as positions in `tools`.
    pub announced: Vec<u32>,
    pub placeholder: bool,
}

fn exists(when: When, cx: &TurnContext, bash: bool, lsp: bool) -> bool {
    match when {
        When::LspServers => lsp,
        When::Always | When::MainThread => true,
        When::NoBash => !bash,
        When::WithBash => bash,
        When::Cron => !cx.flag("CLAUDE_CODE_DISABLE_CRON"),
        When::Workflows => !cx.flag("CLAUDE_CODE_DISABLE_WORKFLOWS"),
        When::WebFetch => !cx.flag("CLAUDE_CODE_DISABLE_WEB_FETCH"),
        When::WebSearch => cx.auth != Auth::Bedrock,
        When::ClaudeAi => cx.auth == Auth::ClaudeAi,
        When::TodoTools => cx.flag("CLAUDE_CODE_ENABLE_TODO_TOOLS"),
        When::PowerShell => cx.flag("CLAUDE_CODE_USE_POWERSHELL_TOOL"),
        When::Interactive => cx.entry == Entry::Interactive,
    }
}

/// `--tools`: `None` keeps every tool, otherwise only the names listed (`default`: all).
fn tools_flag(cx: &TurnContext) -> Option<Vec<String>> {
    let list = cx.tools.as_ref()?;
    let names: Vec<String> = list
        .iter()
        .flat_map(|l| l.split(|c: char| c == ',' || c.is_whitespace()).map(str::to_string))
        .filter(|n| !n.is_empty())
        .collect();
    (!names.iter().any(|n| n == "default")).then_some(names)
}

/// A built-in tool's name as a shared string, made once per name.
fn builtin_name(name: &str) -> Arc<str> {
    static NAMES: OnceLock<Vec<Arc<str>>> = OnceLock::new();
    let names = NAMES.get_or_init(|| {
        conditions()
            .map(|(name, _)| name)
            .chain(RESOURCE_TOOLS.iter().copied())
            .chain(["ToolSearch", PLACEHOLDER])
            .map(Arc::from)
            .collect()
    });
    names.iter().find(|n| &***n == name).cloned().unwrap_or_else(|| Arc::from(name))
}

/// Whether a whole-server rule (`mcp__srv`, `mcp__srv__*`) rather than one on a tool.
fn whole_server(rule: &PermissionRule) -> bool {
    matches!(&rule.tool.kind, capc_grammar::ToolKind::Mcp { tool, .. } if tool.as_deref().is_none_or(|t| t == "*"))
}

/// Which tools a turn keeps by name: those `--tools` lists (all without it), less those a
/// whole-tool deny rule removes.
struct Kept<'a> {
    only: Option<Vec<String>>,
    permissions: &'a Permissions,
}

impl Kept<'_> {
    fn has(&self, name: &str) -> bool {
        self.only.as_ref().is_none_or(|names| names.iter().any(|n| n == name)) && !self.permissions.removes(name)
    }
}

/// The built-ins this turn has, as (name, deferred): the simple mode's three, or every tool whose
/// condition holds; the MCP resource tools once a server offers resources.
fn builtin_tools(cx: &TurnContext, kept: &Kept, mcp: &McpState, lsp: bool) -> Vec<(&'static str, bool)> {
    if cx.simple() {
        return SIMPLE_TOOLS.iter().filter(|n| kept.has(n)).map(|n| (*n, false)).collect();
    }
    let bash = kept.has("Bash");
    let mut builtins: Vec<(&'static str, bool)> = conditions()
        .filter(|(name, when)| exists(*when, cx, bash, lsp) && kept.has(name))
        .map(|(name, _)| (name, deferred(name)))
        .collect();
    if mcp.any_resources() {
        builtins.extend(RESOURCE_TOOLS.iter().filter(|n| kept.has(n)).map(|n| (*n, deferred(n))));
    }
    builtins
}

/// Which of the MCP tools this turn keeps: none in the simple mode; otherwise each whose server
/// is trusted and not denied as a whole (decided once per server) and that no rule on the tool
/// denies.
fn kept_mcp_tools(cx: &TurnContext, permissions: &Permissions, mcp: &McpState) -> Vec<bool> {
    let mcp_tools = mcp.tools();
    if cx.simple() {
        return vec![false; mcp_tools.len()];
    }
    let deny_cx = MatchContext::default();
    let (server_rules, tool_rules): (Vec<&PermissionRule>, Vec<&PermissionRule>) = permissions
        .whole_denies()
        .filter(|r| matches!(r.tool.kind, capc_grammar::ToolKind::Mcp { .. } | capc_grammar::ToolKind::Glob))
        .partition(|r| whole_server(r));
    let server_denied: Vec<bool> = mcp
        .servers()
        .map(|s| {
            let sample = format!("mcp__{}__tool", s.normalized);
            (s.needs_trust && !cx.trusted)
                || server_rules.iter().any(|r| r.matches(Behavior::Deny, &ToolCall::new(&sample), &deny_cx))
        })
        .collect();
    mcp_tools
        .iter()
        .map(|t| {
            !server_denied.get(t.server_index).copied().unwrap_or(false)
                && !tool_rules.iter().any(|r| r.matches(Behavior::Deny, &ToolCall::new(&t.name), &deny_cx))
        })
        .collect()
}

/// Whether the mode turns tool search on: in `auto` mode, when the deferrable tools' text is
/// over the threshold by Claude Code's character fallback (2.5 characters per token).
fn search_on(mode: SearchMode, cx: &TurnContext, builtins: &[(&str, bool)], deferrable_mcp: &[&McpTool]) -> bool {
    match mode {
        SearchMode::Standard => false,
        SearchMode::On => true,
        SearchMode::Auto(percent) => {
            let chars: usize = builtins.iter().filter(|(_, d)| *d).map(|(n, _)| n.len()).sum::<usize>()
                + deferrable_mcp.iter().map(|t| t.name.len() + t.description.len()).sum::<usize>();
            let threshold = (cx.context_window() as f64 * percent / 100.0).floor();
            chars as f64 > threshold * 2.5
        }
    }
}

/// The turn's pool (see the module docs): the built-ins, the MCP tools kept, whether tool search
/// is on (adding ToolSearch), the pool in order, and the announcement.
/// `lsp`: a loaded plugin declares an LSP server, which gives Claude Code's deferred `LSP` tool.
pub fn tool_pool(cx: &TurnContext, permissions: &Permissions, mcp: &McpState, lsp: bool) -> Pool {
    let kept = Kept { only: tools_flag(cx), permissions };
    let mut builtins = builtin_tools(cx, &kept, mcp, lsp);
    let mcp_tools = mcp.tools();
    let keep_mcp = kept_mcp_tools(cx, permissions, mcp);
    let deferrable = |i: usize| keep_mcp[i] && !mcp_tools[i].always_load;
    let deferrable_mcp: Vec<&McpTool> =
        (0..mcp_tools.len()).filter(|&i| deferrable(i)).map(|i| &mcp_tools[i]).collect();

    let mode = search_mode(cx);
    let on = search_on(mode, cx, &builtins, &deferrable_mcp);
    let search_allowed = kept.has("ToolSearch");
    let any_deferrable = builtins.iter().any(|(_, d)| *d) || !deferrable_mcp.is_empty() || mcp.any_pending();
    let tool_search = on && search_allowed && any_deferrable;
    if tool_search {
        builtins.push(("ToolSearch", false));
    }
    builtins.sort_by(|a, b| crate::collate::compare(a.0, b.0));

    let defer = tool_search;
    let mut tools: Vec<ToolView> = Vec::with_capacity(builtins.len() + mcp_tools.len());
    for (name, deferred) in &builtins {
        tools.push(ToolView { name: builtin_name(name), origin: "builtin", deferred: defer && *deferred });
    }
    // Where each MCP tool landed in the pool.
    let mut at: Vec<u32> = vec![u32::MAX; mcp_tools.len()];
    for (i, t) in mcp_tools.iter().enumerate() {
        if keep_mcp[i] {
            at[i] = tools.len() as u32;
            tools.push(ToolView { name: t.name.clone(), origin: "mcp", deferred: defer && !t.always_load });
        }
    }

    // The announcement: with tool search on, or in `auto` mode below its threshold (Claude Code
    // announces them there too although it sends them); never when ToolSearch is not allowed.
    let announce = search_allowed && (tool_search || matches!(mode, SearchMode::Auto(_)));
    let announced = if announce { announcement(&builtins, mcp, &at, deferrable) } else { Vec::new() };
    Pool { tools, tool_search, announced, placeholder: on }
}

/// The deferred tools announced, as positions in the pool (no name is copied): the deferred
/// built-ins in code-unit order, then the deferrable MCP tools in code-unit order (built-in
/// names start with a capital, `mcp__` with a small letter: every MCP tool comes after every
/// built-in). `at`: where each MCP tool landed in the pool.
fn announcement(builtins: &[(&str, bool)], mcp: &McpState, at: &[u32], deferrable: impl Fn(usize) -> bool) -> Vec<u32> {
    let mut names: Vec<(&str, u32)> =
        builtins.iter().enumerate().filter(|(_, (_, d))| *d).map(|(i, (n, _))| (*n, i as u32)).collect();
    names.sort_unstable();
    let mut announced: Vec<u32> = names.into_iter().map(|(_, i)| i).collect();
    announced.extend(mcp.tools_by_code_unit().filter(|&i| deferrable(i)).map(|i| at[i]));
    announced
}

/// The `tools` array of a request: the pool without deferred tools, the placeholder (when the
/// request has a deferred channel) before the last tool.
pub fn sent(tools: &[ToolView], placeholder: bool) -> Vec<Arc<str>> {
    let mut out: Vec<Arc<str>> = tools.iter().filter(|t| !t.deferred).map(|t| t.name.clone()).collect();
    if placeholder && !out.is_empty() {
        let at = out.len() - 1;
        out.insert(at, builtin_name(PLACEHOLDER));
    }
    out
}

/// The pool of a skill's forked subagent: the main thread's, without the main-thread-only
/// tools, and with the agent's `tools` and `disallowedTools` applied.
pub(crate) fn for_subagent(tools: &[ToolView], allowed: &[String], disallowed: &[String]) -> Vec<ToolView> {
    let base = |name: &str| name.split('(').next().unwrap_or(name).trim().to_string();
    let allowed: Vec<String> = allowed.iter().map(|t| base(t)).filter(|t| t != "*").collect();
    let disallowed: Vec<String> = disallowed.iter().map(|t| base(t)).collect();
    tools
        .iter()
        .filter(|t| !MAIN_THREAD_ONLY.contains(&&*t.name))
        .filter(|t| allowed.is_empty() || allowed.iter().any(|a| *a == *t.name))
        .filter(|t| !disallowed.iter().any(|d| *d == *t.name))
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mode(value: &str) -> SearchMode {
        let mut cx = TurnContext::default();
        cx.flags.insert("ENABLE_TOOL_SEARCH".into(), serde_json::json!(value));
        search_mode(&cx)
    }

    #[test]
    fn enable_tool_search_values() {
        assert_eq!(search_mode(&TurnContext::default()), SearchMode::On);
        for on in ["true", "1", "auto:0", "standard", "yes"] {
            assert_eq!(mode(on), SearchMode::On, "{on}");
        }
        for off in ["false", "0", "auto:100", "OFF"] {
            assert_eq!(mode(off), SearchMode::Standard, "{off}");
        }
        assert_eq!(mode("auto"), SearchMode::Auto(10.0));
        assert_eq!(mode("auto:5"), SearchMode::Auto(5.0));
        assert_eq!(mode("auto:x"), SearchMode::Auto(10.0));
    }

    #[test]
    fn every_tool_with_a_condition_is_a_tool_object_of_the_extracted_table() {
        let file = tools_file();
        assert_eq!(
            file.claude_code,
            capc_compiler::model::CLAUDE_CODE_VERSION,
            "regenerate it: scripts/claude-code-tables {}",
            capc_compiler::model::CLAUDE_CODE_VERSION
        );
        assert!(file.tools.len() > conditions().count(), "{} tool objects", file.tools.len());
        assert!(conditions().count() > 30, "{} conditions", conditions().count());
        for (name, _) in conditions() {
            assert!(file.tools.contains_key(name), "`{name}` is not a tool object of Claude Code");
        }
        for name in RESOURCE_TOOLS {
            assert!(deferred(name), "`{name}` is deferred");
        }
        assert!(deferred("WebFetch") && deferred("Monitor") && !deferred("Bash") && !deferred("Skill"));
    }

    /// A scenario's folder (`tests/oracle/scenarios`).
    fn scenario(name: &str) -> std::path::PathBuf {
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/oracle/scenarios").join(name)
    }

    #[test]
    fn every_condition_shows_in_the_scenarios_it_names() {
        let file: Measured<Condition> =
            serde_json::from_str(CONDITIONS_FILE).expect("measured/tool-conditions.json parses");
        assert_eq!(
            file.claude_code,
            capc_compiler::model::CLAUDE_CODE_VERSION,
            "re-measure it (CONTRIBUTING.md, \"Moving to a new Claude Code version\")"
        );
        for row in &file.rows {
            assert!(!row.scenarios.is_empty(), "`{}` names a scenario", row.tool);
            let mut shown = std::collections::BTreeSet::new();
            for name in &row.scenarios {
                let spec = std::fs::read_to_string(scenario(name).join("scenario.toml")).expect("scenario.toml");
                let spec: toml::Table = spec.parse().expect("TOML");
                let context = spec.get("capc").and_then(|c| c.get("context")).cloned().expect("[capc] context");
                let cx: TurnContext = context.try_into().expect("a turn's context");
                let text = std::fs::read_to_string(scenario(name).join("expected/hello.json")).expect("a recording");
                let recorded: serde_json::Value = serde_json::from_str(&text).expect("JSON");
                let has = |field: &str| recorded[field].as_array().into_iter().flatten().any(|t| *t == *row.tool);
                let in_claude_code = has("tools") || has("deferred");
                let (tools, announced) = names(&cx);
                let in_capc = tools.contains(&row.tool) || announced.contains(&row.tool);
                assert_eq!(in_capc, in_claude_code, "`{}` in {name}", row.tool);
                shown.insert(in_claude_code);
            }
            // A condition is shown both ways, unless the row says where the other way was read.
            let both = shown.len() == 2 || row.when == When::Always;
            assert!(both || row.note.is_some(), "`{}` ({:?}) is shown one way only", row.tool, row.when);
        }
    }

    fn names(cx: &TurnContext) -> (Vec<String>, Vec<String>) {
        let lock = capc_compiler::lock::resolve::empty_lock();
        let loaded = crate::loaded::Loaded::new(lock, crate::loaded::Roots::default());
        let permissions = Permissions::assemble(&loaded, cx, &[]);
        let pool = tool_pool(cx, &permissions, &McpState::default(), false);
        let strings = |v: Vec<Arc<str>>| v.iter().map(|n| n.to_string()).collect();
        let announced = pool.announced.iter().map(|&i| pool.tools[i as usize].name.clone()).collect();
        (strings(sent(&pool.tools, pool.placeholder)), strings(announced))
    }

    #[test]
    fn the_pool_of_a_headless_run_with_an_api_key() {
        let (tools, deferred) = names(&TurnContext::default());
        assert_eq!(
            tools,
            [
                "Agent",
                "Bash",
                "Edit",
                "ListAgents",
                "Read",
                "ReportFindings",
                "ScheduleWakeup",
                "Skill",
                "ToolSearch",
                "Workflow",
                PLACEHOLDER,
                "Write"
            ]
        );
        assert_eq!(
            deferred,
            [
                "CronCreate",
                "CronDelete",
                "CronList",
                "EnterWorktree",
                "ExitWorktree",
                "Monitor",
                "NotebookEdit",
                "SendMessage",
                "TaskStop",
                "WebFetch",
                "WebSearch"
            ]
        );
        // Without Bash: Glob and Grep, no Monitor; `--tools` keeps what it names.
        let no_bash = TurnContext { disallowed_tools: vec!["Bash".into()], ..TurnContext::default() };
        let (tools, deferred) = names(&no_bash);
        assert!(tools.contains(&"Glob".to_string()) && !deferred.contains(&"Monitor".to_string()));
        let only = TurnContext { tools: Some(vec!["Bash,Read,WebFetch".into()]), ..TurnContext::default() };
        assert_eq!(names(&only), (vec!["Bash".into(), "Read".into(), PLACEHOLDER.into(), "WebFetch".into()], vec![]));
    }

    #[test]
    fn placeholder_goes_before_the_last_tool_sent() {
        let view = |name: &str, deferred: bool| ToolView { name: Arc::from(name), origin: "builtin", deferred };
        let tools = [view("Bash", false), view("Cron", true), view("Write", false)];
        let names: Vec<String> = sent(&tools, true).iter().map(|n| n.to_string()).collect();
        assert_eq!(names, ["Bash", PLACEHOLDER, "Write"]);
        assert!(sent(&[], true).is_empty());
    }
}
