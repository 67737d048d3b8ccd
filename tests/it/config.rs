//! Team workflow: capc.toml, ignore files, suppressions, checking files, locking a sound
//! session, and the messages around them — through the `capc` binary, as users run it.

use crate::support::{stderr, stdout};
use std::path::Path;
use std::process::Output;

fn capc_in(dir: &Path, args: &[&str]) -> Output {
    crate::support::capc_in(dir, args, 100)
}

/// A scratch repository (a `.git` folder at its top) holding `files`.
fn repo(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir(dir.path().join(".git")).expect("mkdir .git");
    write(dir.path(), files);
    dir
}

fn write(root: &Path, files: &[(&str, &str)]) {
    for (path, text) in files {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().expect("has a parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    }
}

fn json(o: &Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {}", stdout(o)))
}

/// `(rule, severity, path)` of every finding.
fn findings(o: &Output) -> Vec<(String, String, String)> {
    json(o)["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|d| {
            let s = |k: &str| d[k].as_str().unwrap_or_default().to_string();
            (s("rule"), s("severity"), s("path"))
        })
        .collect()
}

const SKILL: &str =
    "---\ndescription: Deploy the web app to staging. Use when asked to deploy.\n---\nRun `make deploy`.\n";
const SKILL_WITH_OWNER: &str =
    "---\ndescription: Deploy the web app to staging. Use when asked to deploy.\nx-owner: platform\n---\nRun `make deploy`.\n";

#[test]
fn capc_toml_selects_grades_and_ignores_per_path() {
    let dir = repo(&[
        (".claude/skills/deploy/SKILL.md", SKILL_WITH_OWNER),
        ("backups/.claude/skills/old/SKILL.md", SKILL_WITH_OWNER),
        (".claude/settings.json", "{ \"permissions\": { \"allow\": [\"Bash(*)\"] } }"),
    ]);
    let before = findings(&capc_in(dir.path(), &["check", "--format", "json"]));
    assert!(before.iter().any(|f| f.0 == "unknown-field" && f.2 == ".claude/skills/deploy/SKILL.md"), "{before:?}");
    assert!(before.iter().any(|f| f.0 == "blanket-allow"), "{before:?}");
    write(
        dir.path(),
        &[(
            "capc.toml",
            "ignore = [\"blanket-allow\"]\n[rules]\nunknown-field = \"info\"\n[per-path-ignores]\n\"backups/\" = [\"unknown-field\"]\n",
        )],
    );
    // Found from a folder below the configuration file, and paths are relative to the file.
    let out = capc_in(&dir.path().join(".claude"), &["check", "--format", "json", ".."]);
    let after = findings(&out);
    assert_eq!(
        after,
        [("unknown-field".to_string(), "info".to_string(), ".claude/skills/deploy/SKILL.md".to_string())],
        "{}",
        stdout(&out)
    );
    assert_eq!(json(&out)["summary"]["suppressed"], 1);
    // Flags override the file: --select replaces `select`, --ignore adds to `ignore`.
    let out = capc_in(
        dir.path(),
        &["check", "--format", "json", "--select", "blanket-allow,unknown-field", "--ignore", "unknown-field"],
    );
    let rules: Vec<String> = findings(&out).into_iter().map(|f| f.0).collect();
    assert!(rules.is_empty(), "blanket-allow stays ignored by the file, unknown-field by the flag: {rules:?}");
    // An audit sees what per-path-ignores hide.
    let audit = findings(&capc_in(dir.path(), &["check", "--format", "json", "--no-suppressions"]));
    assert!(audit.iter().any(|f| f.2 == "backups/.claude/skills/old/SKILL.md"), "{audit:?}");
    // Without the file, everything is back.
    let isolated = findings(&capc_in(dir.path(), &["check", "--format", "json", "--no-config"]));
    assert_eq!(isolated.len(), before.len());
}

#[test]
fn a_bad_configuration_stops_with_where_and_why() {
    let dir = repo(&[(".claude/skills/deploy/SKILL.md", SKILL)]);
    let follows = format!("this capc follows Claude Code {} only", capc_compiler::model::CLAUDE_CODE_VERSION);
    let cases = [
        (
            "select = [\"unknown-feild\"]\n",
            "capc.toml:1:11: no rule `unknown-feild`; did you mean `unknown-field`? in `select`",
        ),
        (
            "[rules]\nblanket-alow = \"off\"\n",
            "capc.toml:2:1: no rule `blanket-alow`; did you mean `blanket-allow`? in `rules`",
        ),
        ("claude-code = \"2.1.400\"\n", follows.as_str()),
        ("exclud = [\"x\"]\n", "unknown field `exclud`"),
    ];
    for (text, expected) in cases {
        write(dir.path(), &[("capc.toml", text)]);
        let out = capc_in(dir.path(), &["check"]);
        assert_eq!(out.status.code(), Some(2), "{text}");
        let err = stderr(&out);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(expected), "{text}: {err}");
    }
    std::fs::remove_file(dir.path().join("capc.toml")).expect("remove");
    let out = capc_in(dir.path(), &["check", "--ignore", "unknwn-field"]);
    assert!(
        stderr(&out).contains("--ignore: no rule `unknwn-field`; did you mean `unknown-field`?"),
        "{}",
        stderr(&out)
    );
    std::fs::write(dir.path().join("capc.toml"), "").expect("write");
    std::fs::write(dir.path().join(".capc.toml"), "").expect("write");
    let out = capc_in(dir.path(), &["check"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("holds both capc.toml and .capc.toml"), "{}", stderr(&out));
}

#[test]
fn rules_config_prints_the_effective_configuration_and_its_origins() {
    let dir = repo(&[
        ("capc.toml", "exclude = [\"scratch/\"]\n[rules]\nunknown-field = \"info\"\nduplicate-key = \"off\"\n"),
        ("home/.claude/settings.json", "{}"),
    ]);
    let out = capc_in(dir.path(), &["rules", "--config"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("# configuration file: "), "{text}");
    assert!(
        text.contains(&format!("claude-code = \"{}\"  # default\n", capc_compiler::model::CLAUDE_CODE_VERSION)),
        "{text}"
    );
    assert!(text.contains("exclude = [\"scratch/\"]  # capc.toml\n"), "{text}");
    assert!(text.contains("unknown-field = \"info\"  # capc.toml; default warning\n"), "{text}");
    assert!(text.contains("duplicate-key = \"off\"  # capc.toml; default warning\n"), "{text}");
    assert!(text.contains("invalid-json = \"error\"  # default\n"), "{text}");
    // The printed configuration is TOML.
    let _: toml::Value = toml::from_str(&text).expect("TOML");
    // A configuration file may be named directly.
    let out = capc_in(dir.path(), &["rules", "--config", "capc.toml"]);
    assert!(stdout(&out).contains("exclude = [\"scratch/\"]  # capc.toml\n"), "{}", stdout(&out));
}

#[test]
fn ignored_files_are_not_read_unless_no_ignore() {
    let dir = repo(&[
        (".gitignore", "scratch/\n"),
        (".claude/skills/deploy/SKILL.md", SKILL),
        ("scratch/.claude/settings.json", "{ \"permissions\": { \"allow\": [\"Read\",] } }"),
        ("drafts/.ignore", "*.md\n"),
        ("drafts/.claude/commands/wip.md", "---\ndescription: [unclosed\n---\n"),
    ]);
    let out = capc_in(dir.path(), &["check"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "an ignored scratch file with a trailing comma no longer fails: {}",
        stdout(&out)
    );
    assert_eq!(stdout(&out), "checked 1 file: 0 errors, 0 warnings, 0 infos\n");
    let out = capc_in(dir.path(), &["check", "--no-ignore"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).contains("scratch/.claude/settings.json"), "{}", stdout(&out));
    assert!(stdout(&out).contains("drafts/.claude/commands/wip.md"), "{}", stdout(&out));
    // `exclude` in capc.toml leaves files out even with --no-ignore.
    write(dir.path(), &[("capc.toml", "exclude = [\"scratch/\", \"drafts/\"]\n")]);
    let out = capc_in(dir.path(), &["check", "--no-ignore"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    // `respect-ignore-files = false` turns ignore files off for every run.
    write(dir.path(), &[("capc.toml", "respect-ignore-files = false\n")]);
    assert_eq!(capc_in(dir.path(), &["check"]).status.code(), Some(1));
}

#[test]
fn suppression_comments_are_counted_and_audited() {
    let dir = repo(&[(
        ".claude/skills/deploy/SKILL.md",
        "---\ndescription: Deploy the web app to staging. Use when asked to deploy.\n# capc-ignore unknown-field: read by our release tooling\nx-owner: platform\n---\nRun `make deploy`.\n",
    )]);
    let out = capc_in(dir.path(), &["check"]);
    assert_eq!(stdout(&out), "checked 1 file: 0 errors, 0 warnings, 0 infos, 1 suppressed\n");
    let out = capc_in(dir.path(), &["check", "--no-suppressions"]);
    assert!(stdout(&out).contains("[unknown-field] unknown field `x-owner`"), "{}", stdout(&out));
    assert!(stdout(&out).ends_with("checked 1 file: 0 errors, 0 warnings, 1 info\n"), "{}", stdout(&out));
}

#[test]
fn files_are_checked_in_the_context_of_their_root_and_only_their_findings_reported() {
    let dir = repo(&[
        ("a/.mcp.json", "{ \"mcpServers\": { \"db\": { \"command\": \"pg\", \"args\": [\"x\"], } } }"),
        ("a/.claude/skills/deploy/SKILL.md", SKILL_WITH_OWNER),
        (
            "a/.claude/agents/reviewer.md",
            "---\nname: reviewer\ndescription: Reviews diffs\ncolour: red\n---\nReview.\n",
        ),
        ("plugins/kit/.claude-plugin/plugin.json", "{ \"name\": \"kit\", \"author\": \"x\" }"),
        ("plugins/kit/skills/a/SKILL.md", SKILL),
    ]);
    // Today's failure: "is not a directory".
    let out = capc_in(dir.path(), &["check", "a/.mcp.json"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stdout(&out).contains("[invalid-json]") && stdout(&out).contains("a/.mcp.json:1:"), "{}", stdout(&out));
    assert!(stdout(&out).ends_with("checked 1 file: 1 error, 0 warnings, 0 infos\n"), "{}", stdout(&out));
    // Several files, as pre-commit passes them: each root once, only the given files' findings.
    let out = capc_in(
        dir.path(),
        &[
            "check",
            "--format",
            "json",
            "a/.claude/skills/deploy/SKILL.md",
            "plugins/kit/skills/a/SKILL.md",
            "plugins/kit/.claude-plugin/plugin.json",
        ],
    );
    let paths: Vec<String> = findings(&out).into_iter().map(|f| f.2).collect();
    assert_eq!(
        paths,
        ["a/.claude/skills/deploy/SKILL.md", "plugins/kit/.claude-plugin/plugin.json"],
        "{}",
        stdout(&out)
    );
    assert_eq!(json(&out)["files_checked"], 3);
    // Two folders: each folder's paths start with the folder.
    let out = capc_in(dir.path(), &["check", "--format", "json", "a", "plugins/kit"]);
    let paths: Vec<String> = findings(&out).into_iter().map(|f| f.2).collect();
    assert!(paths.contains(&"a/.claude/agents/reviewer.md".to_string()), "{paths:?}");
    assert!(paths.contains(&"plugins/kit/.claude-plugin/plugin.json".to_string()), "{paths:?}");
    // `ls` takes a file for the folder it belongs to.
    let out = capc_in(dir.path(), &["ls", "a/.claude/agents/reviewer.md"]);
    assert!(stdout(&out).contains("reviewer"), "{}", stdout(&out));
}

/// A marketplace of many plugins, one of them broken: what a session here loads is sound, so
/// the lock is written, and it says which files it was written without.
#[test]
fn a_marketplace_with_one_bad_plugin_gets_a_lock_that_names_it() {
    let mut files: Vec<(String, String)> = Vec::new();
    let mut entries = Vec::new();
    for i in 0..91 {
        let name = format!("tool-{i:02}");
        entries.push(format!("{{ \"name\": \"{name}\", \"source\": \"./plugins/{name}\" }}"));
        let manifest = if i == 42 {
            format!("{{ \"name\": \"{name}\", \"version\": \"1.0.0\", }}")
        } else {
            format!("{{ \"name\": \"{name}\", \"version\": \"1.0.0\" }}")
        };
        files.push((format!("plugins/{name}/.claude-plugin/plugin.json"), manifest));
        files.push((format!("plugins/{name}/skills/run/SKILL.md"), SKILL.to_string()));
    }
    files.push((
        ".claude-plugin/marketplace.json".to_string(),
        format!(
            "{{ \"name\": \"tools\", \"owner\": {{ \"name\": \"Tools team\" }}, \"plugins\": [{}] }}",
            entries.join(", ")
        ),
    ));
    let refs: Vec<(&str, &str)> = files.iter().map(|(p, t)| (p.as_str(), t.as_str())).collect();
    let dir = repo(&refs);
    let check = capc_in(dir.path(), &["check"]);
    assert_eq!(check.status.code(), Some(1), "`capc check` still reports the error");
    let out = capc_in(dir.path(), &["lock"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("note: 1 file has errors that do not block the lock"), "{err}");
    assert!(err.contains("plugins/tool-42/.claude-plugin/plugin.json: plugin `tool-42` does not load here"), "{err}");
    let lock = std::fs::read_to_string(dir.path().join("capabilities.lock")).expect("written");
    assert!(
        lock.contains("#   plugins/tool-42/.claude-plugin/plugin.json: plugin `tool-42` does not load here"),
        "{lock}"
    );
    assert_eq!(capc_in(dir.path(), &["lock", "--check"]).status.code(), Some(0), "--check compares the same text");
    // Once a setting enables the broken plugin, the session is asked to load it and Claude Code
    // skips it, running the rest: the lock records it as not loaded, and the run succeeds.
    write(dir.path(), &[(".claude/settings.json", "{ \"enabledPlugins\": { \"tool-42@tools\": true } }")]);
    let out = capc_in(dir.path(), &["lock"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stderr(&out).contains("plugin `tool-42` is asked to load but Claude Code skips it"), "{}", stderr(&out));
    let lock = std::fs::read_to_string(dir.path().join("capabilities.lock")).expect("written");
    let entry = lock.split("[[plugin]]").find(|e| e.contains("name = \"tool-42\"")).expect("tool-42 listed");
    assert!(entry.contains("loaded = false") && entry.contains("its plugin.json is refused"), "{entry}");
}

#[test]
fn errors_in_what_the_session_loads_still_block_the_lock() {
    let dir = repo(&[
        (".claude/settings.json", "{ \"permissions\": { \"allow\": [\"Bash(npm\"] } }"),
        // A NUL byte: `unreadable-file`, an error.
        ("collection/skills/a/SKILL.md", "---\ndescription: Binary by mistake\n---\n\0"),
    ]);
    let out = capc_in(dir.path(), &["lock"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    std::fs::write(dir.path().join(".claude/settings.json"), "{}").expect("write");
    let out = capc_in(dir.path(), &["lock"]);
    assert_eq!(out.status.code(), Some(0), "a skill collection is not loaded: {}", stderr(&out));
    assert!(stderr(&out).contains("collection/skills/a/SKILL.md: a skill outside the folders"), "{}", stderr(&out));
}

#[test]
fn empty_folders_say_so_and_are_not_locked_unless_asked() {
    let dir = repo(&[("README.md", "# nothing here\n")]);
    let out = capc_in(dir.path(), &["check"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(stdout(&out), "no Claude Code declarations found in `.`\n");
    let out = capc_in(dir.path(), &["lock"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("no Claude Code declarations found in `.`; not writing an empty capabilities.lock (`--allow-empty` writes it)"), "{}", stderr(&out));
    assert!(!dir.path().join("capabilities.lock").exists());
    let out = capc_in(dir.path(), &["lock", "--allow-empty"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(dir.path().join("capabilities.lock").exists());
    // Everything ignored: the message says how much was left out. (A skill collection: the
    // folder's own `.claude/` is read whatever ignore files say, as Claude Code reads it.)
    write(dir.path(), &[(".gitignore", "collection/\n"), ("collection/skills/a/SKILL.md", SKILL)]);
    let out = capc_in(dir.path(), &["check"]);
    assert!(
        stdout(&out).contains("(1 path left out by ignore files or `exclude`; `--no-ignore` reads ignored ones)"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn scope_flags_given_a_dot_claude_folder_take_the_folder_that_holds_it() {
    let dir = repo(&[
        ("project/.claude/skills/deploy/SKILL.md", SKILL),
        ("home/.claude/skills/mine/SKILL.md", SKILL),
        ("extra/.claude/skills/more/SKILL.md", SKILL),
    ]);
    let out = capc_in(dir.path(), &["ls", "project", "--user-dir", "home/.claude", "--add-dir", "extra/.claude"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("note: --user-dir takes the folder that holds `.claude/`; reading `home` for `home/.claude`"),
        "{err}"
    );
    assert!(
        err.contains("note: --add-dir takes the folder that holds `.claude/`; reading `extra` for `extra/.claude`"),
        "{err}"
    );
    let ls = stdout(&out);
    assert!(ls.contains("/mine") && ls.contains("/more"), "{ls}");
}

/// The headline: hundreds of `unknown-field` warnings (metadata a team's own tooling reads),
/// and a 10-line capc.toml brings the report under 100 lines without hiding any error.
#[test]
fn a_ten_line_config_makes_a_noisy_repository_readable_without_hiding_errors() {
    let mut files: Vec<(String, String)> = Vec::new();
    for i in 0..300 {
        files.push((
            format!(".claude/skills/task-{i:03}/SKILL.md"),
            format!("---\nname: task-{i:03}\ndescription: Runs task {i} of the release checklist\nx-owner: release-team\nx-ticket: REL-{i}\n---\nDo task {i}.\n"),
        ));
    }
    for i in 0..40 {
        files.push((
            format!("scratch/experiments/e{i}/.claude/settings.json"),
            "{ \"permissions\": { \"allow\": [\"Read\"] }, \"colour\": \"red\" }".to_string(),
        ));
    }
    // Real errors, which must stay visible.
    files.push((
        ".claude/settings.json".to_string(),
        "{ \"permissions\": { \"allow\": [\"Bash(npm run\"] } }".to_string(),
    ));
    files.push((".claude/agents/broken.md".to_string(), "---\nname: Broken Agent!\ndescription: x\n---\n".to_string()));
    let refs: Vec<(&str, &str)> = files.iter().map(|(p, t)| (p.as_str(), t.as_str())).collect();
    let dir = repo(&refs);

    let noisy = capc_in(dir.path(), &["check", "--verbose"]);
    let noisy_errors: Vec<_> =
        findings(&capc_in(dir.path(), &["check", "--format", "json"])).into_iter().filter(|f| f.1 == "error").collect();
    assert!(stdout(&noisy).lines().count() > 3000, "{} lines", stdout(&noisy).lines().count());
    assert!(!noisy_errors.is_empty());
    // Without `--verbose`, the 600 infos are two findings repeated: each shown once, then ten of
    // its other places and a count of the rest; every error in full.
    let brief = stdout(&capc_in(dir.path(), &["check"]));
    assert!(brief.lines().count() < 150, "{} lines:\n{brief}", brief.lines().count());
    assert_eq!(brief.matches("  ↳ the same in 299 more places:").count(), 2, "{brief}");
    assert_eq!(brief.matches("… and 289 more").count(), 2, "{brief}");
    for (_, _, path) in &noisy_errors {
        assert!(brief.contains(&format!("[{path}:")), "{path} is shown in full:\n{brief}");
    }

    let config = format!(
        "\
# capc.toml — our skills carry metadata for the release tooling.
claude-code = \"{}\"
exclude = [\"scratch/\"]          # experiments, never shipped

[per-path-ignores]
\".claude/skills/**\" = [\"unknown-field\"]   # x-owner, x-ticket

[rules]
lenient-frontmatter = \"off\"
required-env-variable = \"off\"
",
        capc_compiler::model::CLAUDE_CODE_VERSION
    );
    assert_eq!(config.lines().count(), 10);
    write(dir.path(), &[("capc.toml", &config)]);
    let quiet = capc_in(dir.path(), &["check"]);
    let text = stdout(&quiet);
    assert!(text.lines().count() < 100, "{} lines:\n{text}", text.lines().count());
    assert_eq!(quiet.status.code(), Some(1), "the errors still fail the check");
    let quiet_errors: Vec<_> =
        findings(&capc_in(dir.path(), &["check", "--format", "json"])).into_iter().filter(|f| f.1 == "error").collect();
    assert_eq!(quiet_errors, noisy_errors, "no error is hidden");
    assert!(text.contains("600 suppressed"), "{text}");
}

/// In a marketplace repository (its root holds `.claude-plugin/`), ignore files and `exclude`
/// leave out what Claude Code does not load — backups, a plugin's scratch files, a plugin
/// folder nothing lists — and never what it loads: the components at the paths Claude Code
/// looks for, the paths a plugin.json or a marketplace entry names, and a listed plugin below
/// an ignored folder. `[per-path-ignores]` takes `ALL` for every rule.
#[test]
fn in_a_marketplace_ignore_rules_leave_out_all_but_what_claude_code_loads() {
    let broken = "{ \"name\": \"old\", \"author\": \"x\", }";
    let files: &[(&str, &str)] = &[
        (
            ".claude-plugin/marketplace.json",
            "{ \"name\": \"tools\", \"owner\": { \"name\": \"Tools\" }, \"plugins\": [\
             { \"name\": \"kit\", \"source\": \"./plugins/kit\" },\
             { \"name\": \"vendored\", \"source\": \"./vendor/vendored\", \"strict\": false, \"commands\": [\"./extra/run.md\"] }] }",
        ),
        ("plugins/kit/.claude-plugin/plugin.json", "{ \"name\": \"kit\", \"commands\": \"./src/commands/\" }"),
        ("plugins/kit/src/commands/deploy.md", "---\ndescription: Deploy\nmodel: nope\nallowed-tools: Bahs\n---\nDeploy.\n"),
        ("plugins/kit/skills/a/SKILL.md", SKILL),
        ("plugins/kit/scratch/notes.json", broken),
        ("vendor/vendored/extra/run.md", "---\ndescription: Run\nallowed-tools: Bahs\n---\nRun.\n"),
        ("vendor/vendored/hooks/hooks.json", "{ \"hooks\": { \"SessionStrat\": [] } }"),
        ("vendor/unlisted/.claude-plugin/plugin.json", broken),
        ("backups/.claude-plugin/marketplace.json", broken),
        ("backups/plugins/kit/.claude-plugin/plugin.json", broken),
        ("backups/plugins/kit/skills/a/SKILL.md", "---\nname: [\n---\n"),
    ];
    let paths = |o: &Output| -> Vec<String> { findings(o).into_iter().map(|(_, _, p)| p).collect() };
    let read = |dir: &Path| -> Vec<String> {
        stdout(&capc_in(dir, &["check", "--list-files", "."]))
            .lines()
            .map(|l| l.split('\t').next().unwrap_or_default().to_string())
            .collect()
    };
    let loaded = [
        "plugins/kit/src/commands/deploy.md",
        "plugins/kit/skills/a/SKILL.md",
        "vendor/vendored/extra/run.md",
        "vendor/vendored/hooks/hooks.json",
    ];
    let hiding: [(&str, &str); 4] = [
        ("capc.toml", "exclude = [\"backups/\", \"plugins/kit/src/\", \"/vendor/\", \"scratch/\"]\n"),
        (".gitignore", "backups/\nsrc/\nvendor/\nscratch/\n"),
        (".ignore", "/backups\n*.md\nvendor/*\n**/scratch/**\n"),
        ("plugins/.ignore", "*\n"),
    ];
    for (file, text) in hiding {
        let dir = repo(files);
        let before = read(dir.path());
        assert!(before.iter().any(|p| p.starts_with("backups/")), "{before:?}");
        write(dir.path(), &[(file, text)]);
        let shown = format!("{file} {text:?}");
        let now = read(dir.path());
        for path in loaded {
            assert!(now.contains(&path.to_string()), "{shown}: {path} is loaded by Claude Code, yet not read: {now:?}");
        }
        if file != "plugins/.ignore" {
            for path in &now {
                assert!(
                    !path.starts_with("backups/")
                        && !path.starts_with("vendor/unlisted/")
                        && !path.contains("scratch/"),
                    "{shown}: {path} is ignored and not loaded, yet read: {now:?}"
                );
            }
            let out = capc_in(dir.path(), &["check", "--format", "json"]);
            assert!(paths(&out).iter().all(|p| !p.starts_with("backups/")), "{shown}: {}", stdout(&out));
        }
    }
    // `ALL` in `[per-path-ignores]`: every rule's findings in the matching files are suppressed
    // (and counted), the rest stay.
    let dir = repo(files);
    let out = capc_in(dir.path(), &["check", "--format", "json"]);
    let all = paths(&out);
    assert!(all.iter().any(|p| p.starts_with("backups/")), "{}", stdout(&out));
    write(dir.path(), &[("capc.toml", "[per-path-ignores]\n\"backups/**\" = [\"ALL\"]\n")]);
    let out = capc_in(dir.path(), &["check", "--format", "json"]);
    let kept = paths(&out);
    assert!(kept.iter().all(|p| !p.starts_with("backups/")), "{}", stdout(&out));
    assert_eq!(kept, all.iter().filter(|p| !p.starts_with("backups/")).cloned().collect::<Vec<_>>());
    assert_eq!(
        json(&out)["summary"]["suppressed"].as_u64(),
        Some(all.iter().filter(|p| p.starts_with("backups/")).count() as u64),
        "{}",
        stdout(&out)
    );
    // Another spelling is refused, saying which one is meant.
    write(dir.path(), &[("capc.toml", "[per-path-ignores]\n\"backups/**\" = [\"all\"]\n")]);
    let out = capc_in(dir.path(), &["check"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("write `ALL` for every rule"), "{}", stderr(&out));
}
