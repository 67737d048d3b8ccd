//! Rule `invalid-mcp-tool-name`: a tool an MCP server offers (as `capc lock --connect`
//! recorded it) has a composed name the Messages API refuses.

use super::Rule;
use crate::diagnostic::Severity;

pub static RULE: Rule = Rule {
    id: "invalid-mcp-tool-name",
    severity: Severity::Error,
    summary: "a tool an MCP server offers is named `mcp__<server>__<tool>` past the 64 characters (or outside the characters) the API accepts",
    docs: DOCS,
};

const DOCS: &str = r##"### What it does
Reads the tool surface the folder's `capabilities.lock` recorded (`capc lock --connect` lists every tool each server offers) and composes each tool's name as Claude Code does: `mcp__<server>__<tool>`, the server's name as declared today (`plugin_<plugin>_<server>` for a plugin's server) and the tool's name as the server listed it, each with every character outside `[A-Za-z0-9_-]` made `_`. A name the Messages API refuses (`^[a-zA-Z0-9_-]{1,64}$`) is flagged at the server's name in the file that declares it, with the tool's name, the composed name and its length. A server that does not start here (blocked by the MCP policy, removed by a deny rule, turned off) and a tool a deny rule removes are not flagged: no request offers them. Without a recorded surface the rule has nothing to read; `mcp-tool-name-too-long` still warns, from the server's name alone, when its prefix leaves too little room.

### Why is this bad?
A request that offers a tool with such a name is refused whole by the API, with an error that does not say which tool: every turn of the session fails while the server is connected.

### Severity
Error: with that server connected, no turn of a session succeeds.

### Example
```json
{ "mcpServers": { "company-knowledge-base": { "command": "kb-mcp" } } }
// The server offers `search_documents_by_team_and_date_range` (39 characters):
// `mcp__company-knowledge-base__search_documents_by_team_and_date_range` is 68.
// Fix: name the server `kb`, or deny `mcp__company-knowledge-base__search_documents_by_team_and_date_range`.
```

### Source
https://code.claude.com/docs/en/mcp
"##;
