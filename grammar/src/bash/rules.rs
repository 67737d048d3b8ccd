//! Bash content rules against one command text, as Claude Code compares them.
//!
//! A text is compared through *candidates*: as written (trimmed), without output redirections,
//! and each of those with safe wrappers (`timeout 5`, `nice`, `nohup`, `time`, `stdbuf -oL`,
//! `command`, `builtin`, `noglob`), full-line comments and safe `NAME=value` assignments stripped
//! and the command name unquoted (`"mark" a`, `\mark a`). Deny and ask rules see further: every
//! assignment, the wrappers that run their argument as another user or under a monitor (`env`,
//! `sudo`, `doas`, `watch`, `strace`, `exec`, …, with their options) and the directory of a path
//! command (`/usr/bin/rm` is `rm`). So `sudo mark a` is denied by `Bash(mark:*)` but not allowed
//! by it.

use crate::matching::shell::{
    split_compound, strip_all_leading_env_vars, strip_output_redirections, strip_safe_wrappers, wildcard_matches,
};
use crate::{BashPattern, Behavior, PermissionRule, RuleContent, SourcedRule, ToolCall};

/// Enough candidates for any real command; the bound keeps adversarial ones (thousands of
/// nested wrappers) linear.
const MAX_CANDIDATES: usize = 64;

/// Which patterns a lookup considers.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kinds {
    Exact,
    PrefixOrWildcard,
    All,
}

/// The Bash rules of a rule list, in the caller's order.
pub(crate) struct BashRules<'r> {
    pub(crate) all: &'r [SourcedRule],
    content: Vec<(usize, Behavior, &'r BashPattern)>,
}

impl<'r> BashRules<'r> {
    pub(crate) fn new(all: &'r [SourcedRule]) -> BashRules<'r> {
        let content = all
            .iter()
            .enumerate()
            .filter(|(_, rule)| rule.rule.tool.canonical == "Bash")
            .filter_map(|(index, rule)| match &rule.rule.content {
                Some(RuleContent::Bash(pattern)) => Some((index, rule.behavior, pattern)),
                _ => None,
            })
            .collect();
        BashRules { all, content }
    }

    /// The first whole-tool rule (`Bash`, `Bash()`, `Bash(*)`, a matching tool-name glob) of `behavior`.
    pub(crate) fn whole_tool(&self, behavior: Behavior) -> Option<usize> {
        let call = ToolCall::new("Bash");
        let cx = crate::MatchContext::default();
        self.all.iter().position(|rule| {
            rule.behavior == behavior
                && rule.rule.content.is_none()
                && whole_tool_rule(&rule.rule, behavior, &call, &cx)
        })
    }

    /// The first content rule of `behavior` and `kinds` that matches `text`.
    pub(crate) fn find(&self, behavior: Behavior, kinds: Kinds, text: &str) -> Option<usize> {
        let mut candidates: Option<Vec<String>> = None;
        for &(index, rule_behavior, pattern) in &self.content {
            if rule_behavior != behavior || !kinds_include(kinds, pattern) {
                continue;
            }
            let candidates = candidates.get_or_insert_with(|| match behavior {
                Behavior::Allow => allow_candidates(text),
                Behavior::Deny | Behavior::Ask => deny_candidates(text),
            });
            if candidates.iter().any(|candidate| pattern_matches(pattern, candidate, behavior == Behavior::Allow)) {
                return Some(index);
            }
        }
        None
    }

    /// An exact allow rule spelling exactly `text` (how a line that cannot be checked is allowed).
    pub(crate) fn exact_allow(&self, text: &str) -> Option<usize> {
        self.content.iter().find_map(|&(index, behavior, pattern)| {
            (behavior == Behavior::Allow && matches!(pattern, BashPattern::Exact(exact) if exact == text))
                .then_some(index)
        })
    }
}

fn whole_tool_rule(
    rule: &PermissionRule,
    behavior: Behavior,
    call: &ToolCall<'_>,
    cx: &crate::MatchContext<'_>,
) -> bool {
    rule.matches(behavior, call, cx)
}

fn kinds_include(kinds: Kinds, pattern: &BashPattern) -> bool {
    match kinds {
        Kinds::All => true,
        Kinds::Exact => matches!(pattern, BashPattern::Exact(_)),
        Kinds::PrefixOrWildcard => !matches!(pattern, BashPattern::Exact(_)),
    }
}

/// One pattern against one candidate. Prefix and wildcard allow rules never match a candidate
/// that still splits into several commands.
fn pattern_matches(pattern: &BashPattern, candidate: &str, allow: bool) -> bool {
    match pattern {
        BashPattern::Exact(exact) => exact == candidate,
        BashPattern::Prefix(prefix) => (!allow || single(candidate)) && prefix_matches(prefix, candidate),
        BashPattern::Wildcard(pieces) => (!allow || single(candidate)) && wildcard_matches(pieces, candidate, false),
    }
}

fn single(candidate: &str) -> bool {
    split_compound(candidate).len() <= 1
}

/// `prefix:*`: the candidate, with runs of blanks collapsed, is the prefix or starts with it and
/// a space (a word boundary); also after `xargs `.
fn prefix_matches(prefix: &str, candidate: &str) -> bool {
    let collapsed = collapse_blanks(candidate);
    let is = |text: &str, prefix: &str| text == prefix || text.strip_prefix(prefix).is_some_and(|r| r.starts_with(' '));
    is(&collapsed, prefix) || collapsed.strip_prefix("xargs ").is_some_and(|rest| is(rest, prefix))
}

fn collapse_blanks(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut blank = false;
    for c in text.chars() {
        if c == ' ' || c == '\t' {
            if !blank {
                out.push(' ');
            }
            blank = true;
        } else {
            out.push(c);
            blank = false;
        }
    }
    out
}

/// What allow rules are compared with.
pub(crate) fn allow_candidates(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let push = |out: &mut Vec<String>, candidate: String| {
        if !candidate.is_empty() && !out.contains(&candidate) && out.len() < MAX_CANDIDATES {
            out.push(candidate);
        }
    };
    let trimmed = text.trim();
    push(&mut out, trimmed.to_owned());
    push(&mut out, strip_output_redirections(trimmed));
    if let [only] = split_compound(trimmed).as_slice() {
        push(&mut out, (*only).to_owned()); // a trailing `# comment` dropped
    }
    for index in 0..out.len() {
        let mut current = out[index].clone();
        loop {
            let next = unquote_command_name(&strip_safe_wrappers(&current));
            if next == current {
                break;
            }
            push(&mut out, next.clone());
            current = next;
        }
    }
    out
}

/// What deny and ask rules are compared with: the allow candidates, then the fixed point of
/// every stripping.
pub(crate) fn deny_candidates(text: &str) -> Vec<String> {
    let mut out = allow_candidates(text);
    let mut index = 0;
    while index < out.len() && out.len() < MAX_CANDIDATES {
        let current = out[index].clone();
        let stripped = [
            strip_all_leading_env_vars(&current),
            unquote_command_name(&strip_safe_wrappers(&current)),
            strip_deny_wrapper(&current).unwrap_or_default(),
            path_basename(&current).unwrap_or_default(),
        ];
        for next in stripped {
            if !next.is_empty() && !out.contains(&next) && out.len() < MAX_CANDIDATES {
                out.push(next);
            }
        }
        index += 1;
    }
    out
}

/// `"mark" a` → `mark a`, `'mark' a` → `mark a`, `\mark a` → `mark a`.
fn unquote_command_name(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(quote @ ('"' | '\'')) => {
            let rest = chars.as_str();
            if let Some(close) = rest.find(quote) {
                let name = &rest[..close];
                let after = &rest[close + 1..];
                let plain = !name.is_empty() && !name.contains(['"', '\'', '\\', '$', '`', ' ']);
                if plain && (after.is_empty() || after.starts_with([' ', '\t'])) {
                    return format!("{name}{after}");
                }
            }
            text.to_owned()
        }
        Some('\\') if chars.next().is_some_and(|c| c.is_ascii_alphanumeric()) => text[1..].to_owned(),
        _ => text.to_owned(),
    }
}

/// `/usr/bin/rm -rf x` → `rm -rf x`.
fn path_basename(text: &str) -> Option<String> {
    let (first, rest) = split_first_word(text);
    if !first.contains('/') || first.ends_with('/') || first.contains(['"', '\'', '\\', '$', '`']) {
        return None;
    }
    let base = first.rsplit('/').next()?;
    Some(format!("{base}{rest}"))
}

/// One wrapper (any of [`crate::shell::WRAPPERS`]) and its options stripped, or `None`.
fn strip_deny_wrapper(text: &str) -> Option<String> {
    let mut words: Vec<&str> = Vec::new();
    let mut rest = text;
    // Enough words for any wrapper's options; the rest of the text is kept as written.
    while words.len() < 16 {
        let (word, after) = split_first_word(rest.trim_start_matches([' ', '\t']));
        if word.is_empty() {
            break;
        }
        words.push(word);
        rest = after;
    }
    let len = crate::shell::wrapper_len(&words)?;
    let mut remaining = text;
    for _ in 0..len {
        remaining = split_first_word(remaining.trim_start_matches([' ', '\t'])).1;
    }
    let remaining = remaining.trim_start_matches([' ', '\t']);
    (!remaining.is_empty()).then(|| remaining.to_owned())
}

/// The first blank-separated word (quotes kept together) and the rest, blanks included.
fn split_first_word(text: &str) -> (&str, &str) {
    let bytes = text.as_bytes();
    let mut quote: Option<u8> = None;
    let mut at = 0;
    while at < bytes.len() {
        let b = bytes[at];
        match quote {
            Some(q) if b == q => quote = None,
            Some(_) => {}
            None if b == b'\'' || b == b'"' => quote = Some(b),
            None if b == b'\\' => at += 1,
            None if b == b' ' || b == b'\t' || b == b'\n' => break,
            None => {}
        }
        at += 1;
    }
    let at = at.min(text.len());
    // `at` stops on an ASCII byte or the end, so it is a char boundary unless a backslash
    // skipped into a multi-byte character; step forward to the next boundary then.
    let mut at = at;
    while !text.is_char_boundary(at) {
        at += 1;
    }
    (&text[..at], &text[at..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allow_candidates_strip_safe_wrappers_and_quotes_only() {
        assert!(allow_candidates("timeout 5 mark a").contains(&"mark a".to_owned()));
        assert!(allow_candidates("\"mark\" a").contains(&"mark a".to_owned()));
        assert!(allow_candidates("\\mark a").contains(&"mark a".to_owned()));
        assert!(allow_candidates("LANG=C mark a").contains(&"mark a".to_owned()));
        assert!(!allow_candidates("FOO=1 mark a").contains(&"mark a".to_owned()));
        assert!(!allow_candidates("env mark a").contains(&"mark a".to_owned()));
        assert!(!allow_candidates("sudo mark a").contains(&"mark a".to_owned()));
        assert!(allow_candidates("mark a > /dev/null").contains(&"mark a".to_owned()));
    }

    #[test]
    fn deny_candidates_see_through_wrappers() {
        for text in [
            "FOO=1 mark a",
            "env mark a",
            "env -i FOO=1 mark a",
            "sudo -u root mark a",
            "/tmp/bin/mark a",
            "nohup mark a",
            "timeout 5 mark a",
            "taskset 0x1 mark a",
            "watch -n 1 mark a",
            "exec mark a",
        ] {
            assert!(deny_candidates(text).contains(&"mark a".to_owned()), "{text}: {:?}", deny_candidates(text));
        }
        assert!(!deny_candidates("bash -c \"mark a\"").contains(&"mark a".to_owned()));
    }

    #[test]
    fn prefix_matching() {
        assert!(prefix_matches("mark a", "mark  a"));
        assert!(prefix_matches("mark", "mark"));
        assert!(prefix_matches("mark", "xargs mark"));
        assert!(!prefix_matches("mark", "markx a"));
        assert!(!prefix_matches("MARK", "mark a"));
    }
}
