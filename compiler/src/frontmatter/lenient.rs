//! Claude Code's lenient retry: column-0 values holding YAML-special characters quoted, tabs
//! that start a line read as two spaces.

use super::load::load;
use super::split::is_js_whitespace;
use crate::node::{Node, NodeKind};
use crate::span::Span;

/// `yaml` with each tab at the start of a line (before any other character, as JavaScript's
/// `/^\t+/gm` finds them: after `\n`, `\r`, U+2028 or U+2029) replaced by two spaces, or
/// `None` when no line starts with a tab.
pub(super) fn expand_line_start_tabs(yaml: &str) -> Option<String> {
    let mut out = String::with_capacity(yaml.len() + 16);
    let (mut line_start, mut changed) = (true, false);
    for c in yaml.chars() {
        if c == '\t' && line_start {
            out.push_str("  ");
            changed = true;
            continue;
        }
        line_start = matches!(c, '\n' | '\r' | '\u{2028}' | '\u{2029}');
        out.push(c);
    }
    changed.then_some(out)
}

/// The retry Claude Code makes: returns the rewritten YAML and the span (in `yaml`) of the
/// first value it quoted, or `None` when no line qualified (then there is nothing to retry).
pub(super) fn quote_problematic_values(yaml: &str) -> (String, Option<Span>) {
    let mut out = String::with_capacity(yaml.len() + 16);
    let mut first = None;
    let mut offset = 0;
    for (i, line) in yaml.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        match problematic_value(line) {
            Some((key_len, value_start)) => {
                let value = &line[value_start..];
                first.get_or_insert(Span::new(offset + value_start, offset + line.len()));
                out.push_str(&line[..key_len]);
                out.push_str(": \"");
                for c in value.chars() {
                    if c == '\\' || c == '"' {
                        out.push('\\');
                    }
                    out.push(c);
                }
                out.push('"');
            }
            None => out.push_str(line),
        }
        offset += line.len() + 1;
    }
    (out, first)
}

/// For `key: value` at column 0 whose value needs quoting: (key length, value start).
fn problematic_value(line: &str) -> Option<(usize, usize)> {
    let key_len = line.bytes().take_while(|b| b.is_ascii_alphabetic() || *b == b'_' || *b == b'-').count();
    if key_len == 0 || line.as_bytes().get(key_len) != Some(&b':') {
        return None;
    }
    let after = &line[key_len + 1..];
    let trimmed = after.trim_start_matches(is_js_whitespace);
    if trimmed.len() == after.len() || trimmed.is_empty() {
        return None; // `\s+` needs at least one whitespace, `(.+)` one character
    }
    // JavaScript's `.` does not match line terminators, so such a line is left alone.
    if trimmed.contains(['\r', '\u{2028}', '\u{2029}']) {
        return None;
    }
    let quoted = |q: char| trimmed.len() >= 2 && trimmed.starts_with(q) && trimmed.ends_with(q);
    if quoted('"') || quoted('\'') {
        return None;
    }
    // A flow sequence that reads as one on its own (`arguments: [env, version]`) is left as
    // written (Claude Code does; older versions quoted it into a string).
    if trimmed.starts_with('[')
        && trimmed.ends_with(']')
        && matches!(load(trimmed), Ok(Node { kind: NodeKind::Array(_), .. }))
    {
        return None;
    }
    let special = trimmed.contains(": ") || trimmed.contains(|c| "{}[]*&#!|>%@`".contains(c));
    special.then_some((key_len, line.len() - trimmed.len()))
}
