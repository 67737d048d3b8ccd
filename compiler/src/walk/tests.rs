//! Tests of the walk: only regular files are read, links and ignore files are honoured as
//! the module docs say.

use super::*;
use ignore::gitignore::GitignoreBuilder;

fn mkfifo(path: &Path) {
    let status = std::process::Command::new("mkfifo").arg(path).status().expect("mkfifo runs");
    assert!(status.success(), "mkfifo {}", path.display());
}

fn refused(content: Content) -> String {
    match content {
        Content::Error(e) => e,
        other => panic!("read, not refused: {other:?}"),
    }
}

#[test]
fn only_regular_files_are_read() {
    let dir = tempfile::tempdir().expect("tempdir");
    let fifo = dir.path().join("SKILL.md");
    mkfifo(&fifo);
    // No writer: a blocking open would never return.
    assert!(refused(read(&fifo)).contains("a named pipe (FIFO), not a regular file"));
    let socket = dir.path().join("settings.json");
    let _listener = std::os::unix::net::UnixListener::bind(&socket).expect("bind");
    assert!(refused(read(&socket)).contains("a socket, not a regular file"));
    // Endless devices are refused before a byte is read.
    assert!(refused(read(Path::new("/dev/zero"))).contains("a character device"));
    std::os::unix::fs::symlink("/dev/zero", dir.path().join("link.md")).expect("symlink");
    assert!(refused(read(&dir.path().join("link.md"))).contains("a character device"));
    assert!(refused(read(dir.path())).contains("a folder"));
}

#[test]
fn a_link_is_refused_when_asked() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("real"), "x").expect("write");
    std::os::unix::fs::symlink("real", dir.path().join("link")).expect("symlink");
    assert_eq!(read_regular(&dir.path().join("link"), 10, Links::Follow).expect("followed"), b"x");
    let err = read_regular(&dir.path().join("link"), 10, Links::Refuse).expect_err("refused");
    assert!(err.to_string().contains("a symbolic link"), "{err}");
    assert!(matches!(read_regular(&dir.path().join("real"), 0, Links::Follow), Err(ReadError::TooLarge(1))));
}

#[test]
fn special_files_are_listed_so_they_can_be_reported() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir_all(dir.path().join(".claude")).expect("mkdir");
    mkfifo(&dir.path().join(".claude/settings.json"));
    let tree = walk(dir.path());
    assert!(tree.is_file(".claude/settings.json"), "{tree:?}");
}

fn tree_of(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    for (path, text) in files {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().expect("has a parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    }
    dir
}

fn files(tree: &Tree) -> Vec<&str> {
    tree.files.iter().map(String::as_str).collect()
}

const HONOUR: Filter = Filter { ignore_files: true, exclude: None };

#[test]
fn gitignore_counts_only_in_a_repository_and_dot_ignore_everywhere() {
    let dir = tree_of(&[
        (".gitignore", "scratch/\n*.bak\n"),
        ("scratch/.claude/settings.json", "{,}"),
        ("a.bak", ""),
        ("notes/.ignore", "draft.md\n"),
        ("notes/draft.md", ""),
        ("notes/kept.md", ""),
    ]);
    // No `.git`: `.gitignore` is not git's here (ripgrep's rule), `.ignore` still counts.
    let tree = walk_filtered(dir.path(), &HONOUR);
    assert_eq!(
        files(&tree),
        [".gitignore", "a.bak", "notes/.ignore", "notes/kept.md", "scratch/.claude/settings.json"]
    );
    assert_eq!(tree.ignored, 1);
    std::fs::create_dir(dir.path().join(".git")).expect("mkdir .git");
    let tree = walk_filtered(dir.path(), &HONOUR);
    assert_eq!(files(&tree), [".gitignore", "notes/.ignore", "notes/kept.md"]);
    assert!(!tree.is_dir("scratch"), "an ignored folder is not entered");
    assert_eq!(tree.ignored, 3);
    // Without a filter everything is listed.
    assert_eq!(walk(dir.path()).files.len(), 6);
}

#[test]
fn deeper_files_win_and_parents_up_to_the_repository_count() {
    let dir = tree_of(&[
        (".git/HEAD", ""),
        (".gitignore", "*.md\n"),
        ("repo/.gitignore", "!keep.md\n"),
        ("repo/keep.md", ""),
        ("repo/drop.md", ""),
        ("repo/.claude/settings.local.json", "{}"),
        ("repo/.claude/.gitignore", "settings.local.json\n"),
    ]);
    let tree = walk_filtered(&dir.path().join("repo"), &HONOUR);
    // The repository's top `.gitignore` applies to a folder below it; the deeper one
    // re-includes `keep.md`; local settings are read even though they are ignored.
    assert_eq!(files(&tree), [".claude/.gitignore", ".claude/settings.local.json", ".gitignore", "keep.md"]);
}

#[test]
fn exclude_patterns_are_rooted_at_their_folder() {
    let dir = tree_of(&[("backups/SKILL.md", ""), ("skills/backups/SKILL.md", ""), ("skills/a/SKILL.md", "")]);
    let root = dir.path().canonicalize().expect("canonical");
    let mut builder = GitignoreBuilder::new(&root);
    builder.add_line(None, "/backups/").expect("pattern");
    let filter = Filter { ignore_files: false, exclude: Some(Arc::new(builder.build().expect("build"))) };
    let tree = walk_filtered(dir.path(), &filter);
    assert_eq!(files(&tree), ["skills/a/SKILL.md", "skills/backups/SKILL.md"]);
}

#[test]
fn ignore_files_are_not_read_through_links_or_pipes() {
    let dir = tree_of(&[(".git/HEAD", ""), ("elsewhere", "*\n"), ("a/SKILL.md", ""), ("b/SKILL.md", "")]);
    std::os::unix::fs::symlink("../elsewhere", dir.path().join("a/.gitignore")).expect("symlink");
    mkfifo(&dir.path().join("b/.gitignore"));
    let tree = walk_filtered(dir.path(), &HONOUR);
    assert!(tree.is_file("a/SKILL.md") && tree.is_file("b/SKILL.md"), "{tree:?}");
}
