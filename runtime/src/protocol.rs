//! `capc session`'s newline-delimited JSON protocol: one request per line on stdin, one
//! response per line on stdout, each naming the request it answers (`id`, echoed as sent).
//! A malformed request gets an error response and the session goes on.
//!
//! Requests (`type`):
//! - `turn` `{input, context?, include?}` — a user turn: the view, what the input does, and
//!   (`request`) what Claude Code sends for it.
//! - `invoke_skill` `{skill, args?}` — the model calls the Skill tool.
//! - `tool_search` `{query, max_results?}` — the model calls ToolSearch.
//! - `mcp_update` `{updates: [{server, status?, error?, tools?, prompts?, resources?, instructions?}]}`
//!   — a server's new state (connections report these; tests send them).
//! - `call_tool` `{tool, arguments?}` — the model calls an MCP tool (needs `--connect`).
//! - `status` — the lock, the turn count, the current grant, each MCP server's state.
//!
//! [`Message`] is a request line, read once; [`Response`] is what answers it, serialized
//! through a `serde_json::Value` so that keys come out sorted, as they always have. [`schema`]
//! is the JSON Schema of both, generated from these types (`schema/capc-session.schema.json`).

use crate::commands::CommandView;
use crate::context::TurnContext;
use crate::mcp::Update;
use crate::outcome::{SkillResult, ToolCallResult, TurnResult};
use crate::pool::ToolView;
use crate::request::Request;
use crate::search::SearchResult;
use crate::session::{Grant, ServerSummary, Session, StatusReport};
use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};
use std::sync::Arc;

/// What a `turn` response holds when `include` is not given.
pub(crate) const ALL_PARTS: &[&str] =
    &["commands", "skill_listing", "agent_listing", "tools", "tool_search", "deferred", "tool_section", "request"];

/// One request line: its `id` (echoed as sent) and what it asks, by `type`.
#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(title = "capc session request")]
pub struct Message {
    /// Echoed in the response: a number, a string of at most 256 bytes, a boolean or null.
    #[serde(default)]
    #[schemars(schema_with = "id_schema")]
    pub id: Value,
    #[serde(flatten)]
    pub input: Input,
}

/// What a request asks. Fields of the wrong type are read as absent, as they always were: a
/// required one then gets an `invalid_request` error naming it.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Input {
    /// A user turn: the view, what the input does, and what Claude Code sends for it.
    Turn {
        #[serde(default, deserialize_with = "string")]
        #[schemars(with = "String")]
        input: Option<String>,
        /// The turn's context; `trusted` defaults to the session's.
        #[serde(default)]
        #[schemars(with = "Option<TurnContext>")]
        context: Option<Value>,
        /// The parts of the response (all of them when absent).
        #[serde(default, deserialize_with = "strings")]
        #[schemars(with = "Option<Vec<Part>>")]
        include: Option<Vec<String>>,
    },
    /// The model calls the Skill tool.
    InvokeSkill {
        #[serde(default, deserialize_with = "string")]
        #[schemars(with = "String")]
        skill: Option<String>,
        #[serde(default, deserialize_with = "string")]
        #[schemars(with = "Option<String>")]
        args: Option<String>,
    },
    /// The model calls ToolSearch.
    ToolSearch {
        #[serde(default, deserialize_with = "string")]
        #[schemars(with = "String")]
        query: Option<String>,
        /// At most this many matches (5 when absent).
        #[serde(default, deserialize_with = "count")]
        #[schemars(with = "Option<u64>")]
        max_results: Option<u64>,
    },
    /// MCP servers' new states (connections report these; tests send them).
    McpUpdate {
        #[serde(default, deserialize_with = "present")]
        #[schemars(with = "Vec<Update>")]
        updates: Option<Value>,
    },
    /// The model calls an MCP tool (`mcp__<server>__<tool>`; needs `--connect`).
    CallTool {
        #[serde(default, deserialize_with = "string")]
        #[schemars(with = "String")]
        tool: Option<String>,
        #[serde(default)]
        #[schemars(with = "Option<Map<String, Value>>")]
        arguments: Option<Value>,
    },
    /// The lock, the turn count, the current grant, each MCP server's state.
    Status,
}

/// The field each type of request must have.
const REQUIRED: &[(&str, &str)] = &[
    ("turn", "input"),
    ("invoke_skill", "skill"),
    ("tool_search", "query"),
    ("mcp_update", "updates"),
    ("call_tool", "tool"),
];

/// A part of a `turn` response.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Part {
    Commands,
    SkillListing,
    AgentListing,
    Tools,
    ToolSearch,
    Deferred,
    ToolSection,
    Request,
}

/// A string field, or absent (`None` for any other value).
fn string<'de, D: Deserializer<'de>>(from: D) -> Result<Option<String>, D::Error> {
    Ok(match Value::deserialize(from)? {
        Value::String(s) => Some(s),
        _ => None,
    })
}

/// A list's strings (other items left out), or absent when it is not a list.
fn strings<'de, D: Deserializer<'de>>(from: D) -> Result<Option<Vec<String>>, D::Error> {
    Ok(match Value::deserialize(from)? {
        Value::Array(items) => Some(items.into_iter().filter_map(|v| v.as_str().map(str::to_string)).collect()),
        _ => None,
    })
}

/// A non-negative integer, or absent.
fn count<'de, D: Deserializer<'de>>(from: D) -> Result<Option<u64>, D::Error> {
    Ok(Value::deserialize(from)?.as_u64())
}

/// Any value, `null` included (`None` only when the field is absent).
fn present<'de, D: Deserializer<'de>>(from: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(from).map(Some)
}

fn id_schema(generator: &mut schemars::gen::SchemaGenerator) -> schemars::schema::Schema {
    use schemars::schema::{InstanceType, Schema, SchemaObject, StringValidation};
    let text = SchemaObject {
        instance_type: Some(InstanceType::String.into()),
        string: Some(Box::new(StringValidation { max_length: Some(MAX_ID_BYTES as u32), ..Default::default() })),
        ..Default::default()
    };
    let mut id = SchemaObject::default();
    id.subschemas().any_of = Some(vec![
        generator.subschema_for::<serde_json::Number>(),
        Schema::Object(text),
        generator.subschema_for::<bool>(),
        generator.subschema_for::<()>(),
    ]);
    id.metadata().description = Some("a number, a string of at most 256 bytes, a boolean or null".to_string());
    Schema::Object(id)
}

/// One response line: an answer, or an error.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(untagged)]
#[schemars(title = "capc session response")]
pub enum Response {
    Answer(Box<Answer>),
    Error(Failure),
}

/// A request answered.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Answer {
    /// The request's `id`, as sent.
    #[schemars(schema_with = "id_schema")]
    pub id: Value,
    /// Always `true`.
    #[schemars(schema_with = "always_true")]
    pub ok: bool,
    #[serde(flatten)]
    pub body: Body,
}

/// What each type of request is answered with (`type` is the request's).
#[derive(Debug, Serialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Body {
    Turn(Box<TurnAnswer>),
    InvokeSkill {
        result: SkillResult,
        grant: Option<Grant>,
    },
    ToolSearch {
        result: SearchResult,
    },
    /// Every server's state after the updates.
    McpUpdate {
        result: Vec<ServerSummary>,
    },
    CallTool {
        result: ToolCallResult,
    },
    Status {
        result: StatusReport,
    },
}

/// A `turn` answered: its number, what the input did, the grant after it, and the parts asked
/// for (`include`).
#[derive(Debug, Serialize, JsonSchema)]
pub struct TurnAnswer {
    pub turn: u64,
    pub result: TurnResult,
    pub grant: Option<Grant>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub commands: Option<Vec<CommandView>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skill_listing: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agent_listing: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<ToolView>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_search: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deferred: Option<Vec<Arc<str>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_section: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request: Option<Request>,
    /// What the request leaves out that Claude Code would send: an `@` mention of a file
    /// outside the folder and the plugins' roots, a read capc does not reproduce.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[schemars(default)]
    pub notes: Vec<String>,
}

/// A request that could not be answered; the session goes on.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Failure {
    /// The request's `id`, or `null` when it has none that can be echoed.
    #[schemars(schema_with = "id_schema")]
    pub id: Value,
    /// Always `false`.
    #[schemars(schema_with = "always_false")]
    pub ok: bool,
    pub error: ErrorBody,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct ErrorBody {
    pub code: ErrorCode,
    pub message: String,
}

/// Why a request could not be answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// Not JSON, or not UTF-8.
    ParseError,
    /// Not an object, a bad `id`, no `type`, or a field missing or wrong.
    InvalidRequest,
    /// A `type` the session does not know.
    UnknownType,
    /// An `mcp_update` naming a server the lock does not have.
    UnknownServer,
    /// A line over [`MAX_REQUEST_BYTES`].
    RequestTooLarge,
}

fn always(value: bool) -> schemars::schema::Schema {
    schemars::schema::Schema::Object(schemars::schema::SchemaObject {
        const_value: Some(Value::Bool(value)),
        ..Default::default()
    })
}

fn always_true(_: &mut schemars::gen::SchemaGenerator) -> schemars::schema::Schema {
    always(true)
}

fn always_false(_: &mut schemars::gen::SchemaGenerator) -> schemars::schema::Schema {
    always(false)
}

fn error(id: Value, code: ErrorCode, message: impl Into<String>) -> Response {
    Response::Error(Failure { id, ok: false, error: ErrorBody { code, message: message.into() } })
}

/// The JSON Schema of the protocol, requests and responses, as pretty JSON (two-space indents,
/// trailing newline): `schema/capc-session.schema.json`.
pub fn schema() -> String {
    use schemars::schema::{RootSchema, Schema, SchemaObject};
    let mut generator = schemars::gen::SchemaSettings::draft07().into_generator();
    let request = generator.subschema_for::<Message>();
    let response = generator.subschema_for::<Response>();
    let mut root = SchemaObject::default();
    root.metadata().id = Some("urn:capc:session".to_string());
    root.metadata().title = Some("capc session protocol".to_string());
    root.metadata().description = Some(
        "The newline-delimited JSON of `capc session`: each line on stdin is a `request`, each \
         line on stdout the `response` to one."
            .to_string(),
    );
    root.subschemas().one_of = Some(vec![request.clone(), response.clone()]);
    let mut root =
        RootSchema { meta_schema: generator.settings().meta_schema.clone(), schema: root, ..RootSchema::default() };
    root.definitions = generator.take_definitions();
    // A required field reads leniently (`#[serde(default)]`, for the session's own error), so
    // the derive leaves it optional: the schema says what a request must have.
    if let Some(Schema::Object(message)) = root.definitions.get_mut("Message") {
        for variant in message.subschemas().one_of.iter_mut().flatten() {
            let Schema::Object(variant) = variant else { continue };
            let object = variant.object();
            let kind = object.properties.get("type").and_then(|t| match t {
                Schema::Object(t) => t.enum_values.as_ref()?.first()?.as_str().map(str::to_string),
                Schema::Bool(_) => None,
            });
            let needed = REQUIRED.iter().filter(|(k, _)| Some(*k) == kind.as_deref());
            for (_, field) in needed {
                object.required.insert(field.to_string());
                if let Some(Schema::Object(property)) = object.properties.get_mut(*field) {
                    property.metadata().default = None;
                }
            }
        }
    }
    root.definitions.insert("request".to_string(), request);
    root.definitions.insert("response".to_string(), response);
    root.schema.subschemas().one_of = Some(vec![
        Schema::new_ref("#/definitions/request".to_string()),
        Schema::new_ref("#/definitions/response".to_string()),
    ]);
    let text =
        serde_json::to_string_pretty(&root).unwrap_or_else(|e| format!("\"capc could not write the schema: {e}\""));
    format!("{text}\n")
}

/// Answers one request line.
pub fn handle(session: &mut Session, line: &str) -> Value {
    // Serializing plain data (no maps with non-string keys) cannot fail; the keys come out
    // sorted, as serde_json's `Value` keeps them.
    serde_json::to_value(respond(session, line)).unwrap_or(Value::Null)
}

/// Answers one request line, as a type.
pub(crate) fn respond(session: &mut Session, line: &str) -> Response {
    session.sync();
    let request: Value = match serde_json::from_str(line) {
        Ok(v) => v,
        Err(e) => return error(Value::Null, ErrorCode::ParseError, format!("not JSON: {e}")),
    };
    let Some(object) = request.as_object() else {
        return error(Value::Null, ErrorCode::InvalidRequest, "a request is a JSON object");
    };
    let id = object.get("id").cloned().unwrap_or(Value::Null);
    if matches!(&id, Value::Array(_) | Value::Object(_)) || id.as_str().is_some_and(|s| s.len() > MAX_ID_BYTES) {
        return error(
            Value::Null,
            ErrorCode::InvalidRequest,
            format!("`id` must be a number, or a string of at most {MAX_ID_BYTES} bytes"),
        );
    }
    let Some(kind) = object.get("type").and_then(Value::as_str).map(str::to_string) else {
        return error(
            id,
            ErrorCode::InvalidRequest,
            "a request needs a string `type`: turn, invoke_skill, tool_search, call_tool, mcp_update or status",
        );
    };
    // Every field reads leniently, so only the `type` can fail here.
    let input = match Message::deserialize(request) {
        Ok(message) => message.input,
        Err(_) => {
            return error(
                id,
                ErrorCode::UnknownType,
                format!(
                "unknown request type `{kind}`; types: turn, invoke_skill, tool_search, call_tool, mcp_update, status"
            ),
            )
        }
    };
    match answer(session, input) {
        Ok(body) => Response::Answer(Box::new(Answer { id, ok: true, body })),
        Err((code, message)) => error(id, code, message),
    }
}

/// The answer to a well-formed request, or why it cannot be given.
fn answer(session: &mut Session, input: Input) -> Result<Body, (ErrorCode, String)> {
    let invalid = |message: String| (ErrorCode::InvalidRequest, message);
    Ok(match input {
        Input::Turn { input, context, include } => {
            let input = input.ok_or_else(|| invalid("`turn` needs a string `input`".into()))?;
            // The folder's trust is the session's unless the request says otherwise.
            let mut context = match context {
                None => Value::Object(Map::new()),
                Some(v) => v,
            };
            if let Some(map) = context.as_object_mut() {
                map.entry("trusted").or_insert(Value::Bool(session.trusted));
            }
            let context: TurnContext =
                serde_json::from_value(context).map_err(|e| invalid(format!("bad `context`: {e}")))?;
            let include = include.unwrap_or_else(|| ALL_PARTS.iter().map(|p| p.to_string()).collect());
            if let Some(unknown) = include.iter().find(|p| !ALL_PARTS.contains(&p.as_str())) {
                return Err(invalid(format!("unknown `include` part `{unknown}`; parts: {}", ALL_PARTS.join(", "))));
            }
            let has = |part: &str| include.iter().any(|p| p == part);
            let outcome = session.turn(&input, context);
            let view = outcome.view;
            let deferred = has("deferred").then(|| view.deferred());
            Body::Turn(Box::new(TurnAnswer {
                turn: session.turns,
                result: outcome.result,
                grant: session.grant.clone(),
                commands: has("commands").then_some(view.commands),
                skill_listing: has("skill_listing").then_some(view.skill_listing),
                agent_listing: has("agent_listing").then_some(view.agent_listing),
                tools: has("tools").then_some(view.tools),
                tool_search: has("tool_search").then_some(view.tool_search),
                deferred,
                tool_section: has("tool_section").then_some(view.tool_section),
                request: has("request").then_some(outcome.request),
                notes: outcome.notes,
            }))
        }
        Input::InvokeSkill { skill, args } => {
            let skill = skill.ok_or_else(|| invalid("`invoke_skill` needs a string `skill`".into()))?;
            let result = session.invoke_skill(&skill, args.as_deref().unwrap_or(""));
            Body::InvokeSkill { result, grant: session.grant.clone() }
        }
        Input::ToolSearch { query, max_results } => {
            let query = query.ok_or_else(|| invalid("`tool_search` needs a string `query`".into()))?;
            Body::ToolSearch { result: session.tool_search(&query, max_results.unwrap_or(5) as usize) }
        }
        Input::McpUpdate { updates } => {
            let updates = updates.ok_or_else(|| invalid("`mcp_update` needs `updates`".into()))?;
            let updates = serde_json::from_value(updates).map_err(|e| invalid(format!("bad `updates`: {e}")))?;
            session.apply_mcp(updates).map_err(|e| (ErrorCode::UnknownServer, e))?;
            Body::McpUpdate { result: session.status().mcp_servers }
        }
        Input::CallTool { tool, arguments } => {
            let tool =
                tool.ok_or_else(|| invalid("`call_tool` needs a string `tool` (`mcp__<server>__<tool>`)".into()))?;
            let arguments = match arguments {
                None | Some(Value::Null) => None,
                Some(Value::Object(map)) => Some(map),
                Some(_) => return Err(invalid("`arguments` must be an object".into())),
            };
            Body::CallTool { result: session.call_tool(&tool, arguments) }
        }
        Input::Status => Body::Status { result: session.status() },
    })
}

/// The longest request line a session reads (16 MiB, newline excluded): far above any real
/// request (an `mcp_update` listing 2,000 tools is about 6 MB) and small enough that a runaway
/// or hostile writer cannot make the session hold or echo arbitrary amounts. A longer line is
/// skipped to its end and answered with a `request_too_large` error.
pub(crate) const MAX_REQUEST_BYTES: usize = 16 << 20;

/// The longest `id` echoed back (a string of at most 256 bytes, or any number, boolean or
/// null); a request with a larger one is answered with `id: null` and an error.
pub(crate) const MAX_ID_BYTES: usize = 256;

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
            LineRead::TooLong(len) => error(
                Value::Null,
                ErrorCode::RequestTooLarge,
                format!(
                    "a request line of {len} bytes, over the limit of {MAX_REQUEST_BYTES} (16 MiB); the line was skipped"
                ),
            ),
            LineRead::Bytes => match std::str::from_utf8(&buf) {
                Err(e) => error(
                    Value::Null,
                    ErrorCode::ParseError,
                    format!("not UTF-8 (invalid byte at offset {}); requests are UTF-8 JSON", e.valid_up_to()),
                ),
                Ok(text) if text.trim().is_empty() => continue,
                Ok(text) => respond(session, text),
            },
        };
        let response = serde_json::to_value(response).unwrap_or(Value::Null);
        // serde escapes C0 controls but leaves C1 controls, the line separators and the
        // bidirectional marks raw; those in names and texts from the lock are escaped too, so
        // a terminal showing the stream sees none (the JSON means the same).
        writeln!(output, "{}", capc_compiler::printable::escape_json(&response.to_string()))?;
        output.flush()?;
    }
    Ok(())
}

/// What [`read_line`] read.
enum LineRead {
    /// A whole line, now in the buffer (without its newline).
    Bytes,
    /// A line longer than the limit, skipped; this many bytes long.
    TooLong(usize),
}

/// Reads the next line into `buf`, holding at most `limit` bytes of it; `None` at end of
/// input. A longer line is consumed to its end without being kept.
fn read_line(input: &mut impl std::io::BufRead, buf: &mut Vec<u8>, limit: usize) -> std::io::Result<Option<LineRead>> {
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
        return Ok(Some(LineRead::TooLong(seen)));
    }
    if buf.last() == Some(&b'\r') {
        buf.pop();
    }
    Ok(Some(LineRead::Bytes))
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
                LineRead::Bytes => Ok(buf.clone()),
                LineRead::TooLong(n) => Err(n),
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
