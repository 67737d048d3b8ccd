//! One turn's view of the capabilities, recomputed from scratch every turn, as Claude Code
//! computes them for the request it sends: the command table with availability and
//! enablement re-checked and dynamic skills placed, the Skill listing, the agent listing, the
//! tool pool in the order it is sent with the deferred tools announced, and the tool section of
//! the system prompt. Nothing here keeps state: the same lock, MCP state and context give the
//! same view.
//! The context it is computed for is [`crate::context`]'s, the command table
//! [`crate::commands`]'s.

use crate::commands::command_table;
use crate::loaded::Loaded;
use crate::mcp::McpState;
use crate::permissions::Permissions;
use serde::Serialize;
use std::sync::Arc;

// Where these were defined before they had modules of their own; other crates name them here.
pub use crate::commands::{find, CommandView};
pub use crate::context::{Auth, Entry, PermissionMode, SessionRules, SkillUsage, TurnContext, DEFAULT_CONTEXT_WINDOW};
pub use crate::pool::ToolView;

/// Everything one turn sees.
#[derive(Debug, Clone, Serialize)]
pub struct TurnView {
    pub commands: Vec<CommandView>,
    /// The Skill listing (`- name: description` lines); empty without the Skill tool.
    pub skill_listing: String,
    /// The agent listing (`- type: description (Tools: …)` lines); empty without the Agent tool.
    pub agent_listing: String,
    /// The pool in the order Claude Code sends it: built-ins, then MCP tools, each sorted as
    /// `localeCompare` sorts; deferred ones are flagged (and not sent).
    pub tools: Vec<ToolView>,
    /// Whether ToolSearch is in the pool.
    pub tool_search: bool,
    /// The deferred tools the request announces, in code-unit order, as positions in `tools`
    /// (see [`TurnView::deferred`]).
    #[serde(skip)]
    pub announced: Vec<u32>,
    /// Whether `DeferredToolPlaceholder` goes before the last tool sent.
    pub placeholder: bool,
    /// The tool section of the system prompt, from the same values.
    pub tool_section: String,
    /// What Claude Code prints on stderr at start (permission rules an untrusted folder ignores).
    pub(crate) notices: Vec<String>,
}

impl TurnView {
    /// The `tools` array of the request: the pool without its deferred tools, with
    /// `DeferredToolPlaceholder` before the last one when the request has a deferred channel.
    pub(crate) fn sent_tools(&self) -> Vec<Arc<str>> {
        crate::pool::sent(&self.tools, self.placeholder)
    }

    /// The deferred tools the request announces, in code-unit order.
    pub fn deferred(&self) -> Vec<Arc<str>> {
        self.announced.iter().filter_map(|&i| self.tools.get(i as usize)).map(|t| t.name.clone()).collect()
    }
}

/// Recomputes everything a turn sees, with the permission rules assembled for it.
pub fn compute(loaded: &Loaded, mcp: &McpState, cx: &TurnContext) -> TurnView {
    let permissions = Permissions::assemble(loaded, cx, &[]);
    compute_with(loaded, mcp, cx, &permissions)
}

/// [`compute`] with rules already assembled (a skill turn's grant among them).
pub(crate) fn compute_with(loaded: &Loaded, mcp: &McpState, cx: &TurnContext, permissions: &Permissions) -> TurnView {
    let commands = command_table(loaded, cx);
    let pool = crate::pool::tool_pool(cx, permissions, mcp, !loaded.lock.lsp_servers.is_empty());
    let has = |name: &str| pool.tools.iter().any(|t| &*t.name == name);
    let skill_listing =
        if has("Skill") && !cx.simple() { crate::listing::skill_listing(loaded, &commands, cx) } else { String::new() };
    let agent_listing = if has("Agent") && !cx.simple() {
        crate::agents::agent_listing(loaded, cx, permissions)
    } else {
        String::new()
    };
    let tool_section = tool_section(&pool.tools, pool.tool_search, mcp);
    TurnView {
        commands,
        skill_listing,
        agent_listing,
        tools: pool.tools,
        tool_search: pool.tool_search,
        announced: pool.announced,
        placeholder: pool.placeholder,
        tool_section,
        notices: permissions.notices(),
    }
}

/// The tool section of the system prompt, from this turn's pool and MCP state.
pub fn tool_section(pool: &[ToolView], search: bool, mcp: &McpState) -> String {
    let mut out = String::with_capacity(96 + pool.iter().map(|t| t.name.len() + 2).sum::<usize>());
    out.push_str("# Tools\n");
    let list = |out: &mut String, deferred: bool| {
        for (i, t) in pool.iter().filter(|t| t.deferred == deferred).enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            out.push_str(&t.name);
        }
        out.push('\n');
    };
    list(&mut out, false);
    if search && pool.iter().any(|t| t.deferred) {
        out.push_str("\n# Deferred tools (load with ToolSearch)\n");
        list(&mut out, true);
    }
    let instructions = mcp.instructions();
    if !instructions.is_empty() {
        out.push_str("\n# MCP Server Instructions\n");
        for (server, text) in instructions {
            out.push_str(&format!("\n## {server}\n{text}\n"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commands::path_matches;

    #[test]
    fn context_defaults_and_old_auth_words() {
        let cx: TurnContext = serde_json::from_str("{}").expect("empty context");
        assert_eq!((cx.entry, cx.auth, cx.trusted), (Entry::Headless, Auth::ApiKey, false));
        assert_eq!(cx.context_window() * cx.bytes_per_token() / 100, 30_000);
        let old: TurnContext = serde_json::from_str(r#"{"auth": "console"}"#).expect("console");
        assert_eq!(old.auth, Auth::ApiKey);
        let third: TurnContext = serde_json::from_str(r#"{"auth": "third-party"}"#).expect("third-party");
        assert_eq!(third.auth, Auth::ThirdParty);
        let bad = serde_json::from_str::<TurnContext>(r#"{"permission_mode": "bogus"}"#).expect_err("bogus mode");
        assert!(
            bad.to_string()
                .contains("Allowed choices are acceptEdits, auto, bypassPermissions, manual, dontAsk, plan."),
            "{bad}"
        );
    }

    #[test]
    fn globs() {
        assert!(path_matches("db/**", "db/migrations/001.sql"));
        assert!(path_matches("migrations/*.sql", "migrations/001.sql"));
        assert!(!path_matches("migrations/*.sql", "migrations/old/001.sql"));
        assert!(path_matches("*.sql", "a/b/c.sql"));
        assert!(path_matches("infra", "infra/main.tf"));
        assert!(path_matches("src/**/*.rs", "src/a/b/c.rs"));
        assert!(path_matches("src/**/*.rs", "src/c.rs"));
        assert!(!path_matches("src/**", "../src/a"));
        assert!(!path_matches("docs/*.md", "src/docs/a.md"));
    }
}
