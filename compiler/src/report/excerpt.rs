//! The source miette shows for one finding, with very long lines cut to fit.
//!
//! miette prints each line of a snippet whole and underlines the span under it: a minified
//! 6,000-character JSON line would fill a screen, with a 2,000-character underline. So the
//! lines a snippet shows (the span's lines and one line of context either side) are cut to
//! a window of the terminal's width around the span, marked with `…` where text was left
//! out; the span is moved with the text (and cut at the window's edge when it is longer).
//! The header's `path:line:column` still names the position in the file itself.

use miette::{MietteError, MietteSpanContents, SourceCode, SourceSpan, SpanContents};

const ELLIPSIS: &str = "…";

/// Text and a span, with the lines around the span cut to at most `max` characters.
#[derive(Debug)]
pub(super) struct Excerpt {
    name: String,
    text: String,
    /// The primary span, in `text`.
    span: (usize, usize),
    /// Its 1-based (line, column) in the file, shown in the header.
    position: (usize, usize),
}

impl Excerpt {
    /// `span` is a byte range of `text`; `position` where it starts in the file.
    pub(super) fn new(name: String, text: &str, span: (usize, usize), position: (usize, usize), max: usize) -> Excerpt {
        let (text, span) = cut(text, span, max);
        Excerpt { name, text, span, position }
    }

    /// The primary span, in the cut text.
    pub(super) fn span(&self) -> (usize, usize) {
        self.span
    }
}

impl SourceCode for Excerpt {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        before: usize,
        after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        let contents = self.text.read_span(span, before, after)?;
        // miette reads the primary span alone (no context) for the header's position.
        let primary = span.offset() == self.span.0 && span.len() == self.span.1 - self.span.0;
        let (line, column) = if primary && before == 0 && after == 0 {
            (self.position.0 - 1, self.position.1 - 1)
        } else {
            (contents.line(), contents.column())
        };
        Ok(Box::new(MietteSpanContents::new_named(
            self.name.clone(),
            contents.data(),
            *contents.span(),
            line,
            column,
            contents.line_count(),
        )))
    }
}

/// A line's byte range, without its line break.
#[derive(Clone, Copy)]
struct Line {
    start: usize,
    end: usize,
}

fn lines(text: &str) -> Vec<Line> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, b) in text.bytes().enumerate() {
        if b == b'\n' {
            let end = if i > start && text.as_bytes()[i - 1] == b'\r' { i - 1 } else { i };
            out.push(Line { start, end });
            start = i + 1;
        }
    }
    out.push(Line { start, end: text.len() });
    out
}

/// A cut line: `[keep_start, keep_end)` of it stays, `…` replaces what is left out.
struct Cut {
    line: Line,
    keep_start: usize,
    keep_end: usize,
}

/// `text` with the lines a snippet of `span` shows cut to `max` characters, and the span
/// moved into the new text.
fn cut(text: &str, span: (usize, usize), max: usize) -> (String, (usize, usize)) {
    let max = max.max(20);
    let all = lines(text);
    let line_of = |offset: usize| all.partition_point(|l| l.start <= offset).saturating_sub(1);
    let first = line_of(span.0);
    let last = line_of(span.1.saturating_sub(1).max(span.0));
    let shown = first.saturating_sub(1)..=(last + 1).min(all.len() - 1);
    let mut cuts = Vec::new();
    for index in shown {
        let line = all[index];
        let body = &text[line.start..line.end];
        let n = body.chars().count();
        if n <= max {
            continue;
        }
        // The window keeps the line's start when the span fits there, else its end, else
        // the span with some context either side; `…` stands for each part left out.
        let (head, middle) = (max - 1, max - 2);
        let context = (middle / 4).min(16);
        let chars_to = |offset: usize| text[line.start..offset.clamp(line.start, line.end)].chars().count();
        let (from, to) = if index == first || index == last {
            let s = if index == first { chars_to(span.0) } else { 0 };
            let e = if index == last { chars_to(span.1) } else { n };
            if e <= head {
                (0, head)
            } else if index == first && s >= n - head {
                (n - head, n)
            } else if index == first {
                let len = e - s;
                let from = if len + 2 * context <= middle {
                    s.saturating_sub((middle - len) / 2)
                } else {
                    s.saturating_sub(context)
                };
                let to = (from + middle).min(n);
                (to.saturating_sub(middle).min(from), to)
            } else {
                let to = (e + context).min(n);
                (to.saturating_sub(middle), to)
            }
        } else {
            (0, head)
        };
        let byte_at = |chars: usize| body.char_indices().nth(chars).map_or(line.end, |(i, _)| line.start + i);
        cuts.push(Cut { line, keep_start: byte_at(from), keep_end: byte_at(to) });
    }
    if cuts.is_empty() {
        return (text.to_string(), span);
    }
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for c in &cuts {
        out.push_str(&text[at..c.line.start]);
        if c.keep_start > c.line.start {
            out.push_str(ELLIPSIS);
        }
        out.push_str(&text[c.keep_start..c.keep_end]);
        if c.keep_end < c.line.end {
            out.push_str(ELLIPSIS);
        }
        at = c.line.end;
    }
    out.push_str(&text[at..]);
    let map = |offset: usize| -> usize {
        // Every cut before `offset` shortened the text by what it left out (less the `…`s).
        let mut shift: isize = 0;
        for c in &cuts {
            let head = if c.keep_start > c.line.start { ELLIPSIS.len() } else { 0 };
            let tail = if c.keep_end < c.line.end { ELLIPSIS.len() } else { 0 };
            if offset > c.line.end {
                shift += (head + tail) as isize - ((c.keep_start - c.line.start) + (c.line.end - c.keep_end)) as isize;
                continue;
            }
            if offset < c.line.start {
                break;
            }
            // Inside a cut line: left of the window to its start, right of it to its end.
            let new_line_start = (c.line.start as isize + shift) as usize;
            let inside = offset.clamp(c.keep_start, c.keep_end) - c.keep_start;
            return new_line_start + head + inside;
        }
        (offset as isize + shift) as usize
    };
    let start = map(span.0);
    let end = map(span.1).max(start);
    (out, (start, end))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(text: &str, span: (usize, usize), max: usize) -> String {
        let (out, (s, e)) = cut(text, span, max);
        format!("{out}\n[{}]", &out[s..e])
    }

    #[test]
    fn short_lines_stay_whole() {
        assert_eq!(check("{\"a\": 1}\n", (1, 4), 40), "{\"a\": 1}\n\n[\"a\"]");
    }

    #[test]
    fn a_long_line_is_cut_around_the_span() {
        let text = format!("{{{}\"bad\": 1,{}}}", "\"k\": 0, ".repeat(50), "\"z\": 0, ".repeat(50));
        let at = text.find("\"bad\"").expect("span");
        let out = check(&text, (at, at + 5), 40);
        let (line, underlined) = out.split_once('\n').expect("two parts");
        assert_eq!(line.chars().count(), 40, "{line}");
        assert!(line.starts_with('…') && line.ends_with('…'), "{line}");
        assert_eq!(underlined, "[\"bad\"]");
    }

    #[test]
    fn a_long_span_is_cut_at_the_window() {
        let text = format!("x\n{}\ny\n", "a".repeat(3000));
        let out = check(&text, (2, 3002), 60);
        let second = out.lines().nth(1).expect("line 2");
        assert_eq!(second.chars().count(), 59, "starts at the span, one `…`: {second}");
        assert!(out.ends_with(&format!("[{}]", "a".repeat(58))), "{out}");
    }

    #[test]
    fn context_lines_are_cut_too_and_later_offsets_move() {
        let text = format!("{}\nshort\n{}\n", "b".repeat(500), "c".repeat(500));
        let at = text.find("short").expect("span");
        let out = check(&text, (at, at + 5), 30);
        assert_eq!(out.lines().next(), Some(format!("{}…", "b".repeat(29)).as_str()));
        assert!(out.ends_with("[short]"), "{out}");
    }

    #[test]
    fn a_span_near_either_end_keeps_that_end() {
        let text = format!("{{\"bad\": 1, {}}}", "\"k\": 0, ".repeat(50));
        let out = check(&text, (1, 6), 40);
        assert!(out.starts_with("{\"bad\": 1, \"k\"") && out.contains("…\n[\"bad\"]"), "{out}");
        let text = format!("{{{}\"bad\": 1}}", "\"k\": 0, ".repeat(50));
        let at = text.find("\"bad\"").expect("span");
        let out = check(&text, (at, at + 5), 40);
        assert!(out.starts_with('…') && out.contains("\"bad\": 1}\n"), "{out}");
    }

    #[test]
    fn multibyte_text_is_cut_on_characters() {
        let text = format!("{}ÉRR{}", "é".repeat(300), "ü".repeat(300));
        let at = text.find("ÉRR").expect("span");
        let out = check(&text, (at, at + "ÉRR".len()), 50);
        assert!(out.ends_with("[ÉRR]"), "{out}");
    }
}
