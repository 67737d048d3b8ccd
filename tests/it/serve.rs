//! `capc serve` through the binary, on trees larger than one page of a list: `prompts/list` and
//! `resources/list` come in pages (`nextCursor`), which together give every item once, in the
//! order one list gave them before; each page is built when asked for.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::Receiver;
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

struct Server {
    child: Child,
    stdin: ChildStdin,
    replies: Receiver<String>,
    id: u64,
}

impl Server {
    fn start(root: &Path) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_capc"))
            .args(["serve", "."])
            .current_dir(root)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("capc serve");
        let stdin = child.stdin.take().expect("stdin");
        let out = child.stdout.take().expect("stdout");
        let (send, replies) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines() {
                let Ok(line) = line else { return };
                if send.send(line).is_err() {
                    return;
                }
            }
        });
        let mut server = Server { child, stdin, replies, id: 0 };
        let params = serde_json::json!({"protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "pages", "version": "1"}});
        server.request("initialize", params);
        writeln!(server.stdin, "{}", serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .expect("write");
        server
    }

    /// The answer to one request (its `result` or its `error`).
    fn request(&mut self, method: &str, params: serde_json::Value) -> serde_json::Value {
        self.id += 1;
        let message = serde_json::json!({"jsonrpc": "2.0", "id": self.id, "method": method, "params": params});
        writeln!(self.stdin, "{message}").expect("write");
        loop {
            let line = self.replies.recv_timeout(Duration::from_secs(120)).expect("an answer");
            let reply: serde_json::Value = serde_json::from_str(&line).expect("JSON");
            if reply["id"] == self.id {
                return reply;
            }
        }
    }

    /// Every page of `method`'s list: the items, and how many pages there were.
    fn all_pages(&mut self, method: &str, items: &str) -> (Vec<serde_json::Value>, usize) {
        let mut all = Vec::new();
        let mut cursor: Option<String> = None;
        for pages in 1.. {
            let params = match &cursor {
                Some(c) => serde_json::json!({"cursor": c}),
                None => serde_json::json!({}),
            };
            let reply = self.request(method, params);
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
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn long_lists_come_in_pages_that_together_hold_every_item() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().canonicalize().expect("canonical");
    tree(&root);
    let locked = crate::support::capc_in(&root, &["lock", "."], 200);
    assert!(locked.status.success(), "{}", crate::support::stderr(&locked));
    let mut server = Server::start(&root);

    let (prompts, pages) = server.all_pages("prompts/list", "prompts");
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

    let (resources, pages) = server.all_pages("resources/list", "resources");
    assert_eq!(pages, 2, "1,003 skill files are two pages");
    assert_eq!(resources.len(), SKILLS);
    assert!(resources.iter().any(|r| r["uri"] == "skill://skill-1002/SKILL.md"), "the last page's file");

    // A cursor no page gave is refused, and the server goes on.
    let bad = server.request("prompts/list", serde_json::json!({"cursor": "many"}));
    assert_eq!(bad["error"]["code"], -32602, "{bad}");
    assert!(bad["error"]["message"].as_str().is_some_and(|m| m.contains("invalid cursor `many`")), "{bad}");
    let again = server.request("prompts/list", serde_json::json!({}));
    assert_eq!(again["result"]["nextCursor"], "1000", "{}", again["result"]["nextCursor"]);
}
