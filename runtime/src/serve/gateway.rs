//! `capc serve --connect`: the lock's MCP servers, connected as `capc session --connect`
//! connects them, served under Claude Code's names. A tool is listed when it is in the
//! session's tool pool (so a deny rule hides it) as `mcp__<server>__<tool>`, the name the
//! pool composes; a call goes through the session's permission decision and the server's
//! timeout. An MCP prompt is listed under its command name `mcp__<server>__<prompt>` unless a
//! deny rule names it, and `prompts/get` is passed to its server. A name that is not valid
//! under `^[a-zA-Z0-9_-]{1,64}$` is reported and left out.

use crate::mcp::Status;
use crate::outcome::ToolCallResult;
use crate::session::Session;
use rmcp::model::{CallToolResult, ContentBlock, Prompt, PromptArgument, Tool};
use std::sync::Arc;

/// The longest tool name MCP clients accept (`^[a-zA-Z0-9_-]{1,64}$`).
pub const MAX_NAME_CHARS: usize = capc_compiler::names::MAX_TOOL_NAME;

/// Whether `name` is a name MCP clients accept for a tool.
pub fn valid_name(name: &str) -> bool {
    capc_compiler::surface::name_problem(name).is_none()
}

/// The connected servers' tools in the session's pool, in the pool's order, and what was left
/// out for its name.
pub fn tools(session: &Session, pool: &[crate::pool::ToolView], problems: &mut Vec<String>) -> Vec<Tool> {
    let mut out = Vec::new();
    for view in pool.iter().filter(|t| t.origin == "mcp") {
        let Some(tool) = session.mcp.tools().iter().find(|t| t.name == view.name) else { continue };
        if !valid_name(&tool.name) {
            problems.push(format!(
                "tool `{}` of MCP server `{}` is not served: its name is not valid for MCP clients \
                 (at most {MAX_NAME_CHARS} of A-Z a-z 0-9 _ -; it has {})",
                capc_compiler::printable::escape(&tool.name),
                tool.server,
                tool.name.len()
            ));
            continue;
        }
        let schema = tool.input_schema.clone().unwrap_or_else(|| {
            let mut object = serde_json::Map::new();
            object.insert("type".into(), "object".into());
            Arc::new(object)
        });
        out.push(Tool::new(tool.name.to_string(), tool.description.clone(), schema));
    }
    out
}

/// The connected servers' prompts, under their command names, unless a deny rule names one.
pub fn prompts(session: &Session, problems: &mut Vec<String>) -> Vec<Prompt> {
    let mut out = Vec::new();
    for server in session.mcp.servers().filter(|s| s.status == Status::Connected) {
        for command in &server.prompts {
            if !valid_name(command) {
                problems.push(format!(
                    "prompt `{}` of MCP server `{}` is not served: its name is not valid for MCP clients \
                     (at most {MAX_NAME_CHARS} of A-Z a-z 0-9 _ -)",
                    capc_compiler::printable::escape(command),
                    server.name
                ));
                continue;
            }
            if session.denied_by(command).is_some() {
                continue;
            }
            let arguments = server
                .prompt_arguments
                .get(command)
                .map(|names| names.iter().map(PromptArgument::new).collect::<Vec<_>>());
            let own = command.strip_prefix(&format!("mcp__{}__", server.normalized)).unwrap_or(command);
            let description = format!("MCP prompt `{own}` of server `{}`", server.name);
            out.push(Prompt::new(command, Some(description), arguments));
        }
    }
    out
}

/// A tool call's answer as an MCP tool result: the server's text (cut as Claude Code cuts it),
/// or, as a tool error, the permission decision with its rule, or why it could not be made.
/// The whole answer is also the structured content.
pub fn result(answer: &ToolCallResult, trusted: bool) -> CallToolResult {
    let mut result = match answer {
        ToolCallResult::ToolResult { result, .. } => {
            let content = vec![ContentBlock::text(result.text.clone())];
            if result.is_error {
                CallToolResult::error(content)
            } else {
                CallToolResult::success(content)
            }
        }
        ToolCallResult::Permission { tool, permission } => {
            CallToolResult::error(vec![ContentBlock::text(permission_text(tool, permission, trusted))])
        }
        ToolCallResult::Error { message, .. } => CallToolResult::error(vec![ContentBlock::text(message.clone())]),
    };
    result.structured_content = serde_json::to_value(answer).ok();
    result
}

/// What a refused call says: the deny rule, or that a headless run cannot ask, and the allow
/// rule that lifts it.
pub(crate) fn permission_text(tool: &str, permission: &crate::outcome::ToolPermission, trusted: bool) -> String {
    let add = super::rule_to_add(tool, trusted);
    match (permission.behavior.as_str(), &permission.rule) {
        ("deny", Some(rule)) => format!("Permission to use {tool} has been denied by {rule}."),
        ("deny", None) => format!("Permission to use {tool} has been denied."),
        (_, Some(rule)) => {
            format!("Claude requested permissions to use {tool}, but you haven't granted it yet ({rule} asks). {add}")
        }
        (_, None) => format!(
            "Claude requested permissions to use {tool}, but you haven't granted it yet (no allow rule names it). {add}"
        ),
    }
}

/// The question a call refused by an ask (not a deny) raises: Claude Code would ask its user.
pub fn question(session: &Session, refused: &ToolCallResult) -> Option<super::ask::Question> {
    let ToolCallResult::Permission { tool, permission } = refused else { return None };
    if permission.behavior != "ask" {
        return None;
    }
    let found = session.mcp.tools().iter().find(|t| *t.name == **tool)?;
    let subject = super::ask::Subject::Tool {
        name: tool.clone(),
        server: found.server.to_string(),
        tool: found.original.clone(),
    };
    super::ask::Question::new(subject, session.last_context.trusted)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_valid_for_mcp_clients() {
        assert!(valid_name("mcp__everything__echo"));
        assert!(valid_name(&"a".repeat(64)));
        assert!(!valid_name(&"a".repeat(65)), "over 64");
        assert!(!valid_name(""));
        assert!(!valid_name("mcp__x__a.b"));
    }
}
