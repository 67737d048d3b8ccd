//! `${VAR}` expansion in `.mcp.json` (`env.pest`), following Claude Code's `expandEnvVarsInString`
//! and the MCP docs (https://code.claude.com/docs/en/mcp), which agree: `${VAR}` and
//! `${VAR:-default}` in `command`, `args`, `env`, `url` and `headers`; an unset variable without a
//! default stays as the literal `${VAR}` and is reported missing.
//!
//! Two quirks of the regex are kept, because they are what Claude Code does. A body ends at the first
//! `}`, so `${A:-${B}}` is the reference `${A:-${B}` followed by a literal `}`. And the body is split
//! with JavaScript's `split(':-', 2)`, which *drops* everything after a second `:-`: the default of
//! `${A:-x:-y}` is `x`.

use pest::Parser as _;

use crate::error::{internal_error, span_of};
use crate::{Span, SyntaxError};

mod grammar {
    // pest_derive makes `Rule` public; the module is private, so it never leaves the crate.
    #![allow(unreachable_pub)]
    #[derive(pest_derive::Parser)]
    #[grammar = "env.pest"]
    pub(crate) struct EnvParser;
}
use grammar::{EnvParser, Rule};

/// One `${…}` reference.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnvRef {
    /// The variable looked up: the body up to the first `:-`.
    pub name: String,
    pub name_span: Span,
    /// The text after `:-`, up to a second `:-` if there is one.
    pub default: Option<String>,
    /// From `$` to `}`.
    pub span: Span,
}

/// Lists the references in `text`, in order, with problems that leave text unexpanded: `${}`, a `${`
/// never closed, and names no environment can hold (anything but `[A-Za-z_][A-Za-z0-9_]*`).
///
/// A hand-written scan of what `env.pest` describes (the grammar stays the specification:
/// [`parse_env_refs_pest`] reads it, and tests and the `fuzz_env` target compare the two). After
/// each `${` the first `}` decides: right after it, `${}`; further on, a reference; none, the
/// rest is unclosed. Any other `$` is literal.
pub fn parse_env_refs(text: &str) -> (Vec<EnvRef>, Vec<SyntaxError>) {
    let mut refs = Vec::new();
    let mut errors = Vec::new();
    let bytes = text.as_bytes();
    let mut at = 0;
    // Most texts checked are prose, read for secrets: without a `${` nothing is allocated.
    while let Some(open) = find_open(bytes, at) {
        let body = open + 2;
        match bytes[body..].iter().position(|&b| b == b'}') {
            None => {
                errors.push(unclosed(text.len(), open));
                break;
            }
            Some(0) => {
                errors.push(empty_reference(Span::new(open, body + 1)));
                at = body + 1;
            }
            Some(n) => {
                let span = Span::new(open, body + n + 1);
                push_reference(&mut refs, &mut errors, &text[open..span.end], span);
                at = span.end;
            }
        }
    }
    (refs, errors)
}

/// Where the next `${` at or after `from` starts.
fn find_open(bytes: &[u8], from: usize) -> Option<usize> {
    let mut at = from;
    loop {
        let dollar = at + bytes.get(at..)?.iter().position(|&b| b == b'$')?;
        if bytes.get(dollar + 1) == Some(&b'{') {
            return Some(dollar);
        }
        at = dollar + 1;
    }
}

fn push_reference(refs: &mut Vec<EnvRef>, errors: &mut Vec<SyntaxError>, source: &str, span: Span) {
    let reference = lower_reference(source, span);
    if !is_env_name(&reference.name) {
        errors.push(
            SyntaxError::new(
                reference.name_span,
                format!("`{}` is not a valid environment variable name", reference.name),
            )
            .with_help("names are letters, digits and `_`, not starting with a digit; the reference stays unexpanded"),
        );
    }
    refs.push(reference);
}

fn empty_reference(span: Span) -> SyntaxError {
    SyntaxError::new(span, "expected a variable name in `${}`").with_help("write `${NAME}` or `${NAME:-default}`")
}

fn unclosed(len: usize, open: usize) -> SyntaxError {
    SyntaxError::new(Span::at(len), "expected `}` to close `${`")
        .with_help(format!("the `${{` at byte {open} stays literal text"))
}

/// [`parse_env_refs`] by `env.pest`, the grammar it follows: the reference the scan is tested
/// and fuzzed against (`fuzz_env`), not used otherwise.
#[doc(hidden)]
pub fn parse_env_refs_pest(text: &str) -> (Vec<EnvRef>, Vec<SyntaxError>) {
    let mut refs = Vec::new();
    let mut errors = Vec::new();
    let pairs = match EnvParser::parse(Rule::text, text) {
        Ok(mut pairs) => pairs.next().map(|pair| pair.into_inner()),
        Err(error) => {
            errors.push(internal_error(&error, text.len()));
            None
        }
    };
    for pair in pairs.into_iter().flatten() {
        let span = span_of(&pair);
        match pair.as_rule() {
            Rule::reference => push_reference(&mut refs, &mut errors, pair.as_str(), span),
            Rule::empty_reference => errors.push(empty_reference(span)),
            Rule::unclosed => errors.push(unclosed(text.len(), span.start)),
            _ => {}
        }
    }
    (refs, errors)
}

fn lower_reference(source: &str, span: Span) -> EnvRef {
    // `source` is `${body}`; the body starts after two bytes and ends before the final `}`.
    let body = &source[2..source.len() - 1];
    let (name, default) = match body.split_once(":-") {
        Some((name, rest)) => (name, Some(rest.split(":-").next().unwrap_or(rest))),
        None => (body, None),
    };
    EnvRef {
        name: name.to_owned(),
        name_span: Span::new(span.start + 2, span.start + 2 + name.len()),
        default: default.map(str::to_owned),
        span,
    }
}

fn is_env_name(name: &str) -> bool {
    let mut bytes = name.bytes();
    bytes.next().is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// Expands every reference: the variable's value if `lookup` has one (an empty value counts), else
/// the default, else the reference stays as written and its name is listed as missing, once per
/// occurrence, as Claude Code reports them.
pub fn expand_env(text: &str, lookup: impl Fn(&str) -> Option<String>) -> (String, Vec<String>) {
    let (refs, _) = parse_env_refs(text);
    let mut out = String::with_capacity(text.len());
    let mut missing = Vec::new();
    let mut copied = 0;
    for reference in refs {
        out.push_str(&text[copied..reference.span.start]);
        copied = reference.span.end;
        match (lookup(&reference.name), &reference.default) {
            (Some(value), _) => out.push_str(&value),
            (None, Some(default)) => out.push_str(default),
            (None, None) => {
                out.push_str(&text[reference.span.start..reference.span.end]);
                missing.push(reference.name);
            }
        }
    }
    out.push_str(&text[copied..]);
    (out, missing)
}

#[cfg(test)]
mod tests;
