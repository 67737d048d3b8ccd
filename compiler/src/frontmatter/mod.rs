//! Frontmatter: the YAML between a first line `---` and the next `---`.
//!
//! Claude Code is more lenient than YAML (Claude Code is; older versions, 2.1.197 among them, are
//! not): when the block does not parse, it double-quotes every column-0 `key: value` line
//! whose value holds a YAML-special character (`: `, `#`, `[`, `*`, …), reads each tab that
//! starts a line as two spaces, and tries once more. So `description: Use this: when …` loads,
//! beside a tab-indented `metadata` too, while a block scalar followed by such a line, a tab
//! after spaces or CRLF line endings (JavaScript's `.` stops at `\r`) still fail. The same
//! reading serves skills, commands and subagents (one parser in Claude Code, one here). This
//! module reproduces that two-step parse; the behaviour was measured against `claude plugin
//! validate` and the agent listing Claude Code sends.
//!
//! This file holds the two-step parse; `split.rs` finds the block, `flat.rs` reads the common
//! case without a YAML library, `depth.rs` refuses what nests too deep, `load.rs` reads YAML into
//! a `Node`, `lenient.rs` is Claude Code's retry and `spans.rs` gives the spans of top-level
//! entries.

mod depth;
mod flat;
mod lenient;
mod load;
mod spans;
mod split;

pub use depth::MAX_DEPTH;
pub use flat::flat;
pub use split::{split, Block, Split};

use crate::node::{Key, Node, NodeKind};
use crate::span::Span;
use depth::too_deep;
use lenient::{expand_line_start_tabs, quote_problematic_values};
use load::load;
use spans::top_level_spans;

/// The outcome of reading a frontmatter block.
#[derive(Debug, Clone, PartialEq)]
pub enum Parsed {
    /// The fields, as a mapping node (empty when the block is empty).
    Fields { node: Node, lenient: Option<LenientNote>, spans: Spans },
    /// YAML that even the lenient retry cannot read. Claude Code loads the file with
    /// empty metadata (skills, commands) or skips it (subagents).
    Invalid { span: Span, message: String },
    /// Valid YAML that is not a mapping (`- a`, a bare scalar).
    NotAMapping { span: Span, found: &'static str },
}

/// How precise the spans of a parsed block are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Spans {
    /// Every value has its own span (the flat fast path).
    Exact,
    /// Nested values share their top-level entry's span; `refine_spans` can make them exact.
    Refinable,
    /// Nested values share their entry's span for good: the text that parsed is not the file's
    /// (the lenient retry quoted values, or tabs were read as spaces).
    Entry,
}

/// The YAML was invalid and loaded only because Claude Code quoted these lines.
#[derive(Debug, Clone, PartialEq)]
pub struct LenientNote {
    /// The first value that needed quoting.
    pub span: Span,
    pub(crate) yaml_error: String,
}

/// Parses the YAML of `block` within `text`; spans in the result are file offsets.
pub fn parse(text: &str, block: &Block) -> Parsed {
    let yaml = &text[block.yaml.start..block.yaml.end];
    if let Some(node) = flat(yaml, block.yaml.start) {
        return Parsed::Fields { node, lenient: None, spans: Spans::Exact };
    }
    parse_with_yaml(text, block)
}

/// The full path: serde_yaml, then Claude Code's lenient retry.
pub fn parse_with_yaml(text: &str, block: &Block) -> Parsed {
    let yaml = &text[block.yaml.start..block.yaml.end];
    if let Some(at) = too_deep(yaml) {
        let end = (at + 1..=yaml.len()).find(|&i| yaml.is_char_boundary(i)).unwrap_or(yaml.len());
        return Parsed::Invalid {
            span: Span::new(at, end).shift(block.yaml.start),
            message: format!("nested deeper than {MAX_DEPTH} levels"),
        };
    }
    match load(yaml) {
        Ok(value) => to_fields(text, block, value, None, Spans::Refinable),
        Err(first) => {
            // Claude Code's one retry: it double-quotes the `key: value` lines whose value
            // holds a YAML-special character, then reads each tab that starts a line as two
            // spaces (`metadata:` then `\tkey: x`, which libyaml refuses), and parses again.
            let (quoted, first_quoted) = quote_problematic_values(yaml);
            let retried = expand_line_start_tabs(&quoted);
            if first_quoted.is_some() || retried.is_some() {
                if let Ok(value) = load(retried.as_deref().unwrap_or(&quoted)) {
                    let note = first_quoted.map(|span| LenientNote {
                        span: span.shift(block.yaml.start),
                        yaml_error: first.message.clone(),
                    });
                    return to_fields(text, block, value, note, Spans::Entry);
                }
            }
            Parsed::Invalid { span: first.span.shift(block.yaml.start), message: first.message }
        }
    }
}

/// Gives every nested value of `node` (read from `block` without the lenient retry) its
/// exact span. Costs a second parse, so callers do it only when they report something.
pub fn refine_spans(text: &str, block: &Block, node: &mut Node) {
    let top = node.span;
    crate::yaml_spans::refine(node, &text[block.yaml.start..block.yaml.end], block.yaml.start);
    // The mapping itself keeps the whole block as its span.
    node.span = top;
}

fn to_fields(text: &str, block: &Block, value: Node, lenient: Option<LenientNote>, spans: Spans) -> Parsed {
    match value.kind {
        NodeKind::Null => {
            Parsed::Fields { node: Node { kind: NodeKind::Object(Vec::new()), span: block.yaml }, lenient, spans }
        }
        NodeKind::Object(entries) => {
            let entry_spans = top_level_spans(text, block);
            let entries = entries
                .into_iter()
                .map(|(key, value)| {
                    let (key_span, value_span) = entry_spans
                        .iter()
                        .find(|s| s.name == key.name)
                        .map_or((block.yaml, block.yaml), |s| (s.key, s.value));
                    (Key { name: key.name, span: key_span }, with_span(value, value_span))
                })
                .collect();
            Parsed::Fields { node: Node { kind: NodeKind::Object(entries), span: block.yaml }, lenient, spans }
        }
        kind => Parsed::NotAMapping { span: block.yaml, found: Node { kind, span: block.yaml }.type_name() },
    }
}

/// Nested values share the span of the top-level entry they sit in (until refined).
fn with_span(mut node: Node, span: Span) -> Node {
    node.span = span;
    match &mut node.kind {
        NodeKind::Array(items) => {
            for item in items.iter_mut() {
                *item = with_span(std::mem::replace(item, Node { kind: NodeKind::Null, span }), span);
            }
        }
        NodeKind::Object(entries) => {
            for (key, value) in entries.iter_mut() {
                key.span = span;
                *value = with_span(std::mem::replace(value, Node { kind: NodeKind::Null, span }), span);
            }
        }
        _ => {}
    }
    node
}

#[cfg(test)]
mod tests;
