//! Classes 6, 7 and 8 of docs/security.md: secrets placed where secrets go, control sequences and Markdown in every output.

use super::*;

/// Secrets that no token format gives away: each is found only by where it is written (after
/// a secret flag or header, in a URL's password or query). Every output is grepped for each.
pub(super) const PLACED: &[&str] =
    &["hunter2horse", "Zq9mX2pLwQ", "S3cretPass", "Tk7Qp2Rm9", "Ab12CdEf", "abcDEF123xyz", "k7f3a9Qx"];

/// A project and a marketplace with each of [`PLACED`] written where Claude Code reads it.
pub(super) fn placed_secrets_tree(root: &Path) {
    let [password, key, mysql, token, sig, bearer, header] = PLACED else { unreachable!() };
    let servers = serde_json::json!({ "mcpServers": {
        "db": {"command": "db-mcp", "args": ["--password", password, format!("--api-key={key}"), "--header", format!("X-Api-Key: {header}")]},
        "sql": {"command": "/usr/bin/mysql", "args": ["-uroot", format!("-p{mysql}")]},
        "web": {"type": "http", "url": format!("https://api.example.com/mcp?region=eu&api_key={key}")},
        "blob": {"command": "fetch-mcp", "args": ["--source", format!("https://blob.example.com/f?sv=2024&sig={sig}#access_token={token}")]},
    }});
    write_file(root, ".mcp.json", &servers.to_string());
    let settings = serde_json::json!({
        "permissions": {
            "allow": [format!("Bash(curl -H \"Authorization: Bearer {bearer}\" https://api.example.com/*)")],
            "ask": [format!("Bash(sshpass -p {password} ssh deploy@example.com)"), format!("Bash(deploy --token={token}:*)")],
        },
        "enableAllProjectMcpServers": true,
        "extraKnownMarketplaces": {"team": {"source": {"source": "git", "url": format!("https://deploy:{token}@git.example.com/team/market.git")}}},
    });
    write_file(root, ".claude/settings.json", &settings.to_string());
    let marketplace = serde_json::json!({
        "name": "acme", "owner": {"name": "Acme"},
        "plugins": [{"name": "remote", "source": {"source": "url", "url": format!("https://ci:{sig}@git.example.com/remote.git")}}],
    });
    write_file(root, ".claude-plugin/marketplace.json", &marketplace.to_string());
}

/// Each output that holds one of [`PLACED`], with the lines that do.
pub(super) fn placed_leaks(outputs: &[(String, String)]) -> Vec<String> {
    outputs
        .iter()
        .filter_map(|(what, text)| {
            let lines: Vec<&str> = text.lines().filter(|l| PLACED.iter().any(|p| l.contains(p))).collect();
            (!lines.is_empty()).then(|| format!("{what}:\n  {}", lines.join("\n  ")))
        })
        .collect()
}

#[test]
fn a_secret_written_where_secrets_go_reaches_no_lock_diff_or_report() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (root, empty) = (dir.path().join("repo"), dir.path().join("empty"));
    placed_secrets_tree(&root);
    std::fs::create_dir_all(&empty).expect("mkdir");
    let check = capc(&root, &["check", "--format", "short", "."]);
    let found = stdout(&check).lines().filter(|l| l.contains("[literal-secret]")).count();
    // db: the password, the key, the header; sql; web; blob; three rules; two sources.
    assert_eq!(found, 11, "{}", stdout(&check));
    let lock = capc(&root, &["lock", "."]);
    assert_eq!(lock.status.code(), Some(0), "{}", stderr(&lock));
    let locked = std::fs::read_to_string(root.join("capabilities.lock")).expect("lock");
    // Hashed where they stand: a pin keeps its host, a rule its tool.
    for kept in ["package = \"https://deploy:sha256:", "@git.example.com/team/market.git\"", "rule = \"Bash(sha256:"] {
        assert!(locked.contains(kept), "`{kept}` is not in the lock:\n{locked}");
    }
    let mut outputs: Vec<(String, String)> =
        vec![("check".into(), format!("{}{}", stdout(&check), stderr(&check))), ("capabilities.lock".into(), locked)];
    let empty_arg = empty.to_str().expect("utf-8");
    for format in ["human", "markdown", "json"] {
        let out = capc(&root, &["diff", "--format", format, empty_arg, "."]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        outputs.push((format!("diff --format {format}"), format!("{}{}", stdout(&out), stderr(&out))));
    }
    for args in [&["check", "--format", "json", "."][..], &["ls", "--all", "."], &["explain", "db", "."]] {
        let out = capc(&root, args);
        outputs.push((args.join(" "), format!("{}{}", stdout(&out), stderr(&out))));
    }
    assert!(outputs.iter().any(|(w, t)| w == "diff --format human" && t.contains("marketplace team")), "{outputs:#?}");
    let leaks = placed_leaks(&outputs);
    assert!(leaks.is_empty(), "a placed secret reached {} output(s):\n{}", leaks.len(), leaks.join("\n"));
}

/// A lock from before the pins were hashed (or written by hand) still shows no credential in
/// `capc diff`: the report hides it as the lock would have.
#[test]
fn a_lock_holding_a_literal_credential_shows_none_in_diff() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (root, empty) = (dir.path().join("repo"), dir.path().join("empty"));
    placed_secrets_tree(&root);
    std::fs::create_dir_all(&empty).expect("mkdir");
    assert_eq!(capc(&root, &["lock", "."]).status.code(), Some(0));
    assert_eq!(capc(&empty, &["lock", "--allow-empty", "."]).status.code(), Some(0));
    let path = root.join("capabilities.lock");
    let text = std::fs::read_to_string(&path).expect("lock");
    let start = text.find("https://deploy:sha256:").expect("hashed pin");
    let end = start + text[start..].find('@').expect("host");
    std::fs::write(&path, format!("{}https://deploy:{}{}", &text[..start], PLACED[3], &text[end..])).expect("write");
    for format in ["human", "markdown", "json"] {
        let out = capc(dir.path(), &["diff", "--format", format, "empty/capabilities.lock", "repo/capabilities.lock"]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let shown = format!("{}{}", stdout(&out), stderr(&out));
        assert!(shown.contains("@git.example.com/team/market.git"), "{shown}");
        let leaks = placed_leaks(&[(format.to_string(), shown)]);
        assert!(leaks.is_empty(), "{}", leaks.join("\n"));
    }
}

/// Cursor moves that erase the line above, an OSC 52 clipboard write, a C1 CSI, bidi
/// overrides and marks, a line separator and DEL.
pub(super) const HOSTILE: &[&str] = &[
    "\u{1b}[1A\u{1b}[2K",
    "\u{1b}]52;c;ZWNobyBwd25lZA==\u{7}",
    "\u{9b}2J",
    "\u{202e}",
    "\u{200f}",
    "\u{2028}",
    "\u{7f}",
];

/// What must never reach a terminal raw: the bytes that start the sequences above.
pub(super) const RAW: &[char] = &['\u{1b}', '\u{7}', '\u{9b}', '\u{202e}', '\u{200f}', '\u{2028}', '\u{7f}', '\r'];

/// A tree with the hostile sequences in a skill's folder and description, server names,
/// commands, arguments and URLs, a permission rule, a marketplace's name and URL and an
/// enabled plugin's name.
pub(super) fn hostile_tree(root: &Path) {
    let [up, osc, c1, rlo, rlm, ls, del] = HOSTILE else { unreachable!() };
    write_file(
        root,
        &format!(".claude/skills/s{up}{del}/SKILL.md"),
        &format!("---\ndescription: {}\n---\nBody.\n", serde_json::json!(format!("hides{osc}it{ls}"))),
    );
    let servers = serde_json::json!({ "mcpServers": {
        format!("evil{up}"): {"command": format!("run{c1}"), "args": ["--x", osc]},
        format!("web{rlo}{rlm}"): {"type": "http", "url": format!("https://h{rlo}.example.com/mcp{ls}")},
    }});
    write_file(root, ".mcp.json", &servers.to_string());
    let settings = serde_json::json!({
        "permissions": {"allow": [format!("Bash(echo {osc})")]},
        "enableAllProjectMcpServers": true,
        "extraKnownMarketplaces": {format!("mk{c1}"): {"source": {"source": "git", "url": format!("https://g{rlo}.example.com/r{up}.git")}}},
        "enabledPlugins": {format!("p{up}@mk{c1}"): true},
    });
    write_file(root, ".claude/settings.json", &settings.to_string());
}

pub(super) fn assert_no_raw_control(what: &str, out: &Output) {
    let text = format!("{}{}", stdout(out), stderr(out));
    if let Some(c) = text.chars().find(|c| RAW.contains(c)) {
        panic!("{what}: {c:?} reached the terminal:\n{}", text.escape_debug());
    }
}

#[test]
fn no_control_sequence_reaches_the_terminal_from_diff_verify_ls_or_explain() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (root, empty, home) = (dir.path().join("repo"), dir.path().join("empty"), dir.path().join("home"));
    hostile_tree(&root);
    std::fs::create_dir_all(&empty).expect("mkdir");
    std::fs::create_dir_all(home.join(".claude/plugins")).expect("mkdir");
    let lock = capc(&root, &["lock", "."]);
    assert_eq!(lock.status.code(), Some(0), "{}", stderr(&lock));
    assert_eq!(capc(&empty, &["lock", "--allow-empty", "."]).status.code(), Some(0));
    assert_no_raw_control("lock", &lock);
    let home_arg = home.to_str().expect("utf-8");
    let evil = format!("evil{}", HOSTILE[0]);
    let mut runs: Vec<(String, Output)> = Vec::new();
    for format in ["human", "markdown", "json"] {
        for (old, new) in [("empty", "repo"), ("empty/capabilities.lock", "repo/capabilities.lock"), ("repo", "empty")]
        {
            runs.push((
                format!("diff {format} {old} {new}"),
                capc(dir.path(), &["diff", "--format", format, old, new]),
            ));
        }
    }
    runs.push(("verify".into(), capc(&root, &["verify", "--user-dir", home_arg, "."])));
    runs.push(("ls".into(), capc(&root, &["ls", "--all", "."])));
    runs.push(("ls json".into(), capc(&root, &["ls", "--all", "--format", "json", "."])));
    runs.push(("explain".into(), capc(&root, &["explain", &evil, "."])));
    runs.push(("graph".into(), capc(&root, &["graph", "--all", "."])));
    runs.push(("check json".into(), capc(&root, &["check", "--format", "json", "."])));
    runs.push(("check sarif".into(), capc(&root, &["check", "--format", "sarif", "."])));
    for (what, out) in &runs {
        assert_no_raw_control(what, out);
        if what.contains("json") || what.contains("sarif") {
            let value: serde_json::Value =
                serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{what}: {e}"));
            // The escapes stand for the very characters: the names are intact for tools.
            if what.starts_with("diff json empty") {
                assert!(
                    value.to_string().contains(&serde_json::json!(evil).to_string()[1..evil.len()]),
                    "{what}: {value}"
                );
            }
        }
    }
    // Shown escaped, on the line they belong to.
    let human = stdout(&runs[0].1);
    assert!(human.contains("  ! mcp-server added evil\\x1b[1A\\x1b[2K\n"), "{human}");
    assert!(
        human.contains("marketplace mk\\u{9b}2J: git https://g\\u{202e}.example.com/r\\x1b[1A\\x1b[2K.git"),
        "{human}"
    );
    let verify = stdout(&runs[9].1);
    assert!(verify.contains("marketplace `mk\\u{9b}2J`"), "{verify}");
    assert!(stdout(&runs[12].1).contains("evil\\x1b[1A\\x1b[2K"), "{}", stdout(&runs[12].1));
}

/// Names that would leave a code span, open HTML, a link or a new table cell, or mention
/// someone, in a pull-request comment.
pub(super) const MARKDOWN_NAMES: &[&str] = &[
    "a`<img src=x onerror=alert(1)>`b",
    "``` <b>bold</b> ```",
    "`",
    " lead` ",
    "x|y| z",
    "<script>alert(1)</script>",
    "[click](https://evil.example.com)",
    "@octocat-review",
    "**strong** _em_ ~~del~~ $x^2$",
    "ends with backslash\\",
];

/// Class 7, errors and notes: `lock`'s lines naming a folder (a repository's subfolder, named
/// by its author), `lock --check`, `verify`'s errors and `session --json`'s responses (serde
/// leaves C1 controls, line separators and bidirectional marks raw) reach the terminal escaped.
#[test]
fn no_control_sequence_reaches_the_terminal_from_errors_notes_or_the_session_stream() {
    let dir = tempfile::tempdir().expect("tempdir");
    let name = format!("pkg{}{}", HOSTILE[0], HOSTILE[2]);
    let root = dir.path().join(&name);
    hostile_tree(&root);
    write_file(&root, ".claude/commands/warn.md", "---\ndescription: Warn\nallowed-tools: Bash\n---\nRun $9.\n");
    let mut runs: Vec<(String, Output)> = Vec::new();
    runs.push(("lock".into(), capc(dir.path(), &["lock", &name])));
    runs.push(("lock --check".into(), capc(dir.path(), &["lock", "--check", &name])));
    write_file(&root, ".claude/commands/more.md", "---\ndescription: More\n---\nMore.\n");
    runs.push(("lock --check stale".into(), capc(dir.path(), &["lock", "--check", &name])));
    runs.push(("verify".into(), capc(dir.path(), &["verify", "--user-dir", &format!("{name}/none"), &name])));
    let turn = "{\"id\":1,\"type\":\"turn\",\"input\":\"hello\"}\n{\"id\":2,\"type\":\"status\"}\n";
    let session = capc_in(&root, &["session", "--json"], turn);
    assert_eq!(session.status.code(), Some(0), "{}", stderr(&session));
    for line in stdout(&session).lines() {
        serde_json::from_str::<serde_json::Value>(line).unwrap_or_else(|e| panic!("session: {e}: {line}"));
    }
    assert!(stdout(&session).contains("hides"), "the skill is listed: {}", stdout(&session));
    runs.push(("session --json".into(), session));
    for (what, out) in &runs {
        assert!(!stderr(out).is_empty() || what.starts_with("session"), "{what} says nothing");
        assert_no_raw_control(what, out);
    }
    assert!(stderr(&runs[0].1).contains("pkg\\x1b[1A"), "{}", stderr(&runs[0].1));
}

#[test]
fn hostile_names_stay_inert_in_the_markdown_report() {
    use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
    let dir = tempfile::tempdir().expect("tempdir");
    let (root, empty) = (dir.path().join("repo"), dir.path().join("empty"));
    std::fs::create_dir_all(&empty).expect("mkdir");
    let servers: serde_json::Map<String, serde_json::Value> = MARKDOWN_NAMES
        .iter()
        .map(|name| (name.to_string(), serde_json::json!({"command": format!("run {name}")})))
        .collect();
    write_file(&root, ".mcp.json", &serde_json::json!({ "mcpServers": servers }).to_string());
    let rules: Vec<String> = MARKDOWN_NAMES.iter().map(|n| format!("Bash(echo {n})")).collect();
    write_file(
        &root,
        ".claude/settings.json",
        &serde_json::json!({"permissions": {"allow": rules}, "enableAllProjectMcpServers": true}).to_string(),
    );
    let out = capc(dir.path(), &["diff", "--format", "markdown", "empty", "repo"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let markdown = stdout(&out);
    // Rendered as GitHub does (tables, strikethrough, math): no HTML but capc's own, no link,
    // no emphasis, every row four cells, and each name whole inside one code span.
    let options = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_MATH;
    let ours = [
        "<details open>",
        "<details>",
        "</details>",
        "<summary>",
        "</summary>",
        "<strong>",
        "</strong>",
        "<br>",
        "<sub>",
        "</sub>",
    ];
    let (mut cells, mut codes, mut texts) = (0, Vec::new(), String::new());
    for event in Parser::new_ext(&markdown, options) {
        match event {
            Event::Html(h) | Event::InlineHtml(h) => {
                let rest = ours.iter().fold(h.to_string(), |rest, tag| rest.replace(tag, ""));
                assert!(!rest.contains('<'), "HTML from a name: {h:?}\n{markdown}");
            }
            Event::Start(Tag::Link { .. } | Tag::Image { .. } | Tag::Emphasis | Tag::Strong | Tag::Strikethrough) => {
                panic!("{event:?} from a name:\n{markdown}")
            }
            Event::InlineMath(m) | Event::DisplayMath(m) => panic!("math {m:?} from a name:\n{markdown}"),
            Event::Start(Tag::TableRow | Tag::TableHead) => cells = 0,
            Event::Start(Tag::TableCell) => cells += 1,
            Event::End(TagEnd::TableRow | TagEnd::TableHead) => {
                assert_eq!(cells, 4, "a row with {cells} cells:\n{markdown}")
            }
            Event::Code(c) => codes.push(c.into_string()),
            Event::Text(t) => texts.push_str(&t),
            _ => {}
        }
    }
    for name in MARKDOWN_NAMES {
        let trimmed = name.trim();
        assert!(codes.iter().any(|c| c.trim() == trimmed), "`{name}` is not one code span: {codes:#?}\n{markdown}");
    }
    // Outside code a mention needs `@` right before the name; the word joiner keeps them apart.
    assert!(!texts.contains("@octocat"), "{texts}\n{markdown}");
}
