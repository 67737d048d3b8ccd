//! Text from a repository on its way to a terminal. File names, names and descriptions are
//! written by whoever wrote the repository; an escape sequence among them could recolour,
//! move the cursor, rewrite the terminal's title or hide a line. Every human output (`check`,
//! `ls`, `explain`, `graph`, `--list-files`, the session REPL) passes such text through here,
//! whether or not color is on. JSON output needs none of this: serde escapes controls.

use std::borrow::Cow;

/// Characters never written raw: C0 controls and DEL, C1 controls, the Unicode line and
/// paragraph separators, and the bidirectional marks, overrides and isolates (which reorder
/// what a line shows).
fn is_unsafe(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{2028}' | '\u{2029}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' | '\u{61c}'
        )
}

/// JSON text as serde writes it, with every character [`escape`] escapes that serde leaves
/// raw (DEL, C1 controls, the line separators, bidirectional controls) written as a `\uXXXX`
/// escape. serde escapes C0 controls and writes whitespace outside strings only as spaces and
/// newlines, so the characters replaced here are inside strings, where the escape stands for
/// the same character: the JSON means the same, and a terminal showing it sees no control.
pub fn escape_json(json: &str) -> Cow<'_, str> {
    if !json.chars().any(|c| c != '\n' && is_unsafe(c)) {
        return Cow::Borrowed(json);
    }
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        if c != '\n' && is_unsafe(c) {
            // Every unsafe character is in the Basic Multilingual Plane: one `\u` escape.
            out.push_str(&format!("\\u{:04x}", c as u32));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// A writer that passes JSON text on to `inner` with [`escape_json`] applied, for JSON
/// written as it is made (a report too large to hold). serde writes whole characters, but a
/// character cut between two writes is kept until its last byte comes; [`JsonEscaping::finish`]
/// flushes.
pub(crate) struct JsonEscaping<W: std::io::Write> {
    inner: W,
    /// The first bytes of a character whose rest has not been written yet.
    pending: Vec<u8>,
}

impl<W: std::io::Write> JsonEscaping<W> {
    pub(crate) fn new(inner: W) -> Self {
        JsonEscaping { inner, pending: Vec::new() }
    }

    /// Writes what is left and flushes `inner`.
    pub(crate) fn finish(mut self) -> std::io::Result<()> {
        let rest = std::mem::take(&mut self.pending);
        self.inner.write_all(&rest)?;
        self.inner.flush()
    }

    /// Writes the longest prefix of `bytes` that is whole UTF-8, escaped, and returns how many
    /// bytes it took. Bytes that are not UTF-8 at all (serde never writes them) pass as they are.
    fn put(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        let valid = match std::str::from_utf8(bytes) {
            Ok(text) => text.len(),
            Err(e) if e.error_len().is_some() => {
                self.inner.write_all(bytes)?;
                return Ok(bytes.len());
            }
            Err(e) => e.valid_up_to(),
        };
        let text = std::str::from_utf8(&bytes[..valid]).unwrap_or_default();
        self.inner.write_all(escape_json(text).as_bytes())?;
        Ok(valid)
    }
}

impl<W: std::io::Write> std::io::Write for JsonEscaping<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.pending.is_empty() {
            let taken = self.put(buf)?;
            self.pending.extend_from_slice(&buf[taken..]);
        } else {
            let mut joined = std::mem::take(&mut self.pending);
            joined.extend_from_slice(buf);
            let taken = self.put(&joined)?;
            self.pending = joined.split_off(taken);
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

fn push_escaped(out: &mut String, c: char) {
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        c if (c as u32) < 0x80 => out.push_str(&format!("\\x{:02x}", c as u32)),
        c => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
    }
}

/// `text` on one line: every control character written as an escape (`\x1b`, `\n`, `\t`,
/// `\u{2028}`). For a field inside a line of output (a name, a path, a rule).
pub fn escape(text: &str) -> Cow<'_, str> {
    escape_keeping(text, |_, _| false)
}

/// `text` that may span lines (a prompt, a server's stderr, a rendered report): newlines and
/// tabs stay, and so does a `\r` before a `\n`; every other control character is escaped.
pub fn escape_lines(text: &str) -> Cow<'_, str> {
    escape_keeping(text, kept_in_lines)
}

fn kept_in_lines(c: char, next: Option<char>) -> bool {
    c == '\n' || c == '\t' || (c == '\r' && next == Some('\n'))
}

fn escape_keeping(text: &str, keep: impl Fn(char, Option<char>) -> bool) -> Cow<'_, str> {
    if !text.chars().any(is_unsafe) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if is_unsafe(c) && !keep(c, chars.peek().copied()) {
            push_escaped(&mut out, c);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// [`escape_lines`] of a text that spans (byte ranges) point into, with a function that
/// moves an offset of `text` to the same place in the escaped text.
pub(crate) fn escape_lines_mapped(text: &str) -> (Cow<'_, str>, impl Fn(usize) -> usize + '_) {
    let escaped = escape_lines(text);
    // (offset in `text`, how much longer the escaped text is from there on)
    let mut shifts: Vec<(usize, usize)> = Vec::new();
    if let Cow::Owned(_) = escaped {
        let mut grown = 0;
        let mut chars = text.char_indices().peekable();
        while let Some((at, c)) = chars.next() {
            if is_unsafe(c) && !kept_in_lines(c, chars.peek().map(|&(_, n)| n)) {
                let mut one = String::new();
                push_escaped(&mut one, c);
                grown += one.len() - c.len_utf8();
                shifts.push((at + c.len_utf8(), grown));
            }
        }
    }
    let map = move |offset: usize| {
        let i = shifts.partition_point(|&(at, _)| at <= offset);
        offset + if i == 0 { 0 } else { shifts[i - 1].1 }
    };
    (escaped, map)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_are_escaped() {
        assert_eq!(escape("plain ✓ text"), "plain ✓ text");
        assert!(matches!(escape("plain"), Cow::Borrowed(_)));
        assert_eq!(escape("\u{1b}[2J\u{1b}]0;title\u{7}"), "\\x1b[2J\\x1b]0;title\\x07");
        assert_eq!(escape("a\nb\tc\rd\u{7f}"), "a\\nb\\tc\\rd\\x7f");
        assert_eq!(
            escape("\u{9b}31m \u{85} \u{2028}\u{2029} \u{202e}"),
            "\\u{9b}31m \\u{85} \\u{2028}\\u{2029} \\u{202e}"
        );
        assert_eq!(escape_lines("line one\r\n\tline two\u{1b}[0m\rhidden"), "line one\r\n\tline two\\x1b[0m\\rhidden");
    }

    #[test]
    fn json_keeps_its_meaning_without_raw_controls() {
        let value = serde_json::json!({"name": "a\u{1b}[2J\u{9b}31m\u{7f}\u{202e}\u{200f}b\n"});
        let json = serde_json::to_string_pretty(&value).expect("json");
        let escaped = escape_json(&json);
        assert!(!escaped.chars().any(|c| c != '\n' && is_unsafe(c)), "{escaped}");
        assert!(escaped.contains("\\u009b31m\\u007f\\u202e\\u200f"), "{escaped}");
        assert_eq!(serde_json::from_str::<serde_json::Value>(&escaped).expect("still JSON"), value);
    }

    #[test]
    fn json_escaped_as_written_equals_json_escaped_whole() {
        use std::io::Write;
        let value = serde_json::json!({"name": "a\u{1b}[2J\u{9b}31m ✓ \u{202e}\u{200f}b\n", "plain": "é€𝄞"});
        let json = serde_json::to_string_pretty(&value).expect("json");
        // Cut into pieces of every size from 1 byte, so that characters of 2, 3 and 4 bytes
        // are cut between writes.
        for size in 1..=json.len() {
            let mut out = Vec::new();
            let mut writer = JsonEscaping::new(&mut out);
            for piece in json.as_bytes().chunks(size) {
                writer.write_all(piece).expect("write");
            }
            writer.finish().expect("finish");
            assert_eq!(String::from_utf8(out).expect("UTF-8"), escape_json(&json), "pieces of {size}");
        }
        let mut out = Vec::new();
        serde_json::to_writer_pretty(JsonEscaping::new(&mut out), &value).expect("json");
        assert_eq!(String::from_utf8(out).expect("UTF-8"), escape_json(&json));
    }

    #[test]
    fn offsets_follow_the_escapes() {
        let text = "a\u{1b}b\u{2028}c\nd";
        let (escaped, map) = escape_lines_mapped(text);
        assert_eq!(escaped, "a\\x1bb\\u{2028}c\nd");
        for (offset, ch) in [(0, 'a'), (2, 'b'), (6, 'c'), (8, 'd')] {
            assert_eq!(escaped[map(offset)..].chars().next(), Some(ch), "{offset}");
        }
        assert_eq!(map(text.len()), escaped.len());
        let (same, identity) = escape_lines_mapped("clean\ntext");
        assert_eq!((same.as_ref(), identity(3)), ("clean\ntext", 3));
    }
}
