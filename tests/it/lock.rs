//! Precedence stories: `tests/precedence/<story>/` holds `project/` (the locked folder) and
//! optionally `home/` (`--user-dir`), `managed/` (`--managed-dir`) and `add1/` (`--add-dir`);
//! `story.md` says what it shows. The resolved `capc ls` (with the findings) must equal
//! `ls.txt`, and the lock `capc lock --include-local` writes must equal `capabilities.lock`.
//!
//! Also: the lock is byte-identical across absolute roots and file-creation orders, reads
//! back to the same value, is not rewritten when unchanged, and holds no planted secret.
//!
//! To accept new output, run `CAPC_BLESS=1 cargo test --test it -- lock::` and read the diff.

use crate::support::golden::Goldens;
use capc_compiler::lock::{view, write};
use capc_compiler::{check, Checked, Options};
use std::path::{Path, PathBuf};

fn stories_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/precedence")
}

fn stories() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(stories_dir())
        .expect("tests/precedence exists")
        .filter_map(Result::ok)
        .filter(|e| e.path().join("project").is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn options(dir: &Path) -> Options {
    let some = |name: &str| Some(dir.join(name)).filter(|p| p.is_dir());
    Options {
        root: dir.join("project"),
        user_dir: some("home"),
        managed_dir: some("managed"),
        add_dirs: some("add1").into_iter().collect(),
        // `plugin-dirs`: folders of the project loaded as `claude --plugin-dir` loads them.
        plugin_dirs: std::fs::read_to_string(dir.join("plugin-dirs"))
            .unwrap_or_default()
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| dir.join("project").join(l.trim()))
            .collect(),
        skip_hashes: false,
        // The pinned lock is `capc lock --include-local`'s: stories show what local settings decide.
        leave_out_local: false,
        ..Options::default()
    }
}

fn run(dir: &Path) -> Checked {
    check(&options(dir)).expect("story folders exist")
}

/// `capc ls` followed by one line per finding.
fn ls_with_findings(checked: &Checked) -> String {
    let mut out = view::ls_text(checked.resolution.as_ref().expect("resolved"), false);
    out.push_str("\nFindings:\n");
    if checked.diagnostics.is_empty() {
        out.push_str("  (none)\n");
    }
    let mut positions = capc_compiler::check::Positions::new(checked);
    for d in &checked.diagnostics {
        let ((line, column), _) = positions.of(d);
        out.push_str(&format!("  {} [{}] {}:{line}:{column} {}\n", d.severity.as_str(), d.rule, d.path, d.message));
    }
    out
}

#[test]
fn every_story_resolves_as_pinned() {
    let names = stories();
    assert!(names.len() >= 15, "the issue asks for at least 15 precedence stories, found {}", names.len());
    let mut goldens = Goldens::default();
    for name in &names {
        let dir = stories_dir().join(name);
        assert!(dir.join("story.md").is_file(), "{name}: write a story.md saying what it shows");
        let checked = run(&dir);
        goldens.check(&dir.join("ls.txt"), &ls_with_findings(&checked));
        goldens.check(&dir.join("capabilities.lock"), &write::encode(&checked.lock()));
    }
    goldens.finish();
}

#[test]
fn every_collision_rule_has_a_story() {
    let mut seen = std::collections::BTreeSet::new();
    for name in stories() {
        for d in run(&stories_dir().join(name)).diagnostics {
            seen.insert(d.rule);
        }
    }
    for rule in [
        "duplicate-declaration",
        "shadowed-declaration",
        "mcp-server-name-clash",
        "pre-empted-allow-rule",
        "unknown-enabled-plugin",
        "literal-secret",
    ] {
        assert!(seen.contains(rule), "no precedence story shows `{rule}`");
    }
}

#[test]
fn locks_read_back_to_the_same_value() {
    for name in stories() {
        let lock = run(&stories_dir().join(&name)).lock();
        let text = write::encode(&lock);
        let back = write::decode(&text).unwrap_or_else(|e| panic!("{name}: the lock does not read back: {e}"));
        assert_eq!(back, lock, "{name}: decode(encode(lock)) differs");
        assert_eq!(write::encode(&back), text, "{name}: re-encoding changes the bytes");
    }
}

/// Copies a folder, creating entries in sorted or reversed order.
fn copy_tree(from: &Path, to: &Path, reversed: bool) {
    std::fs::create_dir_all(to).expect("create folder");
    let mut entries: Vec<_> = std::fs::read_dir(from).expect("read folder").filter_map(Result::ok).collect();
    entries.sort_by_key(|e| e.file_name());
    if reversed {
        entries.reverse();
    }
    for entry in entries {
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_tree(&entry.path(), &target, reversed);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy file");
        }
    }
}

#[test]
fn lock_bytes_do_not_depend_on_where_or_in_what_order_files_were_made() {
    let scratch = tempfile::tempdir().expect("temp dir");
    for name in stories() {
        let source = stories_dir().join(&name);
        let a = scratch.path().join("first/place").join(&name);
        let b = scratch.path().join("elsewhere/deeper/still").join(&name);
        copy_tree(&source, &a, false);
        copy_tree(&source, &b, true);
        let lock_a = write::encode(&run(&a).lock());
        let lock_b = write::encode(&run(&b).lock());
        assert_eq!(lock_a, lock_b, "{name}: the lock differs between two copies");
        let here = write::encode(&run(&source).lock());
        assert_eq!(lock_a, here, "{name}: the lock differs from the one of the checked-in tree");
        assert!(!lock_a.contains(&*scratch.path().to_string_lossy()), "{name}: an absolute path leaked into the lock");
    }
}

#[test]
fn an_unchanged_lock_is_not_rewritten() {
    let scratch = tempfile::tempdir().expect("temp dir");
    let story = scratch.path().join("story");
    copy_tree(&stories_dir().join("skill-beats-command"), &story, false);
    let text = write::encode(&run(&story).lock());
    let path = story.join("project").join(write::FILE_NAME);
    assert_eq!(write::write(&path, &text).expect("write"), write::Written::Created);
    let modified = std::fs::metadata(&path).and_then(|m| m.modified()).expect("mtime");
    std::thread::sleep(std::time::Duration::from_millis(20));
    // The lock file itself is not a declaration: locking again gives the same text.
    let again = write::encode(&run(&story).lock());
    assert_eq!(again, text);
    assert_eq!(write::write(&path, &again).expect("write"), write::Written::Unchanged);
    assert_eq!(std::fs::metadata(&path).and_then(|m| m.modified()).expect("mtime"), modified);
    let leftovers: Vec<_> = std::fs::read_dir(story.join("project"))
        .expect("read")
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "temporary files left behind: {leftovers:?}");
}

/// Secrets planted in `env`, `headers`, `args` and `url` appear in no output of capc.
#[test]
fn planted_secrets_reach_no_output() {
    let planted = [
        "ghp_PLANTEDsecret0123456789abcdefABCDEF01",
        "sk-PLANTED-live-51HxQ2eZvKYlo2C01234",
        "hunter2-PLANTED",
        "xoxb-PLANTED000000-0000000000000-abcdefABCDEF",
        "PLANTED-header-value-7f3a",
    ];
    let scratch = tempfile::tempdir().expect("temp dir");
    let root = scratch.path().join("repo");
    std::fs::create_dir_all(root.join(".claude")).expect("mkdir");
    let mcp = format!(
        r#"{{"mcpServers": {{
  "gh": {{"command": "gh-mcp", "args": ["--token={0}"], "env": {{"GITHUB_TOKEN": "{0}", "HOME_DIR": "${{HOME}}"}}}},
  "api": {{"type": "http", "url": "https://u:{2}@api.example.com/mcp", "headers": {{"Authorization": "Bearer {1}", "X-Api-Key": "{4}"}}}},
  "slack": {{"command": "slack-mcp", "env": {{"SLACK_BOT_TOKEN": "{3}", "SLACK_TEAM": "${{SLACK_TEAM}}"}}}}
}}}}"#,
        planted[0], planted[1], planted[2], planted[3], planted[4]
    );
    std::fs::write(root.join(".mcp.json"), mcp).expect("write .mcp.json");
    std::fs::write(root.join(".claude/settings.json"), r#"{"permissions": {"allow": ["mcp__gh", "mcp__api"]}}"#)
        .expect("write settings");
    let checked = check(&Options { root: root.clone(), ..Options::default() }).expect("check");
    let r = checked.resolution.as_ref().expect("resolved");
    let lock = write::encode(&checked.lock());
    let outputs = [
        ("lock", lock.clone()),
        ("check (human)", capc_compiler::report::to_text(&checked, false, 200)),
        ("check (json)", capc_compiler::report::to_json(&checked)),
        ("ls", view::ls_text(r, true)),
        ("ls (json)", view::ls_json(r)),
        ("graph (dot)", view::graph_dot(r, true)),
        ("graph (json)", view::graph_json(r, true)),
        ("explain", view::explain(r, "gh").unwrap_or_default() + &view::explain(r, "api").unwrap_or_default()),
    ];
    for (what, text) in &outputs {
        for secret in planted {
            assert!(!text.contains(secret), "{what} shows the planted secret `{secret}`:\n{text}");
        }
    }
    // References stay references, and the secrets became hashes.
    assert!(lock.contains("${HOME}") && lock.contains("${SLACK_TEAM}"), "references were not kept:\n{lock}");
    assert!(lock.matches("sha256:").count() >= 5, "secrets were not hashed:\n{lock}");
    assert_eq!(
        checked.diagnostics.iter().filter(|d| d.rule == "literal-secret").count(),
        6,
        "{:#?}",
        checked.diagnostics
    );
}

#[test]
fn local_servers_come_from_the_projects_entry_of_claude_json() {
    // `~/.claude.json` files a project's own servers and approvals under its absolute path,
    // so this story is written at run time.
    let scratch = tempfile::tempdir().expect("temp dir");
    let (root, home, other) = (scratch.path().join("repo"), scratch.path().join("home"), scratch.path().join("other"));
    for dir in [&root, &home, &other] {
        std::fs::create_dir_all(dir).expect("mkdir");
    }
    std::fs::write(
        root.join(".mcp.json"),
        r#"{"mcpServers": {"db": {"command": "project-db"}, "docs": {"command": "docs-mcp"}}}"#,
    )
    .expect("write .mcp.json");
    let key =
        |dir: &Path| serde_json::to_string(&dir.canonicalize().expect("canonical").to_string_lossy()).expect("json");
    let config = format!(
        r#"{{"mcpServers": {{"db": {{"command": "user-db"}}, "search": {{"command": "search-mcp"}}}},
  "projects": {{
    {}: {{"mcpServers": {{"db": {{"command": "local-db"}}}}, "enabledMcpjsonServers": ["docs"],
         "disabledMcpServers": ["search"]}},
    {}: {{"mcpServers": {{"elsewhere": {{"command": "not-this-project"}}}}}}
  }}}}"#,
        key(&root),
        key(&other)
    );
    std::fs::write(home.join(".claude.json"), config).expect("write .claude.json");
    let checked = check(&Options { root: root.clone(), user_dir: Some(home), ..Options::default() }).expect("check");
    let lock = &checked.resolution.as_ref().expect("resolved").lock;
    let used: Vec<(&str, &str, Option<&str>)> = lock
        .mcp_servers
        .iter()
        .filter(|s| s.shadowed_by.is_none())
        .map(|s| (s.name.as_str(), s.scope.as_str(), s.command.as_deref()))
        .collect();
    assert_eq!(
        used,
        [
            ("db", "local", Some("local-db")),
            ("docs", "project", Some("docs-mcp")),
            ("search", "user", Some("search-mcp"))
        ]
    );
    let search = lock.mcp_servers.iter().find(|s| s.name == "search").expect("search");
    assert_eq!(search.approval, Some(capc_compiler::model::Approval::Disabled), "turned off in this project");
    let docs = lock.mcp_servers.iter().find(|s| s.name == "docs").expect("docs");
    assert_eq!(docs.approval, Some(capc_compiler::model::Approval::Approved), "approved in the project's entry");
    assert_eq!(lock.mcp_servers.iter().filter(|s| s.name == "db").count(), 3, "local, project and user `db`");
}

/// A check that keeps only the lock (`capc lock`, `capc serve`'s fresh check), the table
/// (`capc lsp`) or only the findings (`capc check`) frees the rest of the resolution early; it
/// must report the same findings and make the same lock (sources included; without its
/// commands and its plugins' inventories, for the table) as a check that keeps everything, on every story and every shared
/// corpus, with the measures `capc check` runs.
#[test]
fn a_check_keeping_less_reports_and_locks_the_same() {
    use capc_compiler::check::Keeps;
    let corpora = crate::support::corpora_path();
    let corpus_names = crate::support::corpus_names(&corpora);
    assert!(!corpus_names.is_empty(), "the shared corpora are missing: {}", corpora.display());
    let stories = stories().into_iter().map(|s| options(&stories_dir().join(s)));
    let corpora =
        corpus_names.iter().map(|name| Options { root: corpora.join(name), skip_hashes: false, ..Options::default() });
    for base in stories.chain(corpora) {
        let config = capc_compiler::config::Config::defaults(&base.root);
        let surface = std::sync::Arc::new(capc_compiler::surface::Recorded::default());
        let base = Options { measure: capc_runtime::cost::measures(&config, &surface), surface: Some(surface), ..base };
        let run = |keeps: Keeps| check(&Options { keeps, ..base.clone() }).expect("check");
        let (mut everything, mut lock_only, findings, mut table) =
            (run(Keeps::Everything), run(Keeps::Lock), run(Keeps::Findings), run(Keeps::Table));
        let at = base.root.display();
        let report = capc_compiler::report::to_json(&everything);
        assert_eq!(capc_compiler::report::to_json(&lock_only), report, "{at}: the findings of a lock-only check");
        assert_eq!(capc_compiler::report::to_json(&findings), report, "{at}: the findings of a findings-only check");
        assert_eq!(capc_compiler::report::to_json(&table), report, "{at}: the findings of a check keeping its table");
        assert!(findings.resolution.is_none(), "{at}: a findings-only check keeps no resolution");
        let kept = lock_only.resolution.as_ref().expect("a lock-only check keeps the lock");
        assert!(
            kept.table.is_empty() && kept.graph.node_count() == 0,
            "{at}: a lock-only check keeps no table or graph"
        );
        let full = everything.resolution.as_ref().expect("resolved");
        assert!(!full.table.is_empty() && full.graph.node_count() > 0, "{at}: a whole check keeps its table and graph");
        let tabled = table.resolution.as_ref().expect("a check keeping its table keeps the lock");
        assert!(
            tabled.table.len() == full.table.len() && tabled.graph.node_count() == 0 && tabled.tools.is_empty(),
            "{at}: a check keeping its table keeps all of it, and no graph or tools"
        );
        assert!(tabled.diagnostics.is_empty(), "{at}: the resolver's findings are moved into the check's");
        let (whole, lean) = (everything.take_lock(), lock_only.take_lock());
        let tabled = table.take_lock();
        assert!(tabled.commands.is_empty(), "{at}: a check keeping its table keeps no commands in its lock");
        assert!(
            tabled.plugins.iter().all(|p| p.inventory == Default::default()),
            "{at}: a check keeping its table keeps no plugin's inventory"
        );
        assert_eq!(
            write::encode(&tabled),
            write::encode(&{
                let mut whole = whole.clone();
                whole.commands = Vec::new();
                whole.plugins.iter_mut().for_each(|p| p.inventory = Default::default());
                whole
            }),
            "{at}: the lock of a check keeping its table, but for its commands and the plugins' inventories"
        );
        assert!(
            !whole.sources.is_empty() && whole.sources.iter().all(|s| s.sha256.len() == 64),
            "{at}: sources hashed"
        );
        assert_eq!(write::encode(&lean), write::encode(&whole), "{at}: the lock of a lock-only check");
    }
}
