//! What a folder adds to every turn before the conversation, in tokens: the MCP tool surface
//! its `capabilities.lock` recorded (`capc lock --connect`), per server, sent up front or
//! deferred behind tool search under each `ENABLE_TOOL_SEARCH` mode, and the Skill listing.
//! `capc ls --budget` shows it; capc.toml's `max-context-tokens` caps it in `capc check`.
//!
//! The tokens of a tool are the lock's estimate (Claude Code's own where it has no tokenizer:
//! a quarter of the JSON of its name, description and schema). The Skill listing's characters
//! are counted as its budget counts them, the window's bytes per token. Claude Code's own
//! system prompt and built-in tools are not the folder's and are not counted; neither are the
//! built-in tools it defers, which `auto` weighs with the MCP tools against its threshold.
//!
//! The servers counted are those a session here starts: the winner of each name, not blocked by
//! the MCP policy, removed by a deny rule or turned off. A project server still waiting for
//! approval counts, as in the sessions of a team that approves it; a tool a deny rule removes
//! does not.

use crate::budget::{self, ListingRow, Measured};
use crate::context::TurnContext;
use crate::listing::Kept;
use crate::pool::{search_mode, SearchMode};
use capc_compiler::check::Measure;
use capc_compiler::config::ContextWindow;
use capc_compiler::diagnostic::report_at;
use capc_compiler::model::Lock;
use capc_compiler::surface::{offered, starts, Recorded};
use capc_compiler::{rules, Checked, Diagnostic, Options};
use serde_json::{json, Value};
use std::sync::Arc;

/// What `capc lock --connect` recorded of a server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Recording {
    /// Its tools are recorded (perhaps none).
    Listed,
    /// It could not be listed.
    Failed,
    /// Nothing is recorded for it: declared after the lock was written, or the lock was never
    /// written with `--connect`.
    Missing,
}

impl Recording {
    fn as_str(self) -> &'static str {
        match self {
            Recording::Listed => "listed",
            Recording::Failed => "failed",
            Recording::Missing => "not-recorded",
        }
    }
}

/// One server a session here starts, with what its tools cost.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerCost {
    /// The name as declared (`plugin:<plugin>:<server>` for a plugin's).
    pub server: String,
    /// The file that declares it.
    pub path: String,
    pub tools: usize,
    /// The tools' tokens, as recorded.
    pub tokens: u64,
    /// Tokens of the tools' names, which Claude Code still announces when they are deferred.
    pub names: u64,
    /// `alwaysLoad` in the server's entry: none of its tools is deferred.
    pub always_load: bool,
    /// The tools whose own `_meta` says `alwaysLoad` (sent up front even when tool search
    /// defers their server's others), their tokens and their names' tokens.
    pub pinned: usize,
    pub(crate) pinned_tokens: u64,
    pub(crate) pinned_names: u64,
    pub recording: Recording,
}

impl ServerCost {
    /// Tokens sent up front, with tool search on (`search`) or off.
    pub fn up_front(&self, search: bool) -> u64 {
        if search && !self.always_load {
            self.pinned_tokens
        } else {
            self.tokens
        }
    }

    /// Tokens tool search may defer.
    pub fn deferrable(&self) -> u64 {
        if self.always_load {
            0
        } else {
            self.tokens - self.pinned_tokens
        }
    }
}

/// The tool surface of the servers a session in the folder starts.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolSurface {
    /// By name.
    pub servers: Vec<ServerCost>,
    /// The mode the folder's settings select.
    pub mode: SearchMode,
    /// `ENABLE_TOOL_SEARCH` as the settings set it.
    pub setting: Option<String>,
}

/// How a mode sends the surface in one window.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Deferral {
    /// Tool search on: deferred tools are left out of the request.
    pub search: bool,
    pub up_front: u64,
    pub deferred: u64,
    /// Tokens of the deferred tools' names, announced instead of sent.
    pub names: u64,
}

impl Deferral {
    /// What the request carries of the surface.
    pub fn sent(&self) -> u64 {
        self.up_front + self.names
    }
}

/// A tool name's tokens in the announcement (a line of its own), estimated as a tool's are.
fn name_tokens(name: &str) -> u64 {
    (name.encode_utf16().count() as u64 + 1 + 2) / 4
}

impl ToolSurface {
    /// The surface `recorded` holds for the servers of `lock` that start, in the mode `cx`
    /// selects.
    pub fn of(recorded: &Recorded, lock: &Lock, cx: &TurnContext) -> ToolSurface {
        let mut servers: Vec<ServerCost> = lock
            .mcp_servers
            .iter()
            .filter(|s| starts(s))
            .map(|s| {
                let listed = recorded.tools.iter().any(|t| t.server == s.name);
                let failed = recorded.failed.iter().any(|f| f.server == s.name);
                ServerCost {
                    server: s.name.clone(),
                    path: s.path.clone(),
                    tools: 0,
                    tokens: 0,
                    names: 0,
                    always_load: s.always_load,
                    pinned: 0,
                    pinned_tokens: 0,
                    pinned_names: 0,
                    recording: match (listed, failed) {
                        (true, _) => Recording::Listed,
                        (false, true) => Recording::Failed,
                        (false, false) => Recording::Missing,
                    },
                }
            })
            .collect();
        servers.sort_by(|a, b| a.server.cmp(&b.server));
        for tool in offered(recorded, lock) {
            let Ok(i) = servers.binary_search_by(|s| s.server.as_str().cmp(&tool.server.name)) else { continue };
            let s = &mut servers[i];
            let name = name_tokens(&tool.name());
            s.tools += 1;
            s.tokens += tool.tool.tokens;
            s.names += name;
            if tool.tool.always_load {
                s.pinned += 1;
                s.pinned_tokens += tool.tool.tokens;
                s.pinned_names += name;
            }
        }
        ToolSurface { servers, mode: search_mode(cx), setting: cx.flag_text("ENABLE_TOOL_SEARCH") }
    }

    /// Whether anything is recorded for the servers that start.
    pub fn recorded(&self) -> bool {
        self.servers.iter().any(|s| s.recording != Recording::Missing)
    }

    pub fn tokens(&self) -> u64 {
        self.servers.iter().map(|s| s.tokens).sum()
    }

    /// Tokens of the tools tool search may defer (neither they nor their server say
    /// `alwaysLoad`).
    pub fn deferrable(&self) -> u64 {
        self.servers.iter().map(ServerCost::deferrable).sum()
    }

    /// Whether `mode` turns tool search on in a window of `tokens`: `auto:N` does when the
    /// deferrable tools take more than N% of it.
    pub(crate) fn searching(&self, mode: SearchMode, tokens: u64) -> bool {
        match mode {
            SearchMode::Standard => false,
            SearchMode::On => self.deferrable() > 0,
            SearchMode::Auto(percent) => self.deferrable() as f64 > (tokens as f64 * percent / 100.0).floor(),
        }
    }

    /// What `mode` sends of the surface in a window of `tokens`.
    pub fn split(&self, mode: SearchMode, tokens: u64) -> Deferral {
        let search = self.searching(mode, tokens);
        let mut split = Deferral { search, ..Deferral::default() };
        for s in &self.servers {
            split.up_front += s.up_front(search);
            if search && !s.always_load {
                split.deferred += s.deferrable();
                split.names += s.names - s.pinned_names;
            }
        }
        split
    }

    /// The modes `capc ls --budget` compares: `true` (and unset), `false`, `auto`, and the
    /// folder's own `auto:N`; with whether the folder's settings select it.
    pub fn modes(&self) -> Vec<(String, SearchMode, bool)> {
        let mut modes = vec![
            ("unset or true".to_string(), SearchMode::On),
            ("false".to_string(), SearchMode::Standard),
            ("auto".to_string(), SearchMode::Auto(10.0)),
        ];
        if let SearchMode::Auto(p) = self.mode {
            if p != 10.0 {
                modes.push((format!("auto:{p}"), self.mode));
            }
        }
        modes.into_iter().map(|(label, mode)| (label, mode, mode == self.mode)).collect()
    }
}

/// The tokens a plain turn in one window reads of what the folder declares, before the
/// conversation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Total {
    /// The Skill listing as sent, in characters and in tokens.
    pub(crate) listing_chars: usize,
    pub listing: u64,
    /// The MCP surface in the folder's mode.
    pub tools: Deferral,
    /// The instruction files sent at the start (CLAUDE.md, rules without `paths`, their
    /// imports), by Claude Code's own estimate of a quarter token per character.
    pub instructions: u64,
}

impl Total {
    pub fn of(listing: Option<&Measured>, surface: &ToolSurface, window: ContextWindow, instructions: u64) -> Total {
        let listing_chars = listing.map_or(0, |m| m.sent);
        Total {
            listing_chars,
            listing: (listing_chars as u64).div_ceil(window.bytes_per_token.max(1)),
            tools: surface.split(surface.mode, window.tokens),
            instructions,
        }
    }

    pub fn tokens(&self) -> u64 {
        self.listing + self.tools.sent() + self.instructions
    }
}

/// The instruction files a session sends at the start, with their token estimates, in order.
pub(crate) fn instructions_at_start(checked: &Checked) -> Vec<(&str, u64)> {
    checked.instructions.iter().filter(|i| i.at_start()).map(|i| (i.path.as_str(), i.tokens)).collect()
}

/// The instruction files sent at the start, as `capc ls --budget --format json`'s key
/// `instructions`: each file's path and tokens, in the order Claude Code sends them.
pub fn instructions_json(checked: &Checked) -> Value {
    instructions_at_start(checked).into_iter().map(|(path, tokens)| json!({"path": path, "tokens": tokens})).collect()
}

/// The surface and each window's total, for `capc ls --budget`.
pub fn measure(
    checked: &Checked,
    options: &Options,
    recorded: &Recorded,
    listings: &[(ContextWindow, Option<Measured>)],
) -> (ToolSurface, Vec<Total>) {
    let cx = budget::context(checked, options);
    // The resolved lock as it is (no copy of it); an empty one when nothing was resolved.
    let surface = ToolSurface::of(recorded, &checked.shared_lock(), &cx);
    let instructions: u64 = instructions_at_start(checked).iter().map(|(_, t)| t).sum();
    let totals = listings.iter().map(|(w, m)| Total::of(m.as_ref(), &surface, *w, instructions)).collect();
    (surface, totals)
}

/// The lines `capc ls --budget` adds after the Skill listing: the surface per server, each
/// mode's split in each window, and each window's total (against `max`, when set).
pub fn to_text(
    surface: &ToolSurface,
    listings: &[(ContextWindow, Option<Measured>)],
    totals: &[Total],
    max: Option<u64>,
) -> String {
    let mut lines: Vec<String> = vec![String::new()];
    if surface.servers.is_empty() {
        lines.push("MCP tool surface: no MCP server starts here".to_string());
    } else if !surface.recorded() {
        lines.push(format!(
            "MCP tool surface: not recorded for {}; run `capc lock --connect` to record what each offers",
            capc_compiler::plural::count(surface.servers.len(), "server")
        ));
    } else {
        let tools: usize = surface.servers.iter().map(|s| s.tools).sum();
        lines.push(format!(
            "MCP tool surface, as capabilities.lock recorded it: {}, {}, {} tokens",
            capc_compiler::plural::count(surface.servers.len(), "server"),
            capc_compiler::plural::count(tools, "tool"),
            surface.tokens()
        ));
        let width = surface.servers.iter().map(|s| s.server.chars().count()).max().unwrap_or(6).clamp(6, 64);
        lines.push(format!("  {:>7}  {:>5}  {:width$}  {}", "tokens", "tools", "server", "loading"));
        let mut rows: Vec<&ServerCost> = surface.servers.iter().collect();
        rows.sort_by(|a, b| b.tokens.cmp(&a.tokens).then_with(|| a.server.cmp(&b.server)));
        for s in rows {
            let loading = match (s.recording, s.always_load, s.pinned) {
                (Recording::Failed, ..) => "could not be listed when the lock was written".to_string(),
                (Recording::Missing, ..) => "not recorded: run `capc lock --connect`".to_string(),
                (Recording::Listed, true, _) => "alwaysLoad: always up front".to_string(),
                (Recording::Listed, false, 0) => "deferrable".to_string(),
                (Recording::Listed, false, n) if n == s.tools => {
                    "every tool says alwaysLoad: always up front".to_string()
                }
                (Recording::Listed, false, 1) => {
                    format!("deferrable, but 1 tool says alwaysLoad: {} tokens always up front", s.pinned_tokens)
                }
                (Recording::Listed, false, n) => {
                    format!("deferrable, but {n} tools say alwaysLoad: {} tokens always up front", s.pinned_tokens)
                }
            };
            lines.push(format!("  {:>7}  {:>5}  {:width$}  {loading}", s.tokens, s.tools, s.server));
        }
        for ((window, _), _) in listings.iter().zip(totals) {
            lines.push(format!("  ENABLE_TOOL_SEARCH in a {}-token window:", window.tokens));
            let modes = surface.modes();
            let width = modes.iter().map(|(l, _, this)| l.len() + if *this { 14 } else { 0 }).max().unwrap_or(0);
            lines.push(format!("    {:width$}  {:>8}  {:>8}  {:>6}", "", "up front", "deferred", "names"));
            for (label, mode, this) in modes {
                let split = surface.split(mode, window.tokens);
                let label = if this { format!("{label} (this folder)") } else { label };
                let how = match mode {
                    SearchMode::Auto(p) => {
                        let threshold = (window.tokens as f64 * p / 100.0).floor();
                        if split.search {
                            format!("  over {p}% ({threshold} tokens): deferred")
                        } else {
                            format!("  within {p}% ({threshold} tokens): sent")
                        }
                    }
                    _ => String::new(),
                };
                lines.push(format!(
                    "    {label:width$}  {:>8}  {:>8}  {:>6}{how}",
                    split.up_front, split.deferred, split.names
                ));
            }
        }
    }
    for ((window, _), total) in listings.iter().zip(totals) {
        let ceiling = match max {
            Some(max) if total.tokens() > max => {
                format!("; over max-context-tokens ({max}) by {}", total.tokens() - max)
            }
            Some(max) => format!("; within max-context-tokens ({max})"),
            None => String::new(),
        };
        lines.push(format!(
            "Up front in a {}-token window: {} tokens (instructions {}, Skill listing {}, MCP tools {}, deferred tools' names {}){ceiling}",
            window.tokens,
            total.tokens(),
            total.instructions,
            total.listing,
            total.tools.up_front,
            total.tools.names
        ));
    }
    let mut out = String::new();
    for line in lines {
        out.push_str(&capc_compiler::printable::escape(&line));
        out.push('\n');
    }
    out
}

/// The surface and totals, as `capc ls --budget --format json`'s keys `mcp` and `totals`.
pub fn to_json(
    surface: &ToolSurface,
    listings: &[(ContextWindow, Option<Measured>)],
    totals: &[Total],
    max: Option<u64>,
) -> serde_json::Map<String, Value> {
    let servers: Vec<Value> = surface
        .servers
        .iter()
        .map(|s| {
            json!({"server": s.server, "path": s.path, "tools": s.tools, "tokens": s.tokens, "names": s.names,
                   "always_load": s.always_load, "always_load_tools": s.pinned, "always_load_tokens": s.pinned_tokens,
                   "recorded": s.recording.as_str()})
        })
        .collect();
    let windows: Vec<Value> = listings
        .iter()
        .map(|(window, _)| {
            let modes: Vec<Value> = surface
                .modes()
                .into_iter()
                .map(|(label, mode, this)| {
                    let split = surface.split(mode, window.tokens);
                    json!({"mode": label, "this_folder": this, "tool_search": split.search,
                           "up_front": split.up_front, "deferred": split.deferred, "names": split.names})
                })
                .collect();
            json!({"tokens": window.tokens, "modes": modes})
        })
        .collect();
    let mcp = json!({"recorded": surface.recorded(), "setting": surface.setting, "tokens": surface.tokens(),
                     "servers": servers, "windows": windows});
    let totals: Vec<Value> = listings
        .iter()
        .zip(totals)
        .map(|((window, _), t)| {
            json!({"tokens": window.tokens, "total": t.tokens(), "instructions": t.instructions, "listing": t.listing, "listing_chars": t.listing_chars,
                   "mcp_up_front": t.tools.up_front, "mcp_names": t.tools.names,
                   "over": max.map(|m| t.tokens().saturating_sub(m))})
        })
        .collect();
    let mut keys = serde_json::Map::new();
    keys.insert("mcp".to_string(), mcp);
    keys.insert("totals".to_string(), json!({"max_context_tokens": max, "windows": totals}));
    keys
}

/// The measurements `capc check` (and `capc lsp`) run above the compiler: `listing-budget`
/// for the context windows the configuration names, and `max-context-tokens` when it sets a
/// ceiling, over the tool surface `surface` recorded.
pub fn measures(config: &capc_compiler::config::Config, surface: &Arc<Recorded>) -> capc_compiler::check::Measures {
    let windows = config.context_windows.value.clone();
    let mut measures: Vec<Arc<dyn Measure>> = vec![Arc::new(budget::ListingBudget { windows: windows.clone() })];
    if let Some(max) = config.max_context_tokens.value {
        measures.push(Arc::new(ContextCeiling { windows, max, surface: surface.clone() }));
    }
    capc_compiler::check::Measures(measures)
}

/// The `max-context-tokens` ceiling `capc check` enforces.
#[derive(Debug, Clone)]
pub(crate) struct ContextCeiling {
    pub windows: Vec<ContextWindow>,
    pub max: u64,
    pub surface: Arc<Recorded>,
}

/// The largest share of a total: a server sent up front, or the listing's longest entry the
/// folder declares.
enum Largest<'a> {
    Server(&'a ServerCost),
    Entry(&'a ListingRow),
    /// An instruction file sent at the start: its path and tokens.
    Instruction(&'a str, u64),
}

impl Measure for ContextCeiling {
    fn findings(&self, checked: &Checked, options: &Options) -> Vec<Diagnostic> {
        let listings = budget::measure_each(checked, options, &self.windows);
        let (surface, totals) = measure(checked, options, &self.surface, &listings);
        // One finding, for the first window (in the order configured) over the ceiling.
        let Some(((window, listing), total)) = listings.iter().zip(&totals).find(|(_, t)| t.tokens() > self.max) else {
            return Vec::new();
        };
        let search = total.tools.search;
        let up_front: Vec<&ServerCost> = surface.servers.iter().filter(|s| s.up_front(search) > 0).collect();
        let entry = longest_declared_entry(listing.as_ref());
        let bytes = window.bytes_per_token.max(1);
        let Some(largest) = largest_share(checked, &up_front, entry, search, bytes) else {
            return Vec::new();
        };
        let message = over_message(checked, window, total, &up_front, self.max);
        let help = ways_to_fit(total, &up_front, entry.is_some());
        report_largest(checked, options, largest, search, message, help)
    }
}

/// The listing's longest entry the folder declares (one with a file, not dropped), the last
/// name first among equals.
fn longest_declared_entry(listing: Option<&Measured>) -> Option<&ListingRow> {
    listing.and_then(|m| {
        m.entries
            .iter()
            .filter(|r| r.path.is_some() && r.kept != Kept::Dropped)
            .max_by(|a, b| a.sent().cmp(&b.sent()).then_with(|| b.name.cmp(&a.name)))
    })
}

/// The largest share of a total over the ceiling: the server sent up front with the most
/// tokens, the listing's longest declared entry or the largest instruction file sent at the
/// start (`bytes` per token for the listing), `None` when there is none.
fn largest_share<'a>(
    checked: &'a Checked,
    up_front: &[&'a ServerCost],
    entry: Option<&'a ListingRow>,
    search: bool,
    bytes: u64,
) -> Option<Largest<'a>> {
    let sent = |s: &ServerCost| s.up_front(search);
    let server = up_front.iter().copied().max_by(|a, b| sent(a).cmp(&sent(b)).then_with(|| b.server.cmp(&a.server)));
    let largest = match (server, entry) {
        (Some(s), Some(e)) if (e.sent() as u64).div_ceil(bytes) > sent(s) => Some(Largest::Entry(e)),
        (Some(s), _) => Some(Largest::Server(s)),
        (None, Some(e)) => Some(Largest::Entry(e)),
        (None, None) => None,
    };
    let file = instructions_at_start(checked).into_iter().max_by(|a, b| a.1.cmp(&b.1).then_with(|| b.0.cmp(a.0)));
    let share = |l: &Largest<'_>| match l {
        Largest::Server(s) => sent(s),
        Largest::Entry(e) => (e.sent() as u64).div_ceil(bytes),
        Largest::Instruction(_, t) => *t,
    };
    match (largest, file) {
        (Some(l), Some((path, tokens))) if tokens > share(&l) => Some(Largest::Instruction(path, tokens)),
        (Some(l), _) => Some(l),
        (None, Some((path, tokens))) => Some(Largest::Instruction(path, tokens)),
        (None, None) => None,
    }
}

/// The finding's message: what a plain turn in `window` reads, how far over `max`, and each
/// share (instructions, the Skill listing, MCP tools up front, deferred names) with its three
/// largest parts.
fn over_message(
    checked: &Checked,
    window: &ContextWindow,
    total: &Total,
    up_front: &[&ServerCost],
    max: u64,
) -> String {
    let split = total.tools;
    let sent = |s: &ServerCost| s.up_front(split.search);
    let mut parts = Vec::new();
    let files = instructions_at_start(checked);
    if total.instructions > 0 {
        let mut named = files.clone();
        named.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(b.0)));
        let names: Vec<String> = named.iter().take(3).map(|(p, t)| format!("`{p}` {t}")).collect();
        let more = if named.len() > 3 { ", …" } else { "" };
        parts.push(format!("instructions {} ({}{more})", total.instructions, names.join(", ")));
    }
    parts.push(format!("the Skill listing {} ({} characters)", total.listing, total.listing_chars));
    if split.up_front > 0 {
        let mut named: Vec<&ServerCost> = up_front.to_vec();
        named.sort_by(|a, b| sent(b).cmp(&sent(a)).then_with(|| a.server.cmp(&b.server)));
        let names: Vec<String> = named.iter().take(3).map(|s| format!("`{}` {}", s.server, sent(s))).collect();
        let more = if named.len() > 3 { ", …" } else { "" };
        parts.push(format!("MCP tools sent up front {} ({}{more})", split.up_front, names.join(", ")));
    }
    if split.names > 0 {
        parts.push(format!("deferred tools' names {}", split.names));
    }
    format!(
        "a plain turn in a {}-token window reads {} tokens of instructions, skills and MCP tools before the conversation, \
         {} over `max-context-tokens` ({}) in capc.toml: {}",
        window.tokens,
        total.tokens(),
        total.tokens() - max,
        max,
        parts.join(", ")
    )
}

/// The finding's help: the ways to bring the total under the ceiling that apply here
/// (`entry_listed`: the listing has a declared entry), raising the ceiling last.
fn ways_to_fit(total: &Total, up_front: &[&ServerCost], entry_listed: bool) -> String {
    let mut ways = Vec::new();
    let deferrable_up_front: u64 = up_front.iter().map(|s| s.deferrable()).sum();
    if !total.tools.search && deferrable_up_front > 0 {
        ways.push(format!(
            "let tool search defer the MCP tools (`ENABLE_TOOL_SEARCH` unset or `true`): {deferrable_up_front} tokens fewer"
        ));
    }
    let always: Vec<String> = up_front.iter().filter(|s| s.always_load).map(|s| format!("`{}`", s.server)).collect();
    if !always.is_empty() {
        ways.push(format!("drop `alwaysLoad` from {}", always.join(", ")));
    }
    if total.instructions > 0 {
        ways.push("move instructions only some tasks need into rules with `paths:` or into skills".to_string());
    }
    if entry_listed {
        ways.push("shorten skill descriptions or list skills `name-only` in `skillOverrides`".to_string());
    }
    ways.push("raise `max-context-tokens` in capc.toml (`capc ls --budget` shows every share)".to_string());
    format!("to fit: {}", ways.join(", or "))
}

/// The one finding, reported at the largest share's declaration with `message` naming it.
fn report_largest(
    checked: &Checked,
    options: &Options,
    largest: Largest<'_>,
    search: bool,
    message: String,
    help: String,
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    match largest {
        Largest::Server(s) => {
            let span = checked.server_spans.get(&(s.server.clone(), s.path.clone())).copied();
            let message = format!(
                "{message}; server `{}` is the largest share the folder declares, {} tokens",
                s.server,
                s.up_front(search)
            );
            report_at(&mut out, s.path.clone(), &rules::max_context_tokens::RULE, span, message).help(help);
        }
        Largest::Entry(e) => {
            let path = e.path.clone().unwrap_or_default();
            let span = budget::description_span(options, &path);
            let message = format!(
                "{message}; `{}` is the listing's longest entry the folder declares, {} characters",
                e.name,
                e.sent()
            );
            report_at(&mut out, path, &rules::max_context_tokens::RULE, span, message).help(help);
        }
        Largest::Instruction(path, tokens) => {
            let message = format!("{message}; `{path}` is the largest share the folder declares, {tokens} tokens");
            report_at(&mut out, path.to_string(), &rules::max_context_tokens::RULE, None, message).help(help);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server(name: &str, tokens: u64, always_load: bool) -> ServerCost {
        ServerCost {
            server: name.into(),
            path: ".mcp.json".into(),
            tools: 1,
            tokens,
            names: 5,
            always_load,
            pinned: 0,
            pinned_tokens: 0,
            pinned_names: 0,
            recording: Recording::Listed,
        }
    }

    #[test]
    fn each_mode_splits_the_surface_as_claude_code_sends_it() {
        let surface = ToolSurface {
            servers: vec![server("big", 150_000, false), server("pinned", 2_000, true)],
            mode: SearchMode::On,
            setting: None,
        };
        let on = surface.split(SearchMode::On, 1_000_000);
        assert_eq!((on.search, on.up_front, on.deferred, on.names), (true, 2_000, 150_000, 5));
        let off = surface.split(SearchMode::Standard, 1_000_000);
        assert_eq!((off.search, off.up_front, off.deferred, off.names), (false, 152_000, 0, 0));
        // `auto`: 10% of 1,000,000 is 100,000; 150,000 deferrable tokens are over it.
        assert!(surface.split(SearchMode::Auto(10.0), 1_000_000).search);
        // 10% of 2,000,000 is 200,000: everything is sent.
        let auto = surface.split(SearchMode::Auto(10.0), 2_000_000);
        assert_eq!((auto.search, auto.up_front), (false, 152_000));
        // Exactly at the threshold is not over it.
        assert!(!surface.split(SearchMode::Auto(15.0), 1_000_000).search);
        // Only alwaysLoad servers: nothing to defer, tool search stays off.
        let pinned = ToolSurface { servers: vec![server("pinned", 2_000, true)], ..surface.clone() };
        assert!(!pinned.split(SearchMode::On, 1_000_000).search);
    }

    #[test]
    fn a_tool_that_says_always_load_is_sent_up_front_beside_its_deferred_server() {
        // 3 tools, 90,000 tokens; one of them (30,000) says `alwaysLoad` in its own `_meta`.
        let mixed = ServerCost {
            tools: 3,
            names: 15,
            pinned: 1,
            pinned_tokens: 30_000,
            pinned_names: 5,
            ..server("mixed", 90_000, false)
        };
        let surface = ToolSurface { servers: vec![mixed.clone()], mode: SearchMode::On, setting: None };
        let on = surface.split(SearchMode::On, 1_000_000);
        assert_eq!((on.search, on.up_front, on.deferred, on.names), (true, 30_000, 60_000, 10));
        let off = surface.split(SearchMode::Standard, 1_000_000);
        assert_eq!((off.up_front, off.deferred, off.names), (90_000, 0, 0));
        // `auto` weighs what could be deferred: 60,000 is within 10% of 1,000,000.
        assert_eq!(surface.deferrable(), 60_000);
        assert!(!surface.split(SearchMode::Auto(10.0), 1_000_000).search);
        assert!(surface.split(SearchMode::Auto(5.0), 1_000_000).search);
        // The server's own `alwaysLoad` sends everything, the pinned tool once.
        let all = ToolSurface { servers: vec![ServerCost { always_load: true, ..mixed }], ..surface };
        let on = all.split(SearchMode::On, 1_000_000);
        assert_eq!((on.search, on.up_front, on.deferred, on.names), (false, 90_000, 0, 0));
    }

    #[test]
    fn the_folders_own_auto_threshold_is_a_mode_of_its_own() {
        let surface = ToolSurface { servers: vec![], mode: SearchMode::Auto(5.0), setting: Some("auto:5".into()) };
        let modes = surface.modes();
        assert_eq!(modes.len(), 4);
        assert_eq!(modes[3].0, "auto:5");
        assert!(modes[3].2 && !modes[0].2);
        let default = ToolSurface { mode: SearchMode::On, setting: None, ..surface };
        assert!(default.modes()[0].2);
        assert_eq!(default.modes().len(), 3);
    }

    #[test]
    fn a_name_costs_what_a_line_of_it_costs() {
        assert_eq!(name_tokens("mcp__gh__create_issue"), (21 + 1 + 2) / 4);
    }
}
