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

use crate::context::TurnContext;
use crate::session::Session;
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
    if matches!(&id, Value::Array(_) | Value::Object(_)) || id.as_str().is_some_and(|s| s.len() > MAX_ID_BYTES) {
        return error(
            Value::Null,
            "invalid_request",
            format!("`id` must be a number, or a string of at most {MAX_ID_BYTES} bytes"),
        );
    }
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

/// The longest request line a session reads (16 MiB, newline excluded): far above any real
/// request (an `mcp_update` listing 2,000 tools is about 6 MB) and small enough that a runaway
/// or hostile writer cannot make the session hold or echo arbitrary amounts. A longer line is
/// skipped to its end and answered with a `request_too_large` error.
pub const MAX_REQUEST_BYTES: usize = 16 << 20;

/// The longest `id` echoed back (a string of at most 256 bytes, or any number, boolean or
/// null); a request with a larger one is answered with `id: null` and an error.
pub const MAX_ID_BYTES: usize = 256;

/// Serves requests until end of input: one response line per request line (blank lines
/// are skipped). A line that is not UTF-8 or longer than [`MAX_REQUEST_BYTES`] gets an error
/// response and the session goes on; only a failure to read or write ends it.
pub fn serve(
    session: &mut Session,
    mut input: impl std::io::BufRead,
    mut output: impl std::io::Write,
) -> std::io::Result<()> {
    let mut buf = Vec::new();
    while let Some(line) = read_line(&mut input, &mut buf, MAX_REQUEST_BYTES)? {
        let response = match line {
            Line::TooLong(len) => error(
                Value::Null,
                "request_too_large",
                format!(
                    "a request line of {len} bytes, over the limit of {MAX_REQUEST_BYTES} (16 MiB); the line was skipped"
                ),
            ),
            Line::Bytes => match std::str::from_utf8(&buf) {
                Err(e) => error(
                    Value::Null,
                    "parse_error",
                    format!("not UTF-8 (invalid byte at offset {}); requests are UTF-8 JSON", e.valid_up_to()),
                ),
                Ok(text) if text.trim().is_empty() => continue,
                Ok(text) => handle(session, text),
            },
        };
        // serde escapes C0 controls but leaves C1 controls, the line separators and the
        // bidirectional marks raw; those in names and texts from the lock are escaped too, so
        // a terminal showing the stream sees none (the JSON means the same).
        writeln!(output, "{}", capc_compiler::printable::escape_json(&response.to_string()))?;
        output.flush()?;
    }
    Ok(())
}

/// What [`read_line`] read.
enum Line {
    /// A whole line, now in the buffer (without its newline).
    Bytes,
    /// A line longer than the limit, skipped; this many bytes long.
    TooLong(usize),
}

/// Reads the next line into `buf`, holding at most `limit` bytes of it; `None` at end of
/// input. A longer line is consumed to its end without being kept.
fn read_line(input: &mut impl std::io::BufRead, buf: &mut Vec<u8>, limit: usize) -> std::io::Result<Option<Line>> {
    buf.clear();
    let mut seen = 0usize;
    let mut any = false;
    loop {
        let chunk = match input.fill_buf() {
            Ok(chunk) => chunk,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            if !any {
                return Ok(None);
            }
            break;
        }
        any = true;
        let (part, done) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (&chunk[..i], Some(i + 1)),
            None => (chunk, None),
        };
        seen = seen.saturating_add(part.len());
        if seen <= limit {
            buf.extend_from_slice(part);
        } else {
            buf.clear();
        }
        let used = done.unwrap_or(chunk.len());
        input.consume(used);
        if done.is_some() {
            break;
        }
    }
    if seen > limit {
        return Ok(Some(Line::TooLong(seen)));
    }
    if buf.last() == Some(&b'\r') {
        buf.pop();
    }
    Ok(Some(Line::Bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &[u8], limit: usize) -> Vec<Result<Vec<u8>, usize>> {
        // A tiny buffer, so lines cross many `fill_buf` chunks.
        let mut input = std::io::BufReader::with_capacity(3, input);
        let mut buf = Vec::new();
        let mut out = Vec::new();
        while let Some(line) = read_line(&mut input, &mut buf, limit).expect("in memory") {
            out.push(match line {
                Line::Bytes => Ok(buf.clone()),
                Line::TooLong(n) => Err(n),
            });
        }
        out
    }

    #[test]
    fn lines_are_split_capped_and_skipped_whole() {
        let got = lines(b"ab\r\n0123456789\nxyz\n\nlast", 5);
        assert_eq!(got, vec![Ok(b"ab".to_vec()), Err(10), Ok(b"xyz".to_vec()), Ok(vec![]), Ok(b"last".to_vec())]);
        assert_eq!(lines(b"12345\n", 5), vec![Ok(b"12345".to_vec())], "the limit itself is allowed");
        assert!(lines(b"", 5).is_empty());
    }
}
