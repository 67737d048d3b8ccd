//! `capc serve` through the binary, on trees larger than one page of a list: `prompts/list` and
//! `resources/list` come in pages (`nextCursor`), which together give every item once, in the
//! order one list gave them before; each page is built when asked for.

use crate::support::serve::StdioServer;
use std::path::Path;
use std::time::Duration;

/// More skills than one page holds (1,000), and a command.
const SKILLS: usize = 1_003;

fn tree(root: &Path) {
    for i in 0..SKILLS {
        let folder = root.join(format!(".claude/skills/skill-{i:04}"));
        std::fs::create_dir_all(&folder).expect("mkdir");
        let text = format!("---\ndescription: Skill number {i}. Use when asked for {i}.\n---\nDo step {i}.\n");
        std::fs::write(folder.join("SKILL.md"), text).expect("write");
    }
    std::fs::create_dir_all(root.join(".claude/commands")).expect("mkdir");
    std::fs::write(root.join(".claude/commands/ship.md"), "---\ndescription: Ship it\n---\nShip $ARGUMENTS.\n")
        .expect("write");
}

/// Every page of `method`'s list: the items, and how many pages there were.
fn all_pages(server: &mut StdioServer, method: &str, items: &str) -> (Vec<serde_json::Value>, usize) {
    let mut all = Vec::new();
    let mut cursor: Option<String> = None;
    for pages in 1.. {
        let params = match &cursor {
            Some(c) => serde_json::json!({"cursor": c}),
            None => serde_json::json!({}),
        };
        let reply = server.request(method, params);
        let result = &reply["result"];
        let page = result[items].as_array().unwrap_or_else(|| panic!("{method}: {reply}"));
        assert!(page.len() <= 1000, "{method}: a page holds at most 1,000 items, not {}", page.len());
        all.extend(page.iter().cloned());
        match result["nextCursor"].as_str() {
            Some(next) => cursor = Some(next.to_string()),
            None => return (all, pages),
        }
        assert!(pages < 100, "{method}: the pages never end");
    }
    unreachable!()
}

#[test]
fn long_lists_come_in_pages_that_together_hold_every_item() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().canonicalize().expect("canonical");
    tree(&root);
    let locked = crate::support::capc_in(&root, &["lock", "."], 200);
    assert!(locked.status.success(), "{}", crate::support::stderr(&locked));
    let mut server = StdioServer::start(&root, &["serve", "."], Duration::from_secs(120));

    let (prompts, pages) = all_pages(&mut server, "prompts/list", "prompts");
    assert_eq!(pages, 2, "1,004 prompts are two pages");
    let names: Vec<&str> = prompts.iter().map(|p| p["name"].as_str().expect("a name")).collect();
    let mut unique = names.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!((names.len(), unique.len()), (SKILLS + 1, SKILLS + 1), "each prompt once");
    assert!(names.contains(&"ship") && names.contains(&"skill-1002"), "{names:?}");
    // A prompt of the second page is one like the others: its arguments, its description.
    let last = prompts.iter().find(|p| p["name"] == "skill-1002").expect("listed");
    assert_eq!(last["description"], "Skill number 1002. Use when asked for 1002.");
    assert_eq!(last["arguments"].as_array().map(Vec::len), Some(32), "{last}");
    let got = server.request("prompts/get", serde_json::json!({"name": "skill-1002"}));
    let text = got["result"]["messages"].to_string();
    assert!(text.contains("Do step 1002."), "{got}");

    let (resources, pages) = all_pages(&mut server, "resources/list", "resources");
    assert_eq!(pages, 2, "1,003 skill files are two pages");
    assert_eq!(resources.len(), SKILLS);
    assert!(resources.iter().any(|r| r["uri"] == "skill://skill-1002/SKILL.md"), "the last page's file");

    // The Skills extension's list, in the same pages, each skill once with its files.
    let (skills, pages) = all_pages(&mut server, "skills/list", "skills");
    assert_eq!(pages, 2, "1,003 skills are two pages");
    let uris: std::collections::BTreeSet<&str> = skills.iter().filter_map(|s| s["uri"].as_str()).collect();
    assert_eq!((skills.len(), uris.len()), (SKILLS, SKILLS), "each skill once");
    let last = skills.iter().find(|s| s["uri"] == "skill://skill-1002/SKILL.md").expect("the last page's skill");
    assert_eq!(last["frontmatter"]["description"], "Skill number 1002. Use when asked for 1002.", "{last}");
    let got = server.request("skills/get", serde_json::json!({"uri": "skill://skill-1002/SKILL.md"}));
    assert_eq!(&got["result"]["skill"], last, "skills/get gives what the list gave");

    // A cursor no page gave is refused, and the server goes on.
    let bad = server.request("prompts/list", serde_json::json!({"cursor": "many"}));
    assert_eq!(bad["error"]["code"], -32602, "{bad}");
    assert!(bad["error"]["message"].as_str().is_some_and(|m| m.contains("invalid cursor `many`")), "{bad}");
    let again = server.request("prompts/list", serde_json::json!({}));
    assert_eq!(again["result"]["nextCursor"], "1000", "{}", again["result"]["nextCursor"]);
}

/// The prompts are the commands `/name` runs: the first entry in lookup order under each name
/// (a skill before the command it hides, a folder's skill before the built-in it hides), once
/// each; a name whose first entry the user cannot invoke is served by no later entry either.
#[test]
fn each_prompt_is_what_its_slash_name_runs() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().canonicalize().expect("canonical");
    let write = |rel: &str, text: &str| {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    };
    write(".claude/commands/review.md", "---\ndescription: Review it\n---\nReview.\n");
    write(".claude/commands/ship.md", "---\ndescription: Ship command\n---\nShip.\n");
    write(".claude/skills/ship/SKILL.md", "---\ndescription: Ship skill\n---\nShip skill.\n");
    write(".claude/skills/hidden/SKILL.md", "---\ndescription: Hidden\nuser-invocable: false\n---\nH.\n");
    write(".claude/commands/hidden.md", "---\ndescription: Hidden command\n---\nH.\n");
    write(".claude/skills/init/SKILL.md", "---\ndescription: Init mine\n---\nI.\n");
    let mut server = StdioServer::start(&root, &["serve", "--tree", "."], Duration::from_secs(120));
    let (prompts, _) = all_pages(&mut server, "prompts/list", "prompts");
    let served: Vec<(&str, &str)> = prompts
        .iter()
        .map(|p| (p["name"].as_str().expect("a name"), p["description"].as_str().unwrap_or("")))
        .collect();
    assert_eq!(served, [("init", "Init mine"), ("ship", "Ship skill"), ("review", "Review it")], "{served:?}");
}

/// One HTTP exchange with `capc serve --http` at `address` on a connection of its own: the
/// answer's head and body (read to the end: the request asks the server to close).
fn post(address: &str, session: Option<&str>, body: &serde_json::Value) -> (String, String) {
    use std::io::{Read as _, Write as _};
    let body = body.to_string();
    let session =
        session.map(|s| format!("Mcp-Session-Id: {s}\r\nMcp-Protocol-Version: 2025-06-18\r\n")).unwrap_or_default();
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n{session}Connection: close\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let mut stream = std::net::TcpStream::connect(address).expect("connect");
    stream.set_read_timeout(Some(Duration::from_secs(60))).expect("timeout");
    stream.write_all(request.as_bytes()).expect("send");
    let mut answer = String::new();
    stream.read_to_string(&mut answer).expect("the answer");
    let (head, body) = answer.split_once("\r\n\r\n").expect("a head and a body");
    (head.to_string(), body.to_string())
}

/// A request whose parameters do not read as its method's is answered "invalid params"
/// (`-32602`) with its id, over HTTP as over stdio (`runtime/tests/transcripts/serve/errors.txt`):
/// rmcp alone takes it for a request of a method it does not know (`-32601`).
#[test]
fn parameters_of_the_wrong_shape_are_invalid_params_over_http() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().canonicalize().expect("canonical");
    std::fs::create_dir_all(root.join(".claude/commands")).expect("mkdir");
    std::fs::write(root.join(".claude/commands/ship.md"), "---\ndescription: Ship it\n---\nShip.\n").expect("write");
    let (_server, url) = crate::support::serve::http(&root, &["--tree"], &[]);
    let address = url.trim_start_matches("http://").trim_end_matches("/mcp").to_string();
    let initialize = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}});
    let (head, _) = post(&address, None, &initialize);
    let session = head
        .lines()
        .find_map(|l| {
            l.split_once(':').filter(|(k, _)| k.eq_ignore_ascii_case("mcp-session-id")).map(|(_, v)| v.trim())
        })
        .unwrap_or_else(|| panic!("a session id: {head}"))
        .to_string();
    post(&address, Some(&session), &serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let bad = serde_json::json!({"jsonrpc": "2.0", "id": 7, "method": "prompts/get", "params": {"nme": "ship"}});
    let (head, body) = post(&address, Some(&session), &bad);
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    let answer: serde_json::Value = serde_json::from_str(&body).unwrap_or_else(|e| panic!("{e}: {body}"));
    assert_eq!(answer["id"], 7, "{answer}");
    assert_eq!(answer["error"]["code"], -32602, "{answer}");
    assert_eq!(answer["error"]["message"], "Invalid params for `prompts/get`: missing field `name`", "{answer}");
    // The same request with its parameters right is rmcp's to answer.
    let good = serde_json::json!({"jsonrpc": "2.0", "id": 8, "method": "prompts/get", "params": {"name": "ship"}});
    let (_, body) = post(&address, Some(&session), &good);
    assert!(body.contains("\"id\":8") && body.contains("Ship."), "{body}");
}
