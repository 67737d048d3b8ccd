//! Tests of the configuration: finding the file, reading it, the policy it gives.

use super::find::find_below;
use super::*;

fn parse(text: &str) -> Result<Config, String> {
    let dir = std::env::temp_dir();
    Config::parse(&dir, &dir.join("capc.toml"), text).map_err(|e| e.0)
}

#[test]
fn an_empty_file_is_the_defaults() {
    let config = parse("").expect("valid");
    assert_eq!(config.claude_code.value, crate::model::CLAUDE_CODE_VERSION);
    assert!(config.respect_ignore_files.value);
    assert!(config.policy().levels.is_empty());
}

#[test]
fn unknown_keys_ids_and_versions_are_errors_with_a_place() {
    let e = parse("selct = []\n").expect_err("unknown key");
    assert!(e.contains("capc.toml:1:1") && e.contains("unknown field `selct`"), "{e}");
    let e = parse("ignore = [\"unknown-feild\"]\n").expect_err("unknown rule");
    assert!(e.ends_with("capc.toml:1:11: no rule `unknown-feild`; did you mean `unknown-field`? in `ignore`"), "{e}");
    let e = parse("[rules]\nunknown-feild = \"info\"\n").expect_err("unknown rule");
    assert!(e.contains("capc.toml:2:1: no rule `unknown-feild`"), "{e}");
    let e = parse("[rules]\nunknown-field = \"loud\"\n").expect_err("unknown level");
    assert!(e.contains("capc.toml:2:17") && e.contains("unknown variant `loud`"), "{e}");
    let e = parse("claude-code = \"2.1.400\"\n").expect_err("another version");
    assert!(e.contains(&format!("this capc follows Claude Code {} only", crate::model::CLAUDE_CODE_VERSION)), "{e}");
    let e = parse("claude-code = \"latest\"\n").expect_err("not a version");
    assert!(e.contains("is not a Claude Code version"), "{e}");
}

#[test]
fn select_ignore_and_levels_make_the_policy() {
    let config = parse(
        "select = [\"unknown-field\", \"invalid-json\", \"blanket-allow\"]\nignore = [\"blanket-allow\"]\n[rules]\nunknown-field = \"info\"\ninvalid-json = \"error\"\n",
    )
    .expect("valid");
    let policy = config.policy();
    assert_eq!(policy.severity("unknown-field", Severity::Warning), Some(Severity::Info));
    assert_eq!(policy.severity("invalid-json", Severity::Error), Some(Severity::Error));
    assert_eq!(policy.severity("blanket-allow", Severity::Warning), None, "ignored");
    assert_eq!(policy.severity("duplicate-key", Severity::Warning), None, "not selected");
    let described = config.describe();
    assert!(described.contains("unknown-field = \"info\"  # capc.toml; default warning\n"), "{described}");
    assert!(described.contains("duplicate-key = \"off\"  # not in `select` (capc.toml)\n"), "{described}");
    assert!(described.contains("blanket-allow = \"off\"  # in `ignore` (capc.toml)\n"), "{described}");
}

#[test]
fn per_path_ignores_match_below_the_file_folder() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().canonicalize().expect("canonical");
    let config =
        Config::parse(&root, &root.join("capc.toml"), "[per-path-ignores]\n\"backups/\" = [\"unknown-field\"]\n")
            .expect("valid");
    let policy = config.policy();
    assert!(policy.ignores(&root.join("backups/old/SKILL.md"), "unknown-field"));
    assert!(!policy.ignores(&root.join("backups/old/SKILL.md"), "invalid-json"));
    assert!(!policy.ignores(&root.join("skills/SKILL.md"), "unknown-field"));
    assert!(!policy.ignores(Path::new("/elsewhere/backups/SKILL.md"), "unknown-field"));
}

#[test]
fn outside_a_repository_the_search_stops_at_the_home_folder() {
    let dir = tempfile::tempdir().expect("tempdir");
    let top = dir.path().canonicalize().expect("canonical");
    std::fs::create_dir_all(top.join("home/work/proj")).expect("mkdir");
    std::fs::write(top.join("capc.toml"), "").expect("write");
    let home = Some(top.join("home"));
    let found = find_below(&top.join("home/work/proj"), home.as_deref());
    std::fs::write(top.join("home/capc.toml"), "").expect("write");
    let at_home = find_below(&top.join("home/work/proj"), home.as_deref());
    assert_eq!(found.expect("no error"), None, "the one above the home folder is not used");
    assert_eq!(at_home.expect("no error"), Some(top.join("home/capc.toml")));
    assert!(outside_repository(&top.join("home/work/proj"), &top.join("home/capc.toml")));
    assert!(!outside_repository(&top.join("home"), &top.join("home/capc.toml")));
}

#[test]
fn the_search_stops_at_the_repository() {
    let dir = tempfile::tempdir().expect("tempdir");
    let top = dir.path().canonicalize().expect("canonical");
    std::fs::create_dir_all(top.join("repo/.git")).expect("mkdir");
    std::fs::create_dir_all(top.join("repo/a/b")).expect("mkdir");
    std::fs::write(top.join("capc.toml"), "").expect("write");
    assert_eq!(find(&top.join("repo/a/b")).expect("no error"), None, "the one above the repository is not used");
    std::fs::write(top.join("repo/.capc.toml"), "").expect("write");
    assert_eq!(find(&top.join("repo/a/b")).expect("no error"), Some(top.join("repo/.capc.toml")));
    std::fs::write(top.join("repo/a/capc.toml"), "").expect("write");
    assert_eq!(find(&top.join("repo/a/b")).expect("no error"), Some(top.join("repo/a/capc.toml")));
    std::fs::write(top.join("repo/a/.capc.toml"), "").expect("write");
    assert!(find(&top.join("repo/a/b")).expect_err("two").0.contains("both capc.toml and .capc.toml"));
}
