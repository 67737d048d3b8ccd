//! Words: the quoting, expansions and substitutions inside one shell word, the part of
//! [`Parser`] that reads what a word is made of.

use super::{is_meta, is_name_char, is_name_start, ParseFailure, Parser, Stop};
use crate::shell::ast::{Word, WordPart};
use crate::Span;

impl Parser<'_> {
    /// One shell word, or `None` when a word cannot start here.
    pub(super) fn word(&mut self) -> Result<Option<Word>, ParseFailure> {
        let start = self.pos;
        let mut parts: Vec<WordPart> = Vec::new();
        // `<(…)` and `>(…)` are words on their own.
        if matches!(self.peek(), Some(b'<' | b'>')) && self.peek_at(1) == Some(b'(') {
            let output = self.peek() == Some(b'>');
            self.enter()?;
            self.pos += 2;
            let body = self.list(Stop::Paren)?;
            if !self.eat(")") {
                return Err(ParseFailure::Unclosed);
            }
            self.leave();
            parts.push(WordPart::ProcessSubstitution { body, output, span: Span::new(start, self.pos) });
        }
        while let Some(b) = self.peek() {
            if is_meta(b) {
                break;
            }
            let at = self.pos;
            let part = match b {
                b'\\' => match self.rest()[1..].chars().next() {
                    Some('\n') => {
                        self.pos += 2;
                        continue;
                    }
                    Some(c) => {
                        self.pos += 1 + c.len_utf8();
                        WordPart::Escaped { character: c, span: Span::new(at, self.pos) }
                    }
                    None => {
                        self.pos += 1;
                        WordPart::Literal { text: "\\".to_owned(), span: Span::new(at, self.pos) }
                    }
                },
                b'\'' => {
                    let close = self.src[at + 1..].find('\'').ok_or(ParseFailure::Syntax)?;
                    let text = self.src[at + 1..at + 1 + close].to_owned();
                    self.pos = at + close + 2;
                    WordPart::SingleQuoted { text, span: Span::new(at, self.pos) }
                }
                b'"' => self.double_quoted()?,
                b'$' => match self.dollar(false)? {
                    Some(part) => part,
                    None => {
                        self.pos += 1;
                        WordPart::Literal { text: "$".to_owned(), span: Span::new(at, self.pos) }
                    }
                },
                b'`' => self.backquoted()?,
                _ => {
                    let rest = self.rest();
                    let first = rest.chars().next().map_or(1, char::len_utf8);
                    let len = rest[first..]
                        .find(|c: char| {
                            c.is_ascii() && (is_meta(c as u8) || matches!(c, '\\' | '\'' | '"' | '$' | '`'))
                        })
                        .map_or(rest.len(), |at| at + first);
                    self.pos += len;
                    WordPart::Literal { text: self.src[at..self.pos].to_owned(), span: Span::new(at, self.pos) }
                }
            };
            match (parts.last_mut(), part) {
                (Some(WordPart::Literal { text, span }), WordPart::Literal { text: more, span: more_span }) => {
                    text.push_str(&more);
                    span.end = more_span.end;
                }
                (_, part) => parts.push(part),
            }
        }
        if self.pos == start {
            return Ok(None);
        }
        Ok(Some(Word { parts, span: Span::new(start, self.pos) }))
    }

    /// `"…"`: literal text, escapes of `$`, `` ` ``, `"`, `\`, and expansions.
    fn double_quoted(&mut self) -> Result<WordPart, ParseFailure> {
        let open = self.pos;
        self.enter()?;
        self.pos += 1;
        let mut parts = Vec::new();
        let mut literal = String::new();
        loop {
            let Some(b) = self.peek() else { return Err(ParseFailure::Syntax) };
            match b {
                b'"' => {
                    self.pos += 1;
                    break;
                }
                b'\\' => match self.peek_at(1) {
                    Some(b'\n') => self.pos += 2,
                    Some(c @ (b'$' | b'`' | b'"' | b'\\')) => {
                        literal.push(c as char);
                        self.pos += 2;
                    }
                    _ => {
                        literal.push('\\');
                        self.pos += 1;
                    }
                },
                b'$' => match self.dollar(true)? {
                    Some(part) => {
                        if !literal.is_empty() {
                            parts.push(WordPart::Literal {
                                text: std::mem::take(&mut literal),
                                span: Span::at(self.pos),
                            });
                        }
                        parts.push(part);
                    }
                    None => {
                        literal.push('$');
                        self.pos += 1;
                    }
                },
                b'`' => {
                    if !literal.is_empty() {
                        parts.push(WordPart::Literal { text: std::mem::take(&mut literal), span: Span::at(self.pos) });
                    }
                    parts.push(self.backquoted()?);
                }
                _ => {
                    let c = self.rest().chars().next().unwrap_or(' ');
                    literal.push(c);
                    self.pos += c.len_utf8();
                }
            }
        }
        if !literal.is_empty() {
            parts.push(WordPart::Literal { text: literal, span: Span::at(self.pos) });
        }
        self.leave();
        Ok(WordPart::DoubleQuoted { parts, span: Span::new(open, self.pos) })
    }

    /// An expansion starting with `$`, or `None` for a literal `$`.
    fn dollar(&mut self, in_double_quotes: bool) -> Result<Option<WordPart>, ParseFailure> {
        let start = self.pos;
        let next = self.peek_at(1);
        let part = match next {
            Some(b'(') if self.peek_at(2) == Some(b'(') => {
                // `$((…))`, unless the parentheses pair up as a subshell inside `$(…)`.
                match matching_double_paren(self.src, start + 3) {
                    Some(end) => {
                        self.pos = end + 2;
                        WordPart::Arithmetic {
                            text: self.src[start + 3..end].to_owned(),
                            legacy: false,
                            span: Span::new(start, self.pos),
                        }
                    }
                    None => self.command_substitution()?,
                }
            }
            Some(b'(') => self.command_substitution()?,
            Some(b'{') => {
                let end = matching_brace(self.src, start + 2).ok_or(ParseFailure::Syntax)?;
                self.pos = end + 1;
                WordPart::BracedParameter {
                    text: self.src[start + 2..end].to_owned(),
                    span: Span::new(start, self.pos),
                }
            }
            Some(b'[') => {
                let close = self.src[start + 2..].find(']').ok_or(ParseFailure::Syntax)?;
                self.pos = start + 2 + close + 1;
                WordPart::Arithmetic {
                    text: self.src[start + 2..start + 2 + close].to_owned(),
                    legacy: true,
                    span: Span::new(start, self.pos),
                }
            }
            Some(b'\'') if !in_double_quotes => {
                let mut at = start + 2;
                let bytes = self.src.as_bytes();
                loop {
                    match bytes.get(at) {
                        None => return Err(ParseFailure::Syntax),
                        Some(b'\\') => at += 2,
                        Some(b'\'') => break,
                        Some(_) => at += 1,
                    }
                }
                self.pos = at + 1;
                WordPart::AnsiC { span: Span::new(start, self.pos) }
            }
            Some(b'"') if !in_double_quotes => {
                self.pos += 1;
                let WordPart::DoubleQuoted { span, .. } = self.double_quoted()? else {
                    return Err(ParseFailure::Syntax);
                };
                WordPart::Translated { span: Span::new(start, span.end) }
            }
            Some(b) if is_name_start(b) => {
                let mut at = start + 1;
                while self.src.as_bytes().get(at).copied().is_some_and(is_name_char) {
                    at += 1;
                }
                self.pos = at;
                WordPart::Parameter { name: self.src[start + 1..at].to_owned(), span: Span::new(start, at) }
            }
            Some(b) if b.is_ascii_digit() || matches!(b, b'@' | b'*' | b'#' | b'?' | b'-' | b'$' | b'!') => {
                self.pos = start + 2;
                WordPart::Parameter { name: (b as char).to_string(), span: Span::new(start, self.pos) }
            }
            _ => return Ok(None),
        };
        Ok(Some(part))
    }

    /// `$(…)`.
    fn command_substitution(&mut self) -> Result<WordPart, ParseFailure> {
        let start = self.pos;
        self.enter()?;
        self.pos += 2;
        let body = self.list(Stop::Paren)?;
        if !self.eat(")") {
            return Err(ParseFailure::Unclosed);
        }
        self.leave();
        let span = Span::new(start, self.pos);
        Ok(WordPart::CommandSubstitution {
            body,
            text: self.src[start + 2..self.pos - 1].to_owned(),
            backquoted: false,
            span,
        })
    }

    /// `` `…` ``: the text up to the next unescaped backquote, unescaped and parsed on its own.
    fn backquoted(&mut self) -> Result<WordPart, ParseFailure> {
        let start = self.pos;
        let bytes = self.src.as_bytes();
        let mut at = start + 1;
        let mut inner = String::new();
        loop {
            match bytes.get(at) {
                None => return Err(ParseFailure::Syntax),
                Some(b'`') => break,
                Some(b'\\') if matches!(bytes.get(at + 1), Some(b'`' | b'$' | b'\\')) => {
                    inner.push(bytes[at + 1] as char);
                    at += 2;
                }
                Some(_) => {
                    let c = self.src[at..].chars().next().unwrap_or(' ');
                    inner.push(c);
                    at += c.len_utf8();
                }
            }
        }
        self.pos = at + 1;
        let span = Span::new(start, self.pos);
        if inner.trim().is_empty() {
            return Err(ParseFailure::Syntax);
        }
        self.enter()?;
        let mut nested = Parser { src: &inner, pos: 0, depth: self.depth, pending: Vec::new() };
        let body = nested.list(Stop::Eof)?;
        if nested.pos < inner.len() {
            return Err(ParseFailure::Syntax);
        }
        nested.read_heredoc_bodies();
        self.leave();
        Ok(WordPart::CommandSubstitution { body, text: inner, backquoted: true, span })
    }
}

/// The offset of the `))` closing a `((` whose text starts at `from`, with parentheses balanced
/// in between; `None` when they never balance to a `))`.
pub(super) fn matching_double_paren(source: &str, from: usize) -> Option<usize> {
    let bytes = source.as_bytes();
    let mut depth = 0usize;
    let mut at = from;
    while at < bytes.len() {
        match bytes[at] {
            b'(' => depth += 1,
            b')' if depth == 0 => return (bytes.get(at + 1) == Some(&b')')).then_some(at),
            b')' => depth -= 1,
            _ => {}
        }
        at += 1;
    }
    None
}

/// The offset of the `}` closing a `${` whose text starts at `from` (quotes and nested braces skipped).
fn matching_brace(source: &str, from: usize) -> Option<usize> {
    let bytes = source.as_bytes();
    let mut depth = 0usize;
    let mut at = from;
    let mut quote: Option<u8> = None;
    while at < bytes.len() {
        let b = bytes[at];
        match quote {
            Some(q) if b == q => quote = None,
            Some(_) => {}
            None => match b {
                b'\\' => at += 1,
                b'\'' | b'"' => quote = Some(b),
                b'{' => depth += 1,
                b'}' if depth == 0 => return Some(at),
                b'}' => depth -= 1,
                _ => {}
            },
        }
        at += 1;
    }
    None
}
