//! A recursive-descent parser for the Bash command language, into the syntax tree of `ast.rs`.
//!
//! Written by hand rather than in pest because Bash's lexing depends on what was parsed before:
//! a here-document's body starts at the next newline and ends at a delimiter chosen by an earlier
//! word, `)` closes a `case` pattern or a `$(…)` depending on where it stands, reserved words count
//! only in command position, and `"…$(…"…")…"` nests quoting inside quoting. Each construct has one
//! function here, named after it. Nesting is bounded ([`MAX_DEPTH`]), so no input can exhaust the
//! stack, and every loop consumes input, so parsing is linear.

use super::ast::{
    Assignment, CommandList, CommandNode, Compound, Heredoc, ListItem, Operator, Pipeline, RedirOp, Redirect, Simple,
};
use crate::Span;

mod word;

use self::word::matching_double_paren;

/// The `&&`/`||` pipelines after the first one of an and-or list.
type AndOrRest = Vec<(Operator, Span, Pipeline)>;

/// How deeply constructs may nest (`$(`, `(`, `{`, `if`, quotes inside substitutions…).
pub(crate) const MAX_DEPTH: usize = 64;

/// Why a line could not be parsed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ParseFailure {
    /// A quote, backtick, `${`, `$((` or here-document never closed, or a token where none fits.
    Syntax,
    /// A `$(`, `<(`, `>(` or `(` never closed: the shells may disagree about where it ends.
    Unclosed,
    /// Nesting deeper than [`MAX_DEPTH`].
    TooDeep,
}

pub(crate) fn parse(source: &str) -> Result<CommandList, ParseFailure> {
    let mut parser = Parser { src: source, pos: 0, depth: 0, pending: Vec::new() };
    let list = parser.list(Stop::Eof)?;
    if parser.pos < source.len() {
        return Err(ParseFailure::Syntax);
    }
    if !parser.pending.is_empty() {
        // A here-document on the last line with no body: bash reads an empty one.
        parser.read_heredoc_bodies();
    }
    Ok(list)
}

/// What ends a list.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Stop {
    Eof,
    /// `)` of a subshell or `$(…)`.
    Paren,
    /// One of these reserved words.
    Words(&'static [&'static str]),
    /// `;;`, `;&`, `;;&` or `esac` in a `case` arm.
    CaseArm,
}

struct Parser<'s> {
    src: &'s str,
    pos: usize,
    depth: usize,
    /// Here-documents whose bodies start at the next newline: where to store each body.
    pending: Vec<PendingHeredoc>,
}

/// The body is skipped, not kept: a quoted one is literal text, an unquoted one is refused.
struct PendingHeredoc {
    delimiter: String,
    strip_tabs: bool,
}

const RESERVED: &[&str] = &[
    "if", "then", "elif", "else", "fi", "while", "until", "do", "done", "for", "in", "case", "esac", "select",
    "function", "{", "}", "!", "[[", "]]",
];

fn is_blank(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

/// Characters that end an unquoted word.
fn is_meta(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b';' | b'&' | b'|' | b'<' | b'>' | b'(' | b')')
}

fn is_name_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_'
}

fn is_name_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

impl<'s> Parser<'s> {
    fn peek(&self) -> Option<u8> {
        self.src.as_bytes().get(self.pos).copied()
    }
    fn peek_at(&self, offset: usize) -> Option<u8> {
        self.src.as_bytes().get(self.pos + offset).copied()
    }
    fn rest(&self) -> &'s str {
        self.src.get(self.pos..).unwrap_or("")
    }
    fn eat(&mut self, text: &str) -> bool {
        if self.rest().starts_with(text) {
            self.pos += text.len();
            true
        } else {
            false
        }
    }
    fn enter(&mut self) -> Result<(), ParseFailure> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            Err(ParseFailure::TooDeep)
        } else {
            Ok(())
        }
    }
    fn leave(&mut self) {
        self.depth -= 1;
    }

    /// Spaces, tabs and backslash-newline continuations.
    fn blanks(&mut self) {
        loop {
            match self.peek() {
                Some(b) if is_blank(b) => self.pos += 1,
                Some(b'\\') if self.peek_at(1) == Some(b'\n') => self.pos += 2,
                _ => return,
            }
        }
    }

    /// Blanks, then a comment (`#` where a word would start) up to, not including, its newline.
    fn blanks_and_comment(&mut self) {
        self.blanks();
        if self.peek() == Some(b'#') {
            self.pos += self.rest().find('\n').unwrap_or(self.rest().len());
        }
    }

    /// Blanks, comments and newlines (reading here-document bodies at each newline).
    fn linebreaks(&mut self) {
        loop {
            self.blanks_and_comment();
            if self.peek() == Some(b'\n') {
                self.newline();
            } else {
                return;
            }
        }
    }

    /// Consumes one newline, then the bodies of the here-documents opened on its line.
    fn newline(&mut self) {
        self.pos += 1;
        self.read_heredoc_bodies();
    }

    fn read_heredoc_bodies(&mut self) {
        for pending in std::mem::take(&mut self.pending) {
            loop {
                if self.pos >= self.src.len() {
                    break; // bash reads to the end of input, with a warning
                }
                let rest = self.rest();
                let (line, advance) = match rest.find('\n') {
                    Some(at) => (&rest[..at], at + 1),
                    None => (rest, rest.len()),
                };
                self.pos += advance;
                let compared = if pending.strip_tabs { line.trim_start_matches('\t') } else { line };
                if compared == pending.delimiter {
                    break;
                }
            }
        }
    }

    /// A reserved word at the current position (followed by a word boundary), without consuming it.
    fn keyword(&self) -> Option<&'static str> {
        let rest = self.rest();
        RESERVED.iter().copied().find(|word| {
            rest.starts_with(word) && rest.as_bytes().get(word.len()).is_none_or(|&b| is_meta(b) || b == b'\r')
        })
    }

    fn at_stop(&self, stop: Stop) -> bool {
        match self.peek() {
            None => true,
            Some(b')') => matches!(stop, Stop::Paren | Stop::CaseArm),
            Some(_) => match stop {
                Stop::Words(words) => self.keyword().is_some_and(|k| words.contains(&k)),
                Stop::CaseArm => {
                    self.rest().starts_with(";;") || self.rest().starts_with(";&") || self.keyword() == Some("esac")
                }
                Stop::Eof | Stop::Paren => false,
            },
        }
    }

    /// `list := { and-or separator }`, up to `stop` (not consumed).
    fn list(&mut self, stop: Stop) -> Result<CommandList, ParseFailure> {
        self.enter()?;
        let mut items: Vec<ListItem> = Vec::new();
        loop {
            self.linebreaks();
            if self.at_stop(stop) {
                break;
            }
            let start = self.pos;
            let (first, rest) = self.and_or()?;
            let mut item = ListItem { first, rest, separator: None, span: Span::new(start, self.pos) };
            self.blanks_and_comment();
            match self.peek() {
                Some(b';') if !self.rest().starts_with(";;") && !self.rest().starts_with(";&") => {
                    item.separator = Some((Operator::Semicolon, Span::new(self.pos, self.pos + 1)));
                    self.pos += 1;
                }
                Some(b'&') if !self.rest().starts_with("&&") => {
                    item.separator = Some((Operator::Background, Span::new(self.pos, self.pos + 1)));
                    self.pos += 1;
                }
                Some(b'\n') => {
                    item.separator = Some((Operator::Newline, Span::new(self.pos, self.pos + 1)));
                    self.newline();
                }
                _ => {
                    items.push(item);
                    if self.at_stop(stop) {
                        break;
                    }
                    return Err(ParseFailure::Syntax);
                }
            }
            items.push(item);
        }
        self.leave();
        Ok(CommandList { items })
    }

    /// `and-or := pipeline { ("&&" | "||") linebreaks pipeline }`.
    fn and_or(&mut self) -> Result<(Pipeline, AndOrRest), ParseFailure> {
        let first = self.pipeline()?;
        let mut rest = Vec::new();
        loop {
            self.blanks_and_comment();
            let op = if self.rest().starts_with("&&") {
                Operator::And
            } else if self.rest().starts_with("||") {
                Operator::Or
            } else {
                break;
            };
            let span = Span::new(self.pos, self.pos + 2);
            self.pos += 2;
            self.linebreaks();
            rest.push((op, span, self.pipeline()?));
        }
        Ok((first, rest))
    }

    /// `pipeline := [ "!" ] command { ("|" | "|&") linebreaks command }`.
    fn pipeline(&mut self) -> Result<Pipeline, ParseFailure> {
        self.blanks_and_comment();
        let start = self.pos;
        let mut negated = false;
        while self.keyword() == Some("!") {
            self.pos += 1;
            negated = true;
            self.blanks();
        }
        let mut commands = vec![self.command()?];
        let mut pipes = Vec::new();
        loop {
            self.blanks_and_comment();
            if self.peek() != Some(b'|') || self.peek_at(1) == Some(b'|') {
                break;
            }
            let (op, len) = if self.peek_at(1) == Some(b'&') { (Operator::PipeAll, 2) } else { (Operator::Pipe, 1) };
            pipes.push((op, Span::new(self.pos, self.pos + len)));
            self.pos += len;
            self.linebreaks();
            commands.push(self.command()?);
        }
        Ok(Pipeline { negated, commands, pipes, span: Span::new(start, self.pos) })
    }

    fn command(&mut self) -> Result<CommandNode, ParseFailure> {
        self.blanks_and_comment();
        let start = self.pos;
        let compound = match self.keyword() {
            Some("{") => {
                self.pos += 1;
                let body = self.list(Stop::Words(&["}"]))?;
                self.expect_word("}")?;
                Some(Compound::Group(body))
            }
            Some("if") => Some(self.if_clause()?),
            Some(word @ ("while" | "until")) => {
                self.pos += word.len();
                let condition = self.list(Stop::Words(&["do"]))?;
                let body = self.do_group()?;
                Some(Compound::Loop { condition, body })
            }
            Some(word @ ("for" | "select")) => {
                self.pos += word.len();
                Some(self.for_clause(word == "select")?)
            }
            Some("case") => Some(self.case_clause()?),
            Some("[[") => Some(self.double_bracket()?),
            Some("function") => {
                self.pos += "function".len();
                self.blanks();
                self.word()?.ok_or(ParseFailure::Syntax)?;
                self.blanks();
                if self.eat("(") {
                    self.blanks();
                    if !self.eat(")") {
                        return Err(ParseFailure::Syntax);
                    }
                }
                self.linebreaks();
                let body = self.command()?;
                return Ok(CommandNode::FunctionDefinition { body: Box::new(body), span: Span::new(start, self.pos) });
            }
            Some("then" | "elif" | "else" | "fi" | "do" | "done" | "esac" | "}") => return Err(ParseFailure::Syntax),
            _ if self.rest().starts_with("((") => Some(self.arithmetic_command()?),
            _ if self.peek() == Some(b'(') => {
                self.enter()?;
                self.pos += 1;
                let body = self.list(Stop::Paren)?;
                if !self.eat(")") {
                    return Err(ParseFailure::Unclosed);
                }
                self.leave();
                Some(Compound::Subshell(body))
            }
            _ => None,
        };
        match compound {
            Some(kind) => {
                let mut redirects = Vec::new();
                loop {
                    self.blanks();
                    match self.redirect()? {
                        Some(redirect) => redirects.push(redirect),
                        None => break,
                    }
                }
                Ok(CommandNode::Compound { kind, redirects, span: Span::new(start, self.pos) })
            }
            None => self.simple(start),
        }
    }

    fn expect_word(&mut self, word: &str) -> Result<(), ParseFailure> {
        self.linebreaks();
        if self.keyword() == Some(word) || (word == "}" && self.peek() == Some(b'}')) {
            self.pos += word.len();
            Ok(())
        } else {
            Err(ParseFailure::Syntax)
        }
    }

    fn do_group(&mut self) -> Result<CommandList, ParseFailure> {
        self.expect_word("do")?;
        let body = self.list(Stop::Words(&["done"]))?;
        self.expect_word("done")?;
        Ok(body)
    }

    fn if_clause(&mut self) -> Result<Compound, ParseFailure> {
        self.pos += "if".len();
        let mut branches = Vec::new();
        loop {
            let condition = self.list(Stop::Words(&["then"]))?;
            self.expect_word("then")?;
            let body = self.list(Stop::Words(&["elif", "else", "fi"]))?;
            branches.push((condition, body));
            self.linebreaks();
            match self.keyword() {
                Some("elif") => self.pos += "elif".len(),
                Some("else") => {
                    self.pos += "else".len();
                    let otherwise = self.list(Stop::Words(&["fi"]))?;
                    self.expect_word("fi")?;
                    return Ok(Compound::If { branches, otherwise: Some(otherwise) });
                }
                Some("fi") => {
                    self.pos += "fi".len();
                    return Ok(Compound::If { branches, otherwise: None });
                }
                _ => return Err(ParseFailure::Syntax),
            }
        }
    }

    fn for_clause(&mut self, select: bool) -> Result<Compound, ParseFailure> {
        self.blanks();
        if self.rest().starts_with("((") {
            self.arithmetic_text()?;
            self.blanks();
            if self.peek() == Some(b';') {
                self.pos += 1;
            }
            let body = self.do_group()?;
            return Ok(Compound::CountingFor { body });
        }
        let name = self.word()?.ok_or(ParseFailure::Syntax)?;
        name.literal().ok_or(ParseFailure::Syntax)?;
        self.linebreaks();
        let mut words = None;
        if self.keyword() == Some("in") {
            self.pos += 2;
            let mut list = Vec::new();
            loop {
                self.blanks();
                match self.peek() {
                    Some(b';' | b'\n') | None => break,
                    _ => list.push(self.word()?.ok_or(ParseFailure::Syntax)?),
                }
            }
            words = Some(list);
        }
        self.blanks();
        if self.peek() == Some(b';') {
            self.pos += 1;
        }
        let body = self.do_group()?;
        Ok(Compound::For { words, body, select })
    }

    fn case_clause(&mut self) -> Result<Compound, ParseFailure> {
        self.pos += "case".len();
        self.blanks();
        let subject = self.word()?.ok_or(ParseFailure::Syntax)?;
        self.linebreaks();
        if self.keyword() != Some("in") {
            return Err(ParseFailure::Syntax);
        }
        self.pos += 2;
        let mut arms = Vec::new();
        loop {
            self.linebreaks();
            if self.keyword() == Some("esac") {
                self.pos += "esac".len();
                return Ok(Compound::Case { subject, arms });
            }
            if self.peek() == Some(b'(') {
                self.pos += 1;
            }
            let mut patterns = Vec::new();
            loop {
                self.blanks();
                patterns.push(self.word()?.ok_or(ParseFailure::Syntax)?);
                self.blanks();
                if self.peek() == Some(b'|') {
                    self.pos += 1;
                } else {
                    break;
                }
            }
            if !self.eat(")") {
                return Err(ParseFailure::Syntax);
            }
            let body = self.list(Stop::CaseArm)?;
            arms.push((patterns, body));
            self.blanks();
            if !(self.eat(";;&") || self.eat(";;") || self.eat(";&")) && self.keyword() != Some("esac") {
                return Err(ParseFailure::Syntax);
            }
        }
    }

    /// `[[ … ]]`: words and the test operators between them, up to `]]`.
    fn double_bracket(&mut self) -> Result<Compound, ParseFailure> {
        self.pos += 2;
        let mut words = Vec::new();
        loop {
            self.blanks();
            if self.keyword() == Some("]]") {
                self.pos += 2;
                return Ok(Compound::Test { words });
            }
            match self.peek() {
                None | Some(b'\n') => return Err(ParseFailure::Syntax),
                Some(b'&') if self.peek_at(1) == Some(b'&') => self.pos += 2,
                Some(b'|') if self.peek_at(1) == Some(b'|') => self.pos += 2,
                Some(b'(' | b')' | b'<' | b'>' | b'!') => self.pos += 1,
                _ => words.push(self.word()?.ok_or(ParseFailure::Syntax)?),
            }
        }
    }

    /// `(( … ))` as a command.
    fn arithmetic_command(&mut self) -> Result<Compound, ParseFailure> {
        let text = self.arithmetic_text()?;
        Ok(Compound::Arithmetic(text))
    }

    /// From `((` to the matching `))`; the text between them.
    fn arithmetic_text(&mut self) -> Result<String, ParseFailure> {
        let start = self.pos + 2;
        let end = matching_double_paren(self.src, start).ok_or(ParseFailure::Syntax)?;
        self.pos = end + 2;
        Ok(self.src[start..end].to_owned())
    }

    /// `simple := { assignment | redirect } [ word { word | redirect } ]`, or `name () body`.
    fn simple(&mut self, start: usize) -> Result<CommandNode, ParseFailure> {
        let mut simple = Simple::default();
        let mut first: Option<usize> = None;
        let mut end = start;
        loop {
            self.blanks();
            let Some(b) = self.peek() else { break };
            if b == b'#' {
                // A comment (a `#` where a word would start) ends the command; the caller skips it.
                break;
            }
            if let Some(redirect) = self.redirect()? {
                simple.redirects.push(redirect);
                continue;
            }
            if matches!(b, b'\n' | b';' | b'&' | b'|' | b')') {
                break;
            }
            if b == b'(' {
                // `name ( )` defines a function.
                if simple.words.len() == 1 && simple.assignments.is_empty() {
                    self.pos += 1;
                    self.blanks();
                    if !self.eat(")") {
                        return Err(ParseFailure::Syntax);
                    }
                    self.linebreaks();
                    let body = self.command()?;
                    return Ok(CommandNode::FunctionDefinition {
                        body: Box::new(body),
                        span: Span::new(start, self.pos),
                    });
                }
                return Err(ParseFailure::Syntax);
            }
            let word_start = self.pos;
            if simple.words.is_empty() {
                if let Some(assignment) = self.assignment()? {
                    first.get_or_insert(word_start);
                    end = self.pos;
                    simple.assignments.push(assignment);
                    continue;
                }
                self.pos = word_start;
            }
            match self.word()? {
                Some(word) => {
                    first.get_or_insert(word_start);
                    end = self.pos;
                    simple.words.push(word);
                }
                None => return Err(ParseFailure::Syntax),
            }
        }
        let first = first.unwrap_or(start);
        simple.span = Span::new(first, end.max(first));
        Ok(CommandNode::Simple(simple))
    }

    /// `NAME=value`, `NAME+=value`, `NAME[index]=value`, `NAME=(a b)`; `None` (nothing consumed
    /// that matters) when the word is not an assignment.
    fn assignment(&mut self) -> Result<Option<Assignment>, ParseFailure> {
        let start = self.pos;
        let bytes = self.src.as_bytes();
        if !self.peek().is_some_and(is_name_start) {
            return Ok(None);
        }
        let mut at = start + 1;
        while bytes.get(at).copied().is_some_and(is_name_char) {
            at += 1;
        }
        let name = self.src[start..at].to_owned();
        if bytes.get(at) == Some(&b'[') {
            let Some(close) = self.src[at..].find(']') else { return Ok(None) };
            at += close + 1;
        }
        if bytes.get(at) == Some(&b'+') {
            at += 1;
        }
        if bytes.get(at) != Some(&b'=') {
            return Ok(None);
        }
        self.pos = at + 1;
        if self.peek() == Some(b'(') {
            self.enter()?;
            self.pos += 1;
            let mut values = Vec::new();
            loop {
                self.linebreaks();
                match self.peek() {
                    Some(b')') => {
                        self.pos += 1;
                        break;
                    }
                    None => return Err(ParseFailure::Syntax),
                    _ => values.push(self.word()?.ok_or(ParseFailure::Syntax)?),
                }
            }
            self.leave();
            return Ok(Some(Assignment { name, value: None, array: true, span: Span::new(start, self.pos) }));
        }
        let value = self.word()?;
        Ok(Some(Assignment { name, value, array: false, span: Span::new(start, self.pos) }))
    }

    /// A redirection at the current position, or `None` (nothing consumed).
    fn redirect(&mut self) -> Result<Option<Redirect>, ParseFailure> {
        let start = self.pos;
        let rest = self.rest();
        let bytes = rest.as_bytes();
        // An optional file descriptor: digits, or `{name}` (a descriptor held in a variable).
        let mut at = 0;
        let mut fd: Option<String> = None;
        let mut fd_variable = false;
        let digits = bytes.iter().take_while(|b| b.is_ascii_digit()).count();
        if digits > 0 && matches!(bytes.get(digits), Some(b'<' | b'>')) {
            fd = Some(rest[..digits].to_owned());
            at = digits;
        } else if bytes.first() == Some(&b'{') {
            if let Some(close) = rest.find('}') {
                let name = &rest[1..close];
                if !name.is_empty()
                    && name.bytes().all(is_name_char)
                    && matches!(bytes.get(close + 1), Some(b'<' | b'>'))
                {
                    fd = Some(name.to_owned());
                    fd_variable = true;
                    at = close + 1;
                }
            }
        }
        let ops: &[(&str, RedirOp)] = &[
            ("&>>", RedirOp::AppendAll),
            ("&>", RedirOp::WriteAll),
            ("<<<", RedirOp::HereString),
            ("<<-", RedirOp::HeredocStrip),
            ("<<", RedirOp::Heredoc),
            ("<&", RedirOp::DupIn),
            ("<>", RedirOp::ReadWrite),
            (">>", RedirOp::Append),
            (">&", RedirOp::DupOut),
            (">|", RedirOp::Clobber),
            ("<", RedirOp::Read),
            (">", RedirOp::Write),
        ];
        let after_fd = &rest[at..];
        let Some(&(text, op)) = ops.iter().find(|(text, _)| after_fd.starts_with(text)) else {
            return Ok(None);
        };
        // `<(` and `>(` are process substitutions, words of their own.
        if matches!(op, RedirOp::Read | RedirOp::Write) && after_fd.as_bytes().get(1) == Some(&b'(') {
            return Ok(None);
        }
        if fd.is_some() && matches!(op, RedirOp::AppendAll | RedirOp::WriteAll) {
            return Ok(None);
        }
        self.pos = start + at + text.len();
        self.blanks();
        if matches!(op, RedirOp::Heredoc | RedirOp::HeredocStrip) {
            let delimiter_start = self.pos;
            let word = self.word()?.ok_or(ParseFailure::Syntax)?;
            let raw = &self.src[delimiter_start..self.pos];
            let quoted = raw.contains(['\'', '"', '\\']);
            self.pending.push(PendingHeredoc { delimiter: word.unquoted(), strip_tabs: op == RedirOp::HeredocStrip });
            return Ok(Some(Redirect {
                fd,
                fd_variable,
                op,
                target: Some(word),
                heredoc: Some(Heredoc { quoted }),
                span: Span::new(start, self.pos),
            }));
        }
        let target = self.word()?.ok_or(ParseFailure::Syntax)?;
        Ok(Some(Redirect {
            fd,
            fd_variable,
            op,
            target: Some(target),
            heredoc: None,
            span: Span::new(start, self.pos),
        }))
    }
}
