//! The MCP tool surface a lock records (`[[mcp_tool]]`, written by `capc lock --connect`):
//! the hashes, the token estimate and the name check, as pure functions the runtime's listing
//! and the compiler's readers share.

use crate::diagnostic::{report_at, Diagnostic};
use crate::model::{Lock, McpFailed, McpServer, McpToolEntry};
use crate::span::Span;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

/// JSON with every object's keys sorted (by UTF-8 bytes) and no whitespace, so a schema hashes
/// the same whatever order the server wrote its keys in.
pub(crate) fn canonical_json(value: &Value) -> String {
    let mut out = String::new();
    write_canonical(value, &mut out);
    out
}

fn write_canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, key) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(key.clone()).to_string());
                out.push(':');
                write_canonical(&map[key], out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(item, out);
            }
            out.push(']');
        }
        // Scalars print without whitespace already.
        scalar => out.push_str(&scalar.to_string()),
    }
}

/// Lowercase hex SHA-256 of a schema's [`canonical_json`].
pub fn schema_sha256(schema: &Value) -> String {
    crate::secrets::sha256_hex(canonical_json(schema).as_bytes())
}

/// The characters of a description Claude Code's estimate counts.
pub(crate) const ESTIMATE_DESCRIPTION_CHARS: usize = 2048;

/// Claude Code's rough token count for a tool where it has no tokenizer:
/// `Math.round(JSON.stringify({name, description, input_schema}).length / 4)`, the length in
/// UTF-16 code units, the description cut at 2,048 characters first.
pub fn estimate_tokens(name: &str, description: &str, input_schema: &Value) -> u64 {
    let cut = match description.char_indices().nth(ESTIMATE_DESCRIPTION_CHARS) {
        Some((at, _)) => &description[..at],
        None => description,
    };
    let mut object = serde_json::Map::new();
    object.insert("name".to_string(), Value::String(name.to_string()));
    object.insert("description".to_string(), Value::String(cut.to_string()));
    object.insert("input_schema".to_string(), input_schema.clone());
    // The length does not depend on the keys' order, only on what is written.
    let text = Value::Object(object).to_string();
    let units = text.encode_utf16().count() as u64;
    // Math.round: halves round up.
    (units + 2) / 4
}

/// Why a composed tool name is not one the Messages API accepts (`^[a-zA-Z0-9_-]{1,64}$`), or
/// `None` when it is.
pub fn name_problem(name: &str) -> Option<String> {
    let length = name.chars().count();
    if length > crate::names::MAX_TOOL_NAME {
        return Some(format!(
            "is {length} characters; the API accepts at most {} (`^[a-zA-Z0-9_-]{{1,64}}$`)",
            crate::names::MAX_TOOL_NAME
        ));
    }
    if length == 0 {
        return Some("is empty".to_string());
    }
    if let Some(bad) = name.chars().find(|c| !(c.is_ascii_alphanumeric() || *c == '_' || *c == '-')) {
        return Some(format!("holds {bad:?}, outside `[a-zA-Z0-9_-]`"));
    }
    None
}

/// Each recorded tool whose composed name the API refuses, as one line naming the server, the
/// tool and why (its length).
pub fn name_errors(tools: &[McpToolEntry]) -> Vec<String> {
    tools
        .iter()
        .filter_map(|t| {
            name_problem(&t.name).map(|why| {
                format!(
                    "MCP server `{}`: tool `{}` is called `{}`, which {why}",
                    crate::printable::escape(&t.server),
                    crate::printable::escape(&t.tool),
                    crate::printable::escape(&t.name)
                )
            })
        })
        .collect()
}

/// Sorts a surface: by server, then tool.
pub fn sort(tools: &mut [McpToolEntry], failed: &mut [McpFailed]) {
    tools.sort_by(|a, b| (&a.server, &a.tool, &a.name).cmp(&(&b.server, &b.tool, &b.name)));
    failed.sort_by(|a, b| a.server.cmp(&b.server));
}

/// The surface a lock file recorded: its `[[mcp_tool]]` and `[[mcp_failed]]` entries.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Recorded {
    pub tools: Vec<McpToolEntry>,
    pub failed: Vec<McpFailed>,
}

impl Recorded {
    /// What the lock file at `path` recorded. Empty when there is no lock, when it is not a
    /// regular file (a symbolic link is not followed), when its surface does not read as one of
    /// this format version, or when it recorded none. The lock is read a line at a time and
    /// only its top-level keys and its `[[mcp_tool]]` and `[[mcp_failed]]` tables are kept and
    /// decoded: a lock of a large tree (tens of MB) is never held whole for them.
    pub fn read(path: &Path) -> Recorded {
        match surface_tables(path) {
            Some(text) if text.contains("[[mcp_") => decode_surface(&text).unwrap_or_default(),
            _ => Recorded::default(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.tools.is_empty() && self.failed.is_empty()
    }
}

/// The lines of the lock at `path` that say its surface: its top-level keys (the format
/// version among them) and its `mcp_tool` and `mcp_failed` tables. `None` when there is no
/// lock to read, it is larger than a lock may be, or it is not UTF-8 text. The lock's writer
/// puts every string on one line, so a line that starts with `[` is a table's header.
fn surface_tables(path: &Path) -> Option<String> {
    use std::io::BufRead;
    let limit = crate::lock::write::MAX_LOCK_BYTES;
    let (file, _) = crate::walk::open_within(path, limit, crate::walk::Links::Refuse).ok()?;
    let of_surface = |header: &str| {
        let name = header.trim_end().trim_start_matches('[').trim_end_matches(']');
        ["mcp_tool", "mcp_failed"]
            .iter()
            .any(|t| name == *t || name.strip_prefix(t).is_some_and(|r| r.starts_with('.')))
    };
    let (mut kept, mut inside) = (String::new(), true);
    let mut reader = std::io::BufReader::with_capacity(256 * 1024, file);
    // One buffer for every line (a large lock has a million).
    let (mut line, mut read) = (String::new(), 0);
    loop {
        line.clear();
        match reader.read_line(&mut line).ok()? {
            0 => break,
            n => read += n as u64,
        }
        if read > limit {
            return None;
        }
        if line.starts_with('[') {
            inside = of_surface(&line);
        }
        if inside {
            kept.push_str(line.trim_end_matches(['\n', '\r']));
            kept.push('\n');
        }
    }
    Some(kept)
}

/// The surface tables [`surface_tables`] kept, decoded; `None` when they are not a lock's of
/// this format version.
fn decode_surface(text: &str) -> Option<Recorded> {
    #[derive(serde::Deserialize)]
    struct Surface {
        version: u32,
        #[serde(default)]
        mcp_tool: Vec<McpToolEntry>,
        #[serde(default)]
        mcp_failed: Vec<McpFailed>,
    }
    if crate::lock::write::too_deep(text).is_some() {
        return None;
    }
    let surface: Surface = toml::from_str(text).ok()?;
    (surface.version == crate::model::LOCK_VERSION)
        .then_some(Recorded { tools: surface.mcp_tool, failed: surface.mcp_failed })
}

/// Carries the surface `old` recorded into `lock` for the servers `lock` still declares
/// (`capc lock` without `--connect`).
pub fn keep(lock: &mut Lock, old: &Recorded) {
    let declared = |server: &str| lock.mcp_servers.iter().any(|s| s.name == server);
    let tools: Vec<McpToolEntry> = old.tools.iter().filter(|t| declared(&t.server)).cloned().collect();
    let failed: Vec<McpFailed> = old.failed.iter().filter(|f| declared(&f.server)).cloned().collect();
    lock.mcp_tools = tools;
    lock.mcp_failed = failed;
}

/// The declaration of `name` that wins (a shadowed one never starts).
pub(crate) fn winning<'a>(servers: &'a [McpServer], name: &str) -> Option<&'a McpServer> {
    servers.iter().find(|s| s.name == name && s.shadowed_by.is_none())
}

/// Whether a session here starts the server: it wins its name and is not blocked by the MCP
/// policy, removed by a deny rule or turned off.
pub fn starts(server: &McpServer) -> bool {
    server.shadowed_by.is_none()
        && server.blocked_by.is_none()
        && server.denied_by.is_none()
        && server.approval != Some(crate::model::Approval::Disabled)
}

/// A recorded tool a session here is offered.
#[derive(Debug, Clone, Copy)]
pub struct Offered<'a> {
    /// The declaration that starts (the winner of its name).
    pub server: &'a McpServer,
    pub tool: &'a McpToolEntry,
}

impl Offered<'_> {
    /// The name the model calls the tool by, composed as Claude Code composes it from the
    /// server's name as declared today and the tool's as the server listed it (the lock's own
    /// `name` is not trusted).
    pub fn name(&self) -> String {
        crate::names::tool_name(&self.server.normalized, &crate::names::normalize_server(&self.tool.tool))
    }
}

/// The recorded tools a session with `lock`'s servers and rules is offered, in the surface's
/// order: those of a server that starts here (the winner of its name, not blocked by the MCP
/// policy, removed by a deny rule or turned off) that no deny rule on the tool removes.
pub fn offered<'a>(recorded: &'a Recorded, lock: &'a Lock) -> Vec<Offered<'a>> {
    let denies: Vec<capc_grammar::PermissionRule> = lock
        .permissions
        .iter()
        .filter(|p| p.behavior == crate::model::Behavior::Deny)
        .filter_map(|p| capc_grammar::parse_permission_rule(&p.rule).ok())
        .filter(|r| r.content.is_none())
        .collect();
    let cx = capc_grammar::MatchContext::default();
    recorded
        .tools
        .iter()
        .filter_map(|tool| {
            let server = winning(&lock.mcp_servers, &tool.server).filter(|s| starts(s))?;
            let offered = Offered { server, tool };
            let name = offered.name();
            let call = capc_grammar::ToolCall::new(&name);
            (!denies.iter().any(|r| r.matches(capc_grammar::Behavior::Deny, &call, &cx))).then_some(offered)
        })
        .collect()
}

/// `invalid-mcp-tool-name`: each [`offered`] tool whose composed name the API refuses,
/// reported at the server's name in the file that declares it (`spans`: by server name and
/// file).
pub(crate) fn name_findings(
    recorded: &Recorded,
    lock: &Lock,
    spans: &BTreeMap<(String, String), Span>,
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for offered in offered(recorded, lock) {
        let (server, name) = (offered.server, offered.name());
        let Some(why) = name_problem(&name) else { continue };
        let span = spans.get(&(server.name.clone(), server.path.clone())).copied();
        let escape = |s: &str| crate::printable::escape(s).into_owned();
        let message = format!(
            "MCP server `{}` offers a tool `{}` (recorded in capabilities.lock by `capc lock --connect`); Claude Code \
             calls it `{}`, which {why}; every request that offers it is refused",
            escape(&server.name),
            escape(&offered.tool.tool),
            escape(&name)
        );
        let prefix = crate::names::tool_name(&server.normalized, "");
        let room = crate::names::MAX_TOOL_NAME.saturating_sub(prefix.chars().count());
        let help = format!(
            "the prefix `{}` leaves {room} characters for the tool's own name: give the server a shorter name{}, \
             or deny the tool (`{}` in `permissions.deny`) so Claude Code leaves it out",
            escape(&prefix),
            if server.plugin.is_some() { " (or the plugin)" } else { "" },
            escape(&name),
        );
        report_at(&mut out, server.path.clone(), &crate::rules::invalid_mcp_tool_name::RULE, span, message).help(help);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Read a line at a time, the surface is the one the whole lock decodes to, on every lock
    /// of this repository that records one (with `[mcp_tool.annotations]` subtables); a lock
    /// of another format version, or without a surface, records none.
    #[test]
    fn the_surface_read_by_lines_is_the_whole_locks() {
        let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let locks = [
            "tests/fixtures/max-context-tokens/in/capabilities.lock",
            "tests/fixtures/invalid-mcp-tool-name/in/capabilities.lock",
            "tests/diff/tool-surface/new/capabilities.lock",
            "tests/diff/tool-surface/old/capabilities.lock",
        ];
        for rel in locks {
            let path = repo.join(rel);
            let text = std::fs::read_to_string(&path).expect("lock");
            let whole = crate::lock::write::decode(&text).expect("decodes");
            let read = Recorded::read(&path);
            assert!(!read.is_empty(), "{rel}");
            assert_eq!(read, Recorded { tools: whole.mcp_tools, failed: whole.mcp_failed }, "{rel}");
        }
        let dir = tempfile::tempdir().expect("tempdir");
        let text = std::fs::read_to_string(repo.join(locks[2])).expect("lock");
        let other = dir.path().join("other.lock");
        std::fs::write(&other, text.replacen("version = 2", "version = 1", 1)).expect("write");
        assert!(Recorded::read(&other).is_empty(), "another format version");
        let bare = dir.path().join("bare.lock");
        std::fs::write(&bare, text.split("[[mcp_tool]]").next().expect("head")).expect("write");
        assert!(Recorded::read(&bare).is_empty(), "no surface");
        assert!(Recorded::read(&dir.path().join("none.lock")).is_empty(), "no lock");
    }

    #[test]
    fn canonical_json_sorts_keys_and_drops_whitespace() {
        let a: Value = serde_json::from_str(
            r#"{ "type": "object", "properties": { "b": {"type":"string"}, "a": {} }, "required": ["b", "a"] }"#,
        )
        .expect("json");
        let b: Value = serde_json::from_str(
            r#"{"required":["b","a"],"properties":{"a":{},"b":{"type":"string"}},"type":"object"}"#,
        )
        .expect("json");
        assert_eq!(
            canonical_json(&a),
            r#"{"properties":{"a":{},"b":{"type":"string"}},"required":["b","a"],"type":"object"}"#
        );
        assert_eq!(schema_sha256(&a), schema_sha256(&b));
        assert_eq!(schema_sha256(&a), crate::secrets::sha256_hex(canonical_json(&b).as_bytes()));
        // Array order is meaning, not layout.
        let c = json!({"required": ["a", "b"], "properties": {"a": {}, "b": {"type": "string"}}, "type": "object"});
        assert_ne!(schema_sha256(&a), schema_sha256(&c));
        assert_eq!(canonical_json(&json!({"s": "é\n\"", "n": 1.5, "z": null})), r#"{"n":1.5,"s":"é\n\"","z":null}"#);
    }

    #[test]
    fn tokens_count_utf16_units_of_the_cut_description() {
        let schema = json!({"type": "object"});
        // With an empty description the JSON is 70 units.
        let empty = r#"{"name":"mcp__s__t","description":"","input_schema":{"type":"object"}}"#;
        assert_eq!(empty.len(), 70);
        assert_eq!(estimate_tokens("mcp__s__t", "", &schema), 18, "70 / 4 = 17.5 rounds up");
        assert_eq!(estimate_tokens("mcp__s__t", "ab", &schema), 18, "72 / 4");
        assert_eq!(estimate_tokens("mcp__s__t", "a", &schema), 18, "71 / 4 = 17.75");
        assert_eq!(estimate_tokens("mcp__s__t", "abc", &schema), 18, "73 / 4 = 18.25");
        // An emoji is two UTF-16 units (four UTF-8 bytes), é one (two bytes).
        assert_eq!(estimate_tokens("mcp__s__t", "😀😀😀😀", &schema), (70 + 8 + 2) / 4);
        assert_eq!(estimate_tokens("mcp__s__t", "éééé", &schema), (70 + 4 + 2) / 4);
        // Quotes and newlines are escaped as JSON.stringify escapes them.
        assert_eq!(estimate_tokens("mcp__s__t", "\"\n", &schema), (70 + 4 + 2) / 4);
        // Cut at 2,048 characters: anything beyond counts nothing.
        let long = "x".repeat(2048);
        let longer = format!("{long}{}", "y".repeat(10_000));
        assert_eq!(estimate_tokens("mcp__s__t", &long, &schema), (70 + 2048 + 2) / 4);
        assert_eq!(estimate_tokens("mcp__s__t", &longer, &schema), estimate_tokens("mcp__s__t", &long, &schema));
        // 2,048 characters, not bytes: 2,048 emoji are 4,096 units.
        let emoji = "😀".repeat(3000);
        assert_eq!(estimate_tokens("mcp__s__t", &emoji, &schema), (70 + 4096 + 2) / 4);
    }

    #[test]
    fn names_are_checked_against_the_apis_pattern() {
        assert_eq!(name_problem("mcp__github__create_issue"), None);
        assert_eq!(name_problem(&"a".repeat(64)), None);
        let long = name_problem(&"a".repeat(65)).expect("too long");
        assert!(long.starts_with("is 65 characters"), "{long}");
        assert_eq!(name_problem(""), Some("is empty".to_string()));
        assert_eq!(name_problem("mcp__a__b.c"), Some("holds '.', outside `[a-zA-Z0-9_-]`".to_string()));
        let tools = vec![McpToolEntry {
            server: "srv".into(),
            tool: "t".repeat(60),
            name: format!("mcp__srv__{}", "t".repeat(60)),
            ..McpToolEntry::default()
        }];
        let errors = name_errors(&tools);
        assert_eq!(errors.len(), 1);
        assert!(errors[0].starts_with("MCP server `srv`: tool `tttt"), "{}", errors[0]);
        assert!(errors[0].contains("is 70 characters"), "{}", errors[0]);
    }
}
