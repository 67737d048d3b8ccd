//! Classes 4 and 5 of docs/security.md.

use super::*;

/// One `capc session --trust` turn running `/probe`, a command whose body is `!`<injection>``,
/// in `root` with no permission rule; the turn's result and the session's environment gets
/// `CAPC_TEST_SECRET`. `setup` prepares the folder before it is locked.
pub(super) fn injection_turn(injection: &str, setup: impl FnOnce(&Path)) -> (serde_json::Value, tempfile::TempDir) {
    injection_turn_with(injection, setup, &[])
}

/// [`injection_turn`], with more variables in the session's environment.
pub(super) fn injection_turn_with(
    injection: &str,
    setup: impl FnOnce(&Path),
    env: &[(&str, &Path)],
) -> (serde_json::Value, tempfile::TempDir) {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().join("repo");
    let home = dir.path().join("home");
    std::fs::create_dir_all(&home).expect("mkdir home");
    write_file(&root, ".claude/commands/probe.md", &format!("---\ndescription: Probe\n---\nResult: !`{injection}`\n"));
    write_file(&root, "a.txt", "x marks the spot\n");
    setup(&root);
    let lock = capc(&root, &["lock", "."]);
    assert_eq!(lock.status.code(), Some(0), "{}", stderr(&lock));
    let home_arg = home.to_str().expect("utf-8");
    let mut child = Command::new(env!("CARGO_BIN_EXE_capc"))
        .args(["session", "--json", "--trust", "--user-dir", home_arg])
        .current_dir(&root)
        .env("HOME", &home)
        .env("CAPC_TEST_SECRET", "s3cr3t-token-value")
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("capc runs");
    let mut stdin = child.stdin.take().expect("stdin");
    writeln!(stdin, "{{\"id\":1,\"type\":\"turn\",\"input\":\"/probe\",\"include\":[]}}").expect("write");
    drop(stdin);
    let out = child.wait_with_output().expect("capc exits");
    let line = stdout(&out).lines().next().map(|l| serde_json::from_str(l).expect("JSON line"));
    (line.unwrap_or_else(|| panic!("no answer: {}", stderr(&out))), dir)
}

/// A git repository with every file committed, and `pwn.sh`, which leaves `pwned` behind if it
/// ever runs.
pub(super) fn git_repo_with_payload(root: &Path) {
    write_file(root, "pwn.sh", "#!/bin/sh\ntouch \"$(dirname \"$0\")/pwned\"\n");
    let mut perms = std::fs::metadata(root.join("pwn.sh")).expect("pwn.sh").permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(root.join("pwn.sh"), perms).expect("chmod");
    let git = |args: &[&str]| {
        let status = Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@example.invalid"])
            .args(args)
            .current_dir(root)
            .stdout(Stdio::null())
            .status()
            .expect("git runs");
        assert!(status.success(), "git {args:?}");
    };
    git(&["init", "-q"]);
    git(&["add", "-A"]);
    git(&["commit", "-qm", "init"]);
}

pub(super) fn assert_refused(result: &serde_json::Value, injection: &str) {
    assert_eq!(result["result"]["kind"], "shell_error", "`{injection}` was not refused: {result}");
    let message = result["result"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("permission check failed"), "`{injection}`: {message}");
}

/// Flag forms the commands parse as "run this program": abbreviated long options, values
/// attached to short options, options that name a program, and words `xargs` appends. Claude
/// Code asks about each of them (measured); so must capc, and nothing may run.
#[test]
fn flag_forms_that_start_a_program_are_refused() {
    for injection in [
        "git grep --open-files=./pwn.sh marks",
        "git grep -O./pwn.sh marks",
        "git grep --open-files-in=./pwn.sh marks",
        "git ls-remote --upload-pack=./pwn.sh .",
        "git ls-remote --upload=./pwn.sh .",
        "git -c core.pager=./pwn.sh log -1",
        "echo --pre=./pwn.sh | xargs rg marks",
        "echo a.txt | xargs ./pwn.sh",
        "find . -name a.txt -exec ./pwn.sh ;",
        "sort --compress-prog=./pwn.sh a.txt",
        "rg --pre ./pwn.sh marks",
        "env ./pwn.sh",
        "fd -x./pwn.sh",
    ] {
        let (result, dir) = injection_turn(injection, git_repo_with_payload);
        assert_refused(&result, injection);
        assert!(!dir.path().join("repo/pwned").exists(), "`{injection}` ran pwn.sh");
    }
}

/// Commands that print the environment (and with it tokens such as `GITHUB_TOKEN`) are not
/// read-only: Claude Code asks about each, and the secret never reaches the expansion.
#[test]
fn commands_that_print_the_environment_are_refused() {
    for injection in [
        "printenv",
        "printenv CAPC_TEST_SECRET",
        "env",
        "jq -n env",
        "jq -n $ENV",
        "ps eww",
        "ps e",
        "ps -ef e",
        "git config --list",
        "git config -l",
        "set",
        "export -p",
        "declare -p",
    ] {
        let (result, _dir) = injection_turn(injection, git_repo_with_payload);
        assert_refused(&result, injection);
        assert!(!result.to_string().contains("s3cr3t-token-value"), "`{injection}` printed the secret: {result}");
    }
}

/// A committed link to a folder outside the project does not make reads through it reads
/// inside: the path is checked with its links followed.
#[test]
fn a_committed_link_to_an_outside_folder_is_not_read_through() {
    let plant = |root: &Path| {
        let outside = root.parent().expect("parent").join("outside");
        write_file(&outside, "secret.txt", "outside-secret-contents\n");
        std::os::unix::fs::symlink(&outside, root.join("docs")).expect("symlink");
    };
    for injection in
        ["cat docs/secret.txt", "head -1 docs/secret.txt", "grep -r outside docs", "ls docs", "wc -l docs/secret.txt"]
    {
        let (result, _dir) = injection_turn(injection, plant);
        assert_refused(&result, injection);
        assert!(
            !result.to_string().contains("outside-secret-contents"),
            "`{injection}` read through the link: {result}"
        );
        let message = result["result"]["message"].as_str().unwrap_or_default();
        assert!(message.contains("/outside"), "`{injection}`: the message names the real path: {message}");
    }
    // Reads that stay inside still run.
    let (result, _dir) = injection_turn("cat a.txt", plant);
    assert_ne!(result["result"]["kind"], "shell_error", "{result}");
}
