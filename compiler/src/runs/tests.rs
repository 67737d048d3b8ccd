use super::*;

#[test]
fn script_words_and_paths() {
    assert_eq!(
        script_word("\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/check.sh --fast").as_deref(),
        Some("$CLAUDE_PROJECT_DIR/.claude/hooks/check.sh")
    );
    assert_eq!(script_word("bash scripts/status.sh").as_deref(), Some("scripts/status.sh"));
    assert_eq!(script_word("node server.js").as_deref(), Some("server.js"));
    assert_eq!(script_word("jq -r .x"), None);
    assert_eq!(
        script_path("$CLAUDE_PROJECT_DIR/.claude/hooks/check.sh", Some(""), None).as_deref(),
        Some(".claude/hooks/check.sh")
    );
    assert_eq!(
        script_path("${CLAUDE_PLUGIN_ROOT}/bin/x.sh", Some(""), Some("plugins/a")).as_deref(),
        Some("plugins/a/bin/x.sh")
    );
    assert_eq!(script_path("./x/../y.sh", Some("sub"), None).as_deref(), Some("sub/y.sh"));
    assert_eq!(script_path("../y.sh", Some(""), None), None);
    assert_eq!(script_path("/usr/bin/y.sh", Some(""), None), None);
    assert_eq!(script_path("~/y.sh", Some(""), None), None);
}

#[test]
fn modes_rank_by_what_runs_unasked() {
    assert!(mode_rank(Some("bypassPermissions")) > mode_rank(Some("acceptEdits")));
    assert!(mode_rank(Some("acceptEdits")) > mode_rank(None));
    assert_eq!(mode_rank(Some("manual")), mode_rank(Some("default")));
    assert!(mode_rank(Some("plan")) < mode_rank(Some("dontAsk")));
}

#[test]
fn redirecting_variables() {
    assert!(redirects("ANTHROPIC_BASE_URL").is_some());
    assert!(redirects("node_options").is_some());
    assert!(redirects("AWS_PROFILE").is_some());
    assert!(redirects("BASH_DEFAULT_TIMEOUT_MS").is_none());
}
