//! The analysis as data: commands as `[context] word|word|… op`, redirections, then the refusal.

use super::*;

fn render(analysis: &ShellAnalysis) -> String {
    let mut out = Vec::new();
    for command in &analysis.commands {
        let mut line = String::new();
        if command.context != CommandContext::TopLevel {
            line.push_str(&format!("[{:?}] ", command.context));
        }
        for assignment in &command.assignments {
            line.push_str(&format!("{}={} ", assignment.name, assignment.value));
        }
        line.push_str(&command.words.iter().map(|w| w.text.as_str()).collect::<Vec<_>>().join("|"));
        if let Some(op) = command.operator {
            line.push_str(&format!(" {op:?}"));
        }
        out.push(line);
    }
    for redirection in &analysis.redirections {
        out.push(format!("redirect {:?} {:?}", redirection.op, redirection.target));
    }
    if !analysis.bare_assignments.is_empty() {
        out.push(format!("assigns {}", analysis.bare_assignments.join(",")));
    }
    if let Some(refusal) = &analysis.refusal {
        out.push(format!("refused: {}", refusal.reason.message()));
    }
    out.join("\n")
}

#[track_caller]
fn check(command: &str, expected: &str) {
    assert_eq!(render(&analyse_shell(command)), expected.trim(), "command: {command:?}");
}

#[test]
fn simple_commands_and_operators() {
    check("git status --short", "git|status|--short");
    check("mark a && mark b; c || d", "mark|a And\nmark|b Semicolon\nc Or\nd");
    check("a | b |& c & d", "a Pipe\nb PipeAll\nc Background\nd");
    check("a\nb", "a Newline\nb");
    check("mark a;", "mark|a Semicolon");
    check("! mark a", "mark|a");
    check("# note\nmark a # $(touch x)", "mark|a");
    check("mark a#b", "mark|a#b");
}

#[test]
fn quote_removal() {
    check(r#"mark "a b" 'c d' \e"#, "mark|a b|c d|e");
    check(r#""mark" a"#, "mark|a");
    check(r"mark a\;b", "mark|a;b");
    check(r"mark \$\(touch x\)", "mark|$(touch|x)");
    check("mark \\\na", "mark|a");
    check(r#"echo "a\"b\$c\d""#, r#"echo|a"b$c\d"#);
    check("mark '$(touch x)'", "mark|$(touch x)");
}

#[test]
fn assignments_and_redirections() {
    check("FOO=1 LANG=C mark a", "FOO=1 LANG=C mark|a");
    check("X=a; mark $X", "mark|$X\nassigns X");
    check("echo hi > f 2>&1", "echo|hi\nredirect Write \"f\"\nredirect DupOut \"1\"");
    check("cat <<'EOF'\n$(x)\nEOF\necho done", "cat Newline\necho|done\nredirect Heredoc \"EOF\"");
    check("cat <<< $HOME", "cat\nredirect HereString \"$HOME\"");
}

#[test]
fn what_is_walked_into() {
    check("(mark a)", "[Subshell] mark|a");
    check("if true; then mark a; fi", "[Body] true Semicolon\n[Body] mark|a Semicolon");
    check("while false; do mark a; done", "[Body] false Semicolon\n[Body] mark|a Semicolon");
    check("[[ -f x ]] || mark a", "[[|-f|x|]] Or\nmark|a");
    check("[ -f x ] || mark a", "[|-f|x|] Or\nmark|a");
    check(r#"echo "x $(mark a)""#, "[QuotedSubstitution] mark|a\necho|x $(mark a)");
    check("echo \"a `pwd` b\"", "[QuotedSubstitution] pwd\necho|a `pwd` b");
}

#[test]
fn refusals() {
    let refused = |command: &str, message: &str| {
        let analysis = analyse_shell(command);
        assert_eq!(analysis.refusal.map(|r| r.reason.message()).as_deref(), Some(message), "command: {command:?}");
    };
    refused("git status $(touch x)", "A nested command in this command can't be checked before it runs");
    refused("git status `touch x`", "A nested command in this command can't be checked before it runs");
    refused("$(echo mark) a", "A nested command in this command can't be checked before it runs");
    refused("cat <<< $(pwd)", "A nested command in this command can't be checked before it runs");
    refused("diff <(echo a) <(echo b)", "A command used as a file in this command can't be checked before it runs");
    refused("mark ${HOME}", "A variable in braces in this command can't be checked before it runs");
    refused(r#"echo "${HOME}""#, "A variable in braces in this command can't be checked before it runs");
    refused("mark $1", "A variable in this command can't be checked before it runs");
    refused("mark $?", "A variable in this command can't be checked before it runs");
    refused("for i in a b; do mark $i; done", "A variable in this command can't be checked before it runs");
    refused(r#"mark "$(pwd)""#, "Quoted text in this command can't be checked before it runs");
    refused(r#"git status "x$(touch t)""#, "Quoted text in this command can't be checked before it runs");
    refused("X=$(mark sub)", "A variable set in this command can't be checked before it runs");
    refused("{ mark a; }", "A group in braces or double parentheses in this command can't be checked before it runs");
    refused(
        "(( 1 + 1 )) && a",
        "A group in braces or double parentheses in this command can't be checked before it runs",
    );
    refused("f() { mark a; }; f", "A function definition in this command can't be checked before it runs");
    refused("mark $'a'", "Text with escape codes in this command can't be checked before it runs");
    refused("mark {a,b}", "Brace expansion");
    refused(r"mark a\ b", "Contains backslash-escaped whitespace");
    refused("cat <<EOF\nx\nEOF", "Heredoc with unquoted delimiter undergoes shell expansion");
    refused("echo $((1+X))", "Arithmetic expansion references variable or non-literal: X");
    refused("echo $[1+2]", "Arithmetic expansion references variable or non-literal: $[");
    refused(r#"mark "a"#, "Parse error");
    assert_eq!(analyse_shell("mark $(pwd").refusal.map(|r| r.reason), Some(RefusalReason::Ambiguous));
    assert_eq!(analyse_shell(&"echo $(".repeat(100)).refusal.map(|r| r.reason), Some(RefusalReason::Unchecked));
}

#[test]
fn accepted_expansions() {
    for command in [
        "mark $HOME",
        r#"echo "$HOME""#,
        "echo $((1+2))",
        "mark ~ * ?",
        "find . -exec x {} \\;",
        r#"echo "a $(pwd) b""#,
        "cat <<\"EOF\"\nx\nEOF",
        "cat <<-'EOF'\n\tx\n\tEOF",
    ] {
        assert_eq!(analyse_shell(command).refusal, None, "command: {command:?}");
    }
}

#[test]
fn refused_lines_still_list_their_commands() {
    check(
        "git status $(touch x)",
        "[Refused] touch|x\ngit|status|$(touch x)\nrefused: A nested command in this command can't be checked before it runs",
    );
}

#[test]
fn pipe_segments_are_the_top_level_text_between_pipes() {
    let command = "mark a | grep x && b |& c";
    let analysis = analyse_shell(command);
    let segments: Vec<&str> = analysis.pipe_segments.iter().filter_map(|s| s.slice(command)).collect();
    assert_eq!(segments, ["mark a ", " grep x && b ", " c"]);
    assert!(analyse_shell("echo \"$(a | b)\"").pipe_segments.is_empty());
}

#[test]
fn never_panics_on_odd_input() {
    for command in [
        "",
        "(",
        ")",
        "$(",
        "`",
        "\"",
        "'",
        "${",
        "$((",
        "<<",
        "<(",
        "{",
        "}",
        "é\\",
        "a\\",
        "&&",
        "|",
        ";;",
        "case x in",
        "if",
        "for",
        "x=(",
        "a >",
    ] {
        let _ = analyse_shell(command);
    }
}

#[test]
fn wrappers_are_recognised() {
    let cases = [
        ("timeout 5 nice -n 2 rm -rf x", "timeout,nice", "rm|-rf|x"),
        ("timeout -s KILL 10 make", "timeout", "make"),
        ("env FOO=1 -u BAR sudo -u root mark a", "env,sudo", "mark|a"),
        ("taskset 0x1 nohup mark", "taskset,nohup", "mark"),
        ("xargs -n 1 grep x", "xargs", "grep|x"),
        ("git status", "", "git|status"),
        ("sudo", "sudo", ""),
    ];
    for (command, wrappers, program) in cases {
        let analysis = analyse_shell(command);
        let found = &analysis.commands[0];
        assert_eq!(found.wrappers().join(","), wrappers, "{command}");
        let words: Vec<&str> = found.program_words().iter().map(|w| w.text.as_str()).collect();
        assert_eq!(words.join("|"), program, "{command}");
    }
}
