//! The JSON Schema of `capabilities.lock`, derived from the [`Lock`] model that writes and
//! reads it. It describes the lock's data (the TOML read into JSON values), so tools in any
//! language can check a lock; `schema/capabilities.lock.schema.json` at the repository root
//! is this text, and a test keeps the two equal.

use crate::model::{Lock, LOCK_VERSION};
use schemars::schema::Schema;

/// The schema as pretty JSON (two-space indents, trailing newline).
pub fn lock_schema() -> String {
    let mut root = schemars::schema_for!(Lock);
    let meta = root.schema.metadata();
    meta.id = Some(format!("urn:capc:capabilities.lock:v{LOCK_VERSION}"));
    meta.title = Some(format!("capabilities.lock, format version {LOCK_VERSION}"));
    meta.description = Some(
        "The resolved skills, commands, agents, MCP servers, hooks and permission rules of a \
         folder, as `capc lock` writes them (TOML, read as JSON values)."
            .to_string(),
    );
    // `decode` refuses every other version, so the schema does too.
    if let Some(Schema::Object(version)) =
        root.schema.object.as_mut().and_then(|object| object.properties.get_mut("version"))
    {
        version.const_value = Some(LOCK_VERSION.into());
    }
    // Serializing a schema (plain maps, strings and numbers) cannot fail.
    let text =
        serde_json::to_string_pretty(&root).unwrap_or_else(|e| format!("\"capc could not write the schema: {e}\""));
    format!("{text}\n")
}
