//! Class 21 of docs/security.md: the third review.

use super::*;

/// Claude Code's reason for a line that changes directory and runs git.
pub(super) const CD_GIT: &str = "This command changes directory before running a version-control command";

/// A line that changes directory and runs git runs git in the folder it went to, whose
/// committed `config` (a folder that looks like a bare repository) names programs git runs. The
/// check is the whole line's: a pipeline segment is decided on its own, and `cd sub && true |
/// git status` used to run the planted `core.fsmonitor` with no rule at all; an allow rule for
/// `git status` allowed `cd sub && git status`. Claude Code asks for both, and so does capc;
/// `cd . && git status` still runs.
#[test]
fn a_cd_anywhere_in_the_line_keeps_git_out_of_a_planted_repository() {
    let injections = [
        "cd proj && true | git status",
        "cd proj; echo | git status",
        "cd proj && git status | cat",
        "cd proj && git status",
        "git status && cd proj",
        "pushd proj && git status",
        "cd proj/.. && git status",
        "echo \"$(cd proj && git status)\"",
    ];
    for rules in ["", r#"{"permissions":{"allow":["Bash(git status:*)","Bash(pushd:*)"]}}"#] {
        for injection in injections {
            let probe = tempfile::tempdir().expect("tempdir");
            let pwned = probe.path().join("PWNED");
            let plant = |root: &Path| {
                plant_bare_repository(&root.join("proj"), &pwned);
                if !rules.is_empty() {
                    write_file(root, ".claude/settings.json", rules);
                }
            };
            let (result, _dir) = injection_turn(injection, plant);
            assert_refused(&result, injection);
            let message = result["result"]["message"].as_str().unwrap_or_default();
            // A quoted substitution keeps its own reason (it cannot be checked at all).
            if !injection.contains('$') {
                assert!(message.contains(CD_GIT), "`{injection}` with {rules:?}: {message}");
            }
            assert!(!pwned.exists(), "`{injection}` with {rules:?} ran the planted repository's fsmonitor");
        }
    }
    // The one `cd` that stays where it is leaves git where it was: the rule for git holds.
    let plant = |root: &Path| {
        write_file(root, ".claude/settings.json", r#"{"permissions":{"allow":["Bash(git status:*)"]}}"#);
        git_repo_with_payload(root);
    };
    let (result, _dir) = injection_turn("cd . && git status", plant);
    assert_ne!(result["result"]["kind"], "shell_error", "{result}");
}

/// Readers that follow links while they recurse open what a committed link below the folder
/// they are given leads to: `grep -R … d` and `diff -rN d e` printed `d/lnk/secret.txt`'s
/// contents, `find -L`, `ls -RL`, `du -L` listed the outside folder. Each link below the folder
/// is checked where it leads, as a plain path is; `grep -r` (which follows no link below) and the
/// same readers on a folder with no link out still run.
#[test]
fn recursive_readers_that_follow_links_read_nothing_outside() {
    for injection in [
        "grep -R outside-secret d",
        "grep -rn --dereference-recursive outside-secret .",
        "grep -R outside-secret",
        "diff -rN d e",
        "diff -r d e",
        "find -L d -type f",
        "find d -follow -type f",
        "ls -RL d",
        "du -aL d",
        "rg -L outside-secret",
        "rg --follow outside-secret d",
    ] {
        let plant = |root: &Path| {
            plant_outside(root);
            write_file(root, "e/b.txt", "other\n");
        };
        let (result, _dir) = injection_turn(injection, plant);
        assert_kept_out(&result, injection, OUTSIDE_SECRET);
        let message = result["result"]["message"].as_str().unwrap_or_default();
        assert!(message.contains("/outside' was blocked"), "`{injection}`: {message}");
    }
    for (injection, output) in [
        ("grep -r marks .", "x marks the spot"),
        ("grep -R marks a.txt", "x marks the spot"),
        ("grep -R inside d/b.txt", "inside"),
        ("find -L e -type f", "e/b.txt"),
        ("diff -r --no-dereference d e", "Only in d: lnk"),
    ] {
        let plant = |root: &Path| {
            plant_outside(root);
            write_file(root, "e/b.txt", "other\n");
        };
        let (result, _dir) = injection_turn(injection, plant);
        assert_ne!(result["result"]["kind"], "shell_error", "`{injection}`: {result}");
        assert!(result.to_string().contains(output), "`{injection}`: {result}");
    }
}

/// `find`'s own options before its folders (`-H`, `-L`, `-P`, `-O3`, `-D OPTS`) hid the folders
/// from the path check: `find -P ~ -name .netrc` listed the home folder. Claude Code
/// refuses the `-H`, `-L` and `-P` forms ("find in '…' was blocked. For security, Claude Code
/// may only search files in …"); capc refuses them all.
#[test]
fn find_options_before_its_folders_hide_none_of_them() {
    for injection in [
        "find -P .. -name secret.txt",
        "find -H ../outside -type f",
        "find -L ../outside -type f",
        "find -O3 .. -name secret.txt",
        "find -D tree .. -name secret.txt",
        "find -P ~ -name .netrc",
    ] {
        let plant = |root: &Path| {
            plant_outside(root);
            write_file(&root.parent().expect("parent").join("home"), ".netrc", "machine x password home-netrc-secret");
        };
        let (result, _dir) = injection_turn(injection, plant);
        assert_kept_out(&result, injection, "outside/secret.txt");
        assert!(!result.to_string().contains(".netrc\\n"), "`{injection}` listed the home folder: {result}");
        let message = result["result"]["message"].as_str().unwrap_or_default();
        assert!(message.contains("may only search files in"), "`{injection}`: {message}");
    }
}

/// A repository's own `.git/config` may include a named pipe (`[include] path = …`), which git
/// opens and waits on for ever: `capc diff HEAD .` and `check --new-since HEAD` hung. Each short
/// git call is bounded (`CAPC_GIT_TIMEOUT_MS`, set small here) and every use of a repository
/// starts with one, so capc stops with an error naming the bound.
#[test]
fn a_git_configuration_that_never_ends_stops_diff_with_an_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().join("repo");
    committed_repo(&root, &[(".claude/commands/a.md", "---\ndescription: A\n---\nA.\n")]);
    mkfifo(&dir.path().join("fifo"));
    let config = root.join(".git/config");
    let text = std::fs::read_to_string(&config).expect("config");
    std::fs::write(&config, format!("{text}[include]\n\tpath = {}\n", dir.path().join("fifo").display()))
        .expect("write config");
    for args in [&["diff", "HEAD", "."][..], &["check", "--new-since", "HEAD", "."]] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_capc"))
            .args(args)
            .current_dir(&root)
            .env("CAPC_GIT_TIMEOUT_MS", "300")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("capc runs");
        let deadline = Instant::now() + Duration::from_secs(60);
        while child.try_wait().expect("wait").is_none() {
            if Instant::now() > deadline {
                let _ = child.kill();
                panic!("capc {args:?} still waits on the named pipe");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let out = child.wait_with_output().expect("output");
        assert_eq!(out.status.code(), Some(2), "capc {args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains("git did not answer within 300 ms"), "capc {args:?}: {}", stderr(&out));
    }
}

/// `git ls-files -X FILE` reads exclude patterns from FILE, as `--exclude-from=FILE` does:
/// checked as a read, so a file outside (directly or through a committed link) asks.
#[test]
fn git_ls_files_reads_no_exclude_file_outside() {
    for injection in ["git ls-files -o -X ../outside/secret.txt", "git ls-files -o -X d/lnk/secret.txt"] {
        let plant = |root: &Path| {
            plant_outside(root);
            git_repo_with_payload(root);
        };
        let (result, _dir) = injection_turn(injection, plant);
        assert_refused(&result, injection);
        let message = result["result"]["message"].as_str().unwrap_or_default();
        assert!(message.contains("/outside/secret.txt' was blocked"), "`{injection}`: {message}");
    }
}

/// Files `grep` and `rg` read patterns or names from are checked as reads, however the option
/// is spelled: `--exclude-from FILE` with its value as the next word (Claude Code
/// refuses it), `-if FILE` (a cluster ending in `-f`), `--ignore-file FILE`. An allow rule for
/// the command does not reach outside.
#[test]
fn pattern_and_exclude_files_outside_are_not_read() {
    for rules in ["", r#"{"permissions":{"allow":["Bash(grep:*)","Bash(rg:*)"]}}"#] {
        for injection in [
            "grep --exclude-from ../outside/secret.txt -r x .",
            "grep -if ../outside/secret.txt a.txt",
            "grep -oFf d/lnk/secret.txt a.txt",
            "grep --include-from ../outside/secret.txt -r x .",
            "rg --ignore-file ../outside/secret.txt x",
        ] {
            let plant = |root: &Path| {
                plant_outside(root);
                if !rules.is_empty() {
                    write_file(root, ".claude/settings.json", rules);
                }
            };
            let (result, _dir) = injection_turn(injection, plant);
            assert_refused(&result, injection);
            let message = result["result"]["message"].as_str().unwrap_or_default();
            assert!(message.contains("/outside/secret.txt' was blocked"), "`{injection}` with {rules:?}: {message}");
        }
    }
}

/// `fd --search-path DIR` and `--base-directory DIR` search DIR: checked as the folders `fd`
/// reads (their value, the next word, was taken for the pattern).
#[test]
fn fd_search_folders_are_checked() {
    for injection in ["fd --search-path ../outside x", "fd --base-directory .. x", "fdfind x --search-path d/lnk"] {
        let (result, _dir) = injection_turn(injection, |root| {
            plant_outside(root);
        });
        assert_refused(&result, injection);
        let message = result["result"]["message"].as_str().unwrap_or_default();
        assert!(message.contains("was blocked"), "`{injection}`: {message}");
    }
}

/// bash evaluates an array subscript given to a test's `-v`/`-R`, and `[[` evaluates its
/// arithmetic operands, running the `$(…)` inside even when it is single-quoted: the analysis
/// left `[ … ]` and `[[ … ]]` out of the commands it decides, so `[ -v 'x[$(touch pwned)]' ]` ran
/// `touch` with no rule. Claude Code refuses each, with the reasons capc now gives; a
/// test of a plain name still runs.
#[test]
fn a_test_never_evaluates_a_subscript() {
    for injection in [
        "[ -v 'x[$(touch pwned)]' ]",
        "[ -R 'x[$(touch pwned)]' ]",
        "[[ -v 'x[$(touch pwned)]' ]]",
        "[[ 'x[$(touch pwned)]' -eq 1 ]]",
        "[ 'x[$(touch pwned)]' -eq 1 ]",
        "[[ -n x && 1 -lt 'y[$(touch pwned)]' ]]",
        "[[ -t 'x[$(touch pwned)]' ]]",
        "if [ -v 'x[$(touch pwned)]' ]; then echo; fi",
        "echo | [ -v 'x[$(touch pwned)]' ]",
    ] {
        let (result, dir) = injection_turn(injection, |_| {});
        assert_refused(&result, injection);
        assert!(!dir.path().join("repo/pwned").exists(), "`{injection}` ran its subscript");
    }
    let (result, _dir) = injection_turn("[[ -v 'x[$(touch pwned)]' ]]", |_| {});
    let message = result["result"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("'[[ -v' operand contains array subscript"), "{message}");
    let (result, _dir) = injection_turn("[ -v x ] || echo unset", |_| {});
    assert!(result.to_string().contains("unset"), "{result}");
}

/// A line that writes a file git reads as its repository's own (`HEAD`, `objects/`, `refs/`,
/// `hooks/`) and then runs git may plant the configuration git runs: Claude Code asks
/// ("This command creates git repository structure files …") whatever rules allow each
/// command, and so does capc.
#[test]
fn a_line_that_writes_git_files_and_runs_git_asks() {
    let rules = r#"{"permissions":{"allow":["Bash(touch:*)","Bash(mkdir:*)","Bash(cp:*)","Bash(git status:*)"]}}"#;
    for injection in [
        "touch HEAD && git status",
        "mkdir -p refs objects && git status",
        "cp a.txt HEAD; git status",
        "git status && mkdir hooks",
        "cp -r d/hooks . && git status",
    ] {
        let plant = |root: &Path| {
            write_file(root, ".claude/settings.json", rules);
            git_repo_with_payload(root);
        };
        let (result, dir) = injection_turn(injection, plant);
        assert_refused(&result, injection);
        let message = result["result"]["message"].as_str().unwrap_or_default();
        assert!(message.contains("creates git repository structure files"), "`{injection}`: {message}");
        assert!(!dir.path().join("repo/HEAD").exists(), "`{injection}` ran");
    }
}

/// The lock's `[[setting]]` rows give a session its settings keys and `env` variables: which
/// tools are offered, which skills are listed or disabled. Rows only the lock file holds (here
/// claimed as managed) change nothing; the sources' own still apply.
#[test]
fn settings_rows_only_the_lock_holds_change_no_turn() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().join("repo");
    write_file(&root, ".claude/commands/plant.md", "---\ndescription: Plant\n---\nhello\n");
    write_file(&root, ".claude/settings.json", r#"{"env": {"CLAUDE_CODE_DISABLE_CRON": "1"}}"#);
    assert_eq!(capc(&root, &["lock", "."]).status.code(), Some(0));
    let text = std::fs::read_to_string(root.join("capabilities.lock")).expect("lock");
    let planted = "\n[[setting]]\nkey = \"env.CLAUDE_CODE_USE_POWERSHELL_TOOL\"\nvalue = \"1\"\nscope = \"managed\"\n\
                   path = \"<managed>/managed-settings.json\"\n\n[[setting]]\nkey = \"skillOverrides.plant\"\n\
                   value = \"off\"\nscope = \"managed\"\npath = \"<managed>/managed-settings.json\"\n";
    std::fs::write(root.join("capabilities.lock"), format!("{text}{planted}")).expect("write lock");
    let turn = "{\"id\":1,\"type\":\"turn\",\"input\":\"/plant\",\"include\":[\"tools\"]}\n";
    for trust in [&["--trust"][..], &[][..]] {
        let out = capc_in(&root, &[&["session", "--json"][..], trust].concat(), turn);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let answer = stdout(&out);
        assert!(!answer.contains("\"PowerShell\""), "a lock-only env row offered a tool: {answer}");
        assert!(!answer.contains("skillOverrides"), "a lock-only override disabled a command: {answer}");
        assert!(answer.contains("\"kind\":\"prompt\"") || answer.contains("hello"), "{answer}");
        // The sources' own env still holds.
        assert!(!answer.contains("\"CronCreate\""), "the project's env did not apply: {answer}");
        assert!(stderr(&out).contains("the lock's setting `skillOverrides.plant`"), "{}", stderr(&out));
    }
}

/// An instruction file the lock alone names in the user's home is never read, even with the
/// hash of its bytes (a file whose content is well known, such as a default shell profile).
#[test]
fn an_instruction_file_only_the_lock_names_outside_the_folder_is_not_read() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (root, home) = (dir.path().join("repo"), dir.path().join("home"));
    write_file(&root, "CLAUDE.md", "# Repo\n");
    write_file(&home, ".profile", "KNOWN-CONTENT of a file in the home\n");
    let home_arg = home.to_str().expect("utf-8");
    assert_eq!(capc(&root, &["lock", ".", "--user-dir", home_arg]).status.code(), Some(0));
    let hash = capc_compiler::secrets::sha256_hex(b"KNOWN-CONTENT of a file in the home\n");
    let text = std::fs::read_to_string(root.join("capabilities.lock")).expect("lock");
    let planted = format!(
        "\n[[instruction]]\npath = \"~/.profile\"\nscope = \"user\"\norder = 2\nsha256 = \"{hash}\"\ntokens = 9\n"
    );
    std::fs::write(root.join("capabilities.lock"), format!("{text}{planted}")).expect("write lock");
    let turn = "{\"id\":1,\"type\":\"turn\",\"input\":\"hi\",\"include\":[\"request\"]}\n";
    let out = capc_in(&root, &["session", "--json", "--trust", "--user-dir", home_arg], turn);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("# Repo"), "{}", stdout(&out));
    assert!(!stdout(&out).contains("KNOWN-CONTENT"), "a file of the home was sent: {}", stdout(&out));
    assert!(stderr(&out).contains("the lock's instruction file `~/.profile`"), "{}", stderr(&out));
}

/// An LSP server only the lock file lists offers the model no LSP tool.
#[test]
fn an_lsp_server_only_the_lock_lists_offers_no_tool() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().join("repo");
    write_file(&root, "CLAUDE.md", "# Repo\n");
    assert_eq!(capc(&root, &["lock", "."]).status.code(), Some(0));
    let text = std::fs::read_to_string(root.join("capabilities.lock")).expect("lock");
    let planted =
        "\n[[lsp_server]]\nname = \"rust\"\nplugin = \"tools\"\npath = \"plugins/tools/.lsp.json\"\nline = 1\n\
                   command = \"rust-analyzer\"\ntransport = \"stdio\"\nextensions = [\".rs\"]\n";
    std::fs::write(root.join("capabilities.lock"), format!("{text}{planted}")).expect("write lock");
    let turn = "{\"id\":1,\"type\":\"turn\",\"input\":\"hi\",\"include\":[\"tools\"]}\n";
    let out = capc_in(&root, &["session", "--json", "--trust"], turn);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!stdout(&out).contains("\"LSP\""), "a lock-only LSP server offered the LSP tool: {}", stdout(&out));
    assert!(stderr(&out).contains("the lock's LSP server `rust`"), "{}", stderr(&out));
}

/// `capc lock`, `session` and `verify` ask git which local files it tracks: the repository's
/// `core.fsmonitor`, hooks, pager, an alias of the command and an untracked cache start nothing,
/// and a tracked `CLAUDE.local.md` is in the lock.
#[test]
fn telling_tracked_local_files_runs_no_program_the_repository_configures() {
    let dir = tempfile::tempdir().expect("tempdir");
    let marker = dir.path().join("ran");
    let script = dir.path().join("mark.sh");
    std::fs::write(&script, format!("#!/bin/sh\necho \"$0 $*\" >> '{}'\nexit 1\n", marker.display())).expect("write");
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).expect("chmod");
    let script = script.display().to_string();
    let repo = dir.path().join("repo");
    committed_repo(&repo, &[("CLAUDE.local.md", "# Tracked local\n"), ("CLAUDE.md", "# Repo\n")]);
    let hooks = dir.path().join("hooks");
    for hook in ["post-index-change", "reference-transaction", "post-checkout"] {
        write_file(&hooks, hook, &format!("#!/bin/sh\n{script}\n"));
        std::fs::set_permissions(hooks.join(hook), std::os::unix::fs::PermissionsExt::from_mode(0o755)).expect("chmod");
    }
    for (k, v) in [
        ("core.fsmonitor", script.as_str()),
        ("core.hooksPath", hooks.to_str().expect("utf-8")),
        ("core.pager", script.as_str()),
        ("alias.ls-files", &format!("!{script}")),
        ("core.untrackedCache", "true"),
    ] {
        git_in(&repo, &["config", k, v]);
    }
    assert_eq!(capc(&repo, &["lock", "."]).status.code(), Some(0));
    let lock = std::fs::read_to_string(repo.join("capabilities.lock")).expect("lock");
    assert!(lock.contains("path = \"CLAUDE.local.md\""), "{lock}");
    let turn = "{\"id\":1,\"type\":\"turn\",\"input\":\"hi\",\"include\":[]}\n";
    let out = capc_in(&repo, &["session", "--json", "--verify"], turn);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(capc(&repo, &["verify", "."]).status.code(), Some(0));
    assert!(!marker.exists(), "git ran {:?}", std::fs::read_to_string(&marker));
}

/// capc run with `CAPC_GIT_TIMEOUT_MS` set, bounded as `capc_fed` bounds it.
fn capc_git_bounded(dir: &Path, args: &[&str], input: &str, timeout_ms: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_capc"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .env("CAPC_GIT_TIMEOUT_MS", timeout_ms)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("capc runs");
    child.stdin.take().expect("stdin").write_all(input.as_bytes()).expect("write stdin");
    let deadline = Instant::now() + Duration::from_secs(60);
    while child.try_wait().expect("wait").is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("capc {args:?} hung");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().expect("output")
}

/// What `capc lock` and a session turn of `root` hold, with `CAPC_GIT_TIMEOUT_MS` at
/// `timeout_ms`: the tracked CLAUDE.md, never the untracked CLAUDE.local.md or
/// settings.local.json.
fn assert_untracked_local_files_stay_out(root: &Path, timeout_ms: &str) {
    let out = capc_git_bounded(root, &["lock", "."], "", timeout_ms);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = std::fs::read_to_string(root.join("capabilities.lock")).expect("lock");
    assert!(text.contains("path = \"CLAUDE.md\""), "{text}");
    assert!(!text.contains("path = \"CLAUDE.local.md\"") && !text.contains("settings.local.json\""), "{text}");
    let turn = "{\"id\":1,\"type\":\"turn\",\"input\":\"hi\",\"include\":[\"request\"]}\n";
    let out = capc_git_bounded(root, &["session", "--json"], turn, timeout_ms);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("# Repo"), "{}", stdout(&out));
    assert!(!stdout(&out).contains("untracked-local-notes"), "{}", stdout(&out));
}

/// A repository is untrusted: its `.git/HEAD` may be a named pipe, which git opens and waits on
/// (for `CAPC_GIT_TIMEOUT_MS`, a minute by default). capc looks at the type of the repository's
/// files before it runs git and never opens such a one. And when git cannot tell which local
/// files it tracks (a pipe its configuration includes, cut off at the bound), none is taken
/// for tracked: the untracked CLAUDE.local.md and settings.local.json stay out of the lock and
/// of the session's turn (they used to go in, as if the folder were in no repository).
#[test]
fn a_named_pipe_in_git_neither_stalls_the_lock_nor_lets_untracked_local_files_in() {
    use std::os::unix::fs::OpenOptionsExt as _;
    use std::sync::atomic::{AtomicBool, Ordering};
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().join("repo");
    committed_repo(&root, &[("CLAUDE.md", "# Repo\n"), (".claude/commands/a.md", "---\ndescription: A\n---\nA.\n")]);
    write_file(&root, "CLAUDE.local.md", "untracked-local-notes\n");
    write_file(&root, ".claude/settings.local.json", r#"{"permissions":{"deny":["WebFetch"]}}"#);
    let head = root.join(".git/HEAD");
    let head_text = std::fs::read(&head).expect("HEAD");
    mkfifo(&head);
    // Whoever opens the pipe to read releases this writer, which then says whether capc was
    // still running (`ended` is set once it has ended).
    let ended = std::sync::Arc::new(AtomicBool::new(false));
    let writer = {
        let (head, ended, text) = (head.clone(), ended.clone(), head_text.clone());
        std::thread::spawn(move || {
            let mut pipe = std::fs::OpenOptions::new().write(true).open(&head).expect("open the pipe to write");
            let opened_while_running = !ended.load(Ordering::SeqCst);
            let _ = pipe.write_all(&text);
            opened_while_running
        })
    };
    // A bound longer than the hang guard: waiting on the pipe is a hang.
    let out = capc_git_bounded(&root, &["lock", "."], "", "600000");
    ended.store(true, Ordering::SeqCst);
    // Release the writer: open the pipe to read, without waiting (O_NONBLOCK).
    let _reader = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(if cfg!(target_os = "linux") { 0o4000 } else { 0x0004 })
        .open(&head)
        .expect("open the pipe to read");
    assert!(!writer.join().expect("writer"), "capc (or the git it ran) opened the named pipe .git/HEAD");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_untracked_local_files_stay_out(&root, "600000");

    // HEAD a file again; the configuration includes a pipe: git runs and is cut off.
    std::fs::remove_file(&head).expect("remove the pipe");
    std::fs::write(&head, &head_text).expect("HEAD");
    mkfifo(&dir.path().join("fifo"));
    let config = root.join(".git/config");
    let text = std::fs::read_to_string(&config).expect("config");
    std::fs::write(&config, format!("{text}[include]\n\tpath = {}\n", dir.path().join("fifo").display()))
        .expect("write config");
    assert_untracked_local_files_stay_out(&root, "300");
}
