//! The order Claude Code sorts names in: JavaScript's `a.localeCompare(b)`, which is
//! ICU's root collation. It orders the `tools` array (built-ins, then MCP tools), the Skill
//! listing's groups and the agent listing. (The deferred-tools announcement is in plain
//! code-unit order instead.)
//!
//! Implemented for the characters a tool name can hold, `[A-Za-z0-9_-]`, and for the ASCII
//! punctuation skill and agent names use, with the root collation's rules at those characters:
//!
//! 1. **Primary level**, compared first over the whole string: punctuation before digits
//!    before letters; punctuation in the root order `_ - , ; : ! ? . ' " ( ) [ ] { } @ * / \
//!    & # % ` ^ + < = > | ~ $`; digits by value one at a time (no numeric ordering: `e10` comes
//!    before `e2`); letters without regard to case. A string that is a prefix of another comes
//!    first.
//! 2. **Tertiary level**, only when the primary level ties: lowercase before uppercase,
//!    character by character (`bx`, `bX`, `Bx`).
//!
//! Other characters (spaces, non-ASCII letters) sort after `z` by code point: ICU would
//! interleave accented letters with their base letters, which no tool name needs (Claude Code
//! makes every other character of an MCP name `_`).

use std::cmp::Ordering;

/// ASCII punctuation in ICU root order; its index is the primary weight.
const PUNCTUATION: &[u8] = b"_-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$";

/// The primary weight of a character: whitespace and controls, punctuation, digits, letters
/// (case-folded), then everything else by code point.
fn primary(c: char) -> u32 {
    match c {
        '\0'..=' ' | '\u{7f}' => c as u32,
        '0'..='9' => 0x100 + (c as u32 - '0' as u32),
        'a'..='z' => 0x200 + (c as u32 - 'a' as u32),
        'A'..='Z' => 0x200 + (c as u32 - 'A' as u32),
        _ if c.is_ascii() => match PUNCTUATION.iter().position(|&p| p == c as u8) {
            Some(i) => 0x40 + i as u32,
            None => 0x80 + c as u32,
        },
        _ => 0x1000 + c as u32,
    }
}

/// `a.localeCompare(b)` for the characters above.
pub fn compare(a: &str, b: &str) -> Ordering {
    let by_primary = a.chars().map(primary).cmp(b.chars().map(primary));
    if by_primary != Ordering::Equal {
        return by_primary;
    }
    // Same letters: lowercase first, then the code units as the last word.
    let case = |c: char| u8::from(c.is_ascii_uppercase());
    a.chars().map(case).cmp(b.chars().map(case)).then_with(|| a.cmp(b))
}

/// A sort key that orders strings as [`compare`] does, for sorting many names at once
/// (`sort_by_cached_key`): the primary weights, then the case of each character, then the
/// characters themselves, each part ended by a 0 that sorts before any weight.
pub fn key(s: &str) -> Vec<u32> {
    let mut out = Vec::with_capacity(3 * s.len() + 2);
    out.extend(s.chars().map(|c| primary(c) + 1));
    out.push(0);
    out.extend(s.chars().map(|c| u32::from(c.is_ascii_uppercase()) + 1));
    out.push(0);
    out.extend(s.chars().map(u32::from));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sorted(names: &[&str]) -> Vec<String> {
        let mut v: Vec<String> = names.iter().map(|s| s.to_string()).collect();
        v.sort_by(|a, b| compare(a, b));
        v
    }

    #[test]
    fn the_order_claude_code_sends_mcp_tools_in() {
        // turn-mcp-names-collation-inline: the `tools` array Claude Code sent.
        let expected =
            ["_clair", "_under", "-dash", "a", "b_x", "B_y", "b-x", "b1", "bx", "bX", "Bx", "e10", "e2", "Z", "zeta"];
        let mut shuffled = expected;
        shuffled.reverse();
        assert_eq!(sorted(&shuffled), expected);
    }

    #[test]
    fn the_sort_key_orders_as_compare_does() {
        let names = [
            "_clair", "-dash", "a", "b_x", "B_y", "b-x", "b1", "bx", "bX", "Bx", "e10", "e2", "Z", "zeta", "kit:a",
            "é", "a b",
        ];
        for a in names {
            for b in names {
                assert_eq!(key(a).cmp(&key(b)), compare(a, b), "{a} vs {b}");
            }
        }
    }

    #[test]
    fn built_in_tools_and_agents() {
        assert_eq!(
            sorted(&[
                "ReportFindings",
                "ReadMcpResourceTool",
                "Read",
                "ReadMcpResourceDirTool",
                "ListMcpResourcesTool",
                "ListAgents"
            ]),
            [
                "ListAgents",
                "ListMcpResourcesTool",
                "Read",
                "ReadMcpResourceDirTool",
                "ReadMcpResourceTool",
                "ReportFindings"
            ]
        );
        assert_eq!(
            sorted(&[
                "Zed-agent",
                "writer",
                "statusline-setup",
                "Plan",
                "kit:helper",
                "general-purpose",
                "Explore",
                "claude"
            ]),
            ["claude", "Explore", "general-purpose", "kit:helper", "Plan", "statusline-setup", "writer", "Zed-agent"]
        );
        assert_eq!(compare("mcp__names___clair", "mcp__names__-dash"), Ordering::Less);
        assert_eq!(compare("same", "same"), Ordering::Equal);
    }
}
