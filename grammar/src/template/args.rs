//! Splitting an argument string into words (Claude Code's `parseArguments`), which tokenises with the
//! `shell-quote` package and keeps only its string tokens. So, as in Claude Code:
//!
//! * quotes group words (`"hello world"` is one word, `""` an empty one), a backslash escapes the
//!   next character outside quotes, and inside double quotes only before `"`, `\` and `$`;
//! * operators (`|`, `&&`, `;`, `>`, `(`, …) separate words and are dropped;
//! * `#` outside quotes starts a comment that runs to the end;
//! * a word with an unquoted `*` or `?` is a glob, which `shell-quote` returns as an object, so it is
//!   **dropped** (`/ask what is this?` has two arguments);
//! * `$NAME` and `${NAME}` are kept as `$NAME` (Claude Code's lookup returns `$` + the name).
//!
//! When the string cannot be tokenised, it is split on whitespace instead. `shell-quote` fails on
//! `${}` and an unclosed `${`; it silently drops an unmatched quote, but here an unmatched quote is
//! bad quoting too and falls back to whitespace splitting, which keeps the user's words intact.

use super::is_js_space;

/// The words of an argument string, as `$ARGUMENTS[n]`, `$n` and `$name` see them.
pub fn split_arguments(args: &str) -> Vec<String> {
    if args.chars().all(is_js_space) {
        return Vec::new();
    }
    shell_words(args)
        .unwrap_or_else(|| args.split(is_js_space).filter(|word| !word.is_empty()).map(str::to_owned).collect())
}

/// A word being built: its text, whether anything (even empty quotes) started it, and whether it
/// is a glob.
#[derive(Default)]
struct Word {
    text: String,
    started: bool,
    glob: bool,
}

fn is_control(c: char) -> bool {
    matches!(c, '|' | '&' | ';' | '(' | ')' | '<' | '>')
}

fn shell_words(args: &str) -> Option<Vec<String>> {
    let mut words = Vec::new();
    let mut word = Word::default();
    let finish = |word: &mut Word, words: &mut Vec<String>| {
        let done = std::mem::take(word);
        if done.started && !done.glob {
            words.push(done.text);
        }
    };
    let mut chars = args.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            _ if is_js_space(c) || is_control(c) => finish(&mut word, &mut words),
            '#' => {
                // `shell-quote` returns the text before the comment even if it is a glob.
                if !word.text.is_empty() {
                    words.push(word.text);
                }
                return Some(words);
            }
            '\'' => {
                word.started = true;
                loop {
                    match chars.next()? {
                        '\'' => break,
                        inner => word.text.push(inner),
                    }
                }
            }
            '"' => {
                word.started = true;
                loop {
                    match chars.next()? {
                        '"' => break,
                        '\\' => match chars.next()? {
                            escaped @ ('"' | '\\' | '$') => word.text.push(escaped),
                            other => {
                                word.text.push('\\');
                                word.text.push(other);
                            }
                        },
                        '$' => variable(&mut chars, &mut word.text)?,
                        inner => word.text.push(inner),
                    }
                }
            }
            '\\' => {
                word.started = true;
                match chars.peek() {
                    // `shell-quote` flags a glob on the raw character, escaped or not. Of the
                    // whitespace, only an escaped space or tab stays inside the word.
                    Some(&next) if !is_js_space(next) || next == ' ' || next == '\t' => {
                        word.glob |= matches!(next, '*' | '?');
                        word.text.push(next);
                        chars.next();
                    }
                    _ => {}
                }
            }
            '$' => {
                word.started = true;
                variable(&mut chars, &mut word.text)?;
            }
            _ => {
                word.started = true;
                word.glob |= matches!(c, '*' | '?');
                word.text.push(c);
            }
        }
    }
    finish(&mut word, &mut words);
    Some(words)
}

/// After a `$`: `${name}` (braces matched by depth) and `$name` become `$name`, `$?`-style specials
/// stay, and a `$` before anything else is a literal `$`. `None` for `${}` or an unclosed `${`.
fn variable(chars: &mut std::iter::Peekable<std::str::Chars<'_>>, out: &mut String) -> Option<()> {
    out.push('$');
    match chars.peek().copied() {
        Some('{') => {
            chars.next();
            if chars.peek() == Some(&'}') {
                return None;
            }
            let mut depth = 1usize;
            let mut previous = '{';
            loop {
                let c = chars.next()?;
                if c == '{' && previous == '$' {
                    depth += 1;
                } else if c == '}' {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                out.push(c);
                previous = c;
            }
        }
        Some(c @ ('*' | '@' | '#' | '?' | '$' | '!' | '-')) => {
            chars.next();
            out.push(c);
        }
        _ => {
            while let Some(&c) = chars.peek() {
                if !(c.is_ascii_alphanumeric() || c == '_') {
                    break;
                }
                out.push(c);
                chars.next();
            }
        }
    }
    Some(())
}
