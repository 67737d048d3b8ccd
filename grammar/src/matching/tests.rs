//! Decisions as data. Rules are lines `behavior rule [@settings-dir]`; a call is `Tool` or
//! `Tool: primary`. The cwd is `/repo`, home `/home/u`; rules without `@dir` anchor `/x` at `/repo`.

use super::*;
use crate::{decide, parse_permission_rule};

fn rules_of(rules: &str) -> Vec<SourcedRule> {
    rules
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .enumerate()
        .map(|(index, line)| {
            let (behavior, rest) = line.split_once(' ').unwrap_or((line, ""));
            let (rule, settings_dir) = match rest.rsplit_once(" @") {
                Some((rule, dir)) => (rule, Some(dir.to_owned())),
                None => (rest, None),
            };
            let behavior = match behavior {
                "deny" => Behavior::Deny,
                "ask" => Behavior::Ask,
                "allow" => Behavior::Allow,
                other => panic!("unknown behavior {other:?}"),
            };
            let rule = parse_permission_rule(rule).unwrap_or_else(|error| panic!("bad rule {rule:?}: {error}"));
            SourcedRule { rule, behavior, source: format!("source{index}"), settings_dir }
        })
        .collect()
}

fn render(decision: &Decision) -> String {
    let Some(behavior) = decision.behavior.map(Behavior::as_str) else { return "passthrough".to_owned() };
    let Some(index) = decision.rule else { return behavior.to_owned() };
    assert_eq!(decision.source.as_deref(), Some(format!("source{index}").as_str()));
    format!("{behavior} {index}")
}

const CX: MatchContext<'static> = MatchContext { cwd: "/repo", home: "/home/u", settings_dir: Some("/repo") };

/// `expected` is `deny 0`, `ask 1`, `allow 2` (the deciding rule's line) or `passthrough`.
#[track_caller]
fn check(rules: &str, call: &str, expected: &str) {
    check_with_params(rules, call, &[], expected);
}

/// Rules only ([`decide_by_rules`]): how each rule reads a command, before Claude Code's Bash
/// pipeline (`crate::bash`, tested there) adds read-only commands, paths and refusals.
#[track_caller]
fn check_rules(rules: &str, call: &str, expected: &str) {
    let rules = rules_of(rules);
    let (tool, primary) = call.split_once(": ").map_or((call, None), |(tool, primary)| (tool, Some(primary)));
    let call = ToolCall { tool, primary, params: &[] };
    assert_eq!(render(&decide_by_rules(&rules, &call, &CX)), expected, "call: {call:?}");
}

#[track_caller]
fn check_with_params(rules: &str, call: &str, params: &[(&str, &str)], expected: &str) {
    let rules = rules_of(rules);
    let (tool, primary) = match call.split_once(": ") {
        Some((tool, primary)) => (tool, Some(primary)),
        None => (call, None),
    };
    let call = ToolCall { tool, primary, params };
    assert_eq!(render(&decide(&rules, &call, &CX)), expected, "call: {call:?}");
}

#[test]
fn order_is_deny_ask_allow() {
    check("allow Bash\ndeny Bash", "Bash: ls", "deny 1");
    check("allow Bash(git *)\nask Bash", "Bash: git push", "ask 1");
    // Claude Code asks for a whole-tool ask rule before the Bash check reads deny rules.
    check("ask Bash\ndeny Bash(rm:*)", "Bash: rm -rf x", "ask 0");
    check("ask Bash\ndeny Bash(rm:*)", "Bash: ls", "ask 0");
    check("allow Bash(git *)\nallow Bash", "Bash: git log", "allow 0");
    // The Bash check's content rules decide before a whole-tool allow is consulted.
    check("allow Bash\nallow Bash(git *)", "Bash: git log", "allow 1");
    check("allow Read", "Bash: ls", "allow");
    check("", "Bash: ls", "allow");
    check("", "Bash: npm test", "ask");
}

#[test]
fn whole_tool_rules() {
    check("allow Read", "Read: /repo/a", "allow 0");
    check("allow Read", "Glob: /repo", "passthrough");
    check("allow Bash()", "Bash: anything", "allow 0");
    check("allow Bash(*)", "Bash", "allow 0");
    check("deny WebSearch", "WebSearch", "deny 0");
    check("allow Task", "Agent: Explore", "allow 0");
    check("allow Agent", "Task: Explore", "allow 0");
    check("deny KillShell", "TaskStop", "deny 0");
    check("allow Frobnicate", "Frobnicate", "allow 0");
}

#[test]
fn bash_prefix_rules() {
    let rules = "allow Bash(npm run:*)";
    check_rules(rules, "Bash: npm run test", "allow 0");
    check_rules(rules, "Bash: npm run", "allow 0");
    check_rules(rules, "Bash:   npm run build  ", "allow 0");
    check_rules(rules, "Bash: npm runner", "passthrough");
    check_rules(rules, "Bash: npm install", "passthrough");
    check_rules("allow Bash(ls:*)", "Bash: lsof", "passthrough");
    check_rules("allow Bash(ls:*)", "Bash: ls -la", "allow 0");
    check_rules("allow Bash(grep:*)", "Bash: xargs grep foo", "allow 0");
    check_rules("allow Bash(grep:*)", "Bash: xargs -n1 grep foo", "passthrough");
    check_rules("allow Bash(git * push:*)", "Bash: git * push origin", "allow 0");
}

#[test]
fn bash_wildcard_rules() {
    check_rules("allow Bash(git *)", "Bash: git push", "allow 0");
    check_rules("allow Bash(git *)", "Bash: git", "allow 0");
    check_rules("allow Bash(git *)", "Bash: gitk", "passthrough");
    check_rules("allow Bash(* install)", "Bash: npm install", "allow 0");
    check_rules("allow Bash(* install)", "Bash: install", "passthrough");
    check_rules("allow Bash(git * main)", "Bash: git checkout main", "allow 0");
    check_rules("allow Bash(git * main)", "Bash: git main", "passthrough");
    check_rules("allow Bash(* run *)", "Bash: npm run", "passthrough");
    check_rules("allow Bash(* run *)", "Bash: npm run x", "allow 0");
    check_rules("allow Bash(ls*)", "Bash: lsof", "allow 0");
    check_rules(r"allow Bash(echo \* *)", "Bash: echo * x", "allow 0");
    check_rules(r"allow Bash(echo \* *)", "Bash: echo a x", "passthrough");
    check_rules("allow Bash(cat *)", "Bash: cat a\nb", "passthrough");
    check_rules("allow Bash(echo *)", "Bash: echo \"a\nb\"", "allow 0");
}

#[test]
fn bash_exact_rules() {
    check_rules("allow Bash(npm test)", "Bash: npm test", "allow 0");
    check_rules("allow Bash(npm test)", "Bash:  npm test  ", "allow 0");
    check_rules("allow Bash(npm test)", "Bash: npm test --watch", "passthrough");
    check_rules("allow Bash(npm test)", "Bash: npm  test", "passthrough");
    check_rules(r"allow Bash(echo \*)", r"Bash: echo \*", "allow 0");
    check_rules("allow Bash(echo hi)", "Bash: echo hi > out.txt", "allow 0");
    check_rules("allow Bash(a && b)", "Bash: a && b", "allow 0");
}

#[test]
fn compound_commands() {
    check_rules("allow Bash(git *)", "Bash: git add . && git commit -m x", "allow 0");
    check_rules("allow Bash(git *)", "Bash: git add . && rm -rf /", "passthrough");
    check_rules("allow Bash(git *)\ndeny Bash(rm:*)", "Bash: git add . && rm -rf /", "deny 1");
    check_rules("allow Bash(cd:*)\nallow Bash(make:*)", "Bash: cd src && make", "allow 0");
    check_rules("allow Bash(make:*)\nallow Bash(cd:*)", "Bash: cd src && make", "allow 1");
    check_rules("allow Bash(cd:*)", "Bash: cd /path && python3 evil.py", "passthrough");
    check_rules("allow Bash(cd *)", "Bash: cd /path && python3 evil.py", "passthrough");
    check_rules("allow Bash(ls:*)\nallow Bash(wc:*)", "Bash: ls | wc -l", "allow 0");
    check_rules("allow Bash(ls:*)", "Bash: ls; ls -a || ls -b", "allow 0");
    check_rules("allow Bash(git *)", "Bash: git status\nrm -rf /", "passthrough");
    check_rules("deny Bash(rm:*)", "Bash: echo hi; rm -rf /", "deny 0");
    check_rules("deny Bash(rm:*)", "Bash: echo hi | xargs rm", "deny 0");
    check_rules("deny Bash(rm:*)", "Bash: sleep 1 & rm x", "deny 0");
    check_rules("deny Bash(curl:*)", "Bash: a |& curl x", "deny 0");
    check_rules("ask Bash(git push:*)", "Bash: git add . && git push", "ask 0");
    // Operators inside quotes and substitutions do not split.
    check_rules("allow Bash(echo:*)", "Bash: echo 'a && b'", "allow 0");
    check_rules("allow Bash(echo:*)", "Bash: echo \"a; b\"", "allow 0");
    check_rules("allow Bash(echo:*)", "Bash: echo $(a; b)", "allow 0");
    check_rules("allow Bash(echo:*)", "Bash: echo `a; b`", "allow 0");
    check_rules("allow Bash(echo:*)", r"Bash: echo a\; b", "allow 0");
    // A comment is not a command, and nothing after `#` on its line splits.
    check_rules("allow Bash(git *)", "Bash: # look first\ngit status", "allow 0");
    check_rules("allow Bash(echo:*)", "Bash: echo hi # ; rm -rf /", "allow 0");
    // Redirections that contain `&` are not separators.
    check_rules("allow Bash(make:*)", "Bash: make 2>&1", "allow 0");
    check_rules("allow Bash(make:*)", "Bash: make &> log", "allow 0");
}

#[test]
fn wrappers_are_stripped() {
    let rules = "allow Bash(npm install:*)";
    check_rules(rules, "Bash: timeout 10 npm install foo", "allow 0");
    check_rules(rules, "Bash: timeout 1.5m npm install", "allow 0");
    check_rules(rules, "Bash: timeout -s KILL 10 npm install", "allow 0");
    check_rules(rules, "Bash: timeout --signal=TERM -k 5 10 npm install", "allow 0");
    check_rules(rules, "Bash: timeout -- 10 npm install", "allow 0");
    check_rules(rules, "Bash: time npm install", "allow 0");
    check_rules(rules, "Bash: nice npm install", "allow 0");
    check_rules(rules, "Bash: nice -n 5 npm install", "allow 0");
    check_rules(rules, "Bash: nice -10 npm install", "allow 0");
    check_rules(rules, "Bash: nohup npm install", "allow 0");
    check_rules(rules, "Bash: nohup -- npm install", "allow 0");
    check_rules(rules, "Bash: stdbuf -oL -e0 npm install", "allow 0");
    check_rules(rules, "Bash: command npm install", "allow 0");
    check_rules(rules, "Bash: builtin npm install", "allow 0");
    check_rules(rules, "Bash: noglob npm install", "allow 0");
    check_rules(rules, "Bash: nohup timeout 5 nice npm install", "allow 0");
    // What the wrappers' own syntax does not allow is left alone.
    check_rules(rules, "Bash: timeout -k$(id) 10 npm install", "passthrough");
    check_rules(rules, "Bash: timeout npm install", "passthrough");
    check_rules(rules, "Bash: command -p npm install", "passthrough");
    check_rules(rules, "Bash: stdbuf npm install", "passthrough");
    check_rules(rules, "Bash: timeout\n10 npm install", "passthrough");
}

#[test]
fn environment_assignments() {
    check_rules("allow Bash(go build:*)", "Bash: GOOS=linux go build", "allow 0");
    check_rules("allow Bash(go build:*)", "Bash: GOOS=linux GOARCH=arm64 go build ./...", "allow 0");
    check_rules("allow Bash(go build:*)", "Bash: FOO=bar go build", "passthrough");
    check_rules("allow Bash(go build:*)", "Bash: GOOS=$(id) go build", "passthrough");
    check_rules("allow Bash(go build:*)", "Bash: nohup GOOS=linux go build", "passthrough");
    check_rules("deny Bash(go build:*)", "Bash: FOO=bar go build", "deny 0");
    check_rules("deny Bash(rm:*)", "Bash: nohup FOO=bar timeout 5 rm -rf x", "deny 0");
    check_rules("deny Bash(rm:*)", "Bash: A='x y' B=\"z\" C+=1 D[0]=2 rm x", "deny 0");
    check_rules("ask Bash(docker:*)", "Bash: DOCKER_HOST=tcp://evil docker ps", "ask 0");
    check_rules("allow Bash(docker:*)", "Bash: DOCKER_HOST=tcp://evil docker ps", "passthrough");
    check_rules("deny Bash(rm:*)", "Bash: FOO=$(x) rm y", "passthrough");
}

#[test]
fn redirections_are_stripped() {
    check_rules("allow Bash(python:*)", "Bash: python x.py > out.txt", "allow 0");
    check_rules("allow Bash(python:*)", "Bash: python x.py >> out.txt 2> err.txt", "allow 0");
    check_rules("allow Bash(python *)", "Bash: python x.py >/dev/null 2>&1", "allow 0");
    check_rules("allow Bash(python x.py)", "Bash: python x.py > 'a b.txt'", "allow 0");
    check_rules("allow Bash(echo:*)", "Bash: echo '>' x", "allow 0");
}

#[test]
fn powershell_is_case_insensitive() {
    check_rules("allow PowerShell(Get-ChildItem:*)", "PowerShell: get-childitem -Recurse", "allow 0");
    check_rules("allow PowerShell(Get-* *)", "PowerShell: GET-ITEM x", "allow 0");
    check_rules("allow Bash(Git:*)", "Bash: git status", "passthrough");
    check_rules("allow Bash(ls:*)", "PowerShell: ls", "passthrough");
}

#[test]
fn path_rules() {
    check("deny Read(.env)", "Read: /repo/.env", "deny 0");
    check("deny Read(.env)", "Read: /repo/sub/dir/.env", "deny 0");
    check("deny Read(.env)", "Read: /other/.env", "passthrough");
    check("deny Read(./.env)", "Read: /repo/a/.env", "deny 0");
    check("deny Read(.ENV)", "Read: /repo/.env", "deny 0");
    check("deny Read(~/.ssh/**)", "Read: /home/u/.ssh/id_rsa", "deny 0");
    check("deny Read(~/.ssh/**)", "Read: /home/u/x/.ssh/id_rsa", "passthrough");
    check("deny Read(~/.ssh/**)", "Read: ~/.ssh/config", "deny 0");
    check("deny Read(//etc/**)", "Read: /etc/passwd", "deny 0");
    check("deny Read(//etc/**)", "Read: /repo/etc/passwd", "passthrough");
    check("deny Read(//etc)", "Read: /etc", "deny 0");
    check("allow Read(/src/**)", "Read: /repo/src/a.ts", "allow 0");
    check("allow Read(/src/**)", "Read: /repo/lib/src/a.ts", "passthrough");
    check("allow Read(/x) @/home/u/.claude", "Read: /x", "passthrough");
    check("allow Read(/x) @/home/u/.claude", "Read: /home/u/.claude/x", "allow 0");
    check("allow Read(src/*.ts)", "Read: /repo/src/a.ts", "allow 0");
    check("allow Read(src/*.ts)", "Read: /repo/src/x/a.ts", "passthrough");
    check("allow Read(**/*.test.ts)", "Read: /repo/a/b/c.test.ts", "allow 0");
    check("allow Read(**/*.test.ts)", "Read: /repo/c.test.ts", "allow 0");
    check("allow Read(a/**/b)", "Read: /repo/a/b", "allow 0");
    check("allow Read(a/**/b)", "Read: /repo/a/x/y/b", "allow 0");
    check("allow Read(a/**/b)", "Read: /repo/a/x/y/c", "passthrough");
    check("deny Read(docs/)", "Read: /repo/docs/a.md", "deny 0");
    check("deny Read(docs/)", "Read: /repo/docs", "passthrough");
    check("allow Read([ab].txt)", "Read: /repo/a.txt", "allow 0");
    check("allow Read([ab].txt)", "Read: /repo/c.txt", "passthrough");
    check("allow Read([!ab].txt)", "Read: /repo/c.txt", "allow 0");
    check("allow Read(?.txt)", "Read: /repo/x.txt", "allow 0");
    check("allow Read(?.txt)", "Read: /repo/xy.txt", "passthrough");
    check("allow Read(!x)", "Read: /repo/y", "passthrough");
    check("allow Read(#x)", "Read: /repo/#x", "passthrough");
    check(r"allow Read(\#x)", "Read: /repo/#x", "allow 0");
}

#[test]
fn path_inputs_are_resolved() {
    check("deny Read(.env)", "Read: .env", "deny 0");
    check("deny Read(/src/**)", "Read: src/../src/a", "deny 0");
    check("deny Read(.env)", "Read: /repo/src/../.env", "deny 0");
    check("deny Read(.env)", "Read: /repo/../repo//./.env", "deny 0");
    // `Read(*)` is the whole tool; `**` is a glob, and the cwd itself is never matched.
    check("deny Read(*)", "Read: /repo", "deny 0");
    check("deny Read(**)", "Read: /repo", "passthrough");
    check("deny Read(**)", "Read: ", "passthrough");
    check("deny Read(**)", "Read: /repo/x", "deny 0");
}

#[test]
fn dir_patterns_are_anchored_for_allow_only() {
    check("allow Edit(src/**)", "Edit: /repo/src/a.ts", "allow 0");
    check("allow Edit(src/**)", "Edit: /repo/lib/src/a.ts", "passthrough");
    check("deny Edit(src/**)", "Edit: /repo/lib/src/a.ts", "deny 0");
    check("ask Edit(src/**)", "Edit: /repo/lib/src/a.ts", "ask 0");
}

#[test]
fn tool_families() {
    check("allow Edit(*.md)", "Write: /repo/docs/a.md", "allow 0");
    check("allow Edit(*.md)", "MultiEdit: /repo/a.md", "allow 0");
    check("allow Edit(*.ipynb)", "NotebookEdit: /repo/a.ipynb", "allow 0");
    check("allow Edit(*.md)", "Read: /repo/a.md", "passthrough");
    check("deny Read(secrets/**)", "Glob: /repo/secrets", "deny 0");
    check("deny Read(secrets/**)", "Grep: /repo/secrets/x", "deny 0");
    check("deny Read(secrets/**)", "Edit: /repo/secrets/k", "deny 0");
    check("deny Read(secrets/**)", "Write: /repo/secrets/k", "deny 0");
    check("ask Read(secrets/**)", "Edit: /repo/secrets/k", "passthrough");
    check("allow Read(secrets/**)", "Edit: /repo/secrets/k", "passthrough");
    // Path rules on these tools are accepted but never consulted (v2.1.210+).
    check("allow Write(*.md)", "Write: /repo/a.md", "passthrough");
    check("deny Glob(*.ts)", "Glob: /repo/a.ts", "passthrough");
    check("deny NotebookEdit(**)", "NotebookEdit: /repo/a.ipynb", "passthrough");
}

#[test]
fn webfetch_domains() {
    let rules = "allow WebFetch(domain:example.com)";
    check(rules, "WebFetch: https://example.com/x", "allow 0");
    check(rules, "WebFetch: https://EXAMPLE.com./", "allow 0");
    check(rules, "WebFetch: http://user:pw@example.com:8080/a?b#c", "allow 0");
    check(rules, "WebFetch: https://api.example.com", "passthrough");
    check(rules, "WebFetch: https://example.com.evil.net", "passthrough");
    check(rules, "WebFetch: example.com", "passthrough");
    check("allow WebFetch(domain:*.example.com)", "WebFetch: https://api.example.com", "allow 0");
    check("allow WebFetch(domain:*.example.com)", "WebFetch: https://a.b.example.com/", "allow 0");
    check("allow WebFetch(domain:*.example.com)", "WebFetch: https://example.com", "passthrough");
    check("allow WebFetch(domain:api.*.example.com)", "WebFetch: https://api.eu.example.com", "allow 0");
    check("allow WebFetch(domain:api.*.example.com)", "WebFetch: https://api.a.b.example.com", "passthrough");
    check("allow WebFetch(domain:*)", "WebFetch: https://anything.test", "allow 0");
    check("allow WebFetch(domain:[::1])", "WebFetch: http://[::1]:3000/", "allow 0");
    check(rules, "Bash: curl https://example.com", "ask");
}

#[test]
fn mcp_rules() {
    check("allow mcp__github", "mcp__github__get_issue", "allow 0");
    check("allow mcp__github", "mcp__gitlab__get_issue", "passthrough");
    check("allow mcp__github", "mcp__github", "allow 0");
    check("deny mcp__github__*", "mcp__github__create_pr", "deny 0");
    check("allow mcp__github__get_issue", "mcp__github__get_issue", "allow 0");
    check("allow mcp__github__get_issue", "mcp__github__create_pr", "passthrough");
    check("allow mcp__github__get_*", "mcp__github__get_issue", "allow 0");
    check("allow mcp__github__get_*", "mcp__github__create", "passthrough");
    check("allow mcp__my__server__tool", "mcp__my__server__tool", "allow 0");
    check("deny mcp__*__delete_*", "mcp__db__delete_row", "deny 0");
}

#[test]
fn tool_name_globs() {
    // An unanchored glob is skipped in allow (permissions docs), honoured in deny and ask.
    check("allow mcp__*", "mcp__github__x", "passthrough");
    check("deny mcp__*", "mcp__github__x", "deny 0");
    check("deny mcp__*", "Bash: npm test", "ask");
    check("allow *", "Bash: npm test", "ask");
    check("deny *", "Bash: ls", "deny 0");
    check("deny *", "mcp__a__b", "deny 0");
    check("ask B*", "Bash: ls", "ask 0");
    check("ask B*", "Read: /repo/a", "passthrough");
    check("allow mcp__g*__x", "mcp__github__x", "passthrough");
    check("deny mcp__g*__x", "mcp__github__x", "deny 0");
}

#[test]
fn skill_rules() {
    check("allow Skill(review)", "Skill: review", "allow 0");
    check("allow Skill(review)", "Skill: /review", "allow 0");
    check("allow Skill(/review)", "Skill:  review ", "allow 0");
    check("allow Skill(review)", "Skill: review-pr", "passthrough");
    // The legacy prefix has no word boundary.
    check("allow Skill(review:*)", "Skill: review-pr", "allow 0");
    check("allow Skill(review:*)", "Skill: reviewer", "allow 0");
    check("allow Skill(review:*)", "Skill: rev", "passthrough");
    check("allow Skill(:*)", "Skill: anything", "allow 0");
    check("allow Skill(review *)", "Skill: review", "allow 0");
    check("allow Skill(review *)", "Skill: review-pr", "passthrough");
    check("deny Skill(deploy*)", "Skill: deploy-prod", "deny 0");
    check("allow Skill(my-plugin:review)", "Skill: my-plugin:review", "allow 0");
    // Content ask rules are never consulted; a bare `Skill` ask rule is.
    check("ask Skill(review)", "Skill: review", "passthrough");
    check("ask Skill", "Skill: review", "ask 0");
    check("deny Skill", "Skill: review", "deny 0");
}

#[test]
fn agent_rules() {
    check("deny Agent(Explore)", "Agent: Explore", "deny 0");
    check("deny Agent(Explore)", "Agent: Plan", "passthrough");
    check("deny Task(Explore)", "Agent: Explore", "deny 0");
    check("deny Agent(Explore)", "Task: Explore", "deny 0");
    check("deny Agent(Explore)", "Agent", "passthrough");
}

#[test]
fn parameter_rules() {
    let content = [("output_mode", "content")];
    check_with_params("deny Grep(output_mode:content)", "Grep: /repo", &content, "deny 0");
    check_with_params("ask Grep( output_mode : content )", "Grep: /repo", &content, "ask 0");
    check_with_params("deny Grep(output_mode:files*)", "Grep: /repo", &content, "passthrough");
    check_with_params("deny Grep(output_mode:*)", "Grep: /repo", &content, "deny 0");
    // Allow-side parameter rules, rules on the primary field and absent parameters never match.
    check_with_params("allow Grep(output_mode:content)", "Grep: /repo", &content, "passthrough");
    check_with_params("deny Grep(path:/repo)", "Grep: /repo", &[("path", "/repo")], "passthrough");
    check_with_params("deny Grep(head_limit:*)", "Grep: /repo", &content, "passthrough");
    check_with_params("deny Grep(output_mode:content)", "Glob: /repo", &content, "passthrough");
    check_with_params("ask TaskCreate(subject:*deploy*)", "TaskCreate", &[("subject", "please deploy now")], "ask 0");
    check_with_params("deny *(mode:fast)", "Frob", &[("mode", "fast")], "deny 0");
    check_with_params("deny WebFetch(prompt:*secret*)", "WebFetch: https://x", &[("prompt", "the secret")], "deny 0");
}

#[test]
fn raw_content_never_matches() {
    check("allow Grep(TODO)", "Grep: TODO", "passthrough");
    check("allow WebSearch(rust)", "WebSearch: rust", "passthrough");
}

#[test]
fn matches_for_one_rule() {
    let rule = parse_permission_rule("Bash(git *)").expect("valid rule");
    let call = ToolCall::new("Bash").with_primary("git status && git log");
    assert!(rule.matches(Behavior::Allow, &call, &CX));
    let call = ToolCall::new("Bash").with_primary("git status && ls");
    assert!(!rule.matches(Behavior::Allow, &call, &CX));
    assert!(rule.matches(Behavior::Deny, &call, &CX));
    let params = [("a", "b")];
    let call = ToolCall::new("Frob").with_params(&params);
    assert!(parse_permission_rule("Frob(a:b)").is_ok_and(|rule| rule.matches(Behavior::Deny, &call, &CX)));
}

#[test]
fn settings_dir_falls_back_to_the_context() {
    let rules = rules_of("allow Read(/src/**)");
    let call = ToolCall::new("Read").with_primary("/work/src/a");
    let cx = MatchContext { cwd: "/work", home: "/home/u", settings_dir: None };
    assert_eq!(render(&decide(&rules, &call, &cx)), "allow 0");
}

#[test]
fn shell_helpers() {
    assert_eq!(shell::split_compound("a && b || c; d | e |& f & g\nh"), ["a", "b", "c", "d", "e", "f", "g", "h"]);
    assert_eq!(shell::split_compound(";;  ; "), Vec::<&str>::new());
    assert_eq!(shell::split_compound("echo 'x;y' \"a|b\" $(c && d) `e;f`"), ["echo 'x;y' \"a|b\" $(c && d) `e;f`"]);
    assert_eq!(shell::strip_output_redirections("cmd > a 2>&1 >> 'b c' &>d x"), "cmd x");
    assert_eq!(shell::strip_output_redirections("a2>x"), "a2");
    assert_eq!(shell::strip_safe_wrappers("TZ=UTC LANG=C nice -n 1 nohup date"), "date");
    assert_eq!(shell::strip_safe_wrappers("nohup TZ=UTC date"), "TZ=UTC date");
    assert_eq!(shell::strip_safe_wrappers("# c\nls"), "ls");
    assert_eq!(shell::strip_all_leading_env_vars("A=1 B='2 3' C=\"4\" cmd"), "cmd");
    assert_eq!(shell::strip_all_leading_env_vars("A=$x cmd"), "A=$x cmd");
    assert_eq!(shell::strip_all_leading_env_vars("A=\"x\ny\" cmd"), "A=\"x\ny\" cmd");
    assert_eq!(shell::strip_all_leading_env_vars("A=é cmd"), "cmd");
}
