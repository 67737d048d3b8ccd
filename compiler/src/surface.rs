//! The MCP tool surface a lock records (`[[mcp_tool]]`, written by `capc lock --connect`):
//! the hashes, the token estimate and the name check, as pure functions the runtime's listing
//! and the compiler's readers share.

use crate::model::{Lock, McpFailed, McpToolEntry};
use serde_json::Value;

/// JSON with every object's keys sorted (by UTF-8 bytes) and no whitespace, so a schema hashes
/// the same whatever order the server wrote its keys in.
pub fn canonical_json(value: &Value) -> String {
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
pub const ESTIMATE_DESCRIPTION_CHARS: usize = 2048;

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

/// Carries the surface `old` recorded into `lock` for the servers `lock` still declares
/// (`capc lock` without `--connect`).
pub fn keep(lock: &mut Lock, old: &Lock) {
    let declared = |server: &str| lock.mcp_servers.iter().any(|s| s.name == server);
    let tools: Vec<McpToolEntry> = old.mcp_tools.iter().filter(|t| declared(&t.server)).cloned().collect();
    let failed: Vec<McpFailed> = old.mcp_failed.iter().filter(|f| declared(&f.server)).cloned().collect();
    lock.mcp_tools = tools;
    lock.mcp_failed = failed;
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
