//! `Read(…)`/`Edit(…)` globs against a file path (Claude Code's `matchingRuleForInput`, `filesystem.ts`).
//!
//! Claude Code resolves a rule's anchor to a root directory (`//` the filesystem root, `~/` home, `/`
//! the settings source's directory, anything else the cwd), drops a trailing `/**`, makes the file
//! path relative to the root (a path outside the root never matches), and asks the `ignore` package
//! whether the pattern ignores that relative path. So the glob language is gitignore's, with
//! `ignore`'s default `ignorecase: true`, and a pattern that matches a directory matches everything
//! below it.

use crate::matching::MatchContext;
use crate::PathAnchor;

/// Does the rule `anchor` + `glob` cover `path`? `anchored_dir` is the documented rule that an allow
/// rule's single-segment `dir/**` is anchored at its root rather than matching at any depth.
pub(crate) fn path_rule_matches(
    anchor: PathAnchor,
    glob: &str,
    path: &str,
    anchored_dir: bool,
    cx: &MatchContext<'_>,
) -> bool {
    let (root, anchored) = match anchor {
        PathAnchor::Root => ("/", true),
        PathAnchor::Home => (cx.home, true),
        PathAnchor::SettingsDir => (cx.settings_dir.unwrap_or(cx.cwd), true),
        PathAnchor::Relative => (cx.cwd, false),
    };
    let (glob, had_double_star) = match glob.strip_suffix("/**") {
        Some(stripped) => (stripped, true),
        None => (glob, false),
    };
    let anchored = anchored || (anchored_dir && had_double_star && !glob.contains('/'));
    let Some(file) = absolute(path, cx) else { return false };
    let root = normalize(root);
    let Some(relative) = relative_to(&root, &file) else { return false };
    if relative.is_empty() {
        return false; // `ignore` refuses an empty path, and Claude Code skips the root itself.
    }
    gitignore_matches(glob, anchored, &relative)
}

/// The absolute, normalised form of a tool's path argument (`expandPath`): `~` is home, a relative
/// path is taken from the cwd.
fn absolute(path: &str, cx: &MatchContext<'_>) -> Option<Vec<String>> {
    let joined = if path == "~" {
        cx.home.to_owned()
    } else if let Some(rest) = path.strip_prefix("~/") {
        format!("{}/{rest}", cx.home)
    } else if path.starts_with('/') {
        path.to_owned()
    } else if path.is_empty() {
        return None;
    } else {
        format!("{}/{path}", cx.cwd)
    };
    Some(normalize(&joined))
}

/// The segments of an absolute path after resolving `.`, `..` and repeated `/`.
fn normalize(path: &str) -> Vec<String> {
    let mut segments: Vec<String> = Vec::new();
    for segment in path.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                segments.pop();
            }
            _ => segments.push(segment.to_owned()),
        }
    }
    segments
}

/// `file` relative to `root`, or `None` when it lies outside.
fn relative_to(root: &[String], file: &[String]) -> Option<Vec<String>> {
    file.starts_with(root).then(|| file[root.len()..].to_vec())
}

/// One gitignore pattern against a relative path, the way `ignore` tests it: the path is ignored
/// when the pattern matches it or any of its parent directories.
pub(crate) fn gitignore_matches(pattern: &str, force_anchored: bool, path: &[String]) -> bool {
    let pattern = trim_trailing_spaces(pattern);
    // A comment never matches; a negation alone un-ignores, so it never matches either.
    if pattern.is_empty() || pattern.starts_with('#') || pattern.starts_with('!') {
        return false;
    }
    let pattern = pattern.strip_prefix('\\').filter(|rest| rest.starts_with(['#', '!'])).unwrap_or(pattern);
    let (pattern, dir_only) = match pattern.strip_suffix('/') {
        Some(stripped) => (stripped, true),
        None => (pattern, false),
    };
    let (pattern, leading_slash) = match pattern.strip_prefix('/') {
        Some(stripped) => (stripped, true),
        None => (pattern, false),
    };
    if pattern.is_empty() {
        return false;
    }
    let anchored = force_anchored || leading_slash || pattern.contains('/');
    let segments: Vec<&str> = pattern.split('/').collect();
    // Which prefixes `path[..k]` the pattern matches; the last one is the file itself, which a
    // directory-only pattern cannot match.
    let prefix_matches = |k: usize| k < path.len() || !dir_only;
    if anchored {
        let reach = segment_reach(&segments, path);
        (1..=path.len()).any(|k| reach[k] && prefix_matches(k))
    } else {
        (1..=path.len()).any(|k| prefix_matches(k) && segment_matches(segments[0], &path[k - 1]))
    }
}

/// `reach[k]`: the pattern segments match exactly `path[..k]`. `**` matches any number of
/// segments, except that a final `**` needs at least one (`a/**` is what is inside `a`).
fn segment_reach(segments: &[&str], path: &[String]) -> Vec<bool> {
    let mut reach = vec![false; path.len() + 1];
    reach[0] = true;
    for (index, segment) in segments.iter().enumerate() {
        let mut next = vec![false; path.len() + 1];
        if *segment == "**" {
            let last = index + 1 == segments.len();
            let mut seen = false;
            for k in 0..=path.len() {
                if seen && (!last || k > 0) {
                    next[k] = true;
                }
                if reach[k] {
                    seen = true;
                    if !last {
                        next[k] = true;
                    }
                }
            }
        } else {
            for k in 0..path.len() {
                if reach[k] && segment_matches(segment, &path[k]) {
                    next[k + 1] = true;
                }
            }
        }
        reach = next;
    }
    reach
}

fn trim_trailing_spaces(pattern: &str) -> &str {
    let trimmed = pattern.trim_end_matches(' ');
    // `\ ` keeps one escaped trailing space.
    if trimmed.ends_with('\\') && trimmed.len() < pattern.len() {
        &pattern[..trimmed.len() + 1]
    } else {
        trimmed
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Glob {
    Char(char),
    Any,
    Star,
    Class { negated: bool, ranges: Vec<(char, char)> },
}

/// One path segment against one pattern segment: `*` (a run of non-`/`), `?`, `[a-z]`, `[!x]`,
/// `\x`; `**` not alone in its segment acts as `*`. Case-insensitive, like `ignore` by default.
fn segment_matches(pattern: &str, segment: &str) -> bool {
    let globs = compile(pattern);
    let text: Vec<char> = segment.chars().collect();
    let (mut t, mut p) = (0usize, 0usize);
    let mut retry: Option<(usize, usize)> = None;
    while t < text.len() {
        let step = match globs.get(p) {
            Some(Glob::Star) => {
                retry = Some((p, t));
                p += 1;
                continue;
            }
            Some(glob) => one_matches(glob, text[t]),
            None => false,
        };
        if step {
            p += 1;
            t += 1;
        } else if let Some((star, from)) = retry {
            p = star + 1;
            t = from + 1;
            retry = Some((star, from + 1));
        } else {
            return false;
        }
    }
    globs[p.min(globs.len())..].iter().all(|glob| *glob == Glob::Star)
}

fn one_matches(glob: &Glob, c: char) -> bool {
    let fold = |c: char| c.to_lowercase().next().unwrap_or(c);
    match glob {
        Glob::Char(expected) => fold(*expected) == fold(c),
        Glob::Any => true,
        Glob::Star => false,
        Glob::Class { negated, ranges } => {
            let inside = ranges.iter().any(|&(low, high)| {
                (low..=high).contains(&c) || (low..=high).contains(&fold(c)) || {
                    let upper = c.to_uppercase().next().unwrap_or(c);
                    (low..=high).contains(&upper)
                }
            });
            inside != *negated
        }
    }
}

fn compile(pattern: &str) -> Vec<Glob> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut globs = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '*' => {
                if globs.last() != Some(&Glob::Star) {
                    globs.push(Glob::Star);
                }
            }
            '?' => globs.push(Glob::Any),
            '\\' if i + 1 < chars.len() => {
                i += 1;
                globs.push(Glob::Char(chars[i]));
            }
            '[' => match class(&chars, i) {
                Some((glob, end)) => {
                    globs.push(glob);
                    i = end;
                }
                None => globs.push(Glob::Char('[')),
            },
            c => globs.push(Glob::Char(c)),
        }
        i += 1;
    }
    globs
}

/// A `[…]` class starting at `open`: the glob and the index of its `]`, or `None` if unclosed.
fn class(chars: &[char], open: usize) -> Option<(Glob, usize)> {
    let mut i = open + 1;
    let negated = matches!(chars.get(i), Some('!' | '^'));
    if negated {
        i += 1;
    }
    let mut ranges = Vec::new();
    let mut first = true;
    while i < chars.len() {
        let c = chars[i];
        if c == ']' && !first {
            return Some((Glob::Class { negated, ranges }, i));
        }
        first = false;
        let low = if c == '\\' && i + 1 < chars.len() {
            i += 1;
            chars[i]
        } else {
            c
        };
        if chars.get(i + 1) == Some(&'-') && chars.get(i + 2).is_some_and(|&high| high != ']') {
            let high = chars[i + 2];
            if low <= high {
                ranges.push((low, high));
            }
            i += 3;
        } else {
            ranges.push((low, low));
            i += 1;
        }
    }
    None
}
