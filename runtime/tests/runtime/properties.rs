//! Properties that hold whatever happens in a session.

use capc_runtime::loaded::{Loaded, Roots};
use capc_runtime::mcp::{Status, ToolSpec, Update};
use capc_runtime::session::Session;
use capc_runtime::turn::{self, TurnContext};
use proptest::prelude::*;
use std::path::{Path, PathBuf};

fn app() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/trees/app")
}

fn session() -> Session {
    let checked = capc_compiler::check(&capc_compiler::Options { root: app(), ..Default::default() }).expect("tree");
    let lock = checked.lock();
    let mut s = Session::new(Loaded::new(lock, Roots { root: app(), ..Roots::default() }));
    s.run_shell = false;
    s
}

/// The built-in block of the pool (up to the first MCP tool), as the bytes a prompt cache sees.
fn builtin_block(s: &Session, cx: &TurnContext) -> String {
    let view = s.view(cx);
    let block: Vec<&str> = view.tools.iter().take_while(|t| t.origin == "builtin").map(|t| &*t.name).collect();
    block.join("\n")
}

fn tool_names() -> impl Strategy<Value = Vec<String>> {
    // Names that sort before, between and after the built-ins, and clash-prone shapes.
    prop::collection::vec(
        prop::sample::select(vec![
            "a",
            "Agent",
            "bash",
            "Read",
            "zz",
            "get_issue",
            "search issues",
            "create.issue",
            "Ω",
            "read_file",
            "Write",
        ]),
        0..8,
    )
    .prop_map(|names| names.into_iter().map(str::to_string).collect())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Whatever MCP tools connect, change or fail, the built-in block is byte-for-byte the
    /// same: MCP tools sort after it and never interleave.
    #[test]
    fn builtin_prefix_is_stable(steps in prop::collection::vec((0usize..3, tool_names(), any::<bool>()), 1..12)) {
        let mut s = session();
        let cx = TurnContext::default();
        // With every server connected and toolless, ToolSearch is not needed: the baseline.
        let servers = ["github", "legacy", "linear"];
        s.apply_mcp(servers.iter().map(|n| Update { server: n.to_string(), status: Some(Status::Connected), tools: Some(Vec::new()), ..Update::default() }).collect()).expect("servers");
        let mut first: Option<String> = None;
        for (server, names, fail) in steps {
            let tools = names.iter().map(|n| ToolSpec { name: n.clone(), description: format!("does {n}"), ..ToolSpec::default() }).collect();
            let update = Update { server: servers[server].to_string(), status: Some(if fail { Status::Failed } else { Status::Connected }), tools: Some(tools), ..Update::default() };
            s.apply_mcp(vec![update]).expect("update");
            let view = s.view(&cx);
            // MCP tools come after every built-in, each block sorted as `localeCompare` sorts.
            let split = view.tools.iter().position(|t| t.origin == "mcp").unwrap_or(view.tools.len());
            prop_assert!(view.tools[split..].iter().all(|t| t.origin == "mcp"));
            let mcp: Vec<&str> = view.tools[split..].iter().map(|t| &*t.name).collect();
            let mut sorted = mcp.clone();
            sorted.sort_by(|a, b| capc_runtime::collate::compare(a, b));
            prop_assert_eq!(&mcp, &sorted);
            // The block differs at most by ToolSearch, which joins when tools are deferred.
            let block = builtin_block(&s, &cx).replace("ToolSearch\n", "");
            match &first {
                None => first = Some(block),
                Some(b) => prop_assert_eq!(b, &block),
            }
        }
    }

    /// A skill turn's allowed-tools never reach the next ordinary turn.
    #[test]
    fn grants_never_leak(inputs in prop::collection::vec(prop::sample::select(vec![
        "/deploy api", "/greet Ada Rome", "/research x", "hello", "/nope", "/clear", "/code-review", "/model opus",
    ]), 1..16)) {
        let mut s = session();
        for input in inputs {
            let result = serde_json::to_value(s.turn(input, TurnContext::default()).result).expect("a result serializes");
            let skill_turn = result["kind"] == "prompt";
            if skill_turn {
                let granted = s.grant.as_ref().map(|g| g.allowed_tools.clone()).unwrap_or_default();
                let declared: Vec<String> = result["allowed_tools"].as_array().map(|a| a.iter().filter_map(|v| v.as_str().map(str::to_string)).collect()).unwrap_or_default();
                prop_assert_eq!(granted, declared, "a slash skill turn replaces the grant");
            } else {
                prop_assert!(s.grant.is_none(), "`{}` kept a grant: {:?}", input, s.grant);
            }
        }
    }
}

#[test]
fn views_are_recomputed_not_remembered() {
    let s = session();
    let touched = TurnContext { touched_files: vec!["db/001.sql".into()], ..TurnContext::default() };
    assert!(turn::find(&s.view(&touched).commands, "migrate").is_some());
    assert!(turn::find(&s.view(&TurnContext::default()).commands, "migrate").is_none(), "activation carried over");
}
