//! Hostile input never wins: binary files, bad UTF-8, a 50 MB SKILL.md, unclosed
//! frontmatter, YAML alias bombs, 10,000-deep JSON, a 1 MB `[[[[` frontmatter, empty files,
//! symlink loops, and named pipes and sockets named like declarations each get a diagnostic,
//! and a sound file beside them is still checked.

use capc_compiler::{check, Checked, Options};
use std::path::Path;

fn write(root: &Path, rel: &str, bytes: &[u8]) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, bytes).expect("write");
}

fn rules_at(checked: &Checked, path: &str) -> Vec<&'static str> {
    checked.diagnostics.iter().filter(|d| d.path == path).map(|d| d.rule).collect()
}

#[test]
fn hostile_files_are_diagnosed_and_the_rest_still_checked() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    write(root, ".claude/skills/logo/SKILL.md", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR");
    write(root, ".claude/skills/latin1/SKILL.md", b"---\ndescription: caf\xe9\n---\n");
    let mut huge = b"---\ndescription: a dump\n---\n".to_vec();
    huge.resize(50 * 1024 * 1024, b'a');
    write(root, ".claude/skills/huge/SKILL.md", &huge);
    write(root, ".claude/skills/unclosed/SKILL.md", b"---\ndescription: never closed\nbody text\n");
    let mut bomb = String::from("---\na0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for i in 1..40 {
        bomb.push_str(&format!(
            "a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n",
            p = i - 1
        ));
    }
    bomb.push_str("---\n");
    write(root, ".claude/skills/bomb/SKILL.md", bomb.as_bytes());
    // libyaml's scanner is quadratic in flow nesting: this ran for minutes before the depth pre-scan.
    let brackets = format!("---\ndescription: {}\n---\nbody\n", "[".repeat(1024 * 1024));
    write(root, ".claude/skills/brackets/SKILL.md", brackets.as_bytes());
    let deep = "[".repeat(10_000) + &"]".repeat(10_000);
    write(root, ".claude/settings.json", deep.as_bytes());
    write(root, ".claude/agents/empty.md", b"");
    write(root, ".mcp.json", b"");
    write(root, ".claude/skills/fine/SKILL.md", b"---\ndescription: Still checked\ndescripton: typo\n---\nbody\n");
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink("..", root.join(".claude/skills/loop")).expect("symlink");
        std::os::unix::fs::symlink("/etc", root.join(".claude/skills/outside")).expect("symlink");
        // A named pipe would block a read forever; a socket cannot be read at all.
        std::fs::create_dir_all(root.join(".claude/commands")).expect("mkdir");
        let fifo = std::process::Command::new("mkfifo").arg(root.join(".claude/commands/pipe.md")).status();
        assert!(fifo.expect("mkfifo runs").success());
        std::fs::create_dir_all(root.join(".claude/skills/sock")).expect("mkdir");
        let _socket =
            std::os::unix::net::UnixListener::bind(root.join(".claude/skills/sock/SKILL.md")).expect("socket");
    }

    let checked = check(&Options { root: root.to_path_buf(), ..Options::default() }).expect("root is a directory");
    assert_eq!(rules_at(&checked, ".claude/skills/logo/SKILL.md"), ["unreadable-file"]);
    assert_eq!(rules_at(&checked, ".claude/skills/latin1/SKILL.md"), ["unreadable-file"]);
    assert_eq!(rules_at(&checked, ".claude/skills/huge/SKILL.md"), ["file-too-large"]);
    assert_eq!(rules_at(&checked, ".claude/skills/unclosed/SKILL.md"), ["missing-frontmatter"]);
    assert_eq!(rules_at(&checked, ".claude/skills/bomb/SKILL.md"), ["invalid-frontmatter"]);
    assert_eq!(rules_at(&checked, ".claude/skills/brackets/SKILL.md"), ["invalid-frontmatter"]);
    let brackets_message =
        &checked.diagnostics.iter().find(|d| d.path == ".claude/skills/brackets/SKILL.md").expect("reported").message;
    assert_eq!(&**brackets_message, "frontmatter is nested deeper than 128 levels");
    assert_eq!(rules_at(&checked, ".claude/settings.json"), ["invalid-json"]);
    assert_eq!(rules_at(&checked, ".claude/agents/empty.md"), ["missing-frontmatter"]);
    assert_eq!(rules_at(&checked, ".mcp.json"), ["invalid-json"]);
    assert_eq!(rules_at(&checked, ".claude/skills/fine/SKILL.md"), ["unknown-field"]);
    #[cfg(unix)]
    {
        assert_eq!(rules_at(&checked, ".claude/skills/loop"), ["unfollowed-symlink"]);
        assert_eq!(rules_at(&checked, ".claude/skills/outside"), ["unfollowed-symlink"]);
        for (path, what) in
            [(".claude/commands/pipe.md", "a named pipe (FIFO)"), (".claude/skills/sock/SKILL.md", "a socket")]
        {
            assert_eq!(rules_at(&checked, path), ["unreadable-file"]);
            let message = &checked.diagnostics.iter().find(|d| d.path == path).expect("reported").message;
            assert!(message.contains(&format!("it is {what}, not a regular file")), "{message}");
        }
    }
    let deep_message =
        &checked.diagnostics.iter().find(|d| d.path == ".claude/settings.json").expect("reported").message;
    assert!(deep_message.contains("nested deeper than 128"), "{deep_message}");
}

#[test]
fn a_file_is_reported_at_its_relative_path_whatever_the_absolute_root() {
    let a = tempfile::tempdir().expect("tempdir");
    let b = tempfile::tempdir().expect("tempdir");
    for root in [a.path(), b.path().join("nested/deeper").as_path()] {
        write(root, ".claude/commands/review.md", b"---\nname: review\n---\nReview the diff.\n");
    }
    let render = |root: &Path| {
        capc_compiler::report::to_json(
            &check(&Options { root: root.to_path_buf(), ..Options::default() }).expect("dir"),
        )
    };
    assert_eq!(render(a.path()), render(&b.path().join("nested/deeper")));
}

#[cfg(unix)]
#[test]
fn links_inside_the_root_are_followed_and_read_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    write(
        root,
        "shared/skills/lint/SKILL.md",
        b"---\ndescription: Run the linters\ndescripton: typo\n---\nRun them.\n",
    );
    std::fs::create_dir_all(root.join(".claude/skills")).expect("mkdir");
    std::os::unix::fs::symlink("../../shared/skills/lint", root.join(".claude/skills/lint")).expect("symlink");
    let checked = check(&Options { root: root.to_path_buf(), ..Options::default() }).expect("dir");
    let skills: Vec<&str> = checked.files.iter().map(|f| &*f.path).collect();
    assert_eq!(skills, [".claude/skills/lint/SKILL.md"], "the linked skill is read once, where Claude Code loads it");
    assert_eq!(rules_at(&checked, ".claude/skills/lint/SKILL.md"), ["unknown-field"]);
    assert!(checked.diagnostics.iter().all(|d| d.rule != "unfollowed-symlink"));
}
