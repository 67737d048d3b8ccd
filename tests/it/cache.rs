//! A check that keeps a `Cache` between runs (as `capc lsp` does) reports what a check from
//! nothing reports, edit after edit, on a real marketplace: a body edit (the cross-file stage
//! kept), a description edit, a rename that makes one skill hide another, broken YAML and
//! JSON, a settings change the listing's budget reads, a file deleted and one created; and a
//! manifest edit, which makes the discovery again, reads no other file again, nor does a file
//! created; and a hook's script, created then edited, is hashed as a fresh check hashes it.

use capc_compiler::check::Cache;
use capc_compiler::walk::TextSource;
use capc_compiler::{check, report, Options};
use std::path::{Path, PathBuf};
use std::sync::Arc;

fn options(root: &Path, cache: Option<Arc<Cache>>) -> Options {
    let config = capc_compiler::config::Config::defaults(root);
    let surface = Arc::new(capc_compiler::surface::Recorded::default());
    Options {
        root: root.to_path_buf(),
        skip_hashes: true,
        measure: capc_runtime::cost::measures(&config, &surface),
        surface: Some(surface),
        cache,
        ..Options::default()
    }
}

/// The report, the lock (without `content_length`, which a kept cross-file stage does not
/// update and nothing reads) and what is not loaded, of one check.
fn outcome(options: &Options) -> (String, String, String, Resolved) {
    let checked = check(options).expect("check");
    let mut lock = checked.lock();
    let listed = lock.marketplace_plugins.iter_mut().flat_map(|p| p.commands.iter_mut());
    for command in lock.commands.iter_mut().chain(listed) {
        command.content_length = 0;
    }
    let loaded = format!("{:?} {:?} {:?}", checked.not_loaded, checked.unloaded_plugins, checked.refused_asked);
    (report::to_json(&checked), format!("{lock:?}"), loaded, checked.resolution.clone())
}

type Resolved = Option<Arc<capc_compiler::lock::resolve::Resolution>>;

/// Whether two checks share one resolution: the second kept the first's cross-file stage.
fn shared(a: &Resolved, b: &Resolved) -> bool {
    matches!((a, b), (Some(a), Some(b)) if Arc::ptr_eq(a, b))
}

fn find(root: &Path, name: &str, under: &str) -> PathBuf {
    fn walk(dir: &Path, name: &str, out: &mut Vec<PathBuf>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir).expect("read dir").filter_map(Result::ok).collect();
        entries.sort_by_key(|e| e.file_name());
        for e in entries {
            let path = e.path();
            if path.is_dir() {
                walk(&path, name, out);
            } else if e.file_name().to_string_lossy() == name {
                out.push(path);
            }
        }
    }
    let mut found = Vec::new();
    walk(&root.join(under), name, &mut found);
    found.into_iter().next().unwrap_or_else(|| panic!("no {name} under {under}"))
}

#[test]
fn a_kept_cache_reports_what_a_fresh_check_reports_edit_after_edit() {
    let corpus = crate::support::corpora_path().join("wshobson__agents");
    assert!(corpus.is_dir(), "the shared corpora are missing: {}", corpus.display());
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().join("agents");
    crate::support::copy_tree(&corpus, &root);
    let cache = Arc::new(Cache::new());
    let kept = options(&root, Some(cache.clone()));
    let fresh = options(&root, None);
    let same = |step: &str| {
        let (a, b) = (outcome(&kept), outcome(&fresh));
        assert!(a.0 == b.0, "{step}: the report differs:\n--- kept\n{}\n--- fresh\n{}", a.0, b.0);
        if a.1 != b.1 {
            let at = a.1.bytes().zip(b.1.bytes()).position(|(x, y)| x != y).unwrap_or(0);
            let from = at.saturating_sub(300);
            panic!(
                "{step}: the lock differs at {at}:\n--- kept\n{}\n--- fresh\n{}",
                &a.1[from..(at + 200).min(a.1.len())],
                &b.1[from..(at + 200).min(b.1.len())]
            );
        }
        assert!(a.2 == b.2, "{step}: what loads differs:\n{}\n{}", a.2, b.2);
        (a.0, a.3)
    };
    let (first, resolved) = same("first check");
    let (again, kept_resolution) = same("nothing changed");
    assert_eq!(again, first);
    assert!(shared(&resolved, &kept_resolution), "nothing changed: the cross-file stage is kept");

    let skill = find(&root, "SKILL.md", "plugins");
    let text = std::fs::read_to_string(&skill).expect("skill");
    let write = |path: &Path, text: &str| std::fs::write(path, text).expect("write");
    write(&skill, &format!("{text}\nOne more step, with `$ARGUMENTS`.\n"));
    let (_, body) = same("a body edit");
    assert!(shared(&resolved, &body), "a body edit keeps the cross-file stage");
    write(&skill, &text.replacen("description:", "description: Reworded.", 1));
    let (_, reworded) = same("a description edit");
    assert!(!shared(&resolved, &reworded), "a description edit resolves again");
    write(&skill, &text.replacen("---\n", "---\n# a comment above every field\n", 1));
    same("a line added to the frontmatter");
    // Another skill of the same plugin under this one's name: the first other skill folder.
    let skills = skill.parent().and_then(Path::parent).expect("the skills folder");
    let mut siblings: Vec<PathBuf> = std::fs::read_dir(skills)
        .expect("read the skills folder")
        .filter_map(Result::ok)
        .map(|e| e.path().join("SKILL.md"))
        .filter(|s| s.is_file() && *s != skill)
        .collect();
    siblings.sort();
    if let Some(sibling) = siblings.into_iter().next() {
        let other = std::fs::read_to_string(&sibling).expect("sibling");
        let name = text.lines().find_map(|l| l.strip_prefix("name:")).map(str::trim).unwrap_or("x").to_string();
        let renamed: String = other
            .lines()
            .map(|l| if l.starts_with("name:") { format!("name: {name}") } else { l.to_string() })
            .collect::<Vec<_>>()
            .join("\n");
        write(&sibling, &renamed);
        same("a rename onto another skill's name");
        write(&sibling, &other);
    }
    write(&skill, "---\nname: [unclosed\ndescription: broken: yaml: here\n---\nBody.\n");
    same("broken YAML");
    write(&skill, &text);
    assert_eq!(same("the skill as it was").0, first);

    let marketplace = root.join(".claude-plugin/marketplace.json");
    let manifest = std::fs::read_to_string(&marketplace).expect("marketplace");
    write(&marketplace, &manifest.replacen('{', "{ \"unknownKey\": 1, ", 1));
    same("a marketplace edit");
    write(&marketplace, "{ not json");
    same("broken JSON");
    write(&marketplace, &manifest);

    std::fs::create_dir_all(root.join(".claude")).expect("mkdir");
    write(&root.join(".claude/settings.json"), r#"{"skillListingBudgetFraction": 0.0005}"#);
    cache.forget_walks();
    same("settings the listing reads");
    write(&root.join(".claude/settings.json"), r#"{"skillListingBudgetFraction": 0.002}"#);
    same("settings changed again");

    std::fs::remove_file(&skill).expect("rm");
    cache.forget_walks();
    same("a skill deleted");
    write(&skill, &text);
    cache.forget_walks();
    assert_ne!(same("the skill back, the settings kept").0, first);
    std::fs::remove_file(root.join(".claude/settings.json")).expect("rm");
    cache.forget_walks();
    assert_eq!(same("as it was").0, first);
}

/// Every shared corpus read through a cache, which keeps each file's skills and commands
/// packed and unpacks them for the cross-file stage (the first check) or keeps it (the
/// second), reports and locks what a check without one does: every real declaration reads
/// back as it was read.
#[test]
fn every_corpus_checked_through_a_cache_reports_and_locks_the_same() {
    let corpora = crate::support::corpora_path();
    let names = crate::support::corpus_names(&corpora);
    assert!(!names.is_empty(), "the shared corpora are missing: {}", corpora.display());
    for name in names {
        let root = corpora.join(&name);
        let cache = Arc::new(Cache::new());
        let fresh = outcome(&options(&root, None));
        for step in ["a first check", "a second check"] {
            let kept = outcome(&options(&root, Some(cache.clone())));
            assert!(kept.0 == fresh.0, "{name}, {step} through a cache: the report differs");
            assert!(kept.1 == fresh.1, "{name}, {step} through a cache: the lock differs");
            assert!(kept.2 == fresh.2, "{name}, {step} through a cache: what loads differs");
        }
    }
}

/// The disk, until the `after`-th read: from then on every read fails, as the reads of a
/// check `capc lsp` has superseded by a newer edit do, while the stamps the check took before
/// still name the real texts (a stamp taken, then the read made after the edit). Nothing such
/// a check made may be kept for the next one.
struct Superseded {
    reads: std::sync::atomic::AtomicUsize,
    after: usize,
    failed: std::sync::atomic::AtomicBool,
}

impl capc_compiler::walk::TextSource for Superseded {
    fn read(&self, path: &Path) -> capc_compiler::walk::Content {
        use std::sync::atomic::Ordering::SeqCst;
        if self.reads.fetch_add(1, SeqCst) >= self.after {
            self.failed.store(true, SeqCst);
            return capc_compiler::walk::Content::Error("superseded by a newer change".to_string());
        }
        capc_compiler::walk::read(path)
    }

    fn stamp(&self, path: &Path) -> Option<u64> {
        Some(capc_compiler::walk::content_hash(&capc_compiler::walk::read(path)))
    }

    fn cancelled(&self) -> bool {
        self.failed.load(std::sync::atomic::Ordering::SeqCst)
    }
}

#[test]
fn a_check_cancelled_at_any_read_leaves_nothing_the_next_check_keeps() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    let write = |rel: &str, text: &str| {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    };
    // A cross-file finding (`version-mismatch`, at the marketplace entry) needs both manifests
    // read; a skill and a command give the readings and the cross-file stage something to keep.
    write(
        ".claude-plugin/marketplace.json",
        r#"{"name": "m", "owner": {"name": "o"}, "plugins": [{"name": "fmt", "source": "./fmt", "version": "1.2.0"}]}"#,
    );
    write("fmt/.claude-plugin/plugin.json", r#"{"name": "fmt", "version": "1.3.0"}"#);
    write("fmt/skills/tidy/SKILL.md", "---\nname: tidy\ndescription: Tidies the code.\n---\nTidy it.\n");
    write("fmt/commands/run.md", "---\ndescription: Runs it\n---\nRun $ARGUMENTS.\n");
    let fresh = outcome(&options(root, None));
    assert!(fresh.0.contains("version-mismatch"), "the tree has its cross-file finding:\n{}", fresh.0);
    let mut cancelled_checks = 0;
    for after in 0.. {
        let cache = Arc::new(Cache::new());
        let source = Arc::new(Superseded { reads: 0.into(), after, failed: false.into() });
        let mut cancelled = options(root, Some(cache.clone()));
        cancelled.texts = capc_compiler::walk::Texts::new(source.clone());
        // What the cancelled check reports is dropped unseen, as `capc lsp` drops it.
        let _ = check(&cancelled);
        if !source.cancelled() {
            // Every read of a whole check answered: every point of cancellation was tried.
            break;
        }
        cancelled_checks += 1;
        let next = outcome(&options(root, Some(cache)));
        assert!(
            next.0 == fresh.0,
            "after a check cancelled at read {after}, the next check differs:\n--- next\n{}\n--- fresh\n{}",
            next.0,
            fresh.0
        );
        assert!(next.1 == fresh.1, "after a check cancelled at read {after}, the lock differs");
    }
    assert!(cancelled_checks >= 4, "the checks read the tree's files ({cancelled_checks} points of cancellation)");
}

/// The disk, counting the texts read (a stamp is the disk's hash, as `capc lsp`'s disk cache
/// knows it without reading the text again).
#[derive(Default)]
struct Counted {
    reads: std::sync::atomic::AtomicUsize,
}

impl capc_compiler::walk::TextSource for Counted {
    fn read(&self, path: &Path) -> capc_compiler::walk::Content {
        self.reads.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        capc_compiler::walk::read(path)
    }

    fn stamp(&self, path: &Path) -> Option<u64> {
        Some(capc_compiler::walk::content_hash(&capc_compiler::walk::read(path)))
    }
}

/// A copy of a real marketplace under `dir`, checked through a cache from a source that counts
/// the texts read.
struct Counting {
    root: PathBuf,
    cache: Arc<Cache>,
    source: Arc<Counted>,
    kept: Options,
}

impl Counting {
    fn copy(dir: &Path) -> Counting {
        let root = dir.join("agents");
        crate::support::copy_tree(&crate::support::corpora_path().join("wshobson__agents"), &root);
        let cache = Arc::new(Cache::new());
        let source = Arc::new(Counted::default());
        let mut kept = options(&root, Some(cache.clone()));
        kept.texts = capc_compiler::walk::Texts::new(source.clone());
        Counting { root, cache, source, kept }
    }

    /// The texts read since the last call.
    fn reads(&self) -> usize {
        self.source.reads.swap(0, std::sync::atomic::Ordering::SeqCst)
    }

    /// The first check through the cache, with the texts it read, and what a second check with
    /// nothing changed reads again (the texts its cross-file findings point into, for the
    /// report).
    fn first_checks(&self) -> ((String, String, String, Resolved), usize, usize) {
        let first = outcome(&self.kept);
        let all = self.reads();
        assert!(all > 200, "the first check reads the tree's files ({all})");
        outcome(&self.kept);
        let again = self.reads();
        assert!(again < all / 20, "nothing changed: next to nothing is read ({again} of {all})");
        (first, all, again)
    }
}

/// The plugin and marketplace manifests below `root`: what a root's discovery reads.
fn manifests(root: &Path) -> usize {
    let mut manifests = 0;
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("read_dir").filter_map(Result::ok) {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.file_name().is_some_and(|n| n == "plugin.json" || n == "marketplace.json") {
                manifests += 1;
            }
        }
    }
    manifests
}

/// A manifest edited makes the root's discovery again (its claims are new values); every other
/// file's reading is still found, by path, and kept.
#[test]
fn a_manifest_edited_reads_no_other_file_again() {
    let dir = tempfile::tempdir().expect("tempdir");
    let counting = Counting::copy(dir.path());
    let (first, all, again) = counting.first_checks();
    let (root, kept) = (&counting.root, &counting.kept);

    let marketplace = root.join(".claude-plugin/marketplace.json");
    let manifest = std::fs::read_to_string(&marketplace).expect("marketplace");
    std::fs::write(&marketplace, manifest.replacen('{', "{ \"unknownKey\": 1, ", 1)).expect("write");
    let edited = outcome(kept);
    let after = counting.reads();
    assert_eq!(edited.0, outcome(&options(root, None)).0, "the kept readings report what a fresh check does");
    // The discovery reads the manifests again; nothing else is.
    let most = again + manifests(root);
    assert!(after <= most, "a manifest edited reads the manifests, not every file again ({after} of {all})");
    std::fs::write(&marketplace, &manifest).expect("write");
    assert_eq!(outcome(kept).0, first.0, "as it was");
    let back = counting.reads();
    assert!(back <= most, "and back, the same ({back} of {all})");
}

/// A file created changes the folder's listing: the discovery is made again, the new file is
/// read, and every other reading is kept (their readers asked nothing about the folder), as
/// a fresh check reports; so with the file deleted again.
#[test]
fn a_file_created_reads_the_new_file_not_the_tree() {
    let dir = tempfile::tempdir().expect("tempdir");
    let counting = Counting::copy(dir.path());
    let (first, all, again) = counting.first_checks();
    let (root, cache, kept) = (&counting.root, &counting.cache, &counting.kept);
    let most = again + manifests(root) + 1;

    let skill = root.join(".claude/skills/zz-new/SKILL.md");
    std::fs::create_dir_all(skill.parent().expect("parent")).expect("folder");
    std::fs::write(&skill, "---\nname: zz-new\ndescription: A new skill\nbogus-field: 1\n---\nDo it.\n")
        .expect("write");
    cache.forget_walks();
    let created = outcome(kept);
    let after = counting.reads();
    let fresh = outcome(&options(root, None));
    assert_eq!((&created.0, &created.1, &created.2), (&fresh.0, &fresh.1, &fresh.2), "as a fresh check");
    assert!(created.0.contains("zz-new"), "the new skill is read");
    assert!(after <= most, "a file created reads it and the manifests, not the tree ({after} of {all})");

    std::fs::remove_dir_all(skill.parent().expect("parent")).expect("remove");
    cache.forget_walks();
    assert_eq!(outcome(kept).0, first.0, "as it was");
    let back = counting.reads();
    assert!(back <= most, "and deleted, the same ({back} of {all})");
}

/// A hook's script, missing, then created, then edited in place: the reading of the settings
/// that run it asked whether it exists (so it depends on the folder's listing), then hashed it
/// (so it depends on its bytes too). Through a cache, each step records what a check without
/// one records.
#[test]
fn a_hooks_script_created_then_edited_is_hashed_as_a_fresh_check_hashes_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    let hook = r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/check.sh"}]}]}}"#;
    let script = root.join(".claude/hooks/check.sh");
    std::fs::create_dir_all(script.parent().expect("parent")).expect("folder");
    std::fs::write(root.join(".claude/settings.json"), hook).expect("write");
    let cache = Arc::new(Cache::new());
    let mut before = outcome(&options(root, Some(cache.clone())));
    for (step, text) in [("created", "echo one\n"), ("edited", "echo two, and longer\n")] {
        std::fs::write(&script, text).expect("write");
        cache.forget_walks();
        let kept = outcome(&options(root, Some(cache.clone())));
        let fresh = outcome(&options(root, None));
        assert_ne!(before.1, fresh.1, "{step}: the lock records the script's hash");
        assert_eq!(kept.1, fresh.1, "{step}");
        assert_eq!(kept.0, fresh.0, "{step}");
        before = kept;
    }
}
