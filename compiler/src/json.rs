//! A JSON reader that keeps the byte span of every key and value.
//!
//! serde_json throws spans away, and a diagnostic must point at the exact value that is
//! wrong. The tree here is small, owned and shared with the frontmatter reader, so every
//! field check is written once. Nesting is capped ([`MAX_DEPTH`]) so that hostile input
//! (10,000 `[`) is an error, never a stack overflow.

use crate::node::{Key, Node, NodeKind};
use crate::span::Span;

/// Deeper nesting than this is refused. Real declarations nest fewer than 10 levels.
pub const MAX_DEPTH: usize = 128;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonError {
    pub span: Span,
    pub message: String,
}

/// Parses a whole JSON document. Duplicate keys are kept in order (JavaScript keeps the
/// last one, and the caller may report them).
pub fn parse(text: &str) -> Result<Node, JsonError> {
    let mut parser = Parser { text, bytes: text.as_bytes(), pos: 0 };
    // A UTF-8 byte-order mark is accepted, as JSON.parse after a BOM strip does.
    if text.starts_with('\u{feff}') {
        parser.pos = 3;
    }
    parser.skip_ws();
    if parser.pos >= parser.bytes.len() {
        return Err(JsonError { span: Span::new(0, 0), message: "file is empty, expected a JSON value".into() });
    }
    let value = parser.value(0)?;
    parser.skip_ws();
    if parser.pos < parser.bytes.len() {
        return Err(parser.error_here("unexpected content after the JSON value"));
    }
    Ok(value)
}

struct Parser<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
}

impl Parser<'_> {
    fn skip_ws(&mut self) {
        while let Some(&b) = self.bytes.get(self.pos) {
            if matches!(b, b' ' | b'\t' | b'\n' | b'\r') {
                self.pos += 1;
            } else {
                break;
            }
        }
    }

    fn error_here(&self, message: &str) -> JsonError {
        let end = next_char_boundary(self.text, self.pos);
        JsonError { span: Span::new(self.pos, end), message: message.to_string() }
    }

    fn unexpected(&self, expected: &str) -> JsonError {
        match self.text.get(self.pos..).and_then(|rest| rest.chars().next()) {
            None => JsonError {
                span: Span::new(self.pos, self.pos),
                message: format!("unexpected end of file, expected {expected}"),
            },
            Some(c) => {
                let shown = if c.is_control() { format!("{:?}", c) } else { format!("`{c}`") };
                JsonError {
                    span: Span::new(self.pos, self.pos + c.len_utf8()),
                    message: format!("unexpected {shown}, expected {expected}"),
                }
            }
        }
    }

    fn value(&mut self, depth: usize) -> Result<Node, JsonError> {
        if depth >= MAX_DEPTH {
            return Err(self.error_here(&format!("JSON is nested deeper than {MAX_DEPTH} levels")));
        }
        let start = self.pos;
        let kind = match self.bytes.get(self.pos) {
            Some(b'{') => return self.object(depth),
            Some(b'[') => return self.array(depth),
            Some(b'"') => NodeKind::String(self.string()?),
            Some(b't') => self.literal("true", NodeKind::Bool(true))?,
            Some(b'f') => self.literal("false", NodeKind::Bool(false))?,
            Some(b'n') => self.literal("null", NodeKind::Null)?,
            Some(b'-' | b'0'..=b'9') => self.number()?,
            _ => return Err(self.unexpected("a JSON value")),
        };
        Ok(Node { kind, span: Span::new(start, self.pos) })
    }

    fn literal(&mut self, word: &str, kind: NodeKind) -> Result<NodeKind, JsonError> {
        if self.bytes[self.pos..].starts_with(word.as_bytes()) {
            self.pos += word.len();
            Ok(kind)
        } else {
            Err(self.unexpected("a JSON value"))
        }
    }

    fn number(&mut self) -> Result<NodeKind, JsonError> {
        let start = self.pos;
        if self.bytes.get(self.pos) == Some(&b'-') {
            self.pos += 1;
        }
        match self.bytes.get(self.pos) {
            Some(b'0') => self.pos += 1,
            Some(b'1'..=b'9') => self.digits(),
            _ => return Err(self.unexpected("a digit")),
        }
        if self.bytes.get(self.pos) == Some(&b'.') {
            self.pos += 1;
            if !matches!(self.bytes.get(self.pos), Some(b'0'..=b'9')) {
                return Err(self.unexpected("a digit after `.`"));
            }
            self.digits();
        }
        if matches!(self.bytes.get(self.pos), Some(b'e' | b'E')) {
            self.pos += 1;
            if matches!(self.bytes.get(self.pos), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            if !matches!(self.bytes.get(self.pos), Some(b'0'..=b'9')) {
                return Err(self.unexpected("a digit in the exponent"));
            }
            self.digits();
        }
        Ok(NodeKind::Number(self.text[start..self.pos].to_string()))
    }

    fn digits(&mut self) {
        while matches!(self.bytes.get(self.pos), Some(b'0'..=b'9')) {
            self.pos += 1;
        }
    }

    fn string(&mut self) -> Result<String, JsonError> {
        let open = self.pos;
        self.pos += 1;
        let mut out = String::new();
        loop {
            let chunk_start = self.pos;
            // The next quote or backslash (memchr scans many bytes at a time), or an earlier
            // control character, which ends the run too.
            let rest = &self.bytes[chunk_start..];
            let mut end = memchr::memchr2(b'"', b'\\', rest).unwrap_or(rest.len());
            if let Some(control) = rest[..end].iter().position(|&b| b < 0x20) {
                end = control;
            }
            self.pos = chunk_start + end;
            out.push_str(&self.text[chunk_start..self.pos]);
            match self.bytes.get(self.pos) {
                None => {
                    return Err(JsonError {
                        span: Span::new(open, self.pos),
                        message: "string is never closed, expected `\"`".into(),
                    })
                }
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    self.pos += 1;
                    self.escape(&mut out)?;
                }
                Some(_) => {
                    return Err(self.error_here("control character in a string; write it as an escape such as `\\n`"))
                }
            }
        }
    }

    fn escape(&mut self, out: &mut String) -> Result<(), JsonError> {
        let c = match self.bytes.get(self.pos) {
            Some(b'"') => '"',
            Some(b'\\') => '\\',
            Some(b'/') => '/',
            Some(b'b') => '\u{8}',
            Some(b'f') => '\u{c}',
            Some(b'n') => '\n',
            Some(b'r') => '\r',
            Some(b't') => '\t',
            Some(b'u') => {
                self.pos += 1;
                let high = self.hex4()?;
                let c = if (0xD800..0xDC00).contains(&high) {
                    if self.bytes[self.pos..].starts_with(b"\\u") {
                        self.pos += 2;
                        let low = self.hex4()?;
                        if (0xDC00..0xE000).contains(&low) {
                            char::from_u32(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
                        } else {
                            None
                        }
                    } else {
                        None
                    }
                } else {
                    char::from_u32(high)
                };
                // JavaScript keeps lone surrogates; Rust strings cannot, so they become U+FFFD.
                out.push(c.unwrap_or('\u{fffd}'));
                return Ok(());
            }
            _ => return Err(self.unexpected("an escape (`\\\"`, `\\\\`, `\\n`, `\\u0041`, …)")),
        };
        self.pos += 1;
        out.push(c);
        Ok(())
    }

    fn hex4(&mut self) -> Result<u32, JsonError> {
        let mut value = 0;
        for _ in 0..4 {
            let digit = match self.bytes.get(self.pos) {
                Some(b) if b.is_ascii_hexdigit() => (*b as char).to_digit(16).unwrap_or(0),
                _ => return Err(self.unexpected("four hex digits after `\\u`")),
            };
            value = value * 16 + digit;
            self.pos += 1;
        }
        Ok(value)
    }

    fn array(&mut self, depth: usize) -> Result<Node, JsonError> {
        let start = self.pos;
        self.pos += 1;
        let mut items = Vec::new();
        self.skip_ws();
        if self.bytes.get(self.pos) == Some(&b']') {
            self.pos += 1;
            return Ok(Node { kind: NodeKind::Array(items), span: Span::new(start, self.pos) });
        }
        loop {
            self.skip_ws();
            items.push(self.value(depth + 1)?);
            self.skip_ws();
            if self.end_of_item(b']')? {
                return Ok(Node { kind: NodeKind::Array(items), span: Span::new(start, self.pos) });
            }
        }
    }

    /// After an array item or object entry: `true` at the closing bracket (consumed), `false`
    /// after a `,` that another item follows; a trailing comma is an error.
    fn end_of_item(&mut self, closer: u8) -> Result<bool, JsonError> {
        match self.bytes.get(self.pos) {
            Some(b',') => {
                let comma = self.pos;
                self.pos += 1;
                self.skip_ws();
                if self.bytes.get(self.pos) == Some(&closer) {
                    return Err(JsonError {
                        span: Span::new(comma, comma + 1),
                        message: format!("trailing comma before `{}`; JSON does not allow it", closer as char),
                    });
                }
                Ok(false)
            }
            Some(&b) if b == closer => {
                self.pos += 1;
                Ok(true)
            }
            _ => Err(self.unexpected(&format!("`,` or `{}`", closer as char))),
        }
    }

    fn object(&mut self, depth: usize) -> Result<Node, JsonError> {
        let start = self.pos;
        self.pos += 1;
        let mut entries = Vec::new();
        self.skip_ws();
        if self.bytes.get(self.pos) == Some(&b'}') {
            self.pos += 1;
            return Ok(Node { kind: NodeKind::Object(entries), span: Span::new(start, self.pos) });
        }
        loop {
            self.skip_ws();
            if self.bytes.get(self.pos) != Some(&b'"') {
                return Err(self.unexpected("a key in double quotes"));
            }
            let key_start = self.pos;
            let name = self.string()?;
            let key = Key { name, span: Span::new(key_start, self.pos) };
            self.skip_ws();
            if self.bytes.get(self.pos) != Some(&b':') {
                return Err(self.unexpected("`:` after the key"));
            }
            self.pos += 1;
            self.skip_ws();
            let value = self.value(depth + 1)?;
            entries.push((key, value));
            self.skip_ws();
            if self.end_of_item(b'}')? {
                return Ok(Node { kind: NodeKind::Object(entries), span: Span::new(start, self.pos) });
            }
        }
    }
}

/// Maps a byte range of a decoded JSON string back onto its source. `literal` is the span
/// of the string literal (quotes included) in `source`; `range` is in the decoded value.
/// Returns `None` when the literal is not a JSON string.
pub(crate) fn string_sub_span(source: &str, literal: Span, range: std::ops::Range<usize>) -> Option<Span> {
    let raw = source.get(literal.start..literal.end)?;
    let inner = raw.strip_prefix('"')?.strip_suffix('"')?;
    let base = literal.start + 1;
    let mut decoded = 0usize;
    let mut start = None;
    let mut chars = inner.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        if decoded >= range.start && start.is_none() {
            start = Some(base + at);
        }
        if decoded >= range.end {
            return Some(Span::new(start.unwrap_or(base + at), base + at));
        }
        if c == '\\' {
            let Some((_, e)) = chars.next() else { break };
            if e == 'u' {
                let mut code = String::new();
                for _ in 0..4 {
                    if let Some((_, h)) = chars.next() {
                        code.push(h);
                    }
                }
                let value = u32::from_str_radix(&code, 16).unwrap_or(0xfffd);
                // A surrogate pair decodes to one 4-byte character; lone halves to U+FFFD.
                decoded += if (0xD800..0xDC00).contains(&value) && chars.peek().is_some_and(|(_, n)| *n == '\\') {
                    for _ in 0..6 {
                        chars.next();
                    }
                    4
                } else {
                    char::from_u32(value).map_or(3, char::len_utf8)
                };
            } else {
                decoded += 1;
            }
        } else {
            decoded += c.len_utf8();
        }
    }
    let end = base + inner.len();
    Some(Span::new(start.unwrap_or(end), end))
}

fn next_char_boundary(text: &str, pos: usize) -> usize {
    if pos >= text.len() {
        return text.len();
    }
    let mut end = pos + 1;
    while !text.is_char_boundary(end) {
        end += 1;
    }
    end
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check(input: &str, expected: &str) {
        let actual = match parse(input) {
            Ok(node) => node.debug_tree(),
            Err(e) => format!("error {}..{}: {}", e.span.start, e.span.end, e.message),
        };
        assert_eq!(actual, expected, "input: {input:?}");
    }

    #[test]
    fn scalars_and_spans() {
        check("true", "true@0..4");
        check(" null ", "null@1..5");
        check("-1.5e3", "-1.5e3@0..6");
        check(r#""a\nb""#, r#""a\nb"@0..6"#);
        check(r#""\u00e9\ud83d\ude00""#, r#""é😀"@0..20"#);
    }

    #[test]
    fn containers() {
        check(r#"{"a": [1, {"b": false}]}"#, r#"{a@1..4: [1@7..8, {b@11..14: false@16..21}@10..22]@6..23}@0..24"#);
        check("[]", "[]@0..2");
        check("{}", "{}@0..2");
    }

    #[test]
    fn errors_point_at_the_offending_byte() {
        check("", "error 0..0: file is empty, expected a JSON value");
        check("{\"a\": 1,}", "error 7..8: trailing comma before `}`; JSON does not allow it");
        check("[1 2]", "error 3..4: unexpected `2`, expected `,` or `]`");
        check("{a: 1}", "error 1..2: unexpected `a`, expected a key in double quotes");
        check("\"abc", "error 0..4: string is never closed, expected `\"`");
        check("[1] x", "error 4..5: unexpected content after the JSON value");
        check("tru", "error 0..1: unexpected `t`, expected a JSON value");
        check("{\"é\": ü}", "error 7..9: unexpected `ü`, expected a JSON value");
        check("01", "error 1..2: unexpected content after the JSON value");
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let deep = "[".repeat(10_000) + &"]".repeat(10_000);
        let err = parse(&deep).unwrap_err();
        assert_eq!(err.span.start, MAX_DEPTH);
        assert!(err.message.contains("nested deeper"));
    }

    #[test]
    fn sub_spans_follow_escapes() {
        let source = r#"{"c": "\"${ROOT}\"/x.sh y"}"#;
        let node = parse(source).unwrap();
        let value = node.get("c").unwrap();
        let decoded = value.as_str().unwrap();
        let at = decoded.find("${ROOT}").unwrap();
        let span = string_sub_span(source, value.span, at..at + 7).unwrap();
        assert_eq!(&source[span.start..span.end], "${ROOT}");
        let path_at = decoded.find("/x.sh").unwrap();
        let span = string_sub_span(source, value.span, path_at..path_at + 5).unwrap();
        assert_eq!(&source[span.start..span.end], "/x.sh");
        let source = r#"["\u00e9\ud83d\ude00ab"]"#;
        let node = parse(source).unwrap();
        let item = &node.as_array().unwrap()[0];
        let span = string_sub_span(source, item.span, 6..8).unwrap();
        assert_eq!(&source[span.start..span.end], "ab");
    }

    #[test]
    fn bom_is_skipped() {
        check("\u{feff}{}", "{}@3..5");
    }
}
