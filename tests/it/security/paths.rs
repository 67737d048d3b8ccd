//! Class 5 of docs/security.md: every path form goes through one resolver.

use super::*;

pub(super) const OUTSIDE_SECRET: &str = "outside-secret-contents";

/// `outside/secret.txt` beside the repository, and `d/lnk`, a committed link to it.
pub(super) fn plant_outside(root: &Path) -> PathBuf {
    let outside = root.parent().expect("parent").join("outside");
    write_file(&outside, "secret.txt", &format!("{OUTSIDE_SECRET}\n"));
    write_file(root, "d/b.txt", "inside\n");
    std::os::unix::fs::symlink(&outside, root.join("d/lnk")).expect("symlink");
    outside
}

/// The injection was refused and nothing of the secret reached the answer.
pub(super) fn assert_kept_out(result: &serde_json::Value, injection: &str, secret: &str) {
    assert_refused(result, injection);
    assert!(!result.to_string().contains(secret), "`{injection}` read outside: {result}");
}

/// The home folder of `root` in the password database, as `~root` expands it.
pub(super) fn root_home() -> Option<String> {
    let passwd = std::fs::read_to_string("/etc/passwd").ok()?;
    passwd.lines().find(|line| line.starts_with("root:")).and_then(|line| line.split(':').nth(5)).map(str::to_owned)
}

/// `~user`, `~+`, `~-` (and `cd -`) name folders from state no check sees: Claude Code
/// refuses them ("Tilde expansion variants … require manual approval"), and so does capc, in a
/// trusted folder with no rule, whatever they point to.
#[test]
fn tilde_variants_read_nothing_outside() {
    let mut injections = vec![
        "cat ~+/../outside/secret.txt".to_owned(),
        "cat ~-/secret.txt".to_owned(),
        "cd ~- && cat secret.txt".to_owned(),
        "cd ~-; cat secret.txt".to_owned(),
        "ls ~-".to_owned(),
        "grep -r outside ~-".to_owned(),
        "wc -c < ~-/secret.txt".to_owned(),
        "cat \"~-/secret.txt\"".to_owned(),
        "cd - && cat secret.txt".to_owned(),
    ];
    // `~root/..` climbs to `/`, then down to any file.
    if let Some(home) = root_home() {
        let up = "/..".repeat(home.split('/').filter(|s| !s.is_empty()).count());
        injections.push(format!("cat ~root{up}/OUTSIDE/secret.txt"));
    }
    for injection in injections {
        let probe = tempfile::tempdir().expect("tempdir");
        let oldpwd = probe.path().join("outside");
        write_file(&oldpwd, "secret.txt", &format!("{OUTSIDE_SECRET}\n"));
        let injection = injection.replace("/OUTSIDE", &oldpwd.display().to_string());
        let plant = |root: &Path| {
            plant_outside(root);
        };
        let (result, _dir) = injection_turn_with(&injection, plant, &[("OLDPWD", &oldpwd)]);
        assert_kept_out(&result, &injection, OUTSIDE_SECRET);
        let message = result["result"]["message"].as_str().unwrap_or_default();
        if injection.contains('~') {
            assert!(message.contains("Tilde expansion variants (~user, ~+, ~-)"), "`{injection}`: {message}");
        } else {
            assert!(message.contains("the previous directory"), "`{injection}`: {message}");
        }
    }
}

/// A bare `cd` goes home: Claude Code blocks it as a `cd` into the home folder, and so
/// does capc, however it is spelled; `cd ""` stays where it is and still runs.
#[test]
fn a_bare_cd_reads_nothing_in_the_home_folder() {
    let netrc = "machine example.invalid login me password home-netrc-secret";
    for injection in ["cd && cat .netrc", "cd; cat .netrc", "cd; ls -la", "cd -- && cat .netrc", "cd -P && cat .netrc"]
    {
        let plant = |root: &Path| write_file(&root.parent().expect("parent").join("home"), ".netrc", netrc);
        let (result, _dir) = injection_turn(injection, plant);
        assert_kept_out(&result, injection, "home-netrc-secret");
        assert!(!result.to_string().contains(".netrc\\n"), "`{injection}` listed the home folder: {result}");
        let message = result["result"]["message"].as_str().unwrap_or_default();
        assert!(message.contains("cd in '") && message.contains("/home' was blocked"), "`{injection}`: {message}");
    }
    let (result, _dir) = injection_turn("cd \"\" && cat a.txt", |_| {});
    assert_ne!(result["result"]["kind"], "shell_error", "{result}");
    assert!(result.to_string().contains("x marks the spot"), "{result}");
}

/// A glob is checked where each of its matches leads, links followed, as a plain path is: a
/// committed `d/lnk -> outside` reads nothing outside through `d/*` (Claude Code runs
/// these; capc's promise is that paths are checked after links are resolved). So are a `..`
/// after a link, and a relative path after a `cd`.
#[test]
fn globs_and_links_read_nothing_outside() {
    for injection in [
        "cat d/*/secret.txt",
        "cat d/l?k/secret.txt",
        "cat d/[l]nk/secret.txt",
        "head -1 d/*/secret.txt",
        "ls d/*",
        "grep -r outside d/*",
        "cd d/* && cat secret.txt",
        "cd d && cat lnk/secret.txt",
        "cd d && wc -c < lnk/secret.txt",
        "cat d/lnk/../outside/secret.txt",
    ] {
        let (result, _dir) = injection_turn(injection, |root| {
            plant_outside(root);
        });
        assert_kept_out(&result, injection, OUTSIDE_SECRET);
    }
    // Globs that stay inside still run, and a glob matching nothing is passed on as written.
    for (injection, output) in
        [("cat d/*.txt", "inside"), ("cat *.txt", "x marks the spot"), ("cd d && cat b.txt", "inside")]
    {
        let (result, _dir) = injection_turn(injection, |root| {
            plant_outside(root);
        });
        assert_ne!(result["result"]["kind"], "shell_error", "`{injection}`: {result}");
        assert!(result.to_string().contains(output), "`{injection}`: {result}");
    }
    // A write through a glob asks whatever allows the command (Claude Code's rule).
    let (result, dir) = injection_turn("rm -f d/*/secret.txt", |root| {
        plant_outside(root);
    });
    assert_refused(&result, "rm -f d/*/secret.txt");
    assert!(dir.path().join("outside/secret.txt").exists(), "the file outside was removed");
}

/// A baseline records what a finding is, never a secret it points at: fingerprints are
/// hashes, messages are masked, and `--baseline`'s report of gone findings is masked too.
#[test]
fn a_baseline_holds_no_secret() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    let token = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";
    let key = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789";
    let mcp = format!(
        r#"{{"mcpServers": {{"s": {{"command": "x", "args": ["--token", "{token}"], "env": {{"API_KEY": "{key}"}}}}}}}}"#
    );
    write_file(root, ".mcp.json", &mcp);
    let run = capc(root, &["check", "--write-baseline", "capc-baseline.toml"]);
    assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
    let baseline = std::fs::read_to_string(root.join("capc-baseline.toml")).expect("written");
    assert_eq!(baseline.matches("[[finding]]").count(), 2, "{baseline}");
    for secret in [token, key] {
        assert!(!baseline.contains(&secret[8..]), "the baseline holds a secret:\n{baseline}");
    }
    // Fixed, the findings are gone; the report of them shows no secret either.
    write_file(root, ".mcp.json", r#"{"mcpServers": {"s": {"command": "x", "env": {"API_KEY": "${API_KEY}"}}}}"#);
    for format in ["human", "json", "sarif"] {
        let run = capc(root, &["check", "--baseline", "capc-baseline.toml", "--format", format]);
        let out = stdout(&run);
        assert!(out.contains("literal-secret"), "{format}: the gone findings are listed:\n{out}");
        assert!(!out.contains(&token[8..]) && !out.contains(&key[8..]), "{format}:\n{out}");
    }
}
