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
    assert_eq!(decision.behavior, Behavior::Deny);
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

/// A file system of a few paths for the path checks: `links` maps a link to its
/// target; `files` are the other paths there are. Links are followed where they stand.
#[derive(Debug)]
struct Disk {
    links: Vec<(&'static str, &'static str)>,
    files: Vec<&'static str>,
}

impl LinkResolver for Disk {
    fn real_path(&self, path: &str) -> Option<String> {
        let mut pending: Vec<String> = path.split('/').rev().map(str::to_owned).collect();
        let mut real: Vec<String> = Vec::new();
        let mut hops = 0;
        while let Some(segment) = pending.pop() {
            match segment.as_str() {
                "" | "." => {}
                ".." => {
                    real.pop();
                }
                _ => {
                    real.push(segment);
                    let here = format!("/{}", real.join("/"));
                    if let Some((_, target)) = self.links.iter().find(|(link, _)| *link == here) {
                        hops += 1;
                        if hops > 40 {
                            return None;
                        }
                        real.pop();
                        if target.starts_with('/') {
                            real.clear();
                        }
                        pending.extend(target.split('/').rev().map(str::to_owned));
                    }
                }
            }
        }
        Some(format!("/{}", real.join("/")))
    }

    fn entries(&self, dir: &str, limit: usize) -> Option<Vec<String>> {
        let dir = self.real_path(dir)?;
        let prefix = format!("{}/", dir.trim_end_matches('/'));
        let mut names: Vec<String> = self
            .files
            .iter()
            .copied()
            .chain(self.links.iter().map(|(link, _)| *link))
            .filter_map(|path| path.strip_prefix(&prefix))
            .map(|rest| rest.split('/').next().unwrap_or(rest).to_owned())
            .collect();
        names.sort();
        names.dedup();
        names.truncate(limit);
        (!names.is_empty()).then_some(names)
    }
}

/// `/p/d/lnk -> /o` (holding `secret.txt`), `/p/up -> /x/y` (so `up/../..` is `/`), a link loop,
/// and files inside.
fn disk() -> Disk {
    Disk {
        links: vec![("/p/d/lnk", "/o"), ("/p/up", "/x/y"), ("/p/loop", "/p/loop"), ("/p/d/rel", "../inner")],
        files: vec!["/o/secret.txt", "/p/a.txt", "/p/d/b.txt", "/p/inner/c.txt", "/x/y/z", "/p/.hidden/k"],
    }
}

#[track_caller]
fn check_on_disk(rules: &str, command: &str, expected: &str) {
    let disk = disk();
    let cx = BashContext { links: Some(&disk), ..BashContext::new("/p", "/h") };
    assert_eq!(render(&decide_bash(&rules_of(rules), command, &cx)), expected, "command: {command:?}");
}

const TILDE: &str = "ask: Tilde expansion variants (~user, ~+, ~-) in paths require manual approval";

#[test]
fn tilde_variants_are_never_paths_inside() {
    for command in [
        "cat ~root/../etc/passwd",
        "cat ~+/a.txt",
        "cat ~-/x",
        "ls ~-",
        "cd ~-",
        "cd ~- && ls",
        "cd ~+ && ls",
        "cd ~root",
        "grep -r x ~root",
        "find ~root -name x",
        "git diff ~-/a ~-/b",
        "cat \"~root/../etc/passwd\"",
        "wc -l < ~root/../etc/passwd",
        "touch ~+/x",
        "rm -rf ~-",
    ] {
        check("", command, TILDE);
        // An allow rule for the command does not cover the path, as for any path outside…
        check("allow Bash(cat:*)\nallow Bash(ls:*)\nallow Bash(cd:*)\nallow Bash(touch:*)", command, TILDE);
    }
    // …the whole tool does.
    check("allow Bash(*)", "cat ~root/../etc/passwd", "allow 0");
    // Words that are not paths are not checked: `echo ~root` prints a name.
    check("", "echo ~root", "allow");
    // Output redirections: any tilde is shell expansion there (measured).
    for command in ["echo hi > ~root/x", "echo hi > ~/x", "echo hi >> ~+/x"] {
        check("allow Bash(echo:*)", command, "ask: Shell expansion syntax in paths requires manual approval");
    }
}

#[test]
fn a_bare_cd_goes_home() {
    let home = "ask: cd in '/h' was blocked. For security, Claude Code may only change directories to the allowed working directories for this session: '/p'.";
    for command in ["cd", "cd && cat .netrc", "cd; ls -la", "cd --", "cd -P", "cd -L && ls", "cd ~", "cd $HOME"] {
        check("", command, home);
        check("allow Bash(cd:*)\nallow Bash(cat:*)", command, home);
    }
    check("allow Read(//h)", "cd && ls", "allow");
    // `cd ""` stays where it is (bash), as Claude Code reads it.
    check("", "cd \"\" && ls", "allow");
    // `cd -` goes to $OLDPWD, which no check can see.
    let previous = "ask: cd names '-' (the previous directory, $OLDPWD), which cannot be checked against the working directories for this session: '/p'.";
    check("", "cd - && ls", previous);
    check("allow Bash(cd:*)", "cd -", previous);
    check("allow Bash(*)", "cd -", "allow 0");
}

#[test]
fn globs_are_checked_where_their_matches_lead() {
    let secret = "ask: cat in '/o/secret.txt' was blocked. For security, Claude Code may only concatenate files from the allowed working directories for this session: '/p'.";
    check_on_disk("", "cat d/lnk/secret.txt", secret);
    for command in ["cat d/*/secret.txt", "cat d/l?k/secret.txt", "cat d/[l]nk/secret.txt", "cat /p/d/*/secret.txt"] {
        check_on_disk("", command, secret);
        check_on_disk("allow Bash(cat:*)", command, secret);
    }
    check_on_disk("", "ls d/*", "ask: ls in '/o' was blocked. For security, Claude Code may only list files in the allowed working directories for this session: '/p'.");
    check_on_disk("", "grep -r x d/*", "ask: grep in '/o' was blocked. For security, Claude Code may only read files from the allowed working directories for this session: '/p'.");
    check_on_disk("", "cd d/* && ls", "ask: cd in '/o' was blocked. For security, Claude Code may only change directories to the allowed working directories for this session: '/p'.");
    // A glob matching only inside, or nothing (bash passes it on as written), runs.
    check_on_disk("", "cat d/*.txt", "allow");
    check_on_disk("", "cat */*.txt", "allow");
    check_on_disk("", "cat d/*/nothing.txt", "allow");
    check_on_disk("", "cat d/rel/*", "allow");
    // `*` skips names starting with `.`, as bash does; `.*` cannot be checked at all.
    check_on_disk("", "cat */k", "allow");
    check_on_disk(
        "",
        "cat .*/k",
        "ask: cat names '.*/k', which cannot be checked against the working directories for this session: '/p'.",
    );
    // Written paths take no glob (Claude Code's rule), whatever allows the command.
    let glob_write = "ask: Glob patterns are not allowed in write operations. Please specify an exact file path.";
    check_on_disk("allow Bash(rm:*)", "rm -f d/*/secret.txt", glob_write);
    check_on_disk("allow Bash(touch:*)", "touch d/*/x", glob_write);
    check_on_disk(
        "allow Bash(echo:*)",
        "echo x > d/*/secret.txt",
        "ask: Shell expansion syntax in paths requires manual approval",
    );
    check_on_disk("", "wc -l < d/*/secret.txt", "ask: Input redirection from 'd/*/secret.txt' requires manual approval: the file it names depends on glob expansion or a directory change in the same command.");
    check_on_disk("allow Bash(*)", "cat d/*/secret.txt", "allow 0");
}

#[test]
fn paths_are_resolved_on_disk_dot_dots_and_cds_included() {
    // `up/../..` is `/` on disk (up -> /x/y), though the project as written.
    check_on_disk("", "cat up/../../etc/passwd", "ask: cat in '/etc/passwd' was blocked. For security, Claude Code may only concatenate files from the allowed working directories for this session: '/p'.");
    // A loop of links cannot be resolved: it is judged outside.
    check_on_disk("", "cat loop/x", "ask: cat in '/p/loop/x' was blocked. For security, Claude Code may only concatenate files from the allowed working directories for this session: '/p'.");
    // After `cd d`, `lnk/secret.txt` is d/lnk/secret.txt.
    let secret = "ask: cat in '/o/secret.txt' was blocked. For security, Claude Code may only concatenate files from the allowed working directories for this session: '/p'.";
    check_on_disk("", "cd d && cat lnk/secret.txt", secret);
    check_on_disk(
        "",
        "cd d; cat lnk/secret.txt | wc -l",
        "ask: This Bash command contains multiple operations. The following part requires approval: cd d; cat lnk/secret.txt",
    );
    check_on_disk(
        "",
        "cat lnk/secret.txt | wc -l; cd d",
        "ask: This Bash command contains multiple operations. The following part requires approval: cat lnk/secret.txt",
    );
    check_on_disk("", "cd d && cat b.txt", "allow");
    check_on_disk("allow Bash(touch:*)", "cd d && touch lnk/x", "ask: touch in '/o/x' needs approval. The path is outside the working directories for this session ('/p'). Allowing runs the command as written.");
    check_on_disk("", "cd d && wc -l < lnk/secret.txt", "ask: Input redirection from 'lnk/secret.txt' requires manual approval: the file it names depends on glob expansion or a directory change in the same command.");
    // An `Edit(…)` rule covers a write only where the link leads too.
    check_on_disk("allow Edit(/d/**)", "echo x > d/lnk/secret.txt", "ask: Output redirection to '/o/secret.txt' needs approval. The path is outside the working directories for this session ('/p'). Allowing runs the command as written.");
    check_on_disk("allow Edit(/d/**)", "echo x > d/b.txt", "allow");
}

#[test]
fn chained_cds_and_wide_globs_stay_checked() {
    // The second `cd` hides behind `command` (Claude Code counts one `cd`): d/lnk is still seen.
    check_on_disk("", "cd d && command cd lnk && cat secret.txt", "ask: cd in '/o' was blocked. For security, Claude Code may only change directories to the allowed working directories for this session: '/p'.");
    check_on_disk("allow Read(//o/**)\nallow Read(//o)", "cd d && command cd lnk && cat secret.txt", "allow");
    // A glob outside as written is named as written; `.*` may match `..` (bash before 5.2).
    check_on_disk("", "cat /etc/*", "ask: cat in '/etc/*' was blocked. For security, Claude Code may only concatenate files from the allowed working directories for this session: '/p'.");
    check_on_disk("", "cat /p/.*/o/secret.txt", "ask: cat in '/o/secret.txt' was blocked. For security, Claude Code may only concatenate files from the allowed working directories for this session: '/p'.");
    check_on_disk("", "cat /p/*.txt", "allow");
    check_on_disk("", "cat /p/*", "ask: cat in '/p/loop' was blocked. For security, Claude Code may only concatenate files from the allowed working directories for this session: '/p'.");
    // Only the operand is globbed, never the folder it starts from.
    let odd = Disk { links: vec![("/w[1]/lnk", "/o")], files: vec!["/w[1]/a.txt", "/w1/b.txt", "/o/secret.txt"] };
    let cx = BashContext { links: Some(&odd), ..BashContext::new("/w[1]", "/h") };
    assert_eq!(render(&decide_bash(&[], "cat *.txt", &cx)), "allow");
    assert_eq!(
        render(&decide_bash(&[], "cat l*/secret.txt", &cx)),
        "ask: cat in '/o/secret.txt' was blocked. For security, Claude Code may only concatenate files from the allowed working directories for this session: '/w[1]'."
    );
    // A line's globs share one budget of folder entries: past it, a glob cannot be checked.
    let wide = Disk {
        links: Vec::new(),
        files: (0..60_000).map(|i| &*Box::leak(format!("/p/w/f{i}").into_boxed_str())).collect(),
    };
    let cx = BashContext { links: Some(&wide), ..BashContext::new("/p", "/h") };
    assert_eq!(
        render(&decide_bash(&[], "cat w/*", &cx)),
        "ask: cat names 'w/*' (a glob too wide, or matching a name that is not UTF-8), which cannot be checked against the working directories for this session: '/p'."
    );
}
