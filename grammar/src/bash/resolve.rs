//! The one resolver of the Bash path checks: every operand, redirection target and
//! `cd` destination that [`super::paths`] judges is turned into the paths it names here, and
//! nowhere else.
//!
//! - `~` and `~/…` are the home folder, `$HOME` too; any other tilde prefix (`~user`, `~+`,
//!   `~-`, `~+1`) names a folder from state the check cannot see, and Claude Code asks
//!   ([`TILDE_VARIANTS`]), whatever the command and its allow rules.
//! - A relative path is joined to each folder the command may run in: the session's directory,
//!   and the destination of a `cd` earlier in the line that stays inside ([`Bases`]).
//! - With a [`super::LinkResolver`], a glob of a read operand is expanded on disk as bash expands
//!   it ([`BashContext::expand`]), and every path is judged by where it leads with its links
//!   followed, `..` included: `d/lnk/..` is the parent of the link's target, not `d`.

use super::{normalize, BashContext};

/// Claude Code's reason for `~user`, `~+` and `~-`.
pub(crate) const TILDE_VARIANTS: &str = "Tilde expansion variants (~user, ~+, ~-) in paths require manual approval";
/// Claude Code's reason for a glob in a path a command writes.
pub(crate) const GLOB_WRITE: &str =
    "Glob patterns are not allowed in write operations. Please specify an exact file path.";
/// Claude Code's reason for an output redirection to a tilde or a glob.
pub(crate) const SHELL_EXPANSION: &str = "Shell expansion syntax in paths requires manual approval";

/// How many folder entries the globs of one line may look at, all together, before the next
/// one is judged unexpandable (it then asks).
const MAX_GLOB_ENTRIES: usize = 50_000;

/// How many folders a line's relative paths may be resolved from (see [`Bases`]); `cd`s past
/// that are not followed (a line with two `cd`s asks anyway, Claude Code's rule).
const MAX_BASES: usize = 16;

/// `~user`, `~+`, `~-`: a tilde prefix bash expands from the password database or the shell's
/// own state. `~` and `~/…` are the home folder.
pub(crate) fn is_tilde_variant(word: &str) -> bool {
    word.starts_with('~') && word != "~" && !word.starts_with("~/")
}

/// Claude Code's test for a glob: `*` or `?` anywhere, or a `[` with a `]` after it.
pub(crate) fn is_glob(word: &str) -> bool {
    word.char_indices().any(|(at, c)| c == '*' || c == '?' || (c == '[' && word[at + 1..].contains(']')))
}

/// The folders a command's relative paths are joined to: the session's directory first, then
/// each `cd` destination of the line that its own check lets through (one outside asks on its
/// own account). Paths are absolute, with `..` kept.
/// They carry the line's glob budget too ([`MAX_GLOB_ENTRIES`]).
#[derive(Debug, Clone)]
pub(crate) struct Bases {
    pub(crate) dirs: Vec<String>,
    /// The line changes directory: an input redirection from a relative path may name a file in
    /// another folder (Claude Code asks).
    pub(crate) cd: bool,
    /// Folder entries the line's globs may still look at.
    budget: std::cell::Cell<usize>,
}

impl Bases {
    pub(crate) fn of(cx: &BashContext<'_>) -> Bases {
        Bases { dirs: vec![cx.cwd.to_owned()], cd: false, budget: std::cell::Cell::new(MAX_GLOB_ENTRIES) }
    }

    /// Adds a `cd` destination (absolute, `..` kept), once, up to [`MAX_BASES`].
    pub(crate) fn add(&mut self, dir: String) {
        if self.dirs.len() < MAX_BASES && !self.dirs.iter().any(|known| normalize(known) == normalize(&dir)) {
            self.dirs.push(dir);
        }
    }
}

/// A glob that cannot be expanded for the check: too wide for [`MAX_GLOB_ENTRIES`], or matching
/// a name that is not UTF-8.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Unexpandable;

impl BashContext<'_> {
    /// The absolute path `operand` names from `base`: `~`, `~/…`, `$HOME` and `$HOME/…` are the
    /// home folder; `.` and `..` are kept, for [`BashContext::outside_spelling`] to resolve both
    /// as written and on disk.
    pub(crate) fn joined(&self, base: &str, operand: &str) -> String {
        let (prefix, rest) = self.split_operand(base, operand);
        if rest.is_empty() {
            prefix.to_owned()
        } else {
            format!("{}/{rest}", prefix.trim_end_matches('/'))
        }
    }

    /// The folder an operand starts from (home, `base`, or `/`), and the operand's own part
    /// below it: only that part is the operand's, to be globbed.
    fn split_operand<'o>(&'o self, base: &'o str, operand: &'o str) -> (&'o str, &'o str) {
        if operand == "~" || operand == "$HOME" {
            (self.home, "")
        } else if let Some(rest) = operand.strip_prefix("~/").or_else(|| operand.strip_prefix("$HOME/")) {
            (self.home, rest)
        } else if let Some(rest) = operand.strip_prefix('/') {
            ("/", rest)
        } else {
            (base, operand)
        }
    }

    /// The paths a read of `operand` from `base` opens ([`BashContext::joined`]): the path
    /// itself, or for a glob, with a link resolver, every path it matches on disk as bash
    /// matches it (a name starting with `.` only for a pattern starting with `.`; a glob that
    /// matches nothing stays as written). Only the operand is globbed, never the folder it
    /// starts from. Matching may take in more than bash would (a bracket expression matches any
    /// one character), never less; a glob that cannot be expanded ([`Unexpandable`]) cannot be
    /// checked.
    pub(crate) fn expand(&self, base: &str, operand: &str, bases: &Bases) -> Result<Vec<String>, Unexpandable> {
        let (start, rest) = self.split_operand(base, operand);
        let Some(links) = self.links.filter(|_| is_glob(rest)) else { return Ok(vec![self.joined(base, operand)]) };
        // The names in `dir`, within the line's budget; a name that is not UTF-8 (it comes with
        // U+FFFD) could not be opened by the path built from it, so it cannot be checked.
        let list = |dir: &str| -> Result<Vec<String>, Unexpandable> {
            let budget = bases.budget.get();
            let entries = links.entries(dir, budget.saturating_add(1)).unwrap_or_default();
            bases.budget.set(budget.checked_sub(entries.len()).ok_or(Unexpandable)?);
            Ok(entries)
        };
        let mut found = vec![start.trim_end_matches('/').to_owned()];
        let mut globbed = false;
        for segment in rest.split('/').filter(|s| !s.is_empty()) {
            let mut next = Vec::new();
            for prefix in &found {
                let dir = if prefix.is_empty() { "/" } else { prefix.as_str() };
                if is_glob(segment) {
                    globbed = true;
                    // Before bash 5.2 (`globskipdots`), `.*` matches `.` and `..` too.
                    let dots = segment.starts_with('.').then_some([".".to_owned(), "..".to_owned()]);
                    for name in list(dir)?.into_iter().chain(dots.into_iter().flatten()) {
                        if (segment.starts_with('.') || !name.starts_with('.')) && segment_matches(segment, &name) {
                            if name.contains('\u{FFFD}') {
                                return Err(Unexpandable);
                            }
                            next.push(format!("{prefix}/{name}"));
                        }
                    }
                } else if !globbed || matches!(segment, "." | "..") {
                    next.push(format!("{prefix}/{segment}"));
                } else if list(dir)?.iter().any(|name| name == segment) {
                    // After a glob, bash keeps a match only if the rest of it exists.
                    next.push(format!("{prefix}/{segment}"));
                }
            }
            found = next;
            if found.is_empty() {
                break;
            }
        }
        if found.is_empty() {
            return Ok(vec![self.joined(base, operand)]);
        }
        Ok(found)
    }
}

impl BashContext<'_> {
    /// Where a reader that follows links while it recurses (`grep -R`, `diff -r`, `find -L`)
    /// leaves the working directories below `root` (absolute): the first link under it, at any
    /// depth, whose target is outside, named by where it leads. Folders are listed through the
    /// link resolver within the line's budget ([`MAX_GLOB_ENTRIES`], shared with globs); a tree
    /// wider than that, or a name that is not UTF-8, cannot be checked ([`Unexpandable`]).
    /// Without a resolver nothing is listed.
    pub(crate) fn link_out_below(&self, root: &str, bases: &Bases) -> Result<Option<String>, Unexpandable> {
        let Some(links) = self.links else { return Ok(None) };
        let Some(start) = links.real_path(root) else { return Ok(None) };
        let mut seen = std::collections::HashSet::new();
        let mut pending = vec![normalize(&start)];
        while let Some(dir) = pending.pop() {
            if !seen.insert(dir.clone()) {
                continue;
            }
            let budget = bases.budget.get();
            let Some(entries) = links.entries(&dir, budget.saturating_add(1)) else { continue };
            bases.budget.set(budget.checked_sub(entries.len()).ok_or(Unexpandable)?);
            for name in entries {
                if name.contains('\u{FFFD}') {
                    return Err(Unexpandable);
                }
                let path = format!("{}/{name}", dir.trim_end_matches('/'));
                // A loop of links cannot be followed: judged outside, as a plain path is.
                let Some(real) = links.real_path(&path).map(|real| normalize(&real)) else { return Ok(Some(path)) };
                if real != path {
                    if let Some(outside) = self.outside_spelling(&path) {
                        return Ok(Some(outside));
                    }
                }
                pending.push(real);
            }
        }
        Ok(None)
    }
}

/// Does a file name match one segment of a glob? `*` any run, `?` any one character, a bracket
/// expression any one character (a superset of what it matches), `\x` the character `x`.
fn segment_matches(pattern: &str, name: &str) -> bool {
    #[derive(Clone, Copy)]
    enum Token {
        Any,
        One,
        Char(char),
    }
    let mut tokens = Vec::new();
    let chars: Vec<char> = pattern.chars().collect();
    let mut at = 0;
    while at < chars.len() {
        match chars[at] {
            '*' => tokens.push(Token::Any),
            '?' => tokens.push(Token::One),
            '[' => match bracket_end(&chars, at) {
                Some(end) => {
                    tokens.push(Token::One);
                    at = end;
                }
                None => tokens.push(Token::Char('[')),
            },
            '\\' if at + 1 < chars.len() => {
                at += 1;
                tokens.push(Token::Char(chars[at]));
            }
            other => tokens.push(Token::Char(other)),
        }
        at += 1;
    }
    // Wildcard matching with one backtrack point per `*` (the classic linear algorithm).
    let name: Vec<char> = name.chars().collect();
    let (mut t, mut n) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while n < name.len() {
        match tokens.get(t) {
            Some(Token::Any) => {
                star = Some((t, n));
                t += 1;
            }
            Some(Token::One) => {
                t += 1;
                n += 1;
            }
            Some(Token::Char(c)) if *c == name[n] => {
                t += 1;
                n += 1;
            }
            _ => match star {
                Some((star_t, star_n)) => {
                    t = star_t + 1;
                    n = star_n + 1;
                    star = Some((star_t, star_n + 1));
                }
                None => return false,
            },
        }
    }
    tokens[t..].iter().all(|token| matches!(token, Token::Any))
}

/// The index of the `]` closing the bracket expression opened at `open`, as bash reads it (a `]`
/// right after `[`, `[!` or `[^` is a member, `[:class:]` is one member).
fn bracket_end(chars: &[char], open: usize) -> Option<usize> {
    let mut at = open + 1;
    if matches!(chars.get(at), Some('!' | '^')) {
        at += 1;
    }
    if chars.get(at) == Some(&']') {
        at += 1;
    }
    while at < chars.len() {
        match chars[at] {
            ']' => return Some(at),
            '[' if matches!(chars.get(at + 1), Some(':' | '.' | '=')) => {
                let kind = chars[at + 1];
                let close =
                    (at + 2..chars.len().saturating_sub(1)).find(|&i| chars[i] == kind && chars[i + 1] == ']')?;
                at = close + 2;
            }
            _ => at += 1,
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tilde_variants_are_every_tilde_prefix_but_home() {
        for word in ["~root", "~root/../etc", "~+", "~+/x", "~-", "~-/x", "~+1", "~0"] {
            assert!(is_tilde_variant(word), "{word}");
        }
        for word in ["~", "~/x", "x~", "a/~root", ""] {
            assert!(!is_tilde_variant(word), "{word}");
        }
    }

    #[test]
    fn globs_as_claude_code_counts_them() {
        for word in ["*", "d/*/x", "a?", "[ab]", "x[0-9]y"] {
            assert!(is_glob(word), "{word}");
        }
        for word in ["abc", "[", "a]", "]["] {
            assert!(!is_glob(word), "{word}");
        }
    }

    #[test]
    fn segments_match_as_bash_matches_them_or_wider() {
        let yes = [
            ("*", "lnk"),
            ("l*", "lnk"),
            ("*k", "lnk"),
            ("l?k", "lnk"),
            ("*n*", "lnk"),
            ("[a-z]nk", "lnk"),
            ("[!x]nk", "lnk"),
            ("[]]x", "]x"),
            ("[[:alpha:]]nk", "lnk"),
            ("a\\*", "a*"),
            ("*.txt", "secret.txt"),
            ("**", "x"),
        ];
        for (pattern, name) in yes {
            assert!(segment_matches(pattern, name), "{pattern} {name}");
        }
        for (pattern, name) in [("l?", "lnk"), ("*.md", "secret.txt"), ("a\\*", "ab"), ("x*", "lnk")] {
            assert!(!segment_matches(pattern, name), "{pattern} {name}");
        }
    }
}
