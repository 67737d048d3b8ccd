//! What a simple command does, as far as Claude Code reads it: commands refused on what they
//! do (running text as code, `find` actions, `test` subscripts), and whether a command is
//! read-only (the flag table, safe assignments, known expansions).

use super::*;

/// Commands Claude Code refuses on what they do: running text as code, `find` actions (also
/// behind wrappers: `nohup find . -delete`).
pub(super) fn refused_semantics(command: &SimpleCommand) -> Option<String> {
    let name = command.words.first()?.text.as_str();
    if matches!(name, "eval" | "exec") {
        return Some(format!("'{name}' evaluates arguments as shell code"));
    }
    let words = command.program_words();
    let name = words.first()?.text.as_str();
    if matches!(name, "[" | "[[") {
        return test_subscript(&words[1..]);
    }
    match name {
        "eval" => Some(format!("'{name}' evaluates arguments as shell code")),
        "find" => words.iter().skip(1).find(|w| readonly::FIND_ACTIONS.contains(&w.text.as_str())).map(|action| {
            format!(
                "find with '{}' executes commands or modifies files — cannot be auto-allowed by a Bash(find:*) prefix rule",
                action.text
            )
        }),
        _ => None,
    }
}

/// A test (`[ … ]`, `[[ … ]]`) whose operand bash evaluates as an array subscript or as
/// arithmetic, which runs the `$(…)` inside it: Claude Code's reasons (it names both
/// `[[`).
fn test_subscript(words: &[crate::ShellWord]) -> Option<String> {
    let runtime = |word: &crate::ShellWord| word.dynamic || word.text.contains(['$', '`']);
    for (at, word) in words.iter().enumerate() {
        let next = words.get(at + 1);
        if matches!(word.text.as_str(), "-v" | "-R") && next.is_some_and(|n| n.text.contains('[') || runtime(n)) {
            return Some(format!(
                "'[[ {}' operand contains array subscript or runtime-determined value — bash evaluates $(cmd) in \
                 subscripts",
                word.text
            ));
        }
        if word.text == "-t" && next.is_some_and(|n| !dangerous::is_plain_operand(&n.text)) {
            return Some("'[[ -t' operand is non-numeric — zsh arith-evals identifiers (may run $(cmd))".to_owned());
        }
        let sides = [at.checked_sub(1).and_then(|i| words.get(i)), next];
        if dangerous::ARITHMETIC_TESTS.contains(&word.text.as_str())
            && sides.into_iter().flatten().any(|side| side.text != "]]" && !dangerous::is_plain_operand(&side.text))
        {
            return Some(format!(
                "'[[ ... {} ...' operand is non-numeric — `[[` arithmetically evaluates identifiers/subscripts (may \
                 run $(cmd))",
                word.text
            ));
        }
    }
    None
}

/// Environment variables that cannot change what a read-only command does.
const SAFE_ASSIGNMENTS: &[&str] = &[
    "CI",
    "CLICOLOR",
    "CLICOLOR_FORCE",
    "COLORTERM",
    "COLUMNS",
    "DEBIAN_FRONTEND",
    "FORCE_COLOR",
    "GIT_TERMINAL_PROMPT",
    "LANG",
    "LANGUAGE",
    "LC_ALL",
    "LC_COLLATE",
    "LC_CTYPE",
    "LC_MESSAGES",
    "LC_NUMERIC",
    "LC_TIME",
    "LINES",
    "NODE_ENV",
    "NO_COLOR",
    "PYTHONDONTWRITEBYTECODE",
    "PYTHONUNBUFFERED",
    "RUST_BACKTRACE",
    "RUST_LOG",
    "TERM",
    "TZ",
];

/// Read-only without a rule: the line has no subshell, `&`, variable set or output redirection to
/// a file, and does not combine `cd` with `git`; the command's assignments are safe, its
/// expansions are `$HOME` or substitutions of read-only commands, and its words are in the table.
pub(super) fn is_read_only(command: &SimpleCommand, analysis: &ShellAnalysis, redirections_approved: bool) -> bool {
    if analysis.subshell
        || analysis.background
        || !analysis.bare_assignments.is_empty()
        || (!redirections_approved && analysis.redirections.iter().any(|r| r.writes_file()))
    {
        return false;
    }
    // `git` after a `cd` may run in another repository's configuration. The program is named
    // past its wrappers: `command cd d`, `builtin cd d` change directories too.
    let changes_directory = analysis.commands.iter().any(|c| {
        c.program_words().first().is_some_and(|w| matches!(w.text.as_str(), "cd" | "pushd" | "popd" | "chdir"))
    });
    if changes_directory && is_git(command) {
        return false;
    }
    let safe_assignment = |name: &str, value: &str| {
        (SAFE_ASSIGNMENTS.contains(&name) || name.starts_with("GO"))
            && !value.is_empty()
            && value.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b':' | b'-'))
    };
    if !command.assignments.iter().all(|a| safe_assignment(&a.name, &a.value)) {
        return false;
    }
    if command.words.iter().any(|word| word.dynamic && !expansions_are_known(&word.text)) {
        return false;
    }
    let nested_read_only = analysis
        .commands
        .iter()
        .filter(|nested| {
            // Strictly inside: two commands the analysis gives one span (`"&g`a;Z`"`) would
            // otherwise each count as nested in the other, and the check would never end.
            nested.context == CommandContext::QuotedSubstitution
                && nested.span.start >= command.span.start
                && nested.span.end <= command.span.end
                && nested.span.end - nested.span.start < command.span.end - command.span.start
        })
        .all(|nested| is_read_only(nested, analysis, redirections_approved));
    let words: Vec<&str> = command.words.iter().map(|w| w.text.as_str()).collect();
    nested_read_only && readonly::is_read_only(&words, &command.text)
}

/// Every `$NAME` in the word is `$HOME` (substitutions and arithmetic were already accepted by
/// the analysis): any other variable may hold a secret (`$GITHUB_TOKEN`), and Claude Code asks.
fn expansions_are_known(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut at = 0;
    while let Some(offset) = text[at..].find('$') {
        let start = at + offset + 1;
        let end = start + bytes[start..].iter().take_while(|b| b.is_ascii_alphanumeric() || **b == b'_').count();
        let name = &text[start..end];
        if !name.is_empty() && !name.starts_with(|c: char| c.is_ascii_digit()) && name != "HOME" {
            return false;
        }
        at = end.max(start);
    }
    true
}
