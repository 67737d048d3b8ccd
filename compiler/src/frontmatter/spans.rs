//! The spans of the top-level entries: each column-0 `key:` line and the extent of its value.

use super::split::Block;
use crate::span::Span;

pub(super) struct EntrySpan {
    pub(super) name: String,
    pub(super) key: Span,
    pub(super) value: Span,
}

/// Finds each column-0 `key:` line and the extent of its value (up to the next column-0
/// line), in file offsets.
pub(super) fn top_level_spans(text: &str, block: &Block) -> Vec<EntrySpan> {
    let yaml = &text[block.yaml.start..block.yaml.end];
    let mut out: Vec<EntrySpan> = Vec::new();
    let mut offset = 0;
    for line in yaml.split_inclusive('\n') {
        let content = line.trim_end_matches(['\n', '\r']);
        let starts_entry = content.chars().next().is_some_and(|c| !c.is_whitespace() && c != '#' && c != '-');
        if starts_entry {
            if let Some((key_text, key_end)) = entry_key(content) {
                let value_start =
                    key_end + 1 + (content[key_end + 1..].len() - content[key_end + 1..].trim_start().len());
                let abs = block.yaml.start + offset;
                out.push(EntrySpan {
                    name: key_text,
                    key: Span::new(abs, abs + key_end),
                    value: Span::new(abs + value_start, abs + content.len()),
                });
            }
        } else if let Some(last) = out.last_mut() {
            // An indented or blank line continues the previous value.
            if !content.trim().is_empty() && !content.trim_start().starts_with('#') {
                let abs = block.yaml.start + offset;
                if last.value.is_empty() {
                    last.value.start = abs + (content.len() - content.trim_start().len());
                }
                last.value.end = abs + content.len();
            }
        }
        offset += line.len();
    }
    for entry in &mut out {
        if entry.value.is_empty() {
            entry.value = entry.key;
        }
    }
    out
}

/// The key of a `key: value` line and the byte index of its `:`; quoted keys are unquoted.
fn entry_key(line: &str) -> Option<(String, usize)> {
    if let Some(rest) = line.strip_prefix(['"', '\'']) {
        let quote = line.as_bytes()[0] as char;
        let close = rest.find(quote)?;
        let colon = 1 + close + 1;
        return (line.as_bytes().get(colon) == Some(&b':')).then(|| (rest[..close].to_string(), colon));
    }
    let colon = line.find(':')?;
    let after = line.as_bytes().get(colon + 1);
    if after.is_some_and(|b| !b.is_ascii_whitespace()) {
        return None;
    }
    Some((line[..colon].trim_end().to_string(), colon))
}
