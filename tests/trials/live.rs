//! Tests that run outside tools: the real `pre-commit` (PyPI, pinned in
//! `tests/precommit/requirements.txt`) trying this repository's `.pre-commit-hooks.yaml` and
//! running the README's pre-commit snippet as written, and
//! `capc session --connect` with the real MCP server-everything (npm, pinned in
//! `runtime/tests/servers/package-lock.json`). `.ci/run` installs both.
//!
//! This target has its own harness (libtest-mimic, `harness = false`): a test whose tool is
//! absent is reported as *ignored*, with what is missing in brackets, and counted as ignored
//! in cargo's summary, never as passed; with `CI` set it fails instead. `--include-ignored`
//! runs such tests anyway (they fail, saying what to install).

use crate::support::harness;
use crate::support::session::{answers, connected_session, none_left, settle, Transcript};
use libtest_mimic::Trial;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

// `capc serve` with real MCP clients.
mod serve;
// `capc lock --connect`'s tool surface, with a real server.
mod surface;

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// What a test needs besides capc.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Need {
    Git,
    Node,
    /// `pre-commit` in `tests/precommit/.venv`.
    PreCommit,
    /// server-everything in `runtime/tests/servers/node_modules`.
    Everything,
    /// `python3`, whose `pty` module plays a person at a terminal.
    Python,
}

impl Need {
    fn label(self) -> &'static str {
        match self {
            Need::Git => "git",
            Need::Node => "node",
            Need::PreCommit => "pre-commit",
            Need::Everything => "server-everything",
            Need::Python => "python3",
        }
    }

    /// `None` when present, else what is missing and how to install it.
    fn missing(self) -> Option<String> {
        let missing = match self {
            Need::Git => !on_path("git"),
            Need::Node => !on_path("node"),
            Need::PreCommit => !pre_commit_path().is_file(),
            Need::Everything => !everything_path().is_file(),
            Need::Python => !on_path("python3"),
        };
        missing.then(|| match self {
            Need::Git => "`git` is not on PATH".to_string(),
            Need::Node => "`node` is not on PATH (install Node.js)".to_string(),
            Need::PreCommit => "pre-commit is not installed (python3 -m venv tests/precommit/.venv && tests/precommit/.venv/bin/pip install --no-deps -r tests/precommit/requirements.txt; needs Python 3.10+ with venv)".to_string(),
            Need::Everything => "server-everything is not installed (npm ci --prefix runtime/tests/servers)".to_string(),
            Need::Python => "`python3` is not on PATH".to_string(),
        })
    }
}

fn on_path(program: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|paths| std::env::split_paths(&paths).any(|dir| dir.join(program).is_file()))
}

fn pre_commit_path() -> PathBuf {
    repo().join("tests/precommit/.venv/bin/pre-commit")
}

fn everything_path() -> PathBuf {
    repo().join("runtime/tests/servers/node_modules/@modelcontextprotocol/server-everything/dist/index.js")
}

/// What of `needs` is absent, as the harness reports it.
fn absent(needs: &[Need]) -> Vec<harness::Missing> {
    needs.iter().filter_map(|n| n.missing().map(|why| harness::Missing { label: n.label(), why })).collect()
}

/// A test, ignored (or, under `CI`, failed) when something it needs is missing.
fn trial(name: &str, needs: &[Need], test: fn()) -> Trial {
    harness::trial(format!("live::{name}"), &absent(needs), test)
}

/// The live tests, each marked with the tools it needs.
pub(crate) fn trials() -> Vec<Trial> {
    use Need::{Everything, Git, Node, PreCommit, Python};
    absent(&[Git, Node, PreCommit, Everything, Python]).iter().for_each(harness::note);
    let trials = vec![
        trial("pre_commit_try_repo_runs_capc_check", &[Git, PreCommit], pre_commit_try_repo_runs_capc_check),
        trial(
            "readme_pre_commit_snippet_works_as_written",
            &[Git, PreCommit],
            readme_pre_commit_snippet_works_as_written,
        ),
        trial("the_quick_start_in_a_fresh_clone_shows_what_it_should", &[Git], the_quick_start_in_a_fresh_clone),
        trial(
            "session_connects_real_servers_and_leaves_none_running",
            &[Node, Everything],
            session_connects_real_servers_and_leaves_none_running,
        ),
        trial(
            "the_repl_on_a_terminal_edits_lines_and_keeps_history",
            &[Python],
            the_repl_on_a_terminal_edits_lines_and_keeps_history,
        ),
    ];
    trials.into_iter().chain(serve::trials()).collect()
}

fn capc(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_capc")).args(args).env("NO_COLOR", "1").output().expect("capc runs")
}

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args(["-c", "user.name=capc tests", "-c", "user.email=tests@capc.invalid", "-c", "commit.gpgsign=false"])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("git runs");
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

/// The README's quick start, run where it starts a reader: at the top of a fresh clone of this
/// repository (this commit). The repository ships no declaration of its own, only fixtures and
/// examples broken on purpose, which its committed capc.toml excludes: `capc check` finds
/// nothing to report, `capc check --fix` rewrites no committed file, and the README's demo,
/// `capc check examples/broken-plugin`, named by path, still reports what the README shows.
fn the_quick_start_in_a_fresh_clone() {
    let scratch = tempfile::tempdir().expect("tempdir");
    let at = |args: &[&str]| Command::new("git").args(args).current_dir(repo()).output().expect("git");
    let top = String::from_utf8_lossy(&at(&["rev-parse", "--show-toplevel"]).stdout).trim().to_string();
    let head = String::from_utf8_lossy(&at(&["rev-parse", "HEAD"]).stdout).trim().to_string();
    let clone = scratch.path().join("capc");
    git(scratch.path(), &["clone", "--quiet", "--no-checkout", &top, clone.to_str().expect("utf-8")]);
    git(&clone, &["checkout", "--quiet", &head]);
    let run = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_capc")).args(args).current_dir(&clone).env("NO_COLOR", "1").output();
        let out = out.expect("capc runs");
        let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        (out.status.code(), text)
    };
    let unchanged = || {
        let status = Command::new("git").args(["status", "--porcelain"]).current_dir(&clone).output().expect("git");
        String::from_utf8_lossy(&status.stdout).to_string()
    };
    for args in [&["check"][..], &["check", "."], &["-q", "check", "."], &["check", "--strict"], &["check", "--fix"]] {
        let (code, text) = run(args);
        assert_eq!(code, Some(0), "capc {args:?} at the top of a fresh clone: {text}");
        assert!(text.contains("no Claude Code declarations found") || text.is_empty(), "capc {args:?}: {text}");
        assert_eq!(unchanged(), "", "capc {args:?} changed committed files");
    }
    let (code, text) = run(&["check", "examples/broken-plugin"]);
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("checked 5 files: 5 errors, 6 warnings, 1 info"), "{text}");
    let (code, text) = run(&["rules", "unknown-field"]);
    assert_eq!(code, Some(0), "{text}");
    assert_eq!(unchanged(), "");
}

/// `pre-commit try-repo HOOKS capc-check` in a project, with the built capc first on PATH;
/// pre-commit's cache in `home`. Returns the exit code and everything printed.
fn try_repo(project: &Path, hooks: &Path, home: &Path) -> (Option<i32>, String) {
    let bin = Path::new(env!("CARGO_BIN_EXE_capc")).parent().expect("bin dir").to_path_buf();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let out = Command::new(pre_commit_path())
        .args(["try-repo", hooks.to_str().expect("utf-8"), "capc-check", "--color", "never"])
        .current_dir(project)
        .env("PATH", path)
        .env("PRE_COMMIT_HOME", home)
        .env_remove("PRE_COMMIT_COLOR")
        .output()
        .expect("pre-commit runs");
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    (out.status.code(), text)
}

/// The hook, from this working tree's `.pre-commit-hooks.yaml` (committed into a scratch hook
/// repository, as try-repo reads hooks from a repository's HEAD), on a project whose staged
/// changes hold a broken and a clean declaration file: the hook fails with capc's report; once
/// the broken file is fixed it passes; a change to no declaration file skips it.
fn pre_commit_try_repo_runs_capc_check() {
    let hooks = tempfile::tempdir().expect("tempdir");
    std::fs::copy(repo().join(".pre-commit-hooks.yaml"), hooks.path().join(".pre-commit-hooks.yaml"))
        .expect("copy the hooks file");
    git(hooks.path(), &["init", "--quiet"]);
    git(hooks.path(), &["add", ".pre-commit-hooks.yaml"]);
    git(hooks.path(), &["commit", "--quiet", "-m", "hooks"]);

    let home = tempfile::tempdir().expect("tempdir");
    let project = tempfile::tempdir().expect("tempdir");
    let root = project.path();
    git(root, &["init", "--quiet"]);
    std::fs::write(root.join("README.md"), "# demo\n").expect("write");
    git(root, &["add", "README.md"]);
    git(root, &["commit", "--quiet", "-m", "start"]);
    std::fs::create_dir_all(root.join(".claude/skills/deploy")).expect("mkdir");
    std::fs::write(
        root.join(".claude/skills/deploy/SKILL.md"),
        "---\ndescription: Deploy the app to staging\n---\nRun `make deploy`.\n",
    )
    .expect("write");
    std::fs::write(root.join(".claude/settings.json"), "{ \"permissions\": { \"allow\": [\"Bash(npm test)\"], } }\n")
        .expect("write");
    git(root, &["add", "."]);

    let (code, text) = try_repo(root, hooks.path(), home.path());
    assert_eq!(code, Some(1), "the hook fails on the broken file:\n{text}");
    assert!(text.contains("capc check") && text.contains("Failed"), "{text}");
    assert!(text.contains("[invalid-json]") && text.contains(".claude/settings.json:1:"), "capc's report:\n{text}");
    assert!(text.contains("checked 2 files: 1 error"), "{text}");

    std::fs::write(root.join(".claude/settings.json"), "{ \"permissions\": { \"allow\": [\"Bash(npm test)\"] } }\n")
        .expect("write");
    git(root, &["add", "."]);
    let (code, text) = try_repo(root, hooks.path(), home.path());
    assert_eq!(code, Some(0), "the hook passes once the file is fixed:\n{text}");
    assert!(text.contains("Passed"), "{text}");

    git(root, &["commit", "--quiet", "-m", "declarations"]);
    std::fs::write(root.join("README.md"), "# demo, edited\n").expect("write");
    git(root, &["add", "README.md"]);
    let (code, text) = try_repo(root, hooks.path(), home.path());
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("Skipped"), "no declaration file changed:\n{text}");
}

/// The README's `.pre-commit-config.yaml`, the first ```yaml block that starts with `repos:`.
fn readme_pre_commit_config() -> String {
    let readme = std::fs::read_to_string(repo().join("README.md")).expect("README.md");
    let start = readme.find("```yaml\nrepos:").expect("the README has a ```yaml block starting with `repos:`");
    let body = &readme[start + "```yaml\n".len()..];
    body[..body.find("```").expect("the block ends")].to_string()
}

/// The README's pre-commit snippet, pasted as written into a project's
/// `.pre-commit-config.yaml`; only its `repo:` is pointed at a local clone of this repository,
/// as a user points it at capc's public one. The clone must hold the `rev:` the README names,
/// as the tag of this release (`v` and the crate's version), so the snippet a user pastes names
/// a revision that exists and never moves; a checkout with no tags at all (a CI fetch of
/// commits only) cannot tell, so there the scratch clone tags HEAD. Then `pre-commit install` and real commits: a clean
/// tree (`examples/team-repo`) commits, and a commit that breaks its `.mcp.json` is refused
/// with capc's report.
fn readme_pre_commit_snippet_works_as_written() {
    let snippet = readme_snippet();
    // The repository users point at: a clone of this one, with its tags (as `git clone` keeps them).
    let scratch = tempfile::tempdir().expect("tempdir");
    let capc_repo = scratch.path().join("capc");
    let config = clone_as_released(&capc_repo, &snippet);
    let project = scratch.path().join("project");
    let status = Command::new("cp").arg("-R").arg(repo().join("examples/team-repo")).arg(&project).status();
    assert!(status.is_ok_and(|s| s.success()), "copy examples/team-repo");
    std::fs::write(
        project.join(".pre-commit-config.yaml"),
        config.replace(&snippet.url, capc_repo.to_str().expect("utf-8")),
    )
    .expect("write .pre-commit-config.yaml");
    the_hook_passes_a_clean_commit_and_refuses_an_error(scratch.path(), &project);
}

/// The README's pre-commit snippet as written, with what it names.
struct Snippet {
    /// The `.pre-commit-config.yaml` text.
    config: String,
    /// Its `repo:`.
    url: String,
    /// Its `rev:`.
    rev: String,
    /// The tag the README pins (`v` and the crate's version), empty before the first release.
    release: String,
}

/// The README's snippet, checked: the hook of `.pre-commit-hooks.yaml`, at the `rev:` of this
/// release's tag (`<commit>` before the first release).
fn readme_snippet() -> Snippet {
    let config = readme_pre_commit_config();
    let parsed: serde_yaml::Value = serde_yaml::from_str(&config).expect("the README's pre-commit snippet is YAML");
    let entry = &parsed["repos"][0];
    let url = entry["repo"].as_str().expect("the snippet's `repo:`").to_string();
    let rev = entry["rev"].as_str().expect("the snippet's `rev:`").to_string();
    let hooks: Vec<&str> =
        entry["hooks"].as_sequence().expect("hooks").iter().filter_map(|h| h["id"].as_str()).collect();
    assert_eq!(hooks, ["capc-check"], "the snippet uses the hook of .pre-commit-hooks.yaml");
    let release = match crate::support::readme_pin() {
        crate::support::Pin::Tag(tag) => tag,
        crate::support::Pin::Commit => {
            assert_eq!(rev, "<commit>", "before the first release, the README's `rev:` is `<commit>`");
            String::new()
        }
    };
    if !release.is_empty() {
        assert_eq!(rev, release, "the README's `rev:` names this release's tag, `{release}`");
    }
    Snippet { config, url, rev, release }
}

/// Clones this repository into `capc_repo` and checks it holds the snippet's `rev:` as a tag
/// (tagging HEAD when the checkout has no tags at all); the snippet's config, pinned to this
/// commit's full SHA before the first release.
fn clone_as_released(capc_repo: &Path, snippet: &Snippet) -> String {
    let release = &snippet.release;
    let top = Command::new("git").args(["rev-parse", "--show-toplevel"]).current_dir(repo()).output().expect("git");
    assert!(top.status.success(), "this source tree is not a git repository; the test clones it");
    let top = String::from_utf8_lossy(&top.stdout).trim().to_string();
    let parent = capc_repo.parent().expect("a scratch folder");
    git(parent, &["clone", "--quiet", &top, capc_repo.to_str().expect("utf-8")]);
    let has_tag = |tag: &str| {
        let out = Command::new("git")
            .args(["rev-parse", "--verify", "--quiet", &format!("refs/tags/{tag}^{{commit}}")])
            .current_dir(capc_repo)
            .output()
            .expect("git");
        out.status.success()
    };
    // Before the first release a reader pins a commit: this one, by its full SHA.
    let config = if release.is_empty() {
        let head = Command::new("git").args(["rev-parse", "HEAD"]).current_dir(capc_repo).output().expect("git");
        let head = String::from_utf8_lossy(&head.stdout).trim().to_string();
        assert_eq!(head.len(), 40, "a commit SHA: {head}");
        snippet.config.replace("<commit>", &head)
    } else {
        snippet.config.clone()
    };
    let rev = if release.is_empty() { "HEAD" } else { snippet.rev.as_str() };
    let tags = Command::new("git").args(["tag", "--list"]).current_dir(capc_repo).output().expect("git");
    if !release.is_empty() && String::from_utf8_lossy(&tags.stdout).trim().is_empty() {
        // A checkout that carries no tag at all (CI systems often fetch commits only) cannot
        // say whether the release was tagged; the snippet is still run as written, against
        // this commit tagged `rev` in the scratch clone, as a release would tag it.
        eprintln!("note: this checkout has no tags; `{rev}` is tagged on HEAD in the scratch clone");
        git(capc_repo, &["-c", "user.name=capc tests", "-c", "user.email=tests@capc.invalid", "tag", rev]);
    }
    assert!(
        release.is_empty() || has_tag(rev),
        "the README tells users `rev: {rev}`, but a clone of this repository has no tag `{rev}`: \
         tag the release (`git tag -a {rev} -m 'capc {}'` on the commit released, then push the tag)",
        env!("CARGO_PKG_VERSION")
    );
    config
}

/// `pre-commit install` in `project` (its home under `scratch`), then real commits with the
/// built capc first on PATH: a clean tree commits, and a commit that breaks its `.mcp.json` is
/// refused with capc's report.
fn the_hook_passes_a_clean_commit_and_refuses_an_error(scratch: &Path, project: &Path) {
    let home = scratch.join("pre-commit-home");
    let bin = Path::new(env!("CARGO_BIN_EXE_capc")).parent().expect("bin dir").to_path_buf();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    // git in the project, with the built capc first on PATH for the hook it runs.
    let run = |args: &[&str]| {
        let out = Command::new("git")
            .args(["-c", "user.name=capc tests", "-c", "user.email=tests@capc.invalid", "-c", "commit.gpgsign=false"])
            .args(args)
            .current_dir(project)
            .env("PATH", &path)
            .env("PRE_COMMIT_HOME", &home)
            .env("PRE_COMMIT_COLOR", "never")
            .output()
            .expect("runs");
        let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        (out.status.code(), text)
    };
    assert_eq!(run(&["init", "--quiet"]).0, Some(0));
    let install =
        Command::new(pre_commit_path()).arg("install").current_dir(project).env("PRE_COMMIT_HOME", &home).output();
    let install = install.expect("pre-commit runs");
    assert!(install.status.success(), "pre-commit install: {}", String::from_utf8_lossy(&install.stderr));

    assert_eq!(run(&["add", "-A"]).0, Some(0));
    let (code, text) = run(&["commit", "--quiet", "-m", "declarations"]);
    assert_eq!(code, Some(0), "a clean tree commits:\n{text}");
    assert!(text.contains("capc check") && text.contains("Passed"), "the hook ran and passed:\n{text}");

    let mcp = project.join(".mcp.json");
    let broken =
        std::fs::read_to_string(&mcp).expect(".mcp.json").replacen("\"type\": \"http\",", "\"type\": \"http\",,", 1);
    std::fs::write(&mcp, broken).expect("write .mcp.json");
    assert_eq!(run(&["add", "-A"]).0, Some(0));
    let (code, text) = run(&["commit", "--quiet", "-m", "break .mcp.json"]);
    assert_ne!(code, Some(0), "a commit with an error is refused:\n{text}");
    assert!(text.contains("Failed") && text.contains("[invalid-json]") && text.contains(".mcp.json:"), "{text}");
    let (_, log) = run(&["rev-list", "--count", "HEAD"]);
    assert_eq!(log.trim(), "1", "nothing was committed");
}

/// `capc session --connect` starts the lock's stdio servers, reports them in `status`, and
/// leaves no process behind.
fn session_connects_real_servers_and_leaves_none_running() {
    use std::io::Write as _;
    let script = everything_path();
    let (_dir, mut child) = connected_session(
        serde_json::json!({
            "everything": {"command": "node", "args": [script.to_str().expect("utf-8"), "stdio"]},
            "broken": {"command": "capc-no-such-server"},
            "remote": {"type": "http", "url": "http://127.0.0.1:9/mcp"}
        }),
        "--json",
    );
    let mut stdin = child.stdin.take().expect("stdin");
    let out = Transcript::of(&mut child);
    settle(&mut stdin, &out);
    writeln!(stdin, "{{\"id\":1,\"type\":\"status\"}}").expect("write");
    writeln!(stdin, "{{\"id\":2,\"type\":\"turn\",\"input\":\"hi\",\"include\":[\"tools\"]}}").expect("write");
    // A tool call: asks without a rule, runs with an allow rule; a deny removes the tool.
    let call = |id: u32, rules: &str| {
        format!("{{\"id\":{id},\"type\":\"turn\",\"input\":\"go\",\"include\":[],\"context\":{{\"session_rules\":{rules}}}}}\n{{\"id\":{},\"type\":\"call_tool\",\"tool\":\"mcp__everything__echo\",\"arguments\":{{\"message\":\"hello from capc\"}}}}", id + 1)
    };
    writeln!(stdin, "{}", call(3, "{}")).expect("write");
    writeln!(stdin, "{}", call(5, "{\"allow\":[\"mcp__everything__echo\"]}")).expect("write");
    writeln!(stdin, "{}", call(7, "{\"allow\":[\"mcp__everything\"],\"deny\":[\"mcp__everything__echo\"]}"))
        .expect("write");
    drop(stdin);
    assert_eq!(child.wait().expect("capc exits").code(), Some(0));
    let lines = answers(&out.finish());
    let servers = lines[0]["result"]["mcp_servers"].as_array().expect("servers");
    let by_name = |n: &str| servers.iter().find(|s| s["name"] == n).expect("listed").clone();
    let everything = by_name("everything");
    assert_eq!(everything["status"], "connected", "{everything}");
    assert!(everything["tools"].as_u64().unwrap_or(0) >= 5, "{everything}");
    assert_eq!(by_name("broken")["status"], "failed");
    let remote = by_name("remote");
    assert_eq!(remote["status"], "failed", "{remote}");
    assert!(remote["error"].as_str().unwrap_or("").contains("http://127.0.0.1:9/mcp"), "{remote}");
    let tools = lines[1]["tools"].as_array().expect("tools");
    assert!(tools.iter().any(|t| t["name"] == "mcp__everything__echo"), "the pool has the server's tools");
    assert_eq!(lines[3]["result"]["permission"]["behavior"], "ask", "{}", lines[3]);
    assert_eq!(lines[5]["result"]["kind"], "tool_result", "{}", lines[5]);
    assert!(lines[5]["result"]["result"]["text"].as_str().unwrap_or("").contains("hello from capc"), "{}", lines[5]);
    // A deny on the tool removes it from the pool before any call can reach it.
    assert!(lines[7]["result"]["message"].as_str().unwrap_or("").contains("in this turn's pool"), "{}", lines[7]);
    // Nothing of the server is left running.
    none_left(script.to_str().expect("utf-8"), "server processes left behind");
}

/// `capc session` on a terminal (a pseudo-terminal driven by `tests/pty/drive.py`): the up arrow
/// recalls the previous line instead of arriving as `^[[A`, and the history is kept, owner-only,
/// in `CAPC_HISTORY` for the next session.
fn the_repl_on_a_terminal_edits_lines_and_keeps_history() {
    let dir = tempfile::tempdir().expect("tempdir");
    let project = repo().join("tests/precedence/skill-beats-command/project");
    let status = Command::new("cp").arg("-R").arg(format!("{}/.", project.display())).arg(dir.path()).status();
    assert!(status.is_ok_and(|s| s.success()), "copy the story");
    let root = dir.path().to_str().expect("utf-8");
    assert_eq!(capc(&["lock", root]).status.code(), Some(0));
    let history = dir.path().join("history");
    let lock = dir.path().join("capabilities.lock");
    let drive = |keys: &str| {
        let out = Command::new("python3")
            .arg(repo().join("tests/pty/drive.py"))
            .arg(keys)
            .arg("--")
            .arg(env!("CARGO_BIN_EXE_capc"))
            .args(["session", "--no-shell", "--lock", lock.to_str().expect("utf-8")])
            .env("CAPC_HISTORY", &history)
            .env("NO_COLOR", "1")
            .output()
            .expect("python3 runs");
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).replace("\r\n", "\n")
    };
    let answer = ".claude/commands/deploy.md (project) is hidden by .claude/skills/deploy/SKILL.md";
    // `:why deploy`, then the up arrow and Enter: the same question again.
    let text = drive(r#"[":why deploy\r", "\u001b[A\r", ":quit\r"]"#);
    assert_eq!(text.matches(answer).count(), 2, "{text}");
    assert!(!text.contains("^[[A") && !text.contains("no REPL command"), "{text}");
    let kept = std::fs::read_to_string(&history).expect("the history file");
    assert!(kept.lines().any(|l| l == ":why deploy"), "{kept}");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&history).expect("history").permissions().mode();
        assert_eq!(mode & 0o077, 0, "the history is the user's alone: {mode:o}");
    }
    // The next session starts with it: the up arrow reaches the last session's question.
    let text = drive(r#"["\u001b[A\u001b[A\r", ":quit\r"]"#);
    assert_eq!(text.matches(answer).count(), 1, "{text}");
}
