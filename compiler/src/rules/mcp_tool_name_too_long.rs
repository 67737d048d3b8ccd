//! Rule `mcp-tool-name-too-long`: an MCP tool's composed name is longer than the 64 characters
//! the Messages API accepts, or a server's name leaves too little room for its tools' names.

use super::Rule;
use crate::diagnostic::Severity;

pub static RULE: Rule = Rule {
    id: "mcp-tool-name-too-long",
    severity: Severity::Warning,
    summary: "an MCP server's name leaves too little room for its tools' names (`mcp__<server>__<tool>`, 64 characters at most)",
    docs: DOCS,
};

const DOCS: &str = r##"### What it does
Claude Code names each tool of an MCP server `mcp__<server>__<tool>`, the server's and the tool's names with every character outside `[A-Za-z0-9_-]` made `_` (per UTF-16 unit: an emoji becomes `__`); a plugin's server is `plugin_<plugin>_<server>`. The Messages API accepts tool names of 1 to 64 characters (`^[a-zA-Z0-9_-]{1,64}$`). This rule flags, at the server's name, a server whose prefix `mcp__<server>__` leaves fewer than 24 characters for its tools' own names (real servers' tool names run to 30 and more: `get_pull_request_review_comments`, `trigger-elicitation-request-async`), and says how many are left.

### Why is this bad?
A request that offers a tool with a longer name is refused whole by the API, with an error that does not say which tool: every turn of the session fails until the server is disconnected.

### Severity
Warning: Claude Code starts the server and lists its tools; what fails is the first request once a tool's name is too long, which depends on what the server offers. A shorter server name (or plugin name) fixes it.

### Example
```json
{ "mcpServers": { "company-internal-knowledge-base-search": { "command": "kb-mcp" } } }
// `mcp__company-internal-knowledge-base-search__` takes 45 of the 64 characters: a tool named
// `search_documents_by_team` (24) makes every request fail. Fix: name the server `kb`.
```

### Source
https://code.claude.com/docs/en/mcp
"##;
