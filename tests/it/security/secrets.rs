//! A webhook URL, a connection string's password; a baseline through a link; a capc.toml above the folder.

use super::*;

/// Credentials that only their place gives away: a Slack incoming webhook's URL (its path is
/// the credential) and the `Password=` of a connection string.
pub(super) const WEBHOOK_TOKEN: &str = "PLANTEDwebhook0token0abc";
pub(super) const CONNECTION_PASSWORD: &str = "hunter2PLANTED";

#[test]
fn a_webhook_url_and_a_connection_string_password_reach_no_lock_or_diff() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (root, empty) = (dir.path().join("repo"), dir.path().join("empty"));
    std::fs::create_dir_all(&empty).expect("mkdir");
    let servers = serde_json::json!({ "mcpServers": {
        "notify": {"command": "notify-mcp", "env": {"NOTIFY_URL": format!("https://hooks.slack.com/services/T0AAAAAAA/B0BBBBBBB/{WEBHOOK_TOKEN}")}},
        "sql": {"command": "sql-mcp", "args": ["--connection-string", format!("Server=db.example.com;User Id=sa;Password={CONNECTION_PASSWORD};")]},
    }});
    write_file(&root, ".mcp.json", &servers.to_string());
    // An MCP tool's name is a name, not a generated secret.
    write_file(&root, ".claude/settings.json", r#"{"permissions": {"allow": ["mcp__context7__resolve-library-id"]}}"#);
    let leaks = |what: &str, text: &str| {
        let lines: Vec<&str> =
            text.lines().filter(|l| l.contains(WEBHOOK_TOKEN) || l.contains(CONNECTION_PASSWORD)).collect();
        assert!(lines.is_empty(), "{what} shows a credential:\n{}", lines.join("\n"));
    };
    let check = capc(&root, &["check", "--format", "short", "."]);
    let report = stdout(&check);
    let secrets: Vec<&str> = report.lines().filter(|l| l.contains("[literal-secret]")).collect();
    assert_eq!(secrets.len(), 2, "the webhook URL and the password, not the tool name: {secrets:#?}");
    assert!(secrets.iter().all(|l| l.starts_with(".mcp.json:")), "{secrets:#?}");
    leaks("check", &format!("{}{}", stdout(&check), stderr(&check)));
    let lock = capc(&root, &["lock", "."]);
    assert_eq!(lock.status.code(), Some(0), "{}", stderr(&lock));
    let locked = std::fs::read_to_string(root.join("capabilities.lock")).expect("lock");
    leaks("capabilities.lock", &locked);
    assert!(locked.contains("rule = \"mcp__context7__resolve-library-id\""), "{locked}");
    let empty_arg = empty.to_str().expect("utf-8");
    for format in ["human", "markdown", "json"] {
        let out = capc(&root, &["diff", "--format", format, empty_arg, "."]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        leaks(&format!("diff --format {format}"), &format!("{}{}", stdout(&out), stderr(&out)));
    }
    // A lock written before these were hidden holds them as written: `capc diff` still hides them.
    let servers = capc_compiler::lock::write::decode(&locked).expect("a lock").mcp_servers;
    let mut old = locked.clone();
    for server in &servers {
        for value in server.env.values().chain(&server.args).filter(|v| v.starts_with("sha256:")) {
            let literal = if server.name == "notify" {
                format!("https://hooks.slack.com/services/T0AAAAAAA/B0BBBBBBB/{WEBHOOK_TOKEN}")
            } else {
                format!("Server=db.example.com;User Id=sa;Password={CONNECTION_PASSWORD};")
            };
            old = old.replace(value.as_str(), &literal);
        }
    }
    assert!(old.contains(CONNECTION_PASSWORD) && old.contains(WEBHOOK_TOKEN), "{old}");
    std::fs::write(dir.path().join("old.lock"), old).expect("write");
    assert_eq!(capc(&empty, &["lock", "--allow-empty", "."]).status.code(), Some(0));
    for format in ["human", "markdown", "json"] {
        let out = capc(dir.path(), &["diff", "--format", format, "empty/capabilities.lock", "old.lock"]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        leaks(&format!("diff --format {format} of an old lock"), &format!("{}{}", stdout(&out), stderr(&out)));
    }
}

/// `capc check --write-baseline .capc/baseline.json` in a repository that commits `.capc` as a
/// link out of it: nothing is written through the link, the file it reaches is untouched, and
/// the error names the link.
#[test]
fn a_baseline_is_not_written_through_a_link_in_the_repository() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (root, outside) = (dir.path().join("repo"), dir.path().join("outside"));
    std::fs::create_dir_all(root.join(".git")).expect("mkdir");
    write_file(&root, ".claude/settings.json", r#"{"permissions": {"allow": ["Bash(*)"]}}"#);
    write_file(&outside, "baseline.json", "precious\n");
    std::os::unix::fs::symlink(&outside, root.join(".capc")).expect("link");
    for file in [".capc/baseline.json", "./.capc/../.capc/baseline.json"] {
        let out = capc(&root, &["check", ".", "--write-baseline", file]);
        assert_eq!(out.status.code(), Some(2), "{file}: {}{}", stdout(&out), stderr(&out));
        assert!(stderr(&out).contains(".capc` is a link (to `"), "{}", stderr(&out));
        assert_eq!(std::fs::read_to_string(outside.join("baseline.json")).expect("read"), "precious\n");
        assert_eq!(std::fs::read_dir(&outside).expect("list").count(), 1, "nothing was written beside it");
    }
    // From a folder above, through a link in a subfolder of the repository, the same.
    std::fs::create_dir_all(root.join("sub")).expect("mkdir");
    std::os::unix::fs::symlink(&outside, root.join("sub/out")).expect("link");
    let out = capc(dir.path(), &["check", "repo", "--write-baseline", "repo/sub/out/baseline.json"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(outside.join("baseline.json")).expect("read"), "precious\n");
    // A path without links is written.
    let out = capc(&root, &["check", ".", "--write-baseline", "baseline.toml"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(root.join("baseline.toml").is_file());
}

/// `capc check` in `folder` with `home` as the home folder: whether `blanket-allow` was reported,
/// and stderr.
pub(super) fn blanket_allow_reported(folder: &Path, home: &Path) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_capc"))
        .args(["check", "--format", "short", "."])
        .current_dir(folder)
        .env("HOME", home)
        .env("NO_COLOR", "1")
        .output()
        .expect("capc runs");
    assert!(matches!(out.status.code(), Some(0 | 1)), "{}", stderr(&out));
    (stdout(&out).contains("[blanket-allow]"), stderr(&out))
}

/// Outside a git repository, a `capc.toml` planted in a folder above the checked one turns no
/// rule off unless it is the user's own: the search stops after the home folder, before a
/// folder another user owns, and skips a file another user owns; a file it does use above the
/// checked folder is named on stderr.
#[test]
fn a_capc_toml_planted_above_a_folder_outside_a_repository_turns_nothing_off() {
    let dir = tempfile::tempdir().expect("tempdir");
    let top = dir.path().canonicalize().expect("canonical");
    let off = "[rules]\nblanket-allow = \"off\"\n";
    let project = top.join("home/work/proj");
    write_file(&project, ".claude/settings.json", r#"{"permissions": {"allow": ["Bash(*)"]}}"#);
    write_file(&top, "capc.toml", off);
    let (reported, err) = blanket_allow_reported(&project, &top.join("home"));
    assert!(reported, "the capc.toml above the home folder is not used: {err}");
    assert!(!err.contains("note: using"), "{err}");
    // The user's own, in their home: used, and named.
    write_file(&top, "home/capc.toml", off);
    let (reported, err) = blanket_allow_reported(&project, &top.join("home"));
    assert!(!reported, "{err}");
    let named = format!("note: using {}, found above {}", top.join("home/capc.toml").display(), project.display());
    assert!(err.contains(&named), "{err}");
    // Folders and files another user owns (possible to set up only as root): a shared folder
    // above, and a file planted in the user's own folder (in a scratch folder of their own).
    let dir = tempfile::tempdir().expect("tempdir");
    let top = dir.path().canonicalize().expect("canonical");
    let shared = top.join("shared");
    write_file(&shared, "mine/proj/.claude/settings.json", r#"{"permissions": {"allow": ["Bash(*)"]}}"#);
    write_file(&shared, "capc.toml", off);
    write_file(&top, "own/proj/.claude/settings.json", r#"{"permissions": {"allow": ["Bash(*)"]}}"#);
    write_file(&top, "own/capc.toml", off);
    let chown = |path: &Path| Command::new("chown").arg("65534").arg(path).status().is_ok_and(|s| s.success());
    if chown(&shared.join("capc.toml")) && chown(&shared) && chown(&top.join("own/capc.toml")) {
        let elsewhere = top.join("home");
        let (reported, err) = blanket_allow_reported(&shared.join("mine/proj"), &elsewhere);
        assert!(reported, "a folder another user owns is not searched: {err}");
        let (reported, err) = blanket_allow_reported(&top.join("own/proj"), &elsewhere);
        assert!(reported, "a file another user owns is not used: {err}");
        // Not left for the scratch folder's removal to trip over.
        let _ = Command::new("chown").arg("-R").arg("0").arg(&shared).status();
    }
}

/// A description Claude Code takes from a body's first line is cut to 97 UTF-16 units and
/// `...` when the line is longer than 100; a token the cut splits is no longer recognisable in
/// what is left, so the line is kept as its SHA-256 whole. A token before the cut is masked as
/// any prose secret is. Neither reaches the lock or the listing.
#[test]
fn a_description_cut_from_a_body_line_keeps_no_secret() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().join("repo");
    // The token starts 10 units before the cut: 87 characters, then the token.
    let split = format!("{} {TOKEN_B} and the rest of the line", "x".repeat(86));
    let before = format!("Deploy with {TOKEN_B} {}", "y".repeat(90));
    write_file(&root, ".claude/commands/split.md", &format!("{split}\n"));
    write_file(&root, ".claude/commands/before.md", &format!("{before}\n"));
    let out = capc(&root, &["lock", "."]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let lock = std::fs::read_to_string(root.join("capabilities.lock")).expect("written");
    assert!(!lock.contains(MARKER) && !lock.contains("ghp_"), "{lock}");
    let ls = capc(&root, &["ls", ".", "--format", "json"]);
    assert!(!stdout(&ls).contains(MARKER), "{}", stdout(&ls));
    let session = capc_in(&root, &["session", ".", "--json"], "{\"id\":1,\"type\":\"turn\",\"input\":\"hello\"}\n");
    assert!(!stdout(&session).contains(MARKER), "{}", stdout(&session));
    assert!(stdout(&session).contains("- split: sha256:"), "{}", stdout(&session));
}
