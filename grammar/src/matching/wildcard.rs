//! `*`-only wildcard matching, shared by Bash patterns, skill names, parameter values and tool-name
//! globs. A `*` matches any run of characters, newlines included (the `s` flag of Claude Code's regex).

use crate::WildcardPiece;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Token {
    Char(char),
    Star,
}

fn tokens_of_pieces(pieces: &[WildcardPiece]) -> Vec<Token> {
    let mut tokens = Vec::new();
    for piece in pieces {
        match piece {
            WildcardPiece::Star => tokens.push(Token::Star),
            WildcardPiece::Literal(text) => tokens.extend(text.chars().map(Token::Char)),
        }
    }
    tokens
}

/// Matches `pieces` against the whole of `text`.
pub(crate) fn pieces_match(pieces: &[WildcardPiece], text: &str, fold_case: bool) -> bool {
    tokens_match(&tokens_of_pieces(pieces), text, fold_case)
}

/// Matches a plain pattern in which every `*` is a wildcard and nothing else is special.
pub(crate) fn star_match(pattern: &str, text: &str, fold_case: bool) -> bool {
    let tokens: Vec<Token> = pattern.chars().map(|c| if c == '*' { Token::Star } else { Token::Char(c) }).collect();
    tokens_match(&tokens, text, fold_case)
}

fn same_char(a: char, b: char, fold_case: bool) -> bool {
    a == b || (fold_case && a.to_lowercase().eq(b.to_lowercase()))
}

/// The classic greedy matcher: on a mismatch, retry from the most recent star with one more
/// character swallowed. Worst case O(pattern × text), never exponential.
fn tokens_match(tokens: &[Token], text: &str, fold_case: bool) -> bool {
    let text: Vec<char> = text.chars().collect();
    let (mut t, mut p) = (0usize, 0usize);
    let mut retry: Option<(usize, usize)> = None;
    while t < text.len() {
        match tokens.get(p) {
            Some(Token::Star) => {
                retry = Some((p, t));
                p += 1;
            }
            Some(&Token::Char(c)) if same_char(c, text[t], fold_case) => {
                p += 1;
                t += 1;
            }
            _ => match retry {
                Some((star, from)) => {
                    p = star + 1;
                    t = from + 1;
                    retry = Some((star, from + 1));
                }
                None => return false,
            },
        }
    }
    tokens[p.min(tokens.len())..].iter().all(|token| *token == Token::Star)
}

#[cfg(test)]
mod tests {
    use super::star_match;

    #[track_caller]
    fn check(pattern: &str, text: &str, expected: bool) {
        assert_eq!(star_match(pattern, text, false), expected, "`{pattern}` against `{text}`");
    }

    #[test]
    fn stars() {
        check("*", "", true);
        check("*", "anything\nat all", true);
        check("a*", "abc", true);
        check("*c", "abc", true);
        check("a*c", "ac", true);
        check("a*c", "abd", false);
        check("a*b*c", "aXbYc", true);
        check("a*b*c", "aXcYb", false);
        check("abc", "abc", true);
        check("abc", "abcd", false);
        check("", "", true);
        check("", "x", false);
        check("**", "x", true);
        check("mcp__*", "mcp__github__x", true);
        check("*a*a*a*a*a*b", &"a".repeat(200), false);
    }

    #[test]
    fn fold_case() {
        assert!(star_match("GET-*", "get-item", true));
        assert!(!star_match("GET-*", "get-item", false));
    }
}
