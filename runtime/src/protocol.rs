//! `capc session`'s newline-delimited JSON protocol: one request per line on stdin, one
//! response per line on stdout, each naming the request it answers (`id`, echoed as sent).
//! A malformed request gets an error response and the session goes on.
//!
//! Requests (`type`):
//! - `turn` `{input, context?, include?}` — a user turn: the view, what the input does, and
//!   (`request`) what Claude Code 2.1.332 sends for it.
//! - `invoke_skill` `{skill, args?}` — the model calls the Skill tool.
//! - `tool_search` `{query, max_results?}` — the model calls ToolSearch.
//! - `mcp_update` `{updates: [{server, status?, error?, tools?, prompts?, resources?, instructions?}]}`
//!   — a server's new state (connections report these; tests send them).
//! - `call_tool` `{tool, arguments?}` — the model calls an MCP tool (needs `--connect`).
//! - `status` — the lock, the turn count, the current grant, each MCP server's state.

use crate::session::Session;
use crate::turn::TurnContext;
use serde_json::{json, Map, Value};

/// What a `turn` response holds when `include` is not given.
pub const ALL_PARTS: &[&str] =
    &["commands", "skill_listing", "agent_listing", "tools", "tool_search", "deferred", "tool_section", "request"];

fn error(id: Value, code: &str, message: impl Into<String>) -> Value {
    json!({"id": id, "ok": false, "error": {"code": code, "message": message.into()}})
}

/// Answers one request line.
pub fn handle(session: &mut Session, line: &str) -> Value {
    session.sync();
    let request: Value = match serde_json::from_str(line) {
        Ok(v) => v,
        Err(e) => return error(Value::Null, "parse_error", format!("not JSON: {e}")),
    };
    let Some(object) = request.as_object() else {
        return error(Value::Null, "invalid_request", "a request is a JSON object");
    };
    let id = object.get("id").cloned().unwrap_or(Value::Null);
    let Some(kind) = object.get("type").and_then(Value::as_str) else {
        return error(
            id,
            "invalid_request",
            "a request needs a string `type`: turn, invoke_skill, tool_search, call_tool, mcp_update or status",
        );
    };
    let text = |key: &str| object.get(key).and_then(Value::as_str);
    let mut response = match kind {
        "turn" => {
            let Some(input) = text("input") else {
                return error(id, "invalid_request", "`turn` needs a string `input`");
            };
            // The folder's trust is the session's unless the request says otherwise.
            let mut context_value = match object.get("context") {
                None | Some(Value::Null) => serde_json::json!({}),
                Some(v) => v.clone(),
            };
            if let Some(map) = context_value.as_object_mut() {
                map.entry("trusted").or_insert(Value::Bool(session.trusted));
            }
            let context: TurnContext = match serde_json::from_value(context_value) {
                Ok(cx) => cx,
                Err(e) => return error(id, "invalid_request", format!("bad `context`: {e}")),
            };
            let include: Vec<String> = match object.get("include") {
                Some(Value::Array(items)) => items.iter().filter_map(Value::as_str).map(str::to_string).collect(),
                _ => ALL_PARTS.iter().map(|p| p.to_string()).collect(),
            };
            if let Some(unknown) = include.iter().find(|p| !ALL_PARTS.contains(&p.as_str())) {
                return error(
                    id,
                    "invalid_request",
                    format!("unknown `include` part `{unknown}`; parts: {}", ALL_PARTS.join(", ")),
                );
            }
            let outcome = session.turn(input, context);
            let view = serde_json::to_value(&outcome.view).unwrap_or(Value::Null);
            let mut out = Map::new();
            out.insert("turn".into(), json!(session.turns));
            out.insert("result".into(), outcome.result);
            out.insert("grant".into(), serde_json::to_value(&session.grant).unwrap_or(Value::Null));
            for part in include {
                let value = match part.as_str() {
                    "request" => serde_json::to_value(&outcome.request).unwrap_or(Value::Null),
                    "deferred" => serde_json::to_value(outcome.view.deferred()).unwrap_or(Value::Null),
                    _ => view.get(&part).cloned().unwrap_or(Value::Null),
                };
                out.insert(part.clone(), value);
            }
            Value::Object(out)
        }
        "invoke_skill" => {
            let Some(skill) = text("skill") else {
                return error(id, "invalid_request", "`invoke_skill` needs a string `skill`");
            };
            let result = session.invoke_skill(skill, text("args").unwrap_or(""));
            json!({"result": result, "grant": session.grant})
        }
        "tool_search" => {
            let Some(query) = text("query") else {
                return error(id, "invalid_request", "`tool_search` needs a string `query`");
            };
            let max = object.get("max_results").and_then(Value::as_u64).unwrap_or(5) as usize;
            serde_json::to_value(session.tool_search(query, max)).map(|r| json!({"result": r})).unwrap_or(Value::Null)
        }
        "mcp_update" => {
            let updates = match object.get("updates").map(|u| serde_json::from_value(u.clone())) {
                Some(Ok(updates)) => updates,
                Some(Err(e)) => return error(id, "invalid_request", format!("bad `updates`: {e}")),
                None => return error(id, "invalid_request", "`mcp_update` needs `updates`"),
            };
            match session.apply_mcp(updates) {
                Ok(()) => json!({"result": session.status()["mcp_servers"].clone()}),
                Err(e) => return error(id, "unknown_server", e),
            }
        }
        "call_tool" => {
            let Some(tool) = text("tool") else {
                return error(id, "invalid_request", "`call_tool` needs a string `tool` (`mcp__<server>__<tool>`)");
            };
            let arguments = match object.get("arguments") {
                None | Some(Value::Null) => None,
                Some(Value::Object(map)) => Some(map.clone()),
                Some(_) => return error(id, "invalid_request", "`arguments` must be an object"),
            };
            let result = session.call_tool(tool, arguments);
            json!({"result": result})
        }
        "status" => json!({"result": session.status()}),
        other => {
            return error(
                id,
                "unknown_type",
                format!(
                "unknown request type `{other}`; types: turn, invoke_skill, tool_search, call_tool, mcp_update, status"
            ),
            )
        }
    };
    if let Some(map) = response.as_object_mut() {
        let mut head = Map::new();
        head.insert("id".into(), id);
        head.insert("type".into(), json!(kind));
        head.insert("ok".into(), json!(true));
        head.append(map);
        return Value::Object(head);
    }
    response
}

/// Serves requests until end of input: one response line per request line (blank lines
/// are skipped).
pub fn serve(
    session: &mut Session,
    input: impl std::io::BufRead,
    mut output: impl std::io::Write,
) -> std::io::Result<()> {
    for line in input.lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let response = handle(session, &line);
        writeln!(output, "{response}")?;
        output.flush()?;
    }
    Ok(())
}
