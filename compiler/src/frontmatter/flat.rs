//! The common case read without a YAML library: flat `key: value` lines with plain or simply
//! quoted scalars.

use crate::node::{Key, Node, NodeKind};
use crate::span::Span;

/// The common case read without a YAML library: every line is blank, a `#` comment, or
/// `key: value` at column 0 whose value is unambiguous: a plain string (it starts with a letter
/// or `<`, holds no `: `, ` #` or tab, and is not `null`, `yes`, …), a version such as `0.1.0`, a
/// double-quoted string on one line without escapes, or `true` or `false`. Anything else returns
/// `None` and goes to serde_yaml. A fuzz target checks that both agree on what this accepts.
pub fn flat(yaml: &str, offset: usize) -> Option<Node> {
    // YAML refuses non-printable characters anywhere, comments included; tabs and `\r` have
    // subtle rules. Leave all of those to the real parser.
    // libyaml also breaks lines at NEL, LS and PS (YAML 1.1), even inside comments.
    let line_break = |c: char| matches!(c, '\u{85}' | '\u{2028}' | '\u{2029}');
    if !yaml.chars().all(|c| c == '\n' || (c != '\t' && c != '\r' && !line_break(c) && is_yaml_printable(c))) {
        return None;
    }
    let mut entries: Vec<(Key, Node)> = Vec::new();
    let mut at = 0;
    for line in yaml.split_inclusive('\n') {
        let content = line.strip_suffix('\n').unwrap_or(line);
        let start = at;
        at += line.len();
        if content.is_empty() || content.starts_with('#') {
            continue;
        }
        let key_len = content.bytes().take_while(|b| b.is_ascii_alphanumeric() || *b == b'_' || *b == b'-').count();
        let first = content.as_bytes()[0];
        if key_len == 0
            || !(first.is_ascii_alphabetic() || first == b'_')
            || content.as_bytes().get(key_len) != Some(&b':')
        {
            return None;
        }
        // YAML caps implicit keys at 1,024 characters (libyaml enforces it).
        if key_len > 1000 {
            return None;
        }
        let key = &content[..key_len];
        // `True:` or `null:` are not string keys in YAML.
        if is_yaml_word(key) {
            return None;
        }
        let rest = &content[key_len + 1..];
        let value = rest.trim_start_matches(' ');
        if value.len() == rest.len() || entries.iter().any(|(k, _)| k.name == key) {
            return None;
        }
        let padded = value.len();
        let value = value.trim_end_matches(' ');
        // A plain scalar is the string as written; a double-quoted one, its inside (the span of
        // a quoted value followed by spaces takes the spaces in: left to serde_yaml).
        let kind = match double_quoted(value) {
            Some(inside) if value.len() == padded => NodeKind::String(inside.to_string()),
            Some(_) => return None,
            // YAML 1.2's booleans, as serde_yaml reads them (`yes`, `True` and the like go to it).
            None if value == "true" || value == "false" => NodeKind::Bool(value == "true"),
            None if is_plain_string(value) || is_dotted_version(value) => NodeKind::String(value.to_string()),
            None => return None,
        };
        let value_start = offset + start + key_len + 1 + (rest.len() - padded);
        entries.push((
            Key { name: key.to_string(), span: Span::new(offset + start, offset + start + key_len) },
            Node { kind, span: Span::new(value_start, value_start + value.len()) },
        ));
    }
    Some(Node { kind: NodeKind::Object(entries), span: Span::new(offset, offset + yaml.len()) })
}

/// The YAML 1.2 printable set (`c-printable`), which libyaml enforces.
fn is_yaml_printable(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{7e}' | '\u{85}' | '\u{a0}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}' | '\u{10000}'..)
        && c != '\u{feff}'
}

/// The inside of a double-quoted scalar that closes on its line and holds no escape (no
/// backslash) and nothing after the closing quote: YAML reads it as exactly that text. The
/// caller has already refused tabs and non-printable characters.
fn double_quoted(value: &str) -> Option<&str> {
    let inside = value.strip_prefix('"')?.strip_suffix('"')?;
    (!inside.contains(['"', '\\'])).then_some(inside)
}

/// `0.1.0`: numbers joined by two dots or more, which no YAML schema reads as a number.
fn is_dotted_version(value: &str) -> bool {
    let mut parts = 0;
    for part in value.split('.') {
        if part.is_empty() || !part.bytes().all(|b| b.is_ascii_digit()) {
            return false;
        }
        parts += 1;
    }
    parts >= 3
}

/// A plain scalar (without its trailing spaces) that YAML 1.2 (and serde_yaml) reads as exactly
/// this string. Starting with a letter or `<`, it cannot be a number, `.inf` or `.nan`.
fn is_plain_string(value: &str) -> bool {
    let Some(first) = value.chars().next() else { return false };
    // `<` is no YAML indicator (`argument-hint: <file>`); `<<` is kept for the merge key.
    if !(first.is_alphabetic() || (first == '<' && !value.starts_with("<<"))) {
        return false;
    }
    if value.contains(": ") || value.ends_with(':') || value.contains(" #") {
        return false;
    }
    // Control characters (tabs, `\r`), and line or paragraph separators, need the real parser.
    if value.chars().any(|c| c.is_control() || matches!(c, '\u{2028}' | '\u{2029}' | '\u{feff}' | '\u{85}')) {
        return false;
    }
    !is_yaml_word(value)
}

/// A word YAML reads as a boolean or null in some spelling (`True`, `NULL`, `yes`, `n`, …).
fn is_yaml_word(word: &str) -> bool {
    ["true", "false", "null", "yes", "no", "on", "off", "y", "n"].iter().any(|w| word.eq_ignore_ascii_case(w))
}
