//! Keyword search: the query's terms, each tool's name parsed into parts, and the scores with Claude Code's weights.

use super::SearchTool;

/// Score for a term equal to a part of an MCP tool's name.
const EXACT_PART_MCP: u32 = 12;
/// Score for a term equal to a part of a built-in tool's name.
const EXACT_PART_OTHER: u32 = 10;
/// Score for a term inside a part of an MCP tool's name.
const SUBSTRING_PART_MCP: u32 = 6;
/// Score for a term inside a part of a built-in tool's name.
const SUBSTRING_PART_OTHER: u32 = 5;
/// Score for a term inside the spaced-out full name, only while the running score is still 0.
const FULL_NAME: u32 = 3;
/// Score for a term at word boundaries in the `searchHint`.
const SEARCH_HINT_WORD: u32 = 4;
/// Score for a term at word boundaries in the description.
const DESCRIPTION_WORD: u32 = 2;

/// The terms of a lowercased query: `(required, scoring)`. A term `+x` (more than the `+`) is required, as `x`; the
/// scoring terms are the required ones followed by the optional ones (which is all terms, in order, when none is
/// required). Duplicates are kept and score once each.
pub(super) fn split_terms(q: &str) -> (Vec<&str>, Vec<&str>) {
    let mut required = Vec::new();
    let mut optional = Vec::new();
    for term in q.split_whitespace() {
        match term.strip_prefix('+').filter(|rest| !rest.is_empty()) {
            Some(rest) => required.push(rest),
            None => optional.push(term),
        }
    }
    let mut scoring = required.clone();
    scoring.extend(optional);
    (required, scoring)
}

/// Every deferred tool that passes the required-term filter and scores above 0, best first; ties keep pool order.
pub(super) fn ranked<'a>(q: &str, deferred: &[&SearchTool<'a>]) -> Vec<(&'a str, u32)> {
    let (required, scoring) = split_terms(q);
    let mut scored: Vec<(&'a str, u32)> = Vec::new();
    for tool in deferred {
        let parsed = parse_tool_name(tool.name);
        let description = tool.description.to_lowercase();
        let hint = tool.search_hint.map(str::to_lowercase);
        let hint = hint.as_deref();
        let keep = required.iter().all(|term| {
            parsed.parts.iter().any(|part| part.contains(term))
                || word_match(&description, term)
                || hint.is_some_and(|h| word_match(h, term))
        });
        if !keep {
            continue;
        }
        let score = score_tool(&parsed, &description, hint, &scoring);
        if score > 0 {
            scored.push((tool.name, score));
        }
    }
    // `sort_by_key` is stable: equal scores stay in pool order.
    scored.sort_by_key(|&(_, score)| std::cmp::Reverse(score));
    scored
}

/// A tool name taken apart for scoring (`parseToolName`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct ParsedName {
    /// Lowercased name words.
    pub(super) parts: Vec<String>,
    /// The lowercased name with its separators turned into spaces.
    pub(super) full: String,
    /// Whether the name has the `mcp__` prefix (the higher weights apply).
    pub(super) is_mcp: bool,
}

/// `parseToolName`: `mcp__github__create_issue` → parts `github create issue`; `NotebookEdit` → parts `notebook
/// edit` (a space between an ASCII lowercase and an ASCII uppercase letter, and for every underscore).
pub(super) fn parse_tool_name(name: &str) -> ParsedName {
    if let Some(rest) = name.strip_prefix("mcp__") {
        let lower = rest.to_lowercase();
        let parts = lower.split("__").flat_map(|p| p.split('_')).filter(|p| !p.is_empty()).map(str::to_owned).collect();
        let full = lower.replace("__", " ").replace('_', " ");
        return ParsedName { parts, full, is_mcp: true };
    }
    let mut spaced = String::with_capacity(name.len() + 8);
    let mut previous_lower = false;
    for c in name.chars() {
        if previous_lower && c.is_ascii_uppercase() {
            spaced.push(' ');
        }
        previous_lower = c.is_ascii_lowercase();
        spaced.push(if c == '_' { ' ' } else { c });
    }
    let parts: Vec<String> = spaced.to_lowercase().split_whitespace().map(str::to_owned).collect();
    let full = parts.join(" ");
    ParsedName { parts, full, is_mcp: false }
}

/// The score of one tool, summed over the scoring terms. `description` and `hint` are lowercased.
///
/// The `full` rule looks at the running total, not at this term's score: it only fires while every earlier term (and
/// this one, so far) scored nothing. With names parsed by [`parse_tool_name`] it can in fact never fire, since a term
/// has no spaces and every space-free piece of `full` lies inside one part, where the substring rule already scored;
/// it is kept as Claude Code has it.
pub(super) fn score_tool(parsed: &ParsedName, description: &str, hint: Option<&str>, terms: &[&str]) -> u32 {
    let (exact, substring) =
        if parsed.is_mcp { (EXACT_PART_MCP, SUBSTRING_PART_MCP) } else { (EXACT_PART_OTHER, SUBSTRING_PART_OTHER) };
    let mut score: u32 = 0;
    for term in terms {
        if parsed.parts.iter().any(|part| part == term) {
            score = score.saturating_add(exact);
        } else if parsed.parts.iter().any(|part| part.contains(term)) {
            score = score.saturating_add(substring);
        }
        if score == 0 && parsed.full.contains(term) {
            score = score.saturating_add(FULL_NAME);
        }
        if hint.is_some_and(|h| word_match(h, term)) {
            score = score.saturating_add(SEARCH_HINT_WORD);
        }
        if word_match(description, term) {
            score = score.saturating_add(DESCRIPTION_WORD);
        }
    }
    score
}

/// JavaScript's `\w` without the `u` flag: ASCII letters, digits and `_`.
fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Whether byte offset `at` (a char boundary of `text`) is a `\b`: a word character on exactly one side, the ends of
/// the text counting as non-word.
fn is_boundary(text: &str, at: usize) -> bool {
    let before = text.get(..at).and_then(|s| s.chars().next_back()).is_some_and(is_word_char);
    let after = text.get(at..).and_then(|s| s.chars().next()).is_some_and(is_word_char);
    before != after
}

/// `new RegExp('\\b' + escapeRegExp(term) + '\\b').test(text)`: `term` literally, with a word boundary right before
/// and right after it, anywhere in `text` (occurrences may overlap).
pub(super) fn word_match(text: &str, term: &str) -> bool {
    text.char_indices().map(|(i, _)| i).chain(std::iter::once(text.len())).any(|start| {
        text.get(start..).is_some_and(|rest| rest.starts_with(term))
            && is_boundary(text, start)
            && is_boundary(text, start + term.len())
    })
}
