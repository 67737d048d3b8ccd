//! Permission rules as data: each case is a rule and the one-line rendering of its parse.

use super::*;

/// `Tool [from Legacy] [kind] [() | (*)] [content]`, or `error a..b: message | help: …`.
fn render(text: &str) -> String {
    match parse_permission_rule(text) {
        Err(error) => {
            assert!(error.span.slice(text).is_some(), "error span {:?} is not a slice of {text:?}", error.span);
            let mut out = format!("error {}..{}: {}", error.span.start, error.span.end, error.message);
            if let Some(help) = error.help {
                out.push_str(&format!(" | help: {help}"));
            }
            out
        }
        Ok(rule) => {
            assert_eq!(rule.span, Span::new(0, text.len()));
            assert_eq!(rule.tool.span.slice(text), Some(rule.tool.written.as_str()));
            let mut out = rule.tool.canonical.clone();
            if rule.tool.is_legacy_alias() {
                out.push_str(&format!(" from {}", rule.tool.written));
            }
            match &rule.tool.kind {
                ToolKind::Builtin => {}
                ToolKind::Unknown => out.push_str(" unknown"),
                ToolKind::Glob => out.push_str(" glob"),
                ToolKind::Mcp { server, tool } => {
                    out.push_str(&format!(" mcp server=`{server}`"));
                    if let Some(tool) = tool {
                        out.push_str(&format!(" tool=`{tool}`"));
                    }
                }
            }
            if let Some(specifier) = &rule.specifier {
                let written = specifier.span.slice(text).unwrap_or("<bad span>");
                assert!(written.starts_with('(') && written.ends_with(')'), "specifier span {written:?}");
                assert_eq!(specifier.content_span, Span::new(specifier.span.start + 1, specifier.span.end - 1));
                if rule.content.is_none() {
                    out.push_str(&format!(" ({})", specifier.text));
                }
            }
            if let Some(content) = &rule.content {
                out.push(' ');
                out.push_str(&render_content(content));
            }
            out
        }
    }
}

fn render_pieces(pieces: &[WildcardPiece]) -> String {
    pieces
        .iter()
        .map(|piece| match piece {
            WildcardPiece::Star => "*".to_owned(),
            WildcardPiece::Literal(text) => format!("`{text}`"),
        })
        .collect::<Vec<_>>()
        .join("")
}

fn render_content(content: &RuleContent) -> String {
    match content {
        RuleContent::Bash(BashPattern::Exact(command)) => format!("exact `{command}`"),
        RuleContent::Bash(BashPattern::Prefix(prefix)) => format!("prefix `{prefix}`"),
        RuleContent::Bash(BashPattern::Wildcard(pieces)) => format!("wildcard {}", render_pieces(pieces)),
        RuleContent::Path { anchor, glob } => {
            let anchor = match anchor {
                PathAnchor::Root => "root",
                PathAnchor::Home => "home",
                PathAnchor::SettingsDir => "settings",
                PathAnchor::Relative => "relative",
            };
            format!("path {anchor} `{glob}`")
        }
        RuleContent::Domain { host } => format!("domain `{host}`"),
        RuleContent::Skill(SkillPattern::Exact(name)) => format!("skill `{name}`"),
        RuleContent::Skill(SkillPattern::LegacyPrefix(name)) => format!("skill legacy-prefix `{name}`"),
        RuleContent::Skill(SkillPattern::AnyArgs(name)) => format!("skill any-args `{name}`"),
        RuleContent::Skill(SkillPattern::Wildcard(pieces)) => format!("skill wildcard {}", render_pieces(pieces)),
        RuleContent::AgentType(agent) => format!("agent `{agent}`"),
        RuleContent::Param { name, value } => format!("param `{name}`=`{value}`"),
        RuleContent::Raw(raw) => format!("raw `{raw}`"),
    }
}

#[track_caller]
fn check(text: &str, expected: &str) {
    assert_eq!(render(text), expected, "rule: {text:?}");
}

#[test]
fn bare_tools() {
    check("Read", "Read");
    check("Bash", "Bash");
    check("WebFetch", "WebFetch");
    check("EndConversation", "EndConversation");
    check("ToolSearch", "ToolSearch");
    check("LSP", "LSP");
    check("MultiEdit", "MultiEdit unknown");
    check("SlashCommand", "SlashCommand unknown");
    check("Frobnicate", "Frobnicate unknown");
    check("X", "X unknown");
    check("Bash_2", "Bash_2 unknown");
    check("Ünïcode", "Ünïcode unknown");
}

#[test]
fn whole_tool_specifiers() {
    check("Bash()", "Bash ()");
    check("Bash(*)", "Bash (*)");
    check("Read(*)", "Read (*)");
    check("Skill()", "Skill ()");
    check("Agent(*)", "Agent (*)");
    check("Frobnicate(*)", "Frobnicate unknown (*)");
    // Only a lone `*` is the whole tool.
    check("Bash(**)", "Bash wildcard **");
    check("Bash( * )", "Bash wildcard *");
}

#[test]
fn legacy_aliases() {
    check("Task", "Agent from Task");
    check("Task(Explore)", "Agent from Task agent `Explore`");
    check("KillShell", "TaskStop from KillShell");
    check("AgentOutputTool", "TaskOutput from AgentOutputTool");
    check("BashOutputTool", "TaskOutput from BashOutputTool");
    check("Brief", "SendUserMessage from Brief unknown");
    // Only the exact legacy spellings are aliases.
    check("BashOutput", "BashOutput unknown");
    check("Tasks", "Tasks unknown");
}

#[test]
fn bash_exact() {
    check("Bash(npm test)", "Bash exact `npm test`");
    check("Bash(git status)", "Bash exact `git status`");
    check("Bash(ls -la /tmp)", "Bash exact `ls -la /tmp`");
    check("Bash( padded )", "Bash exact ` padded `");
    check("Bash(echo \"a;b\")", "Bash exact `echo \"a;b\"`");
    check("Bash(git:log)", "Bash exact `git:log`");
    check("Bash(a:)", "Bash exact `a:`");
    check("PowerShell(Get-ChildItem)", "PowerShell exact `Get-ChildItem`");
}

#[test]
fn bash_legacy_prefix() {
    check("Bash(npm run:*)", "Bash prefix `npm run`");
    check("Bash(git:*)", "Bash prefix `git`");
    check("Bash(ls:*)", "Bash prefix `ls`");
    check("Bash(a::*)", "Bash prefix `a:`");
    check("Bash( :*)", "Bash prefix ` `");
    check("Bash(rm -rf:*)", "Bash prefix `rm -rf`");
    check("Bash(git * push:*)", "Bash prefix `git * push`");
    check("PowerShell(Get-Item:*)", "PowerShell prefix `Get-Item`");
}

#[test]
fn bash_legacy_prefix_errors() {
    check(
        "Bash(:*)",
        "error 5..7: expected a command prefix before `:*` | help: write a prefix, as in `Bash(npm run:*)`",
    );
    check(
        "Bash(git:* push)",
        "error 8..10: `:*` is only recognised at the end of a pattern | help: move `:*` to the end for a prefix rule, or use `*` as a wildcard anywhere",
    );
    check("Bash(a:*b:*)", "Bash prefix `a:*b`");
    check(
        "PowerShell(x:* y)",
        "error 12..14: `:*` is only recognised at the end of a pattern | help: move `:*` to the end for a prefix rule, or use `*` as a wildcard anywhere",
    );
}

#[test]
fn bash_wildcards() {
    check("Bash(git *)", "Bash wildcard `git `*");
    check("Bash(* install)", "Bash wildcard *` install`");
    check("Bash(git * main)", "Bash wildcard `git `*` main`");
    check("Bash(npm * --save)", "Bash wildcard `npm `*` --save`");
    check("Bash(*)", "Bash (*)");
    check("Bash(a*b*c)", "Bash wildcard `a`*`b`*`c`");
    // Leading and trailing whitespace of a wildcard pattern is dropped, as `matchWildcardPattern` trims.
    check("Bash(  git *  )", "Bash wildcard `git `*");
    check("Bash(git:* *)", "error 8..10: `:*` is only recognised at the end of a pattern | help: move `:*` to the end for a prefix rule, or use `*` as a wildcard anywhere");
}

#[test]
fn bash_escaped_stars_and_backslashes() {
    // `\*` is a literal star: no wildcard left, so the rule is exact and keeps the escape.
    check(r"Bash(echo \*)", r"Bash exact `echo \*`");
    check(r"Bash(echo \* *)", r"Bash wildcard `echo * `*");
    // `\\` (after rule unescaping, `\`) … the rule unescapes `\\` first, then the pattern sees `\*`.
    check(r"Bash(a\\*)", r"Bash exact `a\*`");
    check(r"Bash(a\\\\*)", r"Bash wildcard `a\`*");
    check(r"Bash(a\b)", r"Bash exact `a\b`");
}

#[test]
fn escaped_parentheses() {
    check(r"Bash(python -c print\(1\))", "Bash exact `python -c print(1)`");
    check(r#"Bash(python -c "print\(1\)")"#, r#"Bash exact `python -c "print(1)"`"#);
    check(r"Bash(echo \(hi\) *)", "Bash wildcard `echo (hi) `*");
    check(r"Bash(a\\b)", r"Bash exact `a\b`");
    check(r"Bash(\\)", r"Bash exact `\`");
    check(r"Bash(psycopg2.connect\(\))", "Bash exact `psycopg2.connect()`");
    check(r"Bash(\()", "Bash exact `(`");
    check(r"Bash(\))", "Bash exact `)`");
}

#[test]
fn balanced_inner_parentheses() {
    check("Bash(echo (hi))", "Bash exact `echo (hi)`");
    check("Bash(f (a) (b))", "Bash exact `f (a) (b)`");
    // Only the counts must agree: the content runs to the last `)`.
    check("Bash(a)(b)", "Bash exact `a)(b`");
    check("Read(src/(x)/**)", "Read path relative `src/(x)/**`");
}

#[test]
fn parenthesis_errors() {
    check("Bash(npm", "error 8..8: expected `)` to close `Bash(`");
    check("Bash(", "error 5..5: expected `)` to close `Bash(`");
    check("Read(src/**", "error 11..11: expected `)` to close `Read(`");
    check(r"Bash(a\)", "error 8..8: expected `)` to close `Bash(` | help: the final `)` is escaped by the `\\` before it; write `\\\\)` for a literal backslash");
    check("Bash(ls) -la", "error 8..12: unexpected text after `)` | help: a rule ends with the `)` that closes its specifier; escape a literal `)` as `\\)`");
    check("Bash(a) ", "error 7..8: unexpected text after `)` | help: a rule ends with the `)` that closes its specifier; escape a literal `)` as `\\)`");
    check("Bash(a))", "error 6..7: unmatched `)` | help: escape a literal parenthesis as `\\)`");
    check("Bash(a)b)", "error 6..7: unmatched `)` | help: escape a literal parenthesis as `\\)`");
    check("Bash(a(b)", "error 6..7: unmatched `(` | help: escape a literal parenthesis as `\\(`");
    check("Bash((()", "error 6..7: unmatched `(` | help: escape a literal parenthesis as `\\(`");
    check(
        "Bash(echo ())",
        "error 10..12: empty `()` inside a rule | help: Claude Code rejects an unescaped `()`; write `\\(\\)`",
    );
    check(r"Bash(echo \())", "error 12..13: unmatched `)` | help: escape a literal parenthesis as `\\)`");
    check("Bash)", "error 4..5: unmatched `)`");
    check("Bash)(x)", "error 4..5: unmatched `)`");
    check("((((((", "error 0..0: expected a tool name before `(` | help: a rule is `Tool` or `Tool(specifier)`");
    check("(foo)", "error 0..0: expected a tool name before `(` | help: a rule is `Tool` or `Tool(specifier)`");
    check(")", "error 0..0: expected a tool name before `(` | help: a rule is `Tool` or `Tool(specifier)`");
}

#[test]
fn empty_and_whitespace() {
    check("", "error 0..0: expected a tool name, found an empty rule");
    check("   ", "error 0..3: expected a tool name, found an empty rule");
    check(" Bash", "error 0..5: tool name ` Bash` contains whitespace | help: use the canonical name `Bash`");
    check("Bash ", "error 0..5: tool name `Bash ` contains whitespace | help: use the canonical name `Bash`");
    check("Bash (ls)", "error 0..5: tool name `Bash ` contains whitespace | help: use the canonical name `Bash`");
    check("Stop Task", "error 0..9: tool name `Stop Task` contains whitespace | help: tool names have no spaces; use the canonical name, not the UI label");
    check(
        "Web Fetch(domain:x.com)",
        "error 0..9: tool name `Web Fetch` contains whitespace | help: use the canonical name `WebFetch`",
    );
    check("Ba\\sh", "error 2..3: unexpected `\\` in tool name");
}

#[test]
fn tool_names_start_uppercase() {
    check("bash", "error 0..4: tool name `bash` must start with an uppercase letter | help: did you mean `Bash`?");
    check("bash(ls)", "error 0..4: tool name `bash` must start with an uppercase letter | help: did you mean `Bash`?");
    check(
        "webfetch",
        "error 0..8: tool name `webfetch` must start with an uppercase letter | help: did you mean `WebFetch`?",
    );
    check("frob", "error 0..4: tool name `frob` must start with an uppercase letter | help: did you mean `Frob`?");
    check("mcp", "error 0..3: tool name `mcp` must start with an uppercase letter | help: did you mean `Mcp`?");
    check("mcp__", "error 0..5: tool name `mcp__` must start with an uppercase letter | help: did you mean `Mcp__`?");
    check(
        "écrire",
        "error 0..7: tool name `écrire` must start with an uppercase letter | help: did you mean `Écrire`?",
    );
    // Characters without case pass, as in Claude Code.
    check("1Password", "1Password unknown");
    check("_x", "_x unknown");
}

#[test]
fn mcp_rules() {
    check("mcp__github", "mcp__github mcp server=`github`");
    check("mcp__github__*", "mcp__github__* mcp server=`github` tool=`*`");
    check("mcp__github__get_issue", "mcp__github__get_issue mcp server=`github` tool=`get_issue`");
    check("mcp__github__get_*", "mcp__github__get_* mcp server=`github` tool=`get_*`");
    check("mcp__*", "mcp__* mcp server=`*`");
    check("mcp__*__read", "mcp__*__read mcp server=`*` tool=`read`");
    check("mcp__plugin_p_s__t", "mcp__plugin_p_s__t mcp server=`plugin_p_s` tool=`t`");
    check("mcp__claude_ai_Slack__send", "mcp__claude_ai_Slack__send mcp server=`claude_ai_Slack` tool=`send`");
    // A server containing `__` is mis-split, exactly as Claude Code splits it.
    check("mcp__my__server__tool", "mcp__my__server__tool mcp server=`my` tool=`server__tool`");
    check("mcp__a-b__c-d", "mcp__a-b__c-d mcp server=`a-b` tool=`c-d`");
}

#[test]
fn mcp_errors() {
    check("mcp__github(x)", "error 11..14: an MCP rule takes no specifier in parentheses | help: write `mcp__github`, or `mcp__github__*` for every tool of `github`");
    check("mcp__github__x(*)", "error 14..17: an MCP rule takes no specifier in parentheses | help: write `mcp__github__x`, or `mcp__github__*` for every tool of `github`");
    check("mcp__github()", "error 11..13: an MCP rule takes no specifier in parentheses | help: write `mcp__github`, or `mcp__github__*` for every tool of `github`");
    check("mcp__srv__", "error 0..10: expected a tool name after `mcp__srv__` | help: write `mcp__srv` or `mcp__srv__*` for every tool of `srv`");
    check("mcp__claude.ai__x", "error 0..17: tool name `mcp__claude.ai__x` is not normalised | help: Claude Code replaces characters outside `[A-Za-z0-9_-]` with `_`: write `mcp__claude_ai__x`");
    check("mcp__srv__a.b", "error 0..13: tool name `mcp__srv__a.b` is not normalised | help: Claude Code replaces characters outside `[A-Za-z0-9_-]` with `_`: write `mcp__srv__a_b`");
}

#[test]
fn tool_name_globs() {
    check("*", "* glob");
    check("B*", "B* glob");
    check("Task*", "Task* glob");
    check("*(x)", "* glob raw `x`");
    check("*(mode:fast)", "* glob param `mode`=`fast`");
}

#[test]
fn path_rules() {
    check("Read(//etc/passwd)", "Read path root `etc/passwd`");
    check("Read(~/.ssh/**)", "Read path home `.ssh/**`");
    check("Read(/src/**)", "Read path settings `src/**`");
    check("Read(./.env)", "Read path relative `.env`");
    check("Read(.env)", "Read path relative `.env`");
    check("Read(*.ts)", "Read path relative `*.ts`");
    check("Edit(src/**/*.rs)", "Edit path relative `src/**/*.rs`");
    check("Edit(/docs/**)", "Edit path settings `docs/**`");
    check("Read(~)", "Read path relative `~`");
    check("Read(//)", "Read path root ``");
    check("Read(///x)", "Read path root `/x`");
    check("Read(.//x)", "Read path relative `/x`");
    check("Read(C:/x)", "Read path relative `C:/x`");
    check("Write(*.lock)", "Write path relative `*.lock`");
    check("NotebookEdit(a.ipynb)", "NotebookEdit path relative `a.ipynb`");
    check("Glob(src/*)", "Glob path relative `src/*`");
    check("MultiEdit(x)", "MultiEdit unknown path relative `x`");
    check(r"Read(a\(1\).txt)", "Read path relative `a(1).txt`");
    check("Read(src/foo*bar.ts)", "Read path relative `src/foo*bar.ts`");
}

#[test]
fn path_rule_errors() {
    check(
        "Read(src:*)",
        "error 8..10: `:*` is only for Bash prefix rules | help: use a glob, as in `Read(src/**)` or `Read(*.ts)`",
    );
    check(
        "Edit(a:*b)",
        "error 6..8: `:*` is only for Bash prefix rules | help: use a glob, as in `Edit(src/**)` or `Edit(*.ts)`",
    );
}

#[test]
fn webfetch_rules() {
    check("WebFetch(domain:example.com)", "WebFetch domain `example.com`");
    check("WebFetch(domain:*.example.com)", "WebFetch domain `*.example.com`");
    check("WebFetch(domain:*)", "WebFetch domain `*`");
    check("WebFetch(domain:api.*.example.com)", "WebFetch domain `api.*.example.com`");
    check("WebFetch(domain:Example.COM.)", "WebFetch domain `Example.COM.`");
    check("WebFetch(domain:localhost:8080)", "WebFetch domain `localhost:8080`");
    check("WebFetch(prompt:*summar*)", "WebFetch param `prompt`=`*summar*`");
}

#[test]
fn webfetch_errors() {
    check(
        "WebFetch(https://example.com/a)",
        "error 9..30: `WebFetch` rules name a domain, not a URL | help: write `WebFetch(domain:example.com)`",
    );
    check(
        "WebFetch(http)",
        "error 9..13: `WebFetch` rules name a domain, not a URL | help: write `WebFetch(domain:http)`",
    );
    check(
        "WebFetch(domain:https://x.com)",
        "error 9..29: `WebFetch` rules name a domain, not a URL | help: write `WebFetch(domain:x.com)`",
    );
    check(
        "WebFetch(example.com)",
        "error 9..20: `WebFetch` rules must start with `domain:` | help: write `WebFetch(domain:example.com)`",
    );
    check("WebFetch(domain:)", "error 16..16: expected a host after `domain:` | help: write `domain:example.com`, `domain:*.example.com` or `domain:*`");
    check("WebFetch(domain:x.com/path)", "error 21..22: a `domain:` rule takes a host name only | help: drop the path, query and user part; a domain rule covers every URL on the host");
    check("WebFetch(domain:a b)", "error 17..18: a `domain:` rule takes a host name only | help: drop the path, query and user part; a domain rule covers every URL on the host");
    check("WebFetch(domain:a\u{3000}b)", "error 17..20: a `domain:` rule takes a host name only | help: drop the path, query and user part; a domain rule covers every URL on the host");
}

#[test]
fn skill_rules() {
    check("Skill(review)", "Skill skill `review`");
    check("Skill(/review)", "Skill skill `review`");
    check("Skill(review:*)", "Skill skill legacy-prefix `review`");
    check("Skill(/review:*)", "Skill skill legacy-prefix `review`");
    check("Skill(review *)", "Skill skill any-args `review`");
    check("Skill(my-plugin:review)", "Skill skill `my-plugin:review`");
    check("Skill(my-plugin:review *)", "Skill skill any-args `my-plugin:review`");
    check("Skill(review-*)", "Skill skill wildcard `review-`*");
    check("Skill(a * b)", "Skill skill wildcard `a `*` b`");
    check("Skill(//x)", "Skill skill `/x`");
    check("Skill(/)", "error 6..7: expected a skill name after `/`");
    check("Skill(:*)", "Skill skill legacy-prefix ``");
}

#[test]
fn agent_rules() {
    check("Agent(Explore)", "Agent agent `Explore`");
    check("Agent(general-purpose)", "Agent agent `general-purpose`");
    check("Agent(my-plugin:reviewer)", "Agent agent `my-plugin:reviewer`");
    check("Agent(a b)", "Agent agent `a b`");
}

#[test]
fn parameter_rules() {
    check("Grep(output_mode:content)", "Grep param `output_mode`=`content`");
    check("Grep( output_mode : content )", "Grep param `output_mode`=`content`");
    check("TaskCreate(subject:*deploy*)", "TaskCreate param `subject`=`*deploy*`");
    check("Grep(path:/etc)", "Grep param `path`=`/etc`");
    check("Frobnicate(level:3)", "Frobnicate unknown param `level`=`3`");
    check("Grep(a:)", "Grep param `a`=``");
    check("Grep(9a:b)", "Grep raw `9a:b`");
    check("Grep(:b)", "Grep raw `:b`");
    check("Grep(a-b:c)", "Grep raw `a-b:c`");
    check("Grep(TODO)", "Grep raw `TODO`");
    check("WebSearch(claude code)", "WebSearch raw `claude code`");
    check("WebSearch(query:rust*)", "WebSearch param `query`=`rust*`");
}

#[test]
fn websearch_wildcards() {
    check("WebSearch(rust*)", "error 10..15: `WebSearch` rules take no wildcards | help: write the exact search terms");
    check("WebSearch(what?)", "error 10..15: `WebSearch` rules take no wildcards | help: write the exact search terms");
}

#[test]
fn unicode_content_keeps_spans_on_char_boundaries() {
    check("Bash(echo ünïcode)", "Bash exact `echo ünïcode`");
    check("Bash(echo 文字 *)", "Bash wildcard `echo 文字 `*");
    check("Read(~/Документы/**)", "Read path home `Документы/**`");
    check("Bash(é", "error 7..7: expected `)` to close `Bash(`");
    check("Ba🎉(x)", "Ba🎉 unknown raw `x`");
}

#[test]
fn suggestions_for_unknown_tools() {
    let suggestion = |text: &str| parse_permission_rule(text).ok().and_then(|rule| rule.tool.suggestion());
    assert_eq!(suggestion("Bsh"), Some("Bash"));
    assert_eq!(suggestion("WebFech"), Some("WebFetch"));
    assert_eq!(suggestion("BASH"), Some("Bash"));
    assert_eq!(suggestion("Frobnicate"), None);
    assert_eq!(suggestion("Bash"), None);
}

#[test]
fn glob_anchoring() {
    let anchored =
        |text: &str| parse_permission_rule(text).map(|rule| (rule.tool.is_glob(), rule.tool.is_anchored_glob()));
    assert_eq!(anchored("mcp__github__get_*"), Ok((true, true)));
    assert_eq!(anchored("mcp__github__*"), Ok((true, true)));
    assert_eq!(anchored("mcp__*"), Ok((true, false)));
    assert_eq!(anchored("mcp__g*__x"), Ok((true, false)));
    assert_eq!(anchored("*"), Ok((true, false)));
    assert_eq!(anchored("mcp__github"), Ok((false, false)));
}

#[test]
fn unescape_matches_claude_codes_three_replacements() {
    // Claude Code replaces `\(`, then `\)`, then `\\`; one left-to-right pass must agree.
    fn three_passes(raw: &str) -> String {
        raw.replace("\\(", "(").replace("\\)", ")").replace("\\\\", "\\")
    }
    let alphabet = ['\\', '(', ')', 'a'];
    for len in 0..=6u32 {
        for n in 0..alphabet.len().pow(len) {
            let mut raw = String::new();
            let mut rest = n;
            for _ in 0..len {
                raw.push(alphabet[rest % alphabet.len()]);
                rest /= alphabet.len();
            }
            assert_eq!(unescape(&raw), three_passes(&raw), "raw: {raw:?}");
        }
    }
}

/// The error table of GRAMMAR.md says what the parser says: each row's input gives its message.
#[test]
fn grammar_md_error_table_is_accurate() {
    let doc = include_str!("../../GRAMMAR.md");
    let start = doc.find("### Errors").expect("GRAMMAR.md has an error table");
    let end = doc[start..].find("### Matching").map_or(doc.len(), |end| start + end);
    let mut rows = 0;
    for line in doc[start..end].lines().filter(|line| line.starts_with("| `")) {
        let input = line.split('`').nth(1).expect("an input in backticks");
        let message = line.split("``").nth(1).expect("a message in double backticks").trim();
        let rendered = render(input);
        assert!(
            rendered.starts_with(&format!("error {message}")),
            "GRAMMAR.md says `{message}` for `{input}`, the parser says `{rendered}`"
        );
        rows += 1;
    }
    assert!(rows >= 10, "only {rows} rows found");
}

/// Rules without parentheses skip the grammar; what they give must not change. (Blank rules
/// are answered before either path.)
#[test]
fn rules_without_parentheses_parse_as_the_grammar_parses_them() {
    let cases = [
        "Read",
        "Bash",
        "bash",
        "mcp__github",
        "mcp__github__search_issues",
        "mcp__github__*",
        "mcp__",
        "mcp____x",
        "Task",
        "Agent",
        "KillShell",
        "Web Fetch",
        " Read",
        "Read ",
        "Re\\ad",
        "*",
        "Bash:*",
        "Bash git:*",
        "Édition",
        "ＲＥＡＤ",
        "Read\u{2003}",
        "mcp__a b__c",
        "Skill",
        "LS",
        " \tRead",
        "x",
    ];
    for text in cases {
        assert_eq!(parse_permission_rule(text), parse_with_grammar(text), "{text:?}");
    }
}
