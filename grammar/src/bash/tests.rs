//! Decisions as data: rules as lines `behavior rule`, the answer as `allow [rule]`, `ask: message`
//! or `deny [rule]: message`. The session runs in `/p` with home `/h`.

use super::*;
use crate::parse_permission_rule;

fn rules_of(rules: &str) -> Vec<SourcedRule> {
    rules
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .map(|line| {
            let (behavior, rule) = line.split_once(' ').unwrap_or((line, ""));
            let behavior = match behavior {
                "deny" => Behavior::Deny,
                "ask" => Behavior::Ask,
                "allow" => Behavior::Allow,
                other => panic!("unknown behavior {other:?}"),
            };
            let rule = parse_permission_rule(rule).unwrap_or_else(|error| panic!("bad rule {rule:?}: {error}"));
            SourcedRule { rule, behavior, source: "test".to_owned(), settings_dir: None }
        })
        .collect()
}

fn render(decision: &BashDecision) -> String {
    let rule = decision.rule.map(|index| format!(" {index}")).unwrap_or_default();
    match &decision.message {
        Some(message) => format!("{}{rule}: {message}", decision.behavior.as_str()),
        None => format!("{}{rule}", decision.behavior.as_str()),
    }
}

#[track_caller]
fn check_in(mode: PermissionMode, rules: &str, command: &str, expected: &str) {
    let cx = BashContext { mode, ..BashContext::new("/p", "/h") };
    assert_eq!(render(&decide_bash(&rules_of(rules), command, &cx)), expected, "command: {command:?}");
}

#[track_caller]
fn check(rules: &str, command: &str, expected: &str) {
    check_in(PermissionMode::Default, rules, command, expected);
}

#[test]
fn smoke() {
    check(
        "allow Bash(git status:*)",
        "git status $(touch x)",
        "ask: A nested command in this command can't be checked before it runs",
    );
}

const NESTED: &str = "ask: A nested command in this command can't be checked before it runs";

#[test]
fn substitutions_are_never_allowed_by_a_prefix_or_wildcard_rule() {
    for rule in ["allow Bash(git status:*)", "allow Bash(git *)", "allow Bash(git status:*)\nallow Bash(touch:*)"] {
        check(rule, "git status $(touch x)", NESTED);
        check(rule, "git status `touch x`", NESTED);
    }
    check("allow Bash(echo $(date))", "echo $(date)", "allow 0");
    check("allow Bash(echo $(date):*)", "echo $(date) x", NESTED);
    check("allow Bash", "git status $(touch x)", "allow 0");
    check("allow Bash(*)", "git status $(touch x)", "allow 0");
}

#[test]
fn deny_rules_see_through_wrappers_and_nesting() {
    let deny = "deny Bash(rm:*)";
    for command in [
        "sudo rm x",
        "env FOO=1 rm x",
        "/bin/rm x",
        "timeout 5 rm x",
        "echo $(rm x)",
        "(rm x)",
        "if true; then rm x; fi",
    ] {
        check(deny, command, &format!("deny 0: Permission to use Bash with command {command} has been denied."));
    }
    check(deny, "echo a | xargs rm", "deny 0: Permission to use Bash with command xargs rm has been denied.");
    check(deny, "bash -c 'rm x'", "ask: This command requires approval");
    // Not allowed: the path check sees through `sudo` (and asks about the write).
    check("allow Bash(rm:*)", "sudo rm x", "ask: rm in '/p/x' needs approval. The path is inside the working directories for this session ('/p'), and Claude Code asks before a shell command creates, changes or removes files there.");
    check("allow Bash(rm:*)", "sudo ls", "ask: This command requires approval");
}

#[test]
fn compound_lines_need_every_part() {
    let rules = "allow Bash(mark:*)";
    check(rules, "mark a && mark b", "allow 0");
    check(rules, "mark a; echo hi", "allow 0");
    check(
        rules,
        "mark a && other",
        "ask: This Bash command contains multiple operations. The following part requires approval: other",
    );
    check(
        "",
        "a && b",
        "ask: This Bash command contains multiple operations. The following parts require approval: a, b",
    );
    check(
        rules,
        "mark a | other > f",
        "ask: This Bash command contains multiple operations. The following part requires approval: other",
    );
    check(rules, "mark a &", "ask: This command uses the `&` background operator, which defers execution past approval-time safety checks. Approve only if you trust it.");
}

#[test]
fn redirections_and_paths() {
    let inside = "The path is inside the working directories for this session ('/p'), and Claude Code asks before a shell command creates, changes or removes files there.";
    check("allow Bash(echo:*)", "echo hi > f", &format!("ask: Output redirection to '/p/f' needs approval. {inside}"));
    check("", "echo hi > /dev/null 2>&1", "allow");
    check("allow Edit(f)", "echo hi > f", "allow");
    check_in(PermissionMode::AcceptEdits, "", "echo hi > sub/f", "allow");
    check_in(PermissionMode::AcceptEdits, "", "echo hi > /tmp/f", "ask: Output redirection to '/tmp/f' needs approval. The path is outside the working directories for this session ('/p'). Allowing runs the command as written.");
    check("", "touch t", &format!("ask: touch in '/p/t' needs approval. {inside}"));
    check("allow Bash(touch:*)", "touch t", "allow 0");
    check("allow Bash(touch:*)", "touch ../t", "ask: touch in '/t' needs approval. The path is outside the working directories for this session ('/p'). Allowing runs the command as written.");
    check("", "cat ~/.ssh/id_rsa", "ask: cat in '/h/.ssh/id_rsa' was blocked. For security, Claude Code may only concatenate files from the allowed working directories for this session: '/p'.");
    check("allow Read(~/.ssh/**)", "cat ~/.ssh/id_rsa", "allow");
    check("", "sed -i s/a/b/ f", &format!("ask: sed in '/p/f' needs approval. {inside}"));
}

#[test]
fn dangerous_removals_are_never_allowed() {
    let message = "Dangerous rm operation detected: '/'\n\nThis command would remove a workspace directory (the working directory, an additional working directory, or one of their parent directories). This requires explicit approval and cannot be auto-allowed by permission rules.";
    check("allow Bash(rm:*)", "rm -rf /", &format!("ask: {message}"));
    check("allow Bash", "rm -rf /", &format!("ask: {message}"));
    check_in(PermissionMode::BypassPermissions, "", "rm -rf /", &format!("ask: {message}"));
    check("allow Bash(rm:*)", "rm -rf build", "allow 0");
}

#[test]
fn read_only_commands_need_no_rule() {
    for command in [
        "ls -la",
        "cat README.md",
        "git status",
        "git log --oneline -5",
        "git diff HEAD~1",
        "grep -rn foo src",
        "echo hi | wc -l",
        "find . -name '*.rs'",
        "sed -n 1,5p file",
        "LANG=C sort file",
        "echo \"now: $(date)\"",
        "[ -f x ] && cat x",
    ] {
        check("", command, "allow");
    }
    for command in ["git push", "git branch -D x", "sort -o out in", "FOO=1 ls", "npm test", "git -C . status"] {
        check("", command, "ask: This command requires approval");
    }
}

#[test]
fn modes() {
    check_in(PermissionMode::BypassPermissions, "", "git status $(touch x)", "allow");
    check_in(
        PermissionMode::BypassPermissions,
        "deny Bash(mark:*)",
        "mark a",
        "deny 0: Permission to use Bash with command mark a has been denied.",
    );
    check_in(
        PermissionMode::BypassPermissions,
        "ask Bash(mark:*)",
        "mark a",
        "ask 0: Claude requested permissions to use Bash, but you haven't granted it yet.",
    );
    let cx = BashContext { mode: PermissionMode::DontAsk, ..BashContext::new("/p", "/h") };
    let decision = decide_bash(&[], "mark a", &cx);
    assert_eq!(decision.behavior, BashBehavior::Deny);
    assert!(decision.message.is_some_and(|m| m.contains("don't ask mode")));
}

#[test]
fn whole_tool_rules() {
    check("deny Bash\nallow Bash(echo:*)", "echo hi", "deny 0: Permission to use Bash has been denied.");
    check("ask Bash(*)", "echo hi", "ask 0: Claude requested permissions to use Bash, but you haven't granted it yet.");
    check(
        "allow Bash\nask Bash(mark:*)",
        "mark a",
        "ask 1: Claude requested permissions to use Bash, but you haven't granted it yet.",
    );
    check(
        "allow Bash\ndeny Bash(mark a)",
        "mark a",
        "deny 1: Permission to use Bash with command mark a has been denied.",
    );
    check("deny *", "echo hi", "deny 0: Permission to use Bash has been denied.");
}

#[test]
fn paths_and_refusals_see_through_wrappers() {
    let dangerous = "ask: Dangerous rm operation detected: '/'\n\nThis command would remove a workspace directory (the working directory, an additional working directory, or one of their parent directories). This requires explicit approval and cannot be auto-allowed by permission rules.";
    check("allow Bash(rm:*)", "timeout 5 rm -rf /", dangerous);
    check("allow Bash(rm:*)", "nice -n 5 rm -rf /", dangerous);
    check("allow Bash(sudo:*)", "sudo -u root rm -rf /", dangerous);
    check("allow Bash(find:*)", "nohup find . -delete", "ask: find with '-delete' executes commands or modifies files — cannot be auto-allowed by a Bash(find:*) prefix rule");
    check("allow Bash(cat:*)", "timeout 5 cat /etc/passwd", "ask: cat in '/etc/passwd' was blocked. For security, Claude Code may only concatenate files from the allowed working directories for this session: '/p'.");
    check("", "sed -n 's/a/b/w out p' f", "ask: This command requires approval");
    // Claude Code's flag table refuses any argument holding a `$`, quoted or not.
    check("", "sed -n '/x/,$p' f", "ask: This command requires approval");
    check("", "sed -n '/x/,3p' f", "ask: This command requires approval");
    check("", "sed -n '2,3p' f", "allow");
    check("", "file -C -m magic", "ask: This command requires approval");
}
