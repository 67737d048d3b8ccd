//! Bash content rules against a command (Claude Code's `bashPermissions.ts`, `shellRuleMatching.ts`,
//! with the permissions docs' additions: every part of a compound command must match an allow rule,
//! and `command`, `builtin`, `noglob` and bare `xargs` are stripped as wrappers).
//!
//! A command is compared through *candidates*: the command itself, the command without output
//! redirections, and those with safe wrappers and safe environment assignments stripped. For deny and
//! ask rules every leading assignment is stripped too, repeatedly, so `FOO=1 nohup rm -rf x` stays
//! denied by `Bash(rm:*)`. This module is a scanner, not a shell: heredocs and `case` are not parsed.

use crate::matching::wildcard::pieces_match;
use crate::{BashPattern, WildcardPiece};

/// Enough candidates for any real command; a bound keeps adversarial ones (thousands of nested
/// wrappers) from costing quadratic time.
const MAX_CANDIDATES: usize = 64;

/// Does the rule match the whole command (`deny_like`: a deny or ask rule)? Allow rules must match
/// every part of a compound command; deny and ask rules match if any part matches.
pub(crate) fn shell_rule_matches(pattern: &BashPattern, command: &str, deny_like: bool, fold_case: bool) -> bool {
    let command = command.trim();
    // Exact mode: the unsplit command, for exact rules (and prefix rules equal to the command).
    if let BashPattern::Exact(_) | BashPattern::Prefix(_) = pattern {
        let whole = candidates(command, deny_like);
        if whole.iter().any(|candidate| exact_mode_matches(pattern, candidate, fold_case)) {
            return true;
        }
    }
    let parts = split_compound(command);
    if deny_like {
        parts.iter().any(|part| simple_command_matches(pattern, part, true, fold_case))
    } else {
        !parts.is_empty() && parts.iter().all(|part| simple_command_matches(pattern, part, false, fold_case))
    }
}

/// Matches one part of a (possibly compound) command. Prefix and wildcard allow rules refuse a
/// candidate that still splits (shell escaping can hide an operator from the first split).
pub(crate) fn simple_command_matches(pattern: &BashPattern, command: &str, deny_like: bool, fold_case: bool) -> bool {
    candidates(command.trim(), deny_like).iter().any(|candidate| match pattern {
        BashPattern::Exact(exact) => same(exact, candidate, fold_case),
        BashPattern::Prefix(prefix) => {
            (deny_like || split_compound(candidate).len() <= 1) && prefix_matches(prefix, candidate, fold_case)
        }
        BashPattern::Wildcard(pieces) => {
            (deny_like || split_compound(candidate).len() <= 1) && wildcard_matches(pieces, candidate, fold_case)
        }
    })
}

fn exact_mode_matches(pattern: &BashPattern, candidate: &str, fold_case: bool) -> bool {
    match pattern {
        BashPattern::Exact(exact) => same(exact, candidate, fold_case),
        BashPattern::Prefix(prefix) => same(prefix, candidate, fold_case),
        BashPattern::Wildcard(_) => false,
    }
}

fn same(a: &str, b: &str, fold_case: bool) -> bool {
    if fold_case {
        a.to_lowercase() == b.to_lowercase()
    } else {
        a == b
    }
}

fn starts_with(text: &str, prefix: &str, fold_case: bool) -> bool {
    if fold_case {
        text.to_lowercase().starts_with(&prefix.to_lowercase())
    } else {
        text.starts_with(prefix)
    }
}

/// `prefix:*`: the command is the prefix, or the prefix then a space (a word boundary, so `ls:*`
/// does not match `lsof`); also after a bare `xargs `.
fn prefix_matches(prefix: &str, command: &str, fold_case: bool) -> bool {
    let xargs = format!("xargs {prefix}");
    [prefix, xargs.as_str()]
        .iter()
        .any(|prefix| same(prefix, command, fold_case) || starts_with(command, &format!("{prefix} "), fold_case))
}

/// `matchWildcardPattern`: anchored at both ends; when the pattern ends in ` *` and that is its only
/// wildcard, the ` *` is optional, so `git *` matches `git` too.
pub(crate) fn wildcard_matches(pieces: &[WildcardPiece], command: &str, fold_case: bool) -> bool {
    if pieces_match(pieces, command, fold_case) {
        return true;
    }
    let stars = pieces.iter().filter(|piece| **piece == WildcardPiece::Star).count();
    match pieces {
        [rest @ .., WildcardPiece::Literal(text), WildcardPiece::Star] if stars == 1 && text.ends_with(' ') => {
            let mut shorter = rest.to_vec();
            let trimmed = &text[..text.len() - 1];
            if !trimmed.is_empty() {
                shorter.push(WildcardPiece::Literal(trimmed.to_owned()));
            }
            pieces_match(&shorter, command, fold_case)
        }
        _ => false,
    }
}

/// The strings a rule is compared with, in the order Claude Code builds them.
fn candidates(command: &str, deny_like: bool) -> Vec<String> {
    let mut out: Vec<String> = vec![command.to_owned()];
    let without_redirections = strip_output_redirections(command);
    if without_redirections != command {
        out.push(without_redirections);
    }
    for index in 0..out.len() {
        let stripped = strip_safe_wrappers(&out[index]);
        if !out.contains(&stripped) {
            out.push(stripped);
        }
    }
    if deny_like {
        // Fixed point of both strippings, as `filterRulesByContentsMatchingInput` does.
        let mut index = 0;
        while index < out.len() && out.len() < MAX_CANDIDATES {
            for next in [strip_all_leading_env_vars(&out[index]), strip_safe_wrappers(&out[index])] {
                if !out.contains(&next) {
                    out.push(next);
                }
            }
            index += 1;
        }
    }
    out
}

/// Splits on `&&`, `||`, `;`, `|`, `|&`, `&` and newlines outside quotes, `$(…)` and backticks.
/// Parts are trimmed; empty parts (from `a;;b` or a trailing `;`) and comments are dropped.
pub(crate) fn split_compound(command: &str) -> Vec<&str> {
    let bytes = command.as_bytes();
    let mut parts = Vec::new();
    let (mut start, mut i) = (0usize, 0usize);
    let (mut single, mut double, mut backtick) = (false, false, false);
    let mut subshell = 0usize;
    fn push<'c>(parts: &mut Vec<&'c str>, command: &'c str, from: usize, to: usize) {
        if let Some(part) = command.get(from..to).map(str::trim) {
            if !part.is_empty() {
                parts.push(part);
            }
        }
    }
    while i < bytes.len() {
        let b = bytes[i];
        if single {
            single = b != b'\'';
            i += 1;
            continue;
        }
        match b {
            b'\\' => {
                i += 2;
                continue;
            }
            b'\'' if !double && !backtick => single = true,
            b'"' if !backtick => double = !double,
            b'`' => backtick = !backtick,
            b'$' if bytes.get(i + 1) == Some(&b'(') => {
                subshell += 1;
                i += 2;
                continue;
            }
            b'(' if subshell > 0 => subshell += 1,
            b')' if subshell > 0 => subshell -= 1,
            _ if double || backtick || subshell > 0 => {}
            // A comment runs to the end of its line; nothing in it separates or runs.
            b'#' if i == 0 || matches!(bytes[i - 1], b' ' | b'\t' | b'\n' | b';' | b'|' | b'&' | b'(') => {
                push(&mut parts, command, start, i);
                i += bytes[i..].iter().position(|&c| c == b'\n').unwrap_or(bytes.len() - i);
                start = i;
                continue;
            }
            b'\n' | b';' => {
                push(&mut parts, command, start, i);
                start = i + 1;
            }
            b'|' | b'&' => {
                let previous = if i > 0 { bytes[i - 1] } else { b' ' };
                let next = bytes.get(i + 1).copied();
                // `>&`, `<&`, `&>` and `>|` are redirections, not separators.
                let redirection = matches!(previous, b'>' | b'<') || (b == b'&' && next == Some(b'>'));
                if !redirection {
                    push(&mut parts, command, start, i);
                    let doubled = next == Some(b) || (b == b'|' && next == Some(b'&'));
                    i += if doubled { 2 } else { 1 };
                    start = i;
                    continue;
                }
            }
            _ => {}
        }
        i += 1;
    }
    push(&mut parts, command, start, command.len());
    parts
}

/// Drops output redirections (`> f`, `>> f`, `2> f`, `&> f`, `2>&1`, `>&-`, `>| f`) with their
/// targets, so `Bash(python:*)` matches `python x.py > out.txt`.
pub(crate) fn strip_output_redirections(command: &str) -> String {
    let bytes = command.as_bytes();
    let mut removed: Vec<(usize, usize)> = Vec::new();
    let (mut i, mut single, mut double) = (0usize, false, false);
    while i < bytes.len() {
        let b = bytes[i];
        if single {
            single = b != b'\'';
            i += 1;
            continue;
        }
        match b {
            b'\\' => {
                i += 2;
                continue;
            }
            b'\'' if !double => single = true,
            b'"' => double = !double,
            b'>' if !double => {
                let mut start = i;
                // A file-descriptor number or `&` written right before `>` belongs to the operator.
                while start > 0 && bytes[start - 1].is_ascii_digit() {
                    start -= 1;
                }
                if start > 0 && bytes[start - 1] == b'&' && start == i {
                    start -= 1;
                }
                if start != i && start > 0 && !bytes[start - 1].is_ascii_whitespace() {
                    start = i; // `a2>x`: the digits are part of a word.
                }
                let mut end = i + 1;
                if matches!(bytes.get(end), Some(b'>' | b'|')) {
                    end += 1;
                }
                if bytes.get(end) == Some(&b'&') {
                    end += 1;
                    let digits = bytes[end..].iter().take_while(|c| c.is_ascii_digit() || **c == b'-').count();
                    if digits > 0 {
                        removed.push((start, end + digits));
                        i = end + digits;
                        continue;
                    }
                }
                end += bytes[end..].iter().take_while(|c| matches!(c, b' ' | b'\t')).count();
                end = word_end(bytes, end);
                removed.push((start, end));
                i = end;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    if removed.is_empty() {
        return command.to_owned();
    }
    let mut kept: Vec<&str> = Vec::new();
    let mut from = 0;
    for (start, end) in removed {
        kept.extend(command.get(from..start).map(str::trim).filter(|s| !s.is_empty()));
        from = end;
    }
    kept.extend(command.get(from..).map(str::trim).filter(|s| !s.is_empty()));
    kept.join(" ")
}

/// The end of the shell word starting at `start` (quotes kept together, backslash escapes skipped).
fn word_end(bytes: &[u8], start: usize) -> usize {
    let mut i = start;
    let mut quote: Option<u8> = None;
    while i < bytes.len() {
        let b = bytes[i];
        match quote {
            Some(q) if b == q => quote = None,
            Some(_) => {}
            None if b == b'\'' || b == b'"' => quote = Some(b),
            None if b == b'\\' => i += 1,
            None if b.is_ascii_whitespace() || matches!(b, b';' | b'|' | b'&' | b'<' | b'>' | b'(' | b')') => break,
            None => {}
        }
        i += 1;
    }
    i.min(bytes.len())
}

/// Drops lines that are empty or only a comment; keeps the command if nothing else is left.
fn strip_comment_lines(command: &str) -> String {
    let lines: Vec<&str> =
        command.split('\n').filter(|line| !line.trim().is_empty() && !line.trim().starts_with('#')).collect();
    if lines.is_empty() {
        command.to_owned()
    } else {
        lines.join("\n")
    }
}

/// Environment variables that cannot run code or load libraries (Claude Code's `SAFE_ENV_VARS`).
const SAFE_ENV_VARS: &[&str] = &[
    "ANTHROPIC_API_KEY",
    "BLOCKSIZE",
    "BLOCK_SIZE",
    "CGO_ENABLED",
    "CHARSET",
    "COLORTERM",
    "FORCE_COLOR",
    "GCC_COLORS",
    "GO111MODULE",
    "GOARCH",
    "GOEXPERIMENT",
    "GOOS",
    "GREP_COLOR",
    "GREP_COLORS",
    "LANG",
    "LANGUAGE",
    "LC_ALL",
    "LC_CTYPE",
    "LC_TIME",
    "LSCOLORS",
    "LS_COLORS",
    "NODE_ENV",
    "NO_COLOR",
    "PYTEST_DEBUG",
    "PYTEST_DISABLE_PLUGIN_AUTOLOAD",
    "PYTHONDONTWRITEBYTECODE",
    "PYTHONUNBUFFERED",
    "RUST_BACKTRACE",
    "RUST_LOG",
    "TERM",
    "TIME_STYLE",
    "TZ",
];

/// `stripSafeWrappers`: first safe `NAME=value ` assignments, then wrappers, each to a fixed point.
/// Assignments after a wrapper are not stripped: the wrapper would run them as the command.
pub(crate) fn strip_safe_wrappers(command: &str) -> String {
    let mut stripped = command.to_owned();
    loop {
        let next = strip_comment_lines(&stripped);
        let next = match safe_assignment_len(&next) {
            Some(len) => next[len..].to_owned(),
            None => next,
        };
        if next == stripped {
            break;
        }
        stripped = next;
    }
    loop {
        let next = strip_comment_lines(&stripped);
        let next = match wrapper_len(&next) {
            Some(len) => next[len..].to_owned(),
            None => next,
        };
        if next == stripped {
            break;
        }
        stripped = next;
    }
    stripped.trim().to_owned()
}

/// `NAME=value[ \t]+` with a safe name and a value of `[A-Za-z0-9_./:-]+`.
fn safe_assignment_len(command: &str) -> Option<usize> {
    let mut cursor = Cursor::new(command);
    let name = cursor.identifier()?;
    cursor.literal("=")?;
    cursor.many1(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'/' | b':' | b'-'))?;
    cursor.blanks1()?;
    SAFE_ENV_VARS.contains(&name).then_some(cursor.at)
}

/// The length of one leading wrapper and its options (`timeout 10 `, `nice -n 5 `, `nohup -- `, …).
fn wrapper_len(command: &str) -> Option<usize> {
    let mut cursor = Cursor::new(command);
    let word = cursor.word();
    match word {
        "timeout" => {
            cursor.blanks1()?;
            while let Some(after) = timeout_flag(cursor) {
                cursor = after;
            }
            cursor.end_of_options();
            cursor.many1(|c| c.is_ascii_digit())?;
            if cursor.literal(".").is_some() {
                cursor.many1(|c| c.is_ascii_digit())?;
            }
            cursor.optional(|c| matches!(c, b's' | b'm' | b'h' | b'd'));
            cursor.blanks1()?;
        }
        "time" | "nohup" => {
            cursor.blanks1()?;
            cursor.end_of_options();
        }
        "nice" => {
            let mut flag = cursor;
            let with_flag = flag.blanks1().and_then(|_| {
                if flag.literal("-n").is_some() {
                    flag.blanks1()?;
                    flag.optional(|c| c == b'-');
                    flag.many1(|c| c.is_ascii_digit())
                } else {
                    flag.literal("-")?;
                    flag.many1(|c| c.is_ascii_digit())
                }
            });
            if with_flag.is_some() {
                cursor = flag;
            }
            cursor.blanks1()?;
            cursor.end_of_options();
        }
        "stdbuf" => {
            let mut flags = 0;
            loop {
                let mut flag = cursor;
                let parsed = flag.blanks1().and_then(|_| {
                    flag.literal("-")?;
                    flag.one(|c| matches!(c, b'i' | b'o' | b'e'))?;
                    flag.many1(|c| matches!(c, b'L' | b'N') || c.is_ascii_digit())
                });
                if parsed.is_none() {
                    break;
                }
                cursor = flag;
                flags += 1;
            }
            if flags == 0 {
                return None;
            }
            cursor.blanks1()?;
            cursor.end_of_options();
        }
        // Permissions docs: these run their argument unchanged; `command -v` and `xargs -n1` do not.
        "command" | "builtin" | "noglob" | "xargs" => {
            cursor.blanks1()?;
            if cursor.peek() == Some(b'-') {
                return None;
            }
        }
        _ => return None,
    }
    Some(cursor.at)
}

/// One `timeout` option and the blanks after it, or `None`.
fn timeout_flag(cursor: Cursor<'_>) -> Option<Cursor<'_>> {
    let value = |c: u8| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'+' | b'-');
    let mut next = cursor;
    let word = next.word();
    match word {
        "--foreground" | "--preserve-status" | "--verbose" | "-v" => {}
        "--kill-after" | "--signal" | "-k" | "-s" => {
            next.blanks1()?;
            next.many1(value)?;
        }
        _ if word.starts_with("--kill-after=") || word.starts_with("--signal=") => {
            let (_, flag_value) = word.split_once('=')?;
            if flag_value.is_empty() || !flag_value.bytes().all(value) {
                return None;
            }
        }
        _ if (word.starts_with("-k") || word.starts_with("-s")) && word.len() > 2 => {
            if !word.bytes().skip(2).all(value) {
                return None;
            }
        }
        _ => return None,
    }
    next.blanks1()?;
    Some(next)
}

/// `stripAllLeadingEnvVars`: every leading `NAME=value ` (also `NAME+=`, `NAME[i]=`, quoted values),
/// repeatedly. Values with `$`, backticks or operators end the stripping.
pub(crate) fn strip_all_leading_env_vars(command: &str) -> String {
    let mut stripped = command.to_owned();
    loop {
        let next = strip_comment_lines(&stripped);
        let next = match any_assignment_len(&next) {
            Some(len) => next[len..].to_owned(),
            None => next,
        };
        if next == stripped {
            break;
        }
        stripped = next;
    }
    stripped.trim().to_owned()
}

fn any_assignment_len(command: &str) -> Option<usize> {
    let mut cursor = Cursor::new(command);
    cursor.identifier()?;
    if cursor.literal("[").is_some() {
        cursor.at += command.get(cursor.at..)?.find(']')? + 1;
    }
    cursor.literal("+");
    cursor.literal("=")?;
    // The value: a run of atoms, each a quoted string, a backslash pair, or one safe character.
    let mut chars = command.get(cursor.at..)?.char_indices().peekable();
    let mut end = cursor.at;
    while let Some(&(offset, c)) = chars.peek() {
        let atom_len = match c {
            '\'' => {
                let rest = &command[cursor.at + offset + 1..];
                let close = rest.find(['\'', '\n', '\r'])?;
                if !rest[close..].starts_with('\'') {
                    return None;
                }
                close + 2
            }
            '"' => {
                let rest = &command[cursor.at + offset + 1..];
                let mut inner = rest.char_indices();
                let close = loop {
                    match inner.next()? {
                        (_, '\\') => {
                            if let (_, '\n' | '\r') = inner.next()? {
                                return None;
                            }
                        }
                        (at, '"') => break at,
                        (_, '$' | '`' | '\n' | '\r') => return None,
                        _ => {}
                    }
                };
                close + 2
            }
            '\\' => {
                let next = command[cursor.at + offset + 1..].chars().next()?;
                if matches!(next, '\n' | '\r' | '\u{2028}' | '\u{2029}') {
                    return None;
                }
                1 + next.len_utf8()
            }
            ' ' | '\t' | '\n' | '\r' | '$' | '`' | ';' | '|' | '&' | '(' | ')' | '<' | '>' => break,
            _ => c.len_utf8(),
        };
        end = cursor.at + offset + atom_len;
        // Skip the characters of the atom just read.
        while chars.peek().is_some_and(|&(at, _)| cursor.at + at < end) {
            chars.next();
        }
    }
    cursor.at = end;
    cursor.blanks1()?;
    Some(cursor.at)
}

/// A byte cursor for the small regular expressions of `bashPermissions.ts`. Every token it reads is
/// ASCII, so positions it stops at are char boundaries.
#[derive(Clone, Copy)]
struct Cursor<'a> {
    text: &'a str,
    at: usize,
}

impl<'a> Cursor<'a> {
    fn new(text: &'a str) -> Cursor<'a> {
        Cursor { text, at: 0 }
    }
    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.at).copied()
    }
    fn literal(&mut self, expected: &str) -> Option<()> {
        let rest = self.text.get(self.at..)?;
        rest.starts_with(expected).then(|| self.at += expected.len())
    }
    fn one(&mut self, accept: impl Fn(u8) -> bool) -> Option<()> {
        let c = self.peek()?;
        accept(c).then(|| self.at += 1)
    }
    fn optional(&mut self, accept: impl Fn(u8) -> bool) {
        let _ = self.one(accept);
    }
    fn many1(&mut self, accept: impl Fn(u8) -> bool) -> Option<()> {
        let count = self.text.as_bytes()[self.at..].iter().take_while(|&&c| c.is_ascii() && accept(c)).count();
        (count > 0).then(|| self.at += count)
    }
    /// `[ \t]+`: never a newline, which separates commands.
    fn blanks1(&mut self) -> Option<()> {
        self.many1(|c| c == b' ' || c == b'\t')
    }
    /// `[A-Za-z_][A-Za-z0-9_]*`.
    fn identifier(&mut self) -> Option<&'a str> {
        let start = self.at;
        self.one(|c| c.is_ascii_alphabetic() || c == b'_')?;
        let _ = self.many1(|c| c.is_ascii_alphanumeric() || c == b'_');
        self.text.get(start..self.at)
    }
    /// The run up to the next blank (possibly empty).
    fn word(&mut self) -> &'a str {
        let start = self.at;
        let rest = self.text.get(start..).unwrap_or("");
        let len = rest.find([' ', '\t', '\n', '\r']).unwrap_or(rest.len());
        self.at += len;
        &rest[..len]
    }
    /// An optional `--[ \t]+` that ends a wrapper's options.
    fn end_of_options(&mut self) {
        let mut next = *self;
        if next.literal("--").is_some() && next.blanks1().is_some() {
            *self = next;
        }
    }
}
