//! `--plugin-dir` as plugin authors use it: the plugin lives outside the folder capc reads
//! (`capc ls proj --plugin-dir ../acme`), and `ls`, `check`, `lock`, `session` and `diff` all
//! read it the way Claude Code loads it. Also: plugins Claude Code refuses (the lock
//! records them as not loaded and is written), and `capc check FILE` / `capc lock FILE` on a
//! file that is no declaration. Everything goes through the `capc` binary.

use crate::support::{stderr, stdout};
use std::path::Path;
use std::process::Output;

/// Wide enough that no path of a `--plugin-dir` report is cut.
fn capc_in(dir: &Path, args: &[&str]) -> Output {
    crate::support::capc_in(dir, args, 200)
}

fn write(root: &Path, files: &[(&str, &str)]) {
    for (path, text) in files {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().expect("has a parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    }
}

const COMMAND: &str = "---\ndescription: Ship the release\n---\nShip $ARGUMENTS now.\n";
const SKILL: &str = "---\ndescription: Do the thing. Use when asked to do it.\n---\nDo it.\n";

/// A scratch folder holding an empty project `proj/` and the plugin `acme/` beside it (no
/// manifest: a skill and a command in the default folders).
fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir(dir.path().join("proj")).expect("mkdir proj");
    write(dir.path(), &[("acme/skills/do.thing/SKILL.md", SKILL), ("acme/commands/ship.md", COMMAND)]);
    dir
}

fn lock_text(dir: &Path) -> String {
    std::fs::read_to_string(dir.join("capabilities.lock")).expect("lock written")
}

#[test]
fn a_plugin_dir_outside_the_folder_is_listed_locked_and_run() {
    let dir = workspace();
    let proj = dir.path().join("proj");
    let ls = capc_in(dir.path(), &["ls", "proj", "--plugin-dir", "acme"]);
    assert!(ls.status.success(), "{}", stderr(&ls));
    let listing = stdout(&ls);
    assert!(listing.contains("/acme:ship") && listing.contains("/acme:do-thing"), "{listing}");
    // Reports name the folder as a terminal opens it; only the lock writes `<plugin-dir 1>`.
    assert!(listing.contains("  acme/: 2 skill or command names"), "{listing}");
    assert!(!listing.contains("<plugin-dir"), "{listing}");
    let explain = stdout(&capc_in(dir.path(), &["explain", "acme:ship", "proj", "--plugin-dir", "acme"]));
    assert!(explain.contains(": acme/commands/ship.md") && !explain.contains("<plugin-dir"), "{explain}");
    let acme = dir.path().join("acme").canonicalize().expect("canonical");
    let runs = stdout(&capc_in(&proj, &["ls", "--runs", "--plugin-dir", "../acme"]));
    assert!(!runs.contains("<plugin-dir"), "{runs}");
    let budget = stdout(&capc_in(&proj, &["ls", "--budget", "--plugin-dir", "../acme"]));
    let skill = format!("{}/skills/do.thing/SKILL.md", acme.display());
    assert!(budget.contains(&skill) && !budget.contains("<plugin-dir"), "{budget}");

    let lock = capc_in(&proj, &["lock", ".", "--plugin-dir", "../acme"]);
    assert!(lock.status.success(), "{}", stderr(&lock));
    let text = lock_text(&proj);
    assert!(text.contains("root = \"<plugin-dir 1>/\""), "{text}");
    assert!(text.contains("path = \"<plugin-dir 1>/commands/ship.md\""), "{text}");
    let machine = dir.path().to_string_lossy().into_owned();
    assert!(!text.contains(&machine), "no absolute machine path in the lock:\n{text}");

    let session = capc_in(&proj, &["session", "--verify", "--repl", "--plugin-dir", "../acme"]);
    assert!(session.status.success(), "the lock is accepted: {}", stderr(&session));
    let typed =
        crate::support::capc_fed(&proj, &["session", "--repl", "--plugin-dir", "../acme"], "/acme:ship v2\n:quit\n");
    assert!(stdout(&typed).contains("Ship v2 now."), "{}\n{}", stdout(&typed), stderr(&typed));
}

#[test]
fn a_session_checks_the_plugin_dirs_files_against_the_lock() {
    let dir = workspace();
    let proj = dir.path().join("proj");
    assert!(capc_in(&proj, &["lock", ".", "--plugin-dir", "../acme"]).status.success());
    std::fs::write(dir.path().join("acme/commands/ship.md"), format!("{COMMAND}Then tag it.\n")).expect("edit");
    let verified = capc_in(&proj, &["session", "--verify", "--plugin-dir", "../acme"]);
    assert_eq!(verified.status.code(), Some(1), "{}", stderr(&verified));
    // The error names the folder given, as `ls` and `diff` do, not the lock's `<plugin-dir 1>/`.
    let acme = dir.path().join("acme").canonicalize().expect("canonical");
    let changed = format!("`{}/commands/ship.md` changed", acme.display());
    assert!(stderr(&verified).contains(&changed), "{}", stderr(&verified));
    assert!(!stderr(&verified).contains("<plugin-dir"), "{}", stderr(&verified));
    // Without the plugin folder the lock's `<plugin-dir 1>/` paths point nowhere: refused.
    let without = capc_in(&proj, &["session", "--repl"]);
    assert_eq!(without.status.code(), Some(2));
    assert!(stderr(&without).contains("the `--plugin-dir` it names was not given"), "{}", stderr(&without));
}

#[test]
fn relative_and_absolute_plugin_dirs_give_the_same_lock() {
    let dir = workspace();
    write(
        dir.path(),
        &[("tools/.claude-plugin/plugin.json", r#"{"name": "tools"}"#), ("tools/commands/fmt.md", COMMAND)],
    );
    let proj = dir.path().join("proj");
    let absolute = dir.path().join("tools").to_string_lossy().into_owned();
    let first = capc_in(&proj, &["lock", ".", "--plugin-dir", "../acme", "--plugin-dir", &absolute]);
    assert!(first.status.success(), "{}", stderr(&first));
    let by_relative = lock_text(&proj);
    assert!(by_relative.contains("root = \"<plugin-dir 2>/\""), "{by_relative}");
    assert!(by_relative.contains("name = \"tools:fmt\""), "{by_relative}");
    let acme = dir.path().join("acme").to_string_lossy().into_owned();
    let second = capc_in(dir.path(), &["lock", "proj", "--plugin-dir", &acme, "--plugin-dir", "tools"]);
    assert!(second.status.success(), "{}", stderr(&second));
    assert!(stderr(&second).contains("unchanged"), "{}", stderr(&second));
    assert_eq!(lock_text(&proj), by_relative);
    let session = capc_in(&proj, &["session", "--verify", "--plugin-dir", "../acme", "--plugin-dir", "../tools"]);
    assert!(session.status.success(), "{}", stderr(&session));
}

#[test]
fn capc_diff_compares_locks_of_an_outside_plugin_dir() {
    let dir = workspace();
    let proj = dir.path().join("proj");
    assert!(capc_in(&proj, &["lock", ".", "--plugin-dir", "../acme"]).status.success());
    std::fs::copy(proj.join("capabilities.lock"), dir.path().join("old.lock")).expect("copy");
    write(dir.path(), &[("acme/commands/release.md", COMMAND)]);
    assert!(capc_in(&proj, &["lock", ".", "--plugin-dir", "../acme"]).status.success());
    let diff = capc_in(dir.path(), &["diff", "old.lock", "proj/capabilities.lock", "--format", "json"]);
    assert!(diff.status.success(), "{}", stderr(&diff));
    let report = stdout(&diff);
    assert!(report.contains("acme:release"), "{report}");
    assert!(report.contains("<plugin-dir 1>/commands/release.md"), "{report}");
}

/// `capc diff` resolves a folder or revision side with the same scopes as `capc lock`: an
/// outside `--plugin-dir` is read as it is on both sides; one inside the compared folder (the
/// plugin's own repository, `--plugin-dir .`) is read as it was at the revision.
#[test]
fn capc_diff_resolves_folders_and_revisions_with_the_plugin_dir() {
    let dir = workspace();
    let proj = dir.path().join("proj");
    assert!(capc_in(&proj, &["lock", ".", "--plugin-dir", "../acme"]).status.success());
    write(dir.path(), &[("acme/commands/release.md", COMMAND)]);
    let diff = capc_in(&proj, &["diff", "capabilities.lock", ".", "--plugin-dir", "../acme", "--format", "json"]);
    assert!(diff.status.success(), "{}", stderr(&diff));
    assert!(stdout(&diff).contains("<plugin-dir 1>/commands/release.md"), "{}", stdout(&diff));
    // The human report names the folder as a terminal opens it; only the lock and JSON keep
    // the placeholder.
    let human = capc_in(&proj, &["diff", "capabilities.lock", ".", "--plugin-dir", "../acme"]);
    let shown = stdout(&human);
    let real = dir.path().join("acme").canonicalize().expect("acme");
    assert!(!shown.contains("<plugin-dir"), "{shown}");
    assert!(shown.contains(&format!("{}/commands/release.md", real.display())), "{shown}");
    let without = capc_in(&proj, &["diff", "capabilities.lock", ".", "--format", "json"]);
    assert!(stdout(&without).contains("\"removed\""), "without the flag the plugin is gone:\n{}", stdout(&without));

    // The plugin's own repository, compared with its last commit.
    let acme = dir.path().join("acme");
    crate::support::git::git(&acme, &["init", "--quiet"]);
    crate::support::git::git(&acme, &["add", "."]);
    crate::support::git::git(&acme, &["commit", "--quiet", "-m", "acme"]);
    write(&acme, &[("commands/hotfix.md", "---\ndescription: Hotfix\nallowed-tools: Bash(git push:*)\n---\nPush.\n")]);
    let diff = capc_in(&acme, &["diff", "HEAD", ".", "--plugin-dir", ".", "--format", "json"]);
    assert!(diff.status.success(), "{}", stderr(&diff));
    let report = stdout(&diff);
    assert!(report.contains("acme:hotfix"), "the new command, against the plugin as committed:\n{report}");
    assert!(!report.contains("\"subject\": \"/acme:release\""), "what both revisions hold is no change:\n{report}");
}

#[test]
fn a_plugin_dir_without_a_manifest_is_named_after_its_folder() {
    let dir = workspace();
    // Claude Code ignores a marketplace.json in a `--plugin-dir` folder: neither the
    // entry's name nor its component paths apply (measured with `plugin list --json`).
    write(
        dir.path(),
        &[
            (
                "acme/.claude-plugin/marketplace.json",
                r#"{"name": "mk", "owner": {"name": "x"}, "plugins": [{"name": "other", "source": "./", "strict": false, "commands": ["./extra/x.md"]}]}"#,
            ),
            ("acme/extra/x.md", COMMAND),
            ("readme-only/README.md", "# not a plugin\n"),
        ],
    );
    let ls =
        capc_in(dir.path(), &["ls", "proj", "--format", "json", "--plugin-dir", "acme", "--plugin-dir", "readme-only"]);
    assert!(ls.status.success(), "{}", stderr(&ls));
    let json: serde_json::Value = serde_json::from_slice(&ls.stdout).expect("json");
    let plugins = json["plugins"].as_array().expect("plugins");
    let acme = plugins.iter().find(|p| p["root"] == "<plugin-dir 1>/").expect("acme listed");
    assert_eq!(acme["id"], "acme@inline");
    assert_eq!(acme["loaded"], true);
    let names: Vec<&str> =
        acme["inventory"]["commands"].as_array().into_iter().flatten().filter_map(|c| c["name"].as_str()).collect();
    assert_eq!(names, ["acme:ship", "acme:do-thing"], "the entry's `commands` does not apply");
    // A folder without plugin.json and nothing to load is no plugin to Claude Code.
    let readme = plugins.iter().find(|p| p["root"] == "<plugin-dir 2>/").expect("readme-only listed");
    assert_eq!(readme["loaded"], false);
    assert!(readme["reason"].as_str().unwrap_or_default().contains("without `.claude-plugin/plugin.json`"), "{readme}");
}

#[test]
fn a_plugin_claude_code_refuses_is_locked_as_not_loaded_and_the_rest_resolved() {
    let dir = workspace();
    let hook = r#"{"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}"#;
    write(
        dir.path(),
        &[
            ("array/hooks/hooks.json", &format!(r#"{{"hooks": [{hook}]}}"#)),
            ("array/commands/a.md", COMMAND),
            ("guard/hooks/hooks.json", &format!(r#"{{"PreToolUse": [{hook}]}}"#)),
            ("guard/commands/g.md", COMMAND),
        ],
    );
    let proj = dir.path().join("proj");
    let flags = ["--plugin-dir", "../array", "--plugin-dir", "../acme", "--plugin-dir", "../guard"];
    let lock = capc_in(&proj, &[&["lock", "."][..], &flags].concat());
    // Claude Code skips them and runs the rest: the lock says so, and the run succeeds.
    assert_eq!(lock.status.code(), Some(0), "asked-for plugins Claude Code skips: {}", stderr(&lock));
    assert!(
        stderr(&lock).contains("note: plugin `array` is asked to load but Claude Code skips it, and the lock records it as not loaded: Claude Code refuses to load it: its hooks file's `hooks` is an array"),
        "{}",
        stderr(&lock)
    );
    let text = lock_text(&proj);
    for (name, why) in [
        ("array", "its hooks file's `hooks` is an array, not an object of events"),
        ("guard", "its hooks file declares the guard event `PreToolUse` at its top level"),
    ] {
        let entry = text.split("[[plugin]]").find(|e| e.contains(&format!("name = \"{name}\""))).expect("plugin entry");
        assert!(entry.contains("loaded = false") && entry.contains(why), "{entry}");
    }
    assert!(text.contains("name = \"acme:ship\""), "the rest is resolved:\n{text}");
    let table: Vec<&str> = text.split("[[command]]").skip(1).collect();
    assert!(
        !table.iter().any(|c| c.contains("name = \"array:a\"")),
        "a refused plugin's commands are not in the table:\n{text}"
    );
    let session = capc_in(&proj, &[&["session", "--verify"][..], &flags].concat());
    assert!(session.status.success(), "{}", stderr(&session));
}

#[test]
fn a_file_that_is_no_declaration_is_refused_by_check_and_lock() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(
        dir.path(),
        &[
            ("notes/todo.txt", "buy milk\n"),
            ("notes/random.md", "# Notes\n"),
            ("notes/.claude/commands/ok.md", COMMAND),
        ],
    );
    for file in ["notes/todo.txt", "notes/random.md"] {
        let check = capc_in(dir.path(), &["check", file]);
        assert_eq!(check.status.code(), Some(2), "{file}: {}", stdout(&check));
        assert!(stderr(&check).contains("is not a Claude Code declaration"), "{}", stderr(&check));
        let lock = capc_in(dir.path(), &["lock", file]);
        assert_eq!(lock.status.code(), Some(2), "{file}: {}", stderr(&lock));
        assert!(!dir.path().join("notes/capabilities.lock").exists(), "nothing written for {file}");
    }
    let ok = capc_in(dir.path(), &["check", "notes/.claude/commands/ok.md"]);
    assert!(ok.status.success(), "{}{}", stdout(&ok), stderr(&ok));
}

/// A plugin developed in its own repository: its `.claude/` is that repository's project
/// configuration, which Claude Code loads only when started there, not when the folder is given
/// as `--plugin-dir`; its files are still checked. `${CLAUDE_PLUGIN_ROOT}` names the folder
/// without a trailing separator, and allows the plugin's own script in its `allowed-tools`.
#[test]
fn a_plugin_dirs_own_claude_folder_is_not_loaded_and_its_root_is_named_exactly() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir(dir.path().join("proj")).expect("mkdir proj");
    write(
        dir.path(),
        &[
            ("acme/.claude-plugin/plugin.json", r#"{ "name": "acme" }"#),
            ("acme/.claude/commands/release-acme.md", "---\ndescription: Release the plugin\n---\nRelease.\n"),
            (
                "acme/commands/where.md",
                "---\ndescription: Say where\nallowed-tools: Bash(${CLAUDE_PLUGIN_ROOT}/bin/where.sh:*)\n---\n\
                 Root: ${CLAUDE_PLUGIN_ROOT}/bin\n!`${CLAUDE_PLUGIN_ROOT}/bin/where.sh here`\n",
            ),
            ("acme/bin/where.sh", "#!/bin/sh\necho \"where: $1\"\n"),
        ],
    );
    let script = dir.path().join("acme/bin/where.sh");
    std::fs::set_permissions(&script, <std::fs::Permissions as std::os::unix::fs::PermissionsExt>::from_mode(0o755))
        .expect("chmod");
    let ls = capc_in(dir.path(), &["ls", "proj", "--plugin-dir", "acme"]);
    assert!(ls.status.success(), "{}", stderr(&ls));
    assert!(stdout(&ls).contains("/acme:where"), "{}", stdout(&ls));
    assert!(
        !stdout(&ls).contains("release-acme"),
        "the plugin repository's own command is not loaded:\n{}",
        stdout(&ls)
    );
    let check = capc_in(dir.path(), &["check", "proj", "--plugin-dir", "acme", "--list-files"]);
    assert!(stdout(&check).contains("\nacme/.claude/commands/release-acme.md\t"), "still checked:\n{}", stdout(&check));

    let proj = dir.path().join("proj");
    let lock = capc_in(&proj, &["lock", ".", "--plugin-dir", "../acme"]);
    assert!(lock.status.success(), "{}", stderr(&lock));
    let root = dir.path().join("acme").canonicalize().expect("acme");
    let turn = "{\"id\":1,\"type\":\"turn\",\"input\":\"/acme:where\",\"include\":[\"request\"]}\n";
    let plugin_dir = root.to_str().expect("utf-8");
    let typed = crate::support::capc_fed(&proj, &["session", "--json", "--trust", "--plugin-dir", plugin_dir], turn);
    let text = stdout(&typed);
    let root = root.to_string_lossy();
    assert!(text.contains(&format!("Root: {root}/bin")), "no `//` after the root:\n{text}\n{}", stderr(&typed));
    assert!(text.contains("where: here"), "the plugin's allowed-tools allow its own script:\n{text}");
}

/// A plugin named as one of Anthropic's, loaded with `--plugin-dir`: the official validator
/// rejects the name, so `capc check` fails; Claude Code loads the plugin all the same, so
/// `capc lock` records it (naming the error) and a session runs it.
#[test]
fn a_reserved_plugin_name_fails_check_but_is_locked_as_claude_code_loads_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir(dir.path().join("proj")).expect("mkdir proj");
    write(
        dir.path(),
        &[
            ("claude-tools/.claude-plugin/plugin.json", r#"{ "name": "claude-tools" }"#),
            ("claude-tools/commands/ship.md", COMMAND),
        ],
    );
    let check = capc_in(dir.path(), &["check", "proj", "--plugin-dir", "claude-tools"]);
    assert_eq!(check.status.code(), Some(1), "{}", stdout(&check));
    assert!(stdout(&check).contains("[reserved-name]"), "{}", stdout(&check));
    let proj = dir.path().join("proj");
    let lock = capc_in(&proj, &["lock", ".", "--plugin-dir", "../claude-tools"]);
    assert_eq!(lock.status.code(), Some(0), "{}", stderr(&lock));
    assert!(stderr(&lock).contains("1 error does not block the lock"), "{}", stderr(&lock));
    assert!(lock_text(&proj).contains("claude-tools:ship"), "{}", lock_text(&proj));
    let session = capc_in(&proj, &["session", "--verify", "--repl", "--plugin-dir", "../claude-tools"]);
    assert!(session.status.success(), "the lock is accepted: {}", stderr(&session));
}

/// Which plugins Claude Code loads when their hooks are written oddly, inline in plugin.json
/// or in hooks/hooks.json, and how many hooks then run: each case measured with Claude Code (`claude --plugin-dir` from an empty folder, the plugin's command in the request
/// or not). An inline map is the events themselves (a `hooks` key in it is an unknown event);
/// an array may hold inline maps; a guard hook (PreToolUse, PermissionRequest) Claude Code
/// cannot load makes it skip the whole plugin, another event's unreadable entry is dropped.
#[test]
fn plugins_with_odd_hooks_load_as_claude_code_loads_them() {
    let h = r#"[{"type":"command","command":"echo hi"}]"#;
    let manifest = |hooks: &str| format!(r#"{{"name":"p","hooks":{hooks}}}"#);
    let file = |hooks: &str| format!(r#"{{"hooks":{hooks}}}"#);
    // (plugin.json, hooks/hooks.json, loads, hooks recorded)
    let cases: Vec<(String, Option<String>, bool, usize)> = vec![
        (manifest(&format!(r#"{{"hooks":{{"PreToolUse":[{{"hooks":{h}}}]}}}}"#)), None, false, 0),
        (manifest(&format!(r#"{{"hooks":{{"Stop":[{{"hooks":{h}}}]}}}}"#)), None, true, 0),
        (manifest("[3]"), None, false, 0),
        (manifest(&format!(r#"{{"Bogus":[{{"hooks":{h}}}],"PreToolUse":[{{"hooks":{h}}}]}}"#)), None, true, 1),
        (manifest(r#"{"hooks":[]}"#), None, true, 0),
        (manifest(r#"[{"PreToolUse":[]}]"#), None, true, 0),
        (manifest(&format!(r#"[{{"PreToolUse":[{{"hooks":{h}}}]}}]"#)), None, true, 1),
        (r#"{"name":"p"}"#.into(), Some(file(&format!(r#"{{"Bogus":{{"PreToolUse":[{{"hooks":{h}}}]}}}}"#))), false, 0),
        (r#"{"name":"p"}"#.into(), Some(file(&format!(r#"{{"Bogus":[{{"hooks":{h}}}]}}"#))), true, 0),
        (r#"{"name":"p"}"#.into(), Some(file(r#"{"PreToolUse":[3]}"#)), false, 0),
        (r#"{"name":"p"}"#.into(), Some(file(r#"{"PreToolUse":[{"matcher":"Bash"}]}"#)), false, 0),
        (
            r#"{"name":"p"}"#.into(),
            Some(file(&format!(r#"{{"Stop":[{{"PreToolUse":[{{"hooks":{h}}}]}}]}}"#))),
            false,
            0,
        ),
        (r#"{"name":"p"}"#.into(), Some(file(&format!(r#"{{"PreToolUse":{{"hooks":{h}}}}}"#))), false, 0),
        (r#"{"name":"p"}"#.into(), Some(file(r#"{"Stop":{"x":1}}"#)), true, 0),
    ];
    for (plugin_json, hooks_json, loads, hooks) in cases {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir(dir.path().join("proj")).expect("mkdir proj");
        write(dir.path(), &[("p/.claude-plugin/plugin.json", &plugin_json), ("p/commands/x.md", COMMAND)]);
        if let Some(text) = &hooks_json {
            write(dir.path(), &[("p/hooks/hooks.json", text)]);
        }
        let proj = dir.path().join("proj");
        let out = capc_in(&proj, &["lock", ".", "--plugin-dir", "../p"]);
        // A `--plugin-dir` plugin that does not load is no error of the run: Claude Code runs
        // without it, and the lock is written with the plugin not loaded and why (stderr
        // names it).
        assert_eq!(out.status.code(), Some(0), "{plugin_json} {hooks_json:?}: {}", stderr(&out));
        assert_eq!(
            stderr(&out).contains("Claude Code skips it"),
            !loads,
            "{plugin_json} {hooks_json:?}: {}",
            stderr(&out)
        );
        let lock = lock_text(&proj);
        let case = format!("plugin.json {plugin_json}, hooks.json {hooks_json:?}:\n{lock}");
        assert_eq!(lock.contains("[[command]]\nname = \"p:x\""), loads, "{case}");
        assert_eq!(lock.matches("[[hook]]").count(), hooks, "{case}");
    }
}

/// The findings in a `--plugin-dir` folder are shown at the files' real paths in every output
/// format — relative to the current folder when below it, else absolute; a `file://` URI in
/// SARIF (which GitHub's upload makes relative to the checkout) — so a terminal, an editor and
/// GitHub resolve them. Only the lock writes `<plugin-dir N>/…` (checked above).
#[test]
fn check_shows_plugin_dir_findings_at_paths_terminals_editors_and_github_resolve() {
    let dir = workspace();
    write(
        dir.path(),
        &[
            ("acme/.claude-plugin/plugin.json", "{ \"name\": \"acme\", \"author\": \"Dana\" }\n"),
            ("acme/commands/go.md", "---\ndescription: Go\nallowed-tools: Bahs\n---\nGo.\n"),
        ],
    );
    let acme = dir.path().join("acme").canonicalize().expect("canonical");
    let proj = dir.path().join("proj");
    // (where capc runs, its arguments, how the plugin's folder is shown)
    let absolute = acme.display().to_string();
    let runs: [(&Path, [&str; 2], &str); 2] =
        [(dir.path(), ["proj", "acme"], "acme"), (&proj, [".", "../acme"], absolute.as_str())];
    for (cwd, [folder, plugin], shown) in runs {
        let run = |format: &str| {
            let out = capc_in(cwd, &["check", folder, "--plugin-dir", plugin, "--format", format]);
            assert_eq!(out.status.code(), Some(1), "{format}: {}{}", stdout(&out), stderr(&out));
            assert!(!stdout(&out).contains("<plugin-dir"), "{format}: {}", stdout(&out));
            stdout(&out)
        };
        let short = run("short");
        assert!(short.contains(&format!("{shown}/commands/go.md:3:16: warning[unknown-tool-in-rule]")), "{short}");
        assert!(short.contains(&format!("{shown}/.claude-plugin/plugin.json:1:")), "{short}");
        let human = run("human");
        assert!(human.contains(&format!("╭─[{shown}/commands/go.md:3:16]")), "{human}");
        let github = run("github");
        assert!(github.contains(&format!("::warning file={shown}/commands/go.md,line=3,col=16,")), "{github}");
        let json: serde_json::Value = serde_json::from_str(&run("json")).expect("JSON");
        let paths: Vec<&str> =
            json["diagnostics"].as_array().expect("diagnostics").iter().filter_map(|d| d["path"].as_str()).collect();
        assert!(paths.contains(&format!("{shown}/commands/go.md").as_str()), "{paths:?}");
        let sarif: serde_json::Value = serde_json::from_str(&run("sarif")).expect("SARIF");
        let locations: Vec<&serde_json::Value> = sarif["runs"][0]["results"]
            .as_array()
            .expect("results")
            .iter()
            .map(|r| &r["locations"][0]["physicalLocation"]["artifactLocation"])
            .collect();
        let go = locations
            .iter()
            .find(|l| l["uri"].as_str().is_some_and(|u| u.ends_with("/commands/go.md")))
            .expect("go.md");
        assert_eq!(go["uri"], format!("file://{}/commands/go.md", acme.display()), "{sarif:#}");
        assert!(go.get("uriBaseId").is_none(), "an absolute URI has no base: {go}");
    }
}

/// The `--plugin-dir` plugins' ids, whether each loads, and the reason `capc ls --format json`
/// gives, for the plugins named in `dirs` (each a folder of `root`).
fn loaded(root: &Path, dirs: &[&str]) -> Vec<(String, bool, String)> {
    let mut args = vec!["ls", "proj", "--format", "json"];
    for d in dirs {
        args.extend(["--plugin-dir", d]);
    }
    let ls = capc_in(root, &args);
    let json: serde_json::Value = serde_json::from_slice(&ls.stdout).expect("ls json");
    json["plugins"]
        .as_array()
        .expect("plugins")
        .iter()
        .map(|p| {
            let reason = p["reason"].as_str().unwrap_or_default().to_string();
            (p["id"].as_str().unwrap_or_default().to_string(), p["loaded"] == true, reason)
        })
        .collect()
}

/// What Claude Code's `claude --plugin-dir … plugin list --json` said for each layout
/// (measured): a plugin whose dependency does not load is `enabled: false` with a
/// `dependency-unsatisfied` error naming the first such dependency; a chain fails from its
/// missing end; two plugins that depend on each other both load; a `--plugin-dir` plugin
/// satisfies `name@marketplace` (and is named in the error when it is itself turned off); a
/// version range is compared only with a dependency named `name@inline`, and a failing one is
/// `dependency-version-unsatisfied` (`Requires "base@inline" ^2.0.0, installed 1.2.0`).
#[test]
fn a_plugin_whose_dependency_does_not_load_is_turned_off_as_claude_code_does() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir(dir.path().join("proj")).expect("mkdir proj");
    let manifest =
        |deps: &str, name: &str| format!("{{\"name\": \"{name}\", \"version\": \"1.2.0\", \"dependencies\": {deps}}}");
    write(
        dir.path(),
        &[
            ("dep/.claude-plugin/plugin.json", &manifest(r#"["base", "other@mk"]"#, "dep")),
            ("dep/commands/hello.md", COMMAND),
            ("base/.claude-plugin/plugin.json", &manifest("[]", "base")),
            ("ranged/.claude-plugin/plugin.json", &manifest(r#"[{"name": "base", "version": "^2.0.0"}]"#, "ranged")),
            (
                "qualified/.claude-plugin/plugin.json",
                &manifest(r#"[{"name": "base", "marketplace": "inline", "version": "^2.0.0"}]"#, "qualified"),
            ),
            (
                "inrange/.claude-plugin/plugin.json",
                &manifest(
                    r#"[{"name": "base", "marketplace": "inline", "version": ">=1.0.0 <1.2.0 || 1.2"}]"#,
                    "inrange",
                ),
            ),
            ("nover/.claude-plugin/plugin.json", r#"{"name": "nover"}"#),
            (
                "unknown/.claude-plugin/plugin.json",
                &manifest(r#"[{"name": "nover", "marketplace": "inline", "version": "*"}]"#, "unknown"),
            ),
            ("a/.claude-plugin/plugin.json", &manifest(r#"["b@mk"]"#, "a")),
            ("b/.claude-plugin/plugin.json", &manifest(r#"["c"]"#, "b")),
            ("x/.claude-plugin/plugin.json", &manifest(r#"["y"]"#, "x")),
            ("y/.claude-plugin/plugin.json", &manifest(r#"["x"]"#, "y")),
        ],
    );
    let off = |reason: &str| (false, reason.to_string());
    let state = |found: Vec<(String, bool, String)>, id: &str| {
        let (_, on, reason) = found.into_iter().find(|(i, _, _)| i == id).expect(id);
        (on, reason.split(':').next().unwrap_or_default().to_string())
    };
    // Alone: its first dependency is missing, so nothing of it loads.
    assert_eq!(state(loaded(dir.path(), &["dep"]), "dep@inline"), off("Dependency \"base\" is not installed"));
    let alone = capc_in(dir.path(), &["ls", "proj", "--plugin-dir", "dep"]);
    assert!(!stdout(&alone).contains("/dep:hello"), "its command is not in the table:\n{}", stdout(&alone));
    let check = capc_in(dir.path(), &["check", "proj", "--plugin-dir", "dep"]);
    assert_eq!(check.status.code(), Some(1), "{}", stdout(&check));
    assert!(stdout(&check).contains("[unsatisfied-dependency]"), "{}", stdout(&check));
    // With `base` beside it, the next entry is the one missing.
    assert_eq!(
        state(loaded(dir.path(), &["dep", "base"]), "dep@inline"),
        off("Dependency \"other@mk\" is not installed")
    );
    // A bare name's range is not compared here: `base` 1.2.0 satisfies `^2.0.0`.
    assert!(state(loaded(dir.path(), &["ranged", "base"]), "ranged@inline").0);
    // Named `base@inline`, it is.
    let ranged = loaded(dir.path(), &["qualified", "inrange", "base", "unknown", "nover"]);
    assert_eq!(state(ranged.clone(), "qualified@inline"), off("Requires \"base@inline\" ^2.0.0, installed 1.2.0"));
    assert!(state(ranged.clone(), "inrange@inline").0);
    assert_eq!(state(ranged, "unknown@inline"), off("Requires \"nover@inline\" *, installed version unknown"));
    let check = capc_in(dir.path(), &["check", "proj", "--plugin-dir", "qualified", "--plugin-dir", "base"]);
    assert!(
        stdout(&check).contains("its dependency `base@inline` is version 1.2.0, outside `^2.0.0`"),
        "{}",
        stdout(&check)
    );
    // A chain fails from its missing end; `b@mk` is satisfied by, then named as, `b@inline`.
    let chain = loaded(dir.path(), &["a", "b"]);
    assert_eq!(state(chain.clone(), "b@inline"), off("Dependency \"c\" is not installed"));
    assert_eq!(state(chain, "a@inline"), off("Dependency \"b@inline\" is disabled"));
    // A cycle loads.
    let cycle = loaded(dir.path(), &["x", "y"]);
    assert!(state(cycle.clone(), "x@inline").0 && state(cycle, "y@inline").0);
}

/// A plugin with every kind Claude Code's `claude plugin validate` lists in `provides`
/// beyond skills, commands, agents, hooks and MCP servers. Its `provides` for this layout was
/// (measured): lspServers `rust`; monitors `tail-log`, `on-deploy`; outputStyles `kit:Terse`;
/// themes `kit:dusk`; workflows `kit:triage`; bin `notexec`, `tool`; modules `hooks/mod.js`.
fn every_kind(root: &Path) {
    write(
        root,
        &[
            ("kit/.claude-plugin/plugin.json", r#"{"name": "kit", "version": "1.0.0"}"#),
            (
                "kit/monitors/monitors.json",
                "[\n  {\"name\": \"tail-log\", \"command\": \"tail -f \\\"${CLAUDE_PLUGIN_ROOT}/log\\\"\", \"description\": \"Watch the log\"},\n  {\"name\": \"on-deploy\", \"command\": \"./watch.sh\", \"description\": \"Deploys\", \"when\": \"on-skill-invoke:deploy\"}\n]\n",
            ),
            (
                "kit/.lsp.json",
                r#"{"rust": {"command": "rust-analyzer", "args": ["--stdio"], "extensionToLanguage": {".rs": "rust"}, "env": {"RA_LOG": "${RA_LOG}", "GITHUB_TOKEN": "ghp_abcdefghijklmnopqrstuvwxyz0123456789"}}}"#,
            ),
            (
                "kit/output-styles/terse.md",
                "---\nname: Terse\ndescription: Short answers\nkeep-coding-instructions: true\n---\nBe terse.\n",
            ),
            ("kit/themes/dusk.json", r#"{"name": "Dusk", "base": "dark", "overrides": {}}"#),
            ("kit/workflows/triage.js", "export const meta = { name: 'triage', description: 'Triage issues' }\n"),
            ("kit/bin/tool", "#!/bin/sh\necho tool\n"),
            ("kit/bin/notexec", "data\n"),
            ("kit/hooks/hooks.json", r#"{"hooks": {}, "modules": ["./mod.js"]}"#),
            ("kit/hooks/mod.js", "export function register(on, options) {}\n"),
            (
                "kit/settings.json",
                r#"{"agent": "kit:helper", "subagentStatusLine": {"type": "command", "command": "./status.sh"}, "model": "opus"}"#,
            ),
        ],
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(root.join("kit/bin/tool"), std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }
}

#[test]
fn every_kind_a_plugin_provides_is_listed_and_locked() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir(dir.path().join("proj")).expect("mkdir proj");
    every_kind(dir.path());
    let ls = capc_in(dir.path(), &["ls", "proj", "--format", "json", "--plugin-dir", "kit"]);
    let json: serde_json::Value = serde_json::from_slice(&ls.stdout).expect("ls json");
    let inventory = &json["plugins"][0]["inventory"];
    let names = |kind: &str| -> Vec<&str> {
        inventory[kind].as_array().into_iter().flatten().filter_map(serde_json::Value::as_str).collect()
    };
    assert_eq!(names("lsp_servers"), ["rust"]);
    assert_eq!(names("monitors"), ["on-deploy", "tail-log"]);
    assert_eq!(names("output_styles"), ["kit:Terse"]);
    assert_eq!(names("themes"), ["kit:dusk"]);
    assert_eq!(names("workflows"), ["kit:triage"]);
    assert_eq!(names("bin"), ["notexec", "tool"]);
    assert_eq!(names("modules"), ["hooks/mod.js"]);

    let text = capc_in(dir.path(), &["ls", "proj", "--plugin-dir", "kit"]);
    let text = stdout(&text);
    for line in [
        "monitors: on-deploy, tail-log",
        "tail-log                  always    kit/monitors/monitors.json:2",
        "rust                      .rs  kit/.lsp.json:1  rust-analyzer --stdio",
        "notexec                   kit/bin/notexec  (not executable)",
        "kit:Terse                 plugin    kit/output-styles/terse.md  (keeps the coding instructions)",
    ] {
        assert!(text.contains(line), "`{line}` in:\n{text}");
    }

    let proj = dir.path().join("proj");
    let lock = capc_in(&proj, &["lock", ".", "--plugin-dir", "../kit"]);
    assert!(lock.status.success(), "{}", stderr(&lock));
    let check = capc_in(&proj, &["check", ".", "--plugin-dir", "../kit", "--format", "short"]);
    assert!(stdout(&check).contains("[literal-secret] LSP server `rust`"), "{}", stdout(&check));
    let text = lock_text(&proj);
    let tool = capc_compiler::secrets::sha256_hex(b"#!/bin/sh\necho tool\n");
    for expected in [
        "[[monitor]]\nname = \"tail-log\"\nplugin = \"kit\"\npath = \"<plugin-dir 1>/monitors/monitors.json\"\nline = 2\ncommand = \"tail -f \\\"${CLAUDE_PLUGIN_ROOT}/log\\\"\"\ndescription = \"Watch the log\"\nwhen = \"always\"\n",
        "when = \"on-skill-invoke:deploy\"",
        "[[lsp_server]]\nname = \"rust\"\nplugin = \"kit\"\npath = \"<plugin-dir 1>/.lsp.json\"\nline = 1\ncommand = \"rust-analyzer\"\nargs = [\"--stdio\"]\ntransport = \"stdio\"\nextensions = [\".rs\"]\n\n[lsp_server.env]\n",
        "RA_LOG = \"${RA_LOG}\"\n",
        &format!("[[plugin_bin]]\nname = \"tool\"\nplugin = \"kit\"\npath = \"<plugin-dir 1>/bin/tool\"\nsha256 = \"{tool}\"\nexecutable = true\n"),
        "GITHUB_TOKEN = \"sha256:",
        "[[output_style]]\nname = \"kit:Terse\"\nscope = \"plugin\"\npath = \"<plugin-dir 1>/output-styles/terse.md\"\nplugin = \"kit\"\ndescription = \"Short answers\"\nkeep_coding_instructions = true\n",
    ] {
        assert!(text.contains(expected), "`{expected}` in:\n{text}");
    }
    assert!(!text.contains("ghp_abcdefghijklmnopqrstuvwxyz0123456789"), "no secret in the lock:\n{text}");
    // Its settings.json: `agent` and `subagentStatusLine` apply, the rest is dropped (measured).
    assert!(text.contains("agent = \"kit:helper\"\nsubagent_status_line = \"./status.sh\"\n"), "{text}");
    assert!(
        stdout(&check).contains("ignored-field] Claude Code does not apply `model` from a plugin's settings"),
        "{}",
        stdout(&check)
    );
    let session = capc_in(&proj, &["session", "--verify", "--repl", "--plugin-dir", "../kit"]);
    assert!(session.status.success(), "the lock is accepted: {}", stderr(&session));
}

/// Claude Code drops a whole monitors file or `.lsp.json` when one entry fails its
/// strict schema (`monitors load failed`, `lsp-config-invalid`; measured), and loads the rest
/// of the plugin: an error at the entry, and nothing of the file in the lock's tables.
#[test]
fn a_monitors_or_lsp_file_claude_code_refuses_is_reported_and_declares_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir(dir.path().join("proj")).expect("mkdir proj");
    every_kind(dir.path());
    write(
        dir.path(),
        &[
            ("kit/monitors/monitors.json", "[\n  {\"name\": \"a\", \"command\": \"x\", \"description\": \"d\", \"when\": \"sometimes\"},\n  {\"name\": \"b\", \"command\": \"y\"}\n]\n"),
            ("kit/.lsp.json", "{\"go\": {\"command\": \"go pls\", \"extensionToLanguage\": {}, \"port\": 1}}\n"),
        ],
    );
    let check = capc_in(dir.path(), &["check", "proj", "--plugin-dir", "kit", "--format", "short"]);
    let report = stdout(&check);
    for expected in [
        "monitors/monitors.json:2:61: error[invalid-field-value] monitor `when` is `sometimes`",
        "monitors/monitors.json:3:3: error[missing-required-field] a monitor has no `description`",
        ".lsp.json:1:20: error[invalid-field-value] `command` of LSP server `go` holds a space",
        ".lsp.json:1:53: error[invalid-field-value] `extensionToLanguage` of LSP server `go` is empty",
        ".lsp.json:1:57: error[unknown-field] LSP server `go` has unknown key `port`",
    ] {
        assert!(report.contains(expected), "`{expected}` in:\n{report}");
    }
    let ls = capc_in(dir.path(), &["ls", "proj", "--format", "json", "--plugin-dir", "kit"]);
    let json: serde_json::Value = serde_json::from_slice(&ls.stdout).expect("ls json");
    assert_eq!(json["plugins"][0]["loaded"], true, "the plugin still loads");
    assert_eq!(json["monitors"], serde_json::json!([]));
    assert_eq!(json["lsp_servers"], serde_json::json!([]));
    assert!(json["plugins"][0]["inventory"]["monitors"].is_null(), "{}", json["plugins"][0]["inventory"]);
}

/// What a plugin's monitors, LSP servers, `bin/` files, hooks module and workflow scripts run is
/// in `capc ls --runs` (and the lock's `[[run]]`), each with its place, when it runs, the
/// folder's trust as its gate, and a file's hash, so `capc diff` sees an edited one.
#[test]
fn a_plugins_monitors_lsp_servers_and_bin_files_are_in_what_runs() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir(dir.path().join("proj")).expect("mkdir proj");
    every_kind(dir.path());
    let out = capc_in(dir.path(), &["ls", "proj", "--runs", "--format", "json", "--plugin-dir", "kit"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let rows = json["runs"].as_array().expect("runs");
    let row = |kind: &str, name: &str| {
        rows.iter()
            .find(|r| r["kind"] == kind && r["name"] == name)
            .unwrap_or_else(|| panic!("no {kind} {name}: {rows:#?}"))
    };
    let tail = row("monitor", "tail-log");
    assert_eq!(tail["run"], "tail -f \"${CLAUDE_PLUGIN_ROOT}/log\"");
    assert_eq!(tail["gate"], "trust");
    assert_eq!(tail["line"], 2);
    assert!(
        tail["when"].as_str().is_some_and(|w| w.contains("session start") && w.contains("reaches the model")),
        "{tail}"
    );
    assert!(row("monitor", "on-deploy")["when"].as_str().is_some_and(|w| w.contains("`deploy`")));
    let rust = row("lsp-server", "rust");
    assert_eq!(rust["run"], "rust-analyzer --stdio");
    assert!(rust["when"].as_str().is_some_and(|w| w.contains(".rs")), "{rust}");
    let tool = row("plugin-bin", "tool");
    assert_eq!(tool["pinned"], "script");
    assert_eq!(tool["script_sha256"], capc_compiler::secrets::sha256_hex(b"#!/bin/sh\necho tool\n"));
    // The hooks module Claude Code loads into its own process, named where the hooks file is.
    let module = row("hooks-module", "hooks/mod.js");
    assert_eq!(module["run"], "<plugin-dir 1>/hooks/mod.js");
    assert_eq!(module["path"], "<plugin-dir 1>/hooks/hooks.json");
    assert_eq!(module["gate"], "trust");
    assert_eq!(module["pinned"], "script");
    assert!(module["when"].as_str().is_some_and(|w| w.contains("session start")), "{module}");
    assert_eq!(
        module["script_sha256"],
        capc_compiler::secrets::sha256_hex(b"export function register(on, options) {}\n")
    );
    // A workflow script, run by the Workflow tool.
    let triage = row("workflow", "kit:triage");
    assert_eq!(triage["run"], "<plugin-dir 1>/workflows/triage.js");
    assert_eq!(triage["pinned"], "script");
    assert!(triage["when"].as_str().is_some_and(|w| w.contains("Workflow tool")), "{triage}");
    assert_eq!(
        triage["script_sha256"],
        capc_compiler::secrets::sha256_hex(b"export const meta = { name: 'triage', description: 'Triage issues' }\n")
    );
}

/// Where managed settings allow only managed hooks, a plugin's hooks module does not load (the
/// bundle's own words), so it is no row of what runs; its workflow scripts still are.
#[test]
fn no_hooks_module_runs_where_only_managed_hooks_may() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir(dir.path().join("proj")).expect("mkdir proj");
    every_kind(dir.path());
    write(dir.path(), &[("managed/managed-settings.json", "{\"allowManagedHooksOnly\": true}\n")]);
    let managed = dir.path().join("managed");
    let managed = managed.to_str().expect("utf-8");
    let args = ["ls", "proj", "--runs", "--format", "json", "--plugin-dir", "kit", "--managed-dir", managed];
    let out = capc_in(dir.path(), &args);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let rows = json["runs"].as_array().expect("runs");
    let kinds: Vec<&str> = rows.iter().filter_map(|r| r["kind"].as_str()).collect();
    assert!(!kinds.contains(&"hooks-module"), "{rows:#?}");
    assert!(kinds.contains(&"workflow"), "{rows:#?}");
    // The lock names what the switch keeps out.
    let proj = dir.path().join("proj");
    let lock = capc_in(&proj, &["lock", ".", "--plugin-dir", "../kit", "--managed-dir", managed]);
    assert!(lock.status.success(), "{}", stderr(&lock));
    let text = lock_text(&proj);
    let removed = "[[removed_by_policy]]\nkind = \"hooks-module\"\nname = \"hooks/mod.js: <plugin-dir 1>/hooks/mod.js\"\npath = \"<plugin-dir 1>/hooks/hooks.json\"\nkey = \"allowManagedHooksOnly\"";
    assert!(text.contains(removed), "{text}");
}
