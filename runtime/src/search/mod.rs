//! Tool search: `select:A,B` and keyword search with Claude Code's weights.
//!
//! Pure: the caller hands over the whole tool pool, already in pool order (built-ins by `localeCompare`, then MCP tools
//! by `localeCompare`), with each tool's deferral decided by [`is_deferred`]; nothing here reads files, the
//! environment or the clock.
//!
//! The algorithm is `ToolSearchTool.call` and `searchToolsWithKeywords`, step by step:
//!
//! 1. `select:` (ASCII case-insensitive, the rest of the query non-empty and on one line, as `/^select:(.+)$/i`):
//!    comma-separated names, trimmed, each looked up by exact, case-sensitive name (`findToolByName`) among the deferred
//!    tools and then among all tools; duplicates dropped; `max_results` does not apply.
//! 2. Otherwise keyword search over the deferred tools: exact name (case-insensitive), then an `mcp__` prefix, then
//!    scored terms (+12/+10 exact name part, +6/+5 substring of a part, +3 for `full` only while the running score is 0,
//!    +4 `searchHint` word, +2 description word), ranked by a stable sort and cut to `max_results`.
//!
//! Word boundaries follow JavaScript's `\b` without the `u` flag: word characters are `[A-Za-z0-9_]` and nothing else,
//! so `é` or `日` is a non-word character (`caf` matches `café` at word boundaries, as it does in Claude Code).
//!
//! This file holds the call and `select:`; `keywords.rs` scores and ranks the tools for a keyword query.

mod keywords;

use keywords::ranked;

/// The tool that does the searching; never deferred itself.
#[cfg(test)] // read by `is_deferred` only
pub(crate) const TOOL_SEARCH_TOOL_NAME: &str = "ToolSearch";

/// `max_results` when the model leaves it out.
#[cfg(test)] // used only by the tests
pub(crate) const DEFAULT_MAX_RESULTS: usize = 5;

/// The result text when nothing matched.
pub(crate) const NO_MATCH_TEXT: &str = "No matching deferred tools found";

/// A tool as tool search sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SearchTool<'a> {
    /// The tool's name as the model calls it (`mcp__server__tool` for MCP tools).
    pub name: &'a str,
    /// The model-facing description: `tool.prompt()`, which for MCP tools is already capped at 2048 characters by
    /// the MCP client. Searched as given (lowercased), not truncated here.
    pub description: &'a str,
    /// The tool's `searchHint` (3–10 words), if it has one.
    pub search_hint: Option<&'a str>,
    /// Whether the tool comes from an MCP server. Tool search itself tells MCP tools by their `mcp__` name prefix
    /// (Claude Code's `parseToolName`); this flag is what [`is_deferred`] needs.
    pub is_mcp: bool,
    /// Whether the tool is deferred ([`is_deferred`]): only deferred tools are searched by keyword.
    pub deferred: bool,
}

/// What a ToolSearch call returns.
///
/// Claude Code answers with `tool_reference` blocks, one per matched name, which the API expands into the tools' full
/// definitions; `matches` holds those names in order, and `text` stands in for the blocks as a plain line.
/// Serializes with these field names (`pending_mcp_servers` is Claude Code's own output field).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct SearchResult {
    /// The matched tool names, in result order.
    pub matches: Vec<String>,
    /// Servers still connecting, only when nothing matched (empty otherwise).
    pub(crate) pending_mcp_servers: Vec<String>,
    /// A one-line rendering of the result: the matched names, or [`NO_MATCH_TEXT`] plus a retry hint when some MCP
    /// servers are still connecting.
    pub text: String,
}

/// `isDeferredTool`, checked in order: `alwaysLoad` opts out (even for MCP tools), MCP tools are
/// deferred, ToolSearch never is, and any other tool is deferred exactly when it says `shouldDefer`.
///
/// Claude Code has two more exceptions between the ToolSearch check and `shouldDefer`: Agent stays loaded when the
/// fork-subagent experiment is on, and Brief and SendUserFile stay loaded under the KAIROS feature. capc models
/// neither experiment, so they are left out.
#[must_use]
#[cfg(test)] // Claude Code's rule, pinned by the tests; nothing outside them calls it yet
pub(crate) fn is_deferred(always_load: bool, is_mcp: bool, name: &str, should_defer: bool) -> bool {
    if always_load {
        return false;
    }
    if is_mcp {
        return true;
    }
    if name == TOOL_SEARCH_TOOL_NAME {
        return false;
    }
    should_defer
}

/// One ToolSearch call (`call({query, max_results})`).
///
/// `tools` is the whole pool in pool order, deferred tools marked; `pending_servers` are the MCP servers still
/// connecting, reported only when nothing matched. Never panics, whatever the query.
#[must_use]
pub(crate) fn tool_search(
    query: &str,
    max_results: usize,
    tools: &[SearchTool<'_>],
    pending_servers: &[String],
) -> SearchResult {
    let deferred: Vec<&SearchTool<'_>> = tools.iter().filter(|t| t.deferred).collect();
    let matches = match select_list(query) {
        Some(list) => select(list, &deferred, tools),
        None => search_tools_with_keywords(query, &deferred, tools, max_results),
    };
    finish(matches, pending_servers)
}

/// The names after `select:`, when the query is `/^select:(.+)$/i`: ASCII case-insensitive prefix, at least one
/// character after it, and no JavaScript line terminator anywhere (`.` does not match one and `$` is end of input).
fn select_list(query: &str) -> Option<&str> {
    const PREFIX: &str = "select:";
    let head = query.get(..PREFIX.len())?;
    if !head.eq_ignore_ascii_case(PREFIX) {
        return None;
    }
    let rest = query.get(PREFIX.len()..)?;
    if rest.is_empty() || rest.contains(['\n', '\r', '\u{2028}', '\u{2029}']) {
        return None;
    }
    Some(rest)
}

/// `findToolByName`: the exact, case-sensitive name. (Claude Code also accepts a tool's `aliases`; deferred tools have
/// none, and a [`SearchTool`] carries none.)
fn find_tool_by_name<'t, 'a>(
    tools: impl IntoIterator<Item = &'t SearchTool<'a>>,
    name: &str,
) -> Option<&'t SearchTool<'a>>
where
    'a: 't,
{
    tools.into_iter().find(|t| t.name == name)
}

/// `select:A,B`: each name looked up among the deferred tools, then among all tools (an already loaded
/// tool is returned too, harmlessly); unknown names are skipped; duplicates removed; `max_results` does not apply.
fn select(list: &str, deferred: &[&SearchTool<'_>], all: &[SearchTool<'_>]) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    for wanted in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        let tool = find_tool_by_name(deferred.iter().copied(), wanted).or_else(|| find_tool_by_name(all, wanted));
        if let Some(tool) = tool {
            if !found.iter().any(|f| f == tool.name) {
                found.push(tool.name.to_owned());
            }
        }
    }
    found
}

/// `searchToolsWithKeywords(query, deferred, all, max)`.
fn search_tools_with_keywords(
    query: &str,
    deferred: &[&SearchTool<'_>],
    all: &[SearchTool<'_>],
    max_results: usize,
) -> Vec<String> {
    let q = query.trim().to_lowercase();

    // Exact name, case-insensitive: deferred tools first, then every tool. Returned whatever `max_results` says.
    let exact = deferred
        .iter()
        .copied()
        .find(|t| t.name.to_lowercase() == q)
        .or_else(|| all.iter().find(|t| t.name.to_lowercase() == q));
    if let Some(tool) = exact {
        return vec![tool.name.to_owned()];
    }

    // An MCP prefix (`mcp__server`, `mcp__server__too`…): deferred tools whose lowercased name starts with it, in pool
    // order, cut to `max_results`, as long as that leaves at least one.
    if q.starts_with("mcp__") && q.len() > "mcp__".len() {
        let prefixed: Vec<String> = deferred
            .iter()
            .filter(|t| t.name.to_lowercase().starts_with(&q))
            .take(max_results)
            .map(|t| t.name.to_owned())
            .collect();
        if !prefixed.is_empty() {
            return prefixed;
        }
    }

    ranked(&q, deferred).into_iter().take(max_results).map(|(name, _)| name.to_owned()).collect()
}

/// The result of a call: matches and their line, or the no-match text with the still-connecting servers.
fn finish(matches: Vec<String>, pending_servers: &[String]) -> SearchResult {
    if matches.is_empty() {
        let mut text = NO_MATCH_TEXT.to_owned();
        if !pending_servers.is_empty() {
            text.push_str(". Some MCP servers are still connecting (");
            text.push_str(&pending_servers.join(", "));
            text.push_str("); their tools are not searchable yet, so try searching again shortly.");
        }
        return SearchResult { matches, pending_mcp_servers: pending_servers.to_vec(), text };
    }
    let text = format!("Found {}: {}", capc_compiler::plural::count(matches.len(), "tool"), matches.join(", "));
    SearchResult { matches, pending_mcp_servers: Vec::new(), text }
}

#[cfg(test)]
mod tests;
