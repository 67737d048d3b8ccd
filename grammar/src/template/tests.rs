//! Templates as data: parse renderings, expansions and argument splits.

use super::*;

fn render_placeholder(placeholder: &Placeholder) -> String {
    match placeholder {
        Placeholder::Arguments => "args".to_owned(),
        Placeholder::ArgumentIndex(index) => format!("args[{index}]"),
        Placeholder::Positional(index) => format!("pos({index})"),
        Placeholder::Named(name) => format!("named({name})"),
    }
}

/// Parts separated by spaces (text as a Rust string literal), then `| shell …`, `| file …` and
/// `| error …` entries.
fn render(text: &str) -> String {
    let (template, errors) = parse_template(text);
    assert_eq!(template.source, text);
    // The parts tile the source, and adjacent text is merged.
    let mut at = 0;
    for (index, part) in template.parts.iter().enumerate() {
        assert_eq!(part.span.start, at, "parts of {text:?} leave a gap: {:?}", template.parts);
        assert!(!part.span.is_empty() && part.span.slice(text).is_some(), "bad part span {:?}", part.span);
        if index > 0 {
            assert!(
                !(part.kind == TemplatePartKind::Text && template.parts[index - 1].kind == TemplatePartKind::Text),
                "unmerged text"
            );
        }
        at = part.span.end;
    }
    assert_eq!(at, text.len(), "parts of {text:?} stop early");

    let mut out: Vec<String> = template
        .parts
        .iter()
        .map(|part| match &part.kind {
            TemplatePartKind::Text => format!("{:?}", template.text(part.span)),
            TemplatePartKind::Placeholder(placeholder) => render_placeholder(placeholder),
            TemplatePartKind::Escaped(placeholder) => format!("esc({})", render_placeholder(placeholder)),
            TemplatePartKind::Variable(var) => format!("var({})", var.name()),
        })
        .collect();
    for shell in &template.shell_commands {
        assert!(shell.span.start <= shell.command_span.start && shell.command_span.end <= shell.span.end);
        let kind = match shell.kind {
            ShellKind::Inline => "inline",
            ShellKind::Block => "block",
        };
        out.push(format!("| shell {kind} {}..{} {:?}", shell.span.start, shell.span.end, template.command(shell)));
    }
    for file in &template.file_refs {
        assert!(file.span.slice(text).is_some_and(|s| s.starts_with('@')));
        let quoted = if file.quoted { " quoted" } else { "" };
        out.push(format!("| file {:?}{quoted} {}..{}", file.path, file.span.start, file.span.end));
    }
    for error in &errors {
        assert!(error.span.slice(text).is_some(), "error span {:?} out of {text:?}", error.span);
        out.push(format!("| error {}..{}: {}", error.span.start, error.span.end, error.message));
    }
    out.join(" ")
}

#[track_caller]
fn check(text: &str, expected: &str) {
    assert_eq!(render(text), expected, "template: {text:?}");
}

#[test]
fn plain_text() {
    check("", "");
    check("Review the code.", r#""Review the code.""#);
    check("line one\nline two\n", r#""line one\nline two\n""#);
    check("costs $ 5 and 50%", r#""costs $ 5 and 50%""#);
    check("email me@example.com", r#""email me@example.com""#);
    check("wow!`not shell`", r#""wow!`not shell`""#);
}

#[test]
fn arguments() {
    check("Fix $ARGUMENTS now", r#""Fix " args " now""#);
    check("$ARGUMENTS", "args");
    // No word boundary after `$ARGUMENTS`, as with `replaceAll`.
    check("$ARGUMENTSx", r#"args "x""#);
    check("$ARGUMENTS[0] and $ARGUMENTS[12]", r#"args[0] " and " args[12]"#);
    check("$ARGUMENTS[x]", r#"args "[x]""#);
    check("$ARGUMENTS[]", r#"args "[]""#);
    check("$ARGUMENTS[1", r#"args "[1""#);
    check("$arguments", "named(arguments)");
}

#[test]
fn obsolete_dot_index() {
    check("$ARGUMENTS.0 then", r#"args ".0 then" | error 0..12: `$ARGUMENTS.0` is the spelling from before v2.1.19"#);
    check("$ARGUMENTS.x", r#"args ".x""#);
    check("$ARGUMENTS.", r#"args ".""#);
}

#[test]
fn positional_is_zero_based_shorthand() {
    check("Fix issue #$0 with priority $1", r#""Fix issue #" pos(0) " with priority " pos(1)"#);
    check("$10", "pos(10)");
    check("$1-$2", r#"pos(1) "-" pos(2)"#);
    check("$1.", r#"pos(1) ".""#);
    check("($0)", r#""(" pos(0) ")""#);
    check("$0é", r#"pos(0) "é""#);
    // A word character right after the digits makes it literal text.
    check("$1abc", r#""$1abc""#);
    check("$1_", r#""$1_""#);
    check("$12a", r#""$12a""#);
    check("$99999999999999999999999", &format!("pos({})", usize::MAX));
}

#[test]
fn named_arguments() {
    check("Deploy $env to $region", r#""Deploy " named(env) " to " named(region)"#);
    check("$issue-number", "named(issue-number)");
    check("$_x", "named(_x)");
    check("$a1", "named(a1)");
    // `$name[` is not a placeholder.
    check("$name[0]", r#""$name[0]""#);
    check("$-x", r#""$-x""#);
    check("$$", r#""$$""#);
    check("$$0", r#""$" pos(0)"#);
    check("$ARGS", "named(ARGS)");
}

#[test]
fn escapes() {
    check(r"\$1", "esc(pos(1))");
    check(r"price: \$5", r#""price: " esc(pos(5))"#);
    check(r"\$ARGUMENTS", "esc(args)");
    check(r"\$ARGUMENTS[2]", "esc(args[2])");
    check(r"\$name", "esc(named(name))");
    // Two backslashes do not escape: the placeholder still expands.
    check(r"\\$1", r#""\\\\" pos(1)"#);
    check(r"\\\$1", r#""\\\\\\" pos(1)"#);
    // A backslash before anything else is text.
    check(r"\n \x", r#""\\n \\x""#);
    check(r"\$", r#""\\$""#);
    check(r"\$1a", r#""\\$1a""#);
    check(r"\", r#""\\""#);
    // A backslash does not stop `${CLAUDE_*}`.
    check(r"\${CLAUDE_SKILL_DIR}", r#""\\" var(CLAUDE_SKILL_DIR)"#);
}

#[test]
fn variables() {
    check("${CLAUDE_SKILL_DIR}/scripts/run.sh", r#"var(CLAUDE_SKILL_DIR) "/scripts/run.sh""#);
    check("${CLAUDE_SESSION_ID}", "var(CLAUDE_SESSION_ID)");
    check("${CLAUDE_PLUGIN_ROOT} ${CLAUDE_PLUGIN_DATA}", r#"var(CLAUDE_PLUGIN_ROOT) " " var(CLAUDE_PLUGIN_DATA)"#);
    check("${CLAUDE_PROJECT_DIR}${CLAUDE_EFFORT}", "var(CLAUDE_PROJECT_DIR) var(CLAUDE_EFFORT)");
    check("${user_config.api_url}", "var(user_config.api_url)");
    check("${user_config._K9}", "var(user_config._K9)");
    // Other `${…}` are shell syntax, left alone.
    check("${HOME}/x", r#""${HOME}/x""#);
    check("${PATH:-/bin}", r#""${PATH:-/bin}""#);
    check("${", r#""${""#);
    check("${}", r#""${}""#);
    check("${{{{", r#""${{{{""#);
    check("$ {CLAUDE_SKILL_DIR}", r#""$ {CLAUDE_SKILL_DIR}""#);
    check("${CLAUDE_SKILL_DIR", r#""${CLAUDE_SKILL_DIR""#);
}

#[test]
fn variable_errors() {
    check("${CLAUDE_SKIL_DIR}", r#""${CLAUDE_SKIL_DIR}" | error 0..18: unknown variable `${CLAUDE_SKIL_DIR}`"#);
    check("${CLAUDE_FOO}", r#""${CLAUDE_FOO}" | error 0..13: unknown variable `${CLAUDE_FOO}`"#);
    check("${user_config.}", r#""${user_config.}" | error 0..15: `` is not a valid `user_config` key"#);
    check("${user_config.a.b}", r#""${user_config.a.b}" | error 0..18: `a.b` is not a valid `user_config` key"#);
    check("${user_config.9x}", r#""${user_config.9x}" | error 0..17: `9x` is not a valid `user_config` key"#);
    let (_, errors) = parse_template("${CLAUDE_SKIL_DIR}");
    assert_eq!(errors[0].help.as_deref(), Some("did you mean `${CLAUDE_SKILL_DIR}`?"));
}

#[test]
fn inline_shell() {
    check("Status: !`git status`", r#""Status: !`git status`" | shell inline 8..21 "git status""#);
    check("!`date`", r#""!`date`" | shell inline 0..7 "date""#);
    check("a\n!`ls -la`\n", r#""a\n!`ls -la`\n" | shell inline 2..11 "ls -la""#);
    check("!`  padded  `", r#""!`  padded  `" | shell inline 0..13 "padded""#);
    // Arguments inside the command are placeholders: they are substituted before it runs.
    check("!`gh issue view $0`", r#""!`gh issue view " pos(0) "`" | shell inline 0..19 "gh issue view $0""#);
    check(
        "!`cat ${CLAUDE_SKILL_DIR}/x`",
        r#""!`cat " var(CLAUDE_SKILL_DIR) "/x`" | shell inline 0..28 "cat ${CLAUDE_SKILL_DIR}/x""#,
    );
    // An inline command may span lines.
    check("!`a\nb`", r#""!`a\nb`" | shell inline 0..6 "a\nb""#);
    check("x\t!`a` !`b`", r#""x\t!`a` !`b`" | shell inline 2..6 "a" | shell inline 7..11 "b""#);
}

#[test]
fn inline_shell_needs_whitespace_before() {
    check("KEY=!`cmd`", r#""KEY=!`cmd`""#);
    check("`foo`!`bar`", r#""`foo`!`bar`""#);
    check("$!`x`", r#""$!`x`""#);
    check("(!`x`)", r#""(!`x`)""#);
    check("\u{3000}!`x`", r#""\u{3000}!`x`" | shell inline 3..7 "x""#);
    check("!``", r#""!``""#);
}

#[test]
fn unclosed_inline_shell() {
    check("run !`make", r#""run !`make" | error 4..6: inline shell command is never closed"#);
    check("!`", r#""!`""#);
    check("!`\n\n", r#""!`\n\n" | error 0..2: inline shell command is never closed"#);
}

#[test]
fn block_shell() {
    check("```!\ngit log -3\n```", r#""```!\ngit log -3\n```" | shell block 0..19 "git log -3""#);
    check(
        "Before\n```!\nnpm test\n```\nAfter",
        r#""Before\n```!\nnpm test\n```\nAfter" | shell block 7..24 "npm test""#,
    );
    check("```! echo hi```", r#""```! echo hi```" | shell block 0..15 "echo hi""#);
    check("```!\n```", r#""```!\n```" | shell block 0..8 """#);
    check(
        "```!\necho $1 `x` ``y``\n```",
        r#""```!\necho " pos(1) " `x` ``y``\n```" | shell block 0..26 "echo $1 `x` ``y``""#,
    );
    // A fenced block opens anywhere, not only at a line start.
    check("text```!ls```", r#""text```!ls```" | shell block 4..13 "ls""#);
    // Plain code fences are text.
    check("```bash\nls\n```", r#""```bash\nls\n```""#);
}

#[test]
fn unclosed_block_shell() {
    check("```!\nls", r#""```!\nls" | error 0..4: shell block opened with ```! is never closed"#);
    check("```!\nls $0", r#""```!\nls " pos(0) | error 0..4: shell block opened with ```! is never closed"#);
    check("```!``", r#""```!``" | error 0..4: shell block opened with ```! is never closed"#);
}

#[test]
fn file_references() {
    check("See @src/main.rs for details", r#""See @src/main.rs for details" | file "src/main.rs" 4..16"#);
    check("@README.md", r#""@README.md" | file "README.md" 0..10"#);
    // The mention backs off to its last word boundary.
    check("Read @notes.txt.", r#""Read @notes.txt." | file "notes.txt" 5..15"#);
    check("(@a/b)", r#""(@a/b)""#);
    check("x @src/", r#""x @src/" | file "src" 2..6"#);
    check("x @...", r#""x @...""#);
    check("x @.env", r#""x @.env" | file ".env" 2..7"#);
    check("check @\"my file.txt\" please", r#""check @\"my file.txt\" please" | file "my file.txt" quoted 6..20"#);
    check("@\"code-reviewer (agent)\"", r#""@\"code-reviewer (agent)\"""#);
    check("@\"\"", r#""@\"\"""#);
    check("@\"open", r#""@\"open""#);
    check("@file.txt#L10-20", r#""@file.txt#L10-20" | file "file.txt#L10-20" 0..16"#);
    check("@server:proto://path", r#""@server:proto://path" | file "server:proto://path" 0..20"#);
    // Placeholders inside a mention are parts; the mention keeps its source text.
    check("@$0", r#""@" pos(0) | file "$0" 0..3"#);
    check("@", r#""@""#);
    check("a @ b", r#""a @ b""#);
    check("user@host", r#""user@host""#);
    // JavaScript's `\b` knows only ASCII word characters.
    check("@dir/ünï", r#""@dir/ünï" | file "dir/ün" 0..8"#);
}

#[test]
fn everything_together() {
    check(
        "---\nUse $0 in ${CLAUDE_SKILL_DIR}: !`ls $0` and @$1.md\n\\$2 stays\n",
        r#""---\nUse " pos(0) " in " var(CLAUDE_SKILL_DIR) ": !`ls " pos(0) "` and @" pos(1) ".md\n" esc(pos(2)) " stays\n" | shell inline 35..43 "ls $0" | file "$1.md" 48..54"#,
    );
}

#[test]
fn adversarial_inputs_parse() {
    for text in ["((((((", "$$$$$$", r"\\\\\\", "!`!`!`!`", "```!```!```!", "${${${", "@@@@", "$ARGUMENTS[$ARGUMENTS["]
    {
        let (template, _) = parse_template(text);
        assert_eq!(template.parts.iter().map(|part| template.text(part.span)).collect::<String>(), text);
    }
}

/// Expansion with `arguments: [issue, priority]`, `${CLAUDE_SKILL_DIR}` = `/skills/fix` and
/// `${user_config.api}` = `https://api`.
#[track_caller]
fn check_expand(template: &str, args: &str, expected: &str) {
    check_expand_with(template, args, &["issue", "priority"], expected);
}

#[track_caller]
fn check_expand_with(template: &str, args: &str, names: &[&str], expected: &str) {
    let variables =
        [(TemplateVar::SkillDir, "/skills/fix"), (TemplateVar::UserConfig("api".to_owned()), "https://api")];
    let cx = ExpandContext { argument_names: names, variables: &variables };
    let (parsed, _) = parse_template(template);
    assert_eq!(expand(&parsed, args, &cx), expected, "template: {template:?}, args: {args:?}");
}

#[test]
fn expand_arguments() {
    check_expand("Fix $ARGUMENTS", "123 high", "Fix 123 high");
    check_expand("Fix $ARGUMENTS", "", "Fix ");
    check_expand("Fix issue #$0 with priority $1", "123 high", "Fix issue #123 with priority high");
    check_expand("$ARGUMENTS[1]/$ARGUMENTS[0]", "a b", "b/a");
    check_expand("[$0]", "\"hello world\" x", "[hello world]");
    check_expand("$0|$1|$2", "'a b' \"c d\" e", "a b|c d|e");
    check_expand("$ARGUMENTS", "  spaced  ", "  spaced  ");
}

#[test]
fn expand_missing_indexed_argument_stays_literal() {
    check_expand("a=$0 b=$1 c=$2", "x y", "a=x b=y c=$2");
    check_expand("$ARGUMENTS[5]", "x", "$ARGUMENTS[5]\n\nARGUMENTS: x");
    check_expand("only $3", "", "only $3");
    check_expand(&format!("$ARGUMENTS[{}]", "9".repeat(30)), "", &format!("$ARGUMENTS[{}]", "9".repeat(30)));
}

#[test]
fn expand_named_arguments() {
    check_expand("Issue $issue at $priority", "42 high", "Issue 42 at high");
    check_expand("Issue $issue at $priority", "42", "Issue 42 at ");
    check_expand("$unknown stays", "42", "$unknown stays\n\nARGUMENTS: 42");
    check_expand("$issue-tracker", "42", "42-tracker");
    check_expand("$issues", "42", "$issues\n\nARGUMENTS: 42");
    check_expand_with("$issue-number!", "42", &["issue-number"], "42!");
    check_expand_with("$a-b $a", "1 2", &["a", "a-b"], "1-b 1");
    // Empty and all-digit names are dropped, so the positions shift as in Claude Code.
    check_expand_with("$x $y", "1 2", &["", "x", "0", "y"], "1 2");
}

#[test]
fn expand_escapes() {
    check_expand(r"costs \$1", "9", "costs $1\n\nARGUMENTS: 9");
    check_expand(r"\$ARGUMENTS is $0", "9", "$ARGUMENTS is 9");
    check_expand(r"\$issue", "9", "$issue\n\nARGUMENTS: 9");
    check_expand(r"echo \$HOME", "", r"echo \$HOME");
    check_expand(r"\\$0", "9", r"\\9");
}

#[test]
fn expand_fallback_appends_arguments() {
    check_expand("No placeholders.", "some args", "No placeholders.\n\nARGUMENTS: some args");
    check_expand("No placeholders.", "", "No placeholders.");
    check_expand("$5 only", "a", "$5 only\n\nARGUMENTS: a");
    check_expand("${CLAUDE_SKILL_DIR}", "a", "/skills/fix\n\nARGUMENTS: a");
    check_expand("$ARGUMENTS", " ", " ");
}

#[test]
fn expand_variables_and_shell() {
    check_expand("${CLAUDE_SKILL_DIR}/run.sh", "", "/skills/fix/run.sh");
    check_expand("${CLAUDE_SESSION_ID}", "", "${CLAUDE_SESSION_ID}");
    check_expand("${user_config.api}/v1", "", "https://api/v1");
    check_expand("${user_config.other}", "", "${user_config.other}");
    check_expand("!`gh issue view $0`", "42", "!`gh issue view 42`");
    check_expand("```!\ncat $ARGUMENTS\n```", "a.txt", "```!\ncat a.txt\n```");
    // Values are inserted once; they are not read as placeholders again.
    check_expand("$0", "'$1 ${CLAUDE_SKILL_DIR}' x", "$1 ${CLAUDE_SKILL_DIR}");
}

#[track_caller]
fn check_split(args: &str, expected: &str) {
    assert_eq!(format!("{:?}", split_arguments(args)), expected, "args: {args:?}");
}

#[test]
fn split_words_and_quotes() {
    check_split("", "[]");
    check_split("   ", "[]");
    check_split("foo bar baz", r#"["foo", "bar", "baz"]"#);
    check_split("  foo   bar  ", r#"["foo", "bar"]"#);
    check_split("foo \"hello world\" baz", r#"["foo", "hello world", "baz"]"#);
    check_split("foo 'hello world' baz", r#"["foo", "hello world", "baz"]"#);
    check_split("all'one'\"token\"", r#"["allonetoken"]"#);
    check_split("a \"\" b", r#"["a", "", "b"]"#);
    check_split("''", r#"[""]"#);
    check_split("a\tb\nc", r#"["a", "b", "c"]"#);
    check_split("ünï 文字", r#"["ünï", "文字"]"#);
}

#[test]
fn split_escapes() {
    check_split(r"a\ b c", r#"["a b", "c"]"#);
    check_split(r"a\\b", r#"["a\\b"]"#);
    check_split(r#""a\"b""#, r#"["a\"b"]"#);
    check_split(r#""a\nb""#, r#"["a\\nb"]"#);
    check_split(r#"'a\nb'"#, r#"["a\\nb"]"#);
    check_split(r"\x", r#"["x"]"#);
    check_split("a\\", r#"["a"]"#);
}

#[test]
fn split_operators_comments_and_globs() {
    check_split("a | b && c; d > out.txt", r#"["a", "b", "c", "d", "out.txt"]"#);
    check_split("a|b", r#"["a", "b"]"#);
    check_split("fix it # later", r#"["fix", "it"]"#);
    check_split("a#b c", r#"["a"]"#);
    check_split("'#' x", r##"["#", "x"]"##);
    check_split("what is this?", r#"["what", "is"]"#);
    check_split("*.ts src", r#"["src"]"#);
    check_split("'*.ts' src", r#"["*.ts", "src"]"#);
    check_split(r"\*.ts", "[]");
}

#[test]
fn split_variables() {
    check_split("$HOME x", r#"["$HOME", "x"]"#);
    check_split("${HOME}/bin", r#"["$HOME/bin"]"#);
    check_split("\"$USER\"", r#"["$USER"]"#);
    check_split("$", r#"["$"]"#);
    check_split("$?", r#"["$?"]"#);
    check_split("$.x", r#"["$.x"]"#);
    check_split("$(ls)", r#"["$", "ls"]"#);
}

#[test]
fn split_falls_back_to_whitespace() {
    // `${}` and an unclosed `${` make shell-quote throw.
    check_split("a ${} b", r#"["a", "${}", "b"]"#);
    check_split("a ${x b", r#"["a", "${x", "b"]"#);
    // Unbalanced quotes are bad quoting too.
    check_split("it's fine", r#"["it's", "fine"]"#);
    check_split("say \"hi there", r#"["say", "\"hi", "there"]"#);
    check_split("what?  it's *", r#"["what?", "it's", "*"]"#);
}

#[test]
fn argument_values_are_escaped_as_claude_code_escapes_them() {
    use super::escape_argument;
    // Measured on Claude Code (`Args: $ARGUMENTS`).
    assert_eq!(escape_argument("!`id` and ```!\necho hi\n``` end"), "\\! `id` and ``` \\!\necho hi\n``` end");
    assert_eq!(escape_argument("a!`b` c `!x`"), "a! `b` c ` \\!x`");
    assert_eq!(escape_argument("wow! fine"), "wow! fine");
    assert_eq!(escape_argument("x\n!y \u{3000}!z"), "x\n\\!y \u{3000}\\!z");
    assert_eq!(escape_argument("no bang"), "no bang");
    let template = parse_template("Args: $ARGUMENTS\n").0;
    let cx = super::ExpandContext::default();
    assert_eq!(super::expand(&template, "!`id`", &cx), "Args: \\! `id`\n");
    let bare = parse_template("Body.\n").0;
    assert_eq!(super::expand(&bare, "!`id`", &cx), "Body.\n\n\nARGUMENTS: \\! `id`");
}

#[test]
fn an_expansion_past_four_million_characters_is_refused() {
    let template = parse_template(&"$ARGUMENTS ".repeat(2_000)).0;
    let cx = super::ExpandContext::default();
    let arg = "x".repeat(50_000);
    let err = super::try_expand(&template, &arg, &cx, super::MAX_EXPANDED_CHARS).expect_err("over the cap");
    assert_eq!(
        err.to_string(),
        "This skill, command or hook and the arguments filled into it add up to more than 4,000,000 characters. Use shorter arguments or fewer placeholders such as $ARGUMENTS."
    );
    assert!(super::try_expand(&template, "short", &cx, super::MAX_EXPANDED_CHARS).is_ok());
}
