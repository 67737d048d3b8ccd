//! Rule `insecure-mcp-url`: a remote MCP server is reached over plain `http` on another machine.

use super::Rule;
use crate::diagnostic::Severity;

pub static RULE: Rule = Rule {
    id: "insecure-mcp-url",
    severity: Severity::Info,
    summary: "a remote MCP server over plain `http` to a host that is not this machine",
    docs: DOCS,
};

const DOCS: &str = r##"### What it does
Flags an MCP server `url` that starts with `http://` and names a host other than this machine (`localhost`, `*.localhost`, `127.0.0.0/8` and `::1` are fine). A host written as a `${VAR}` reference is left alone.

### Why is this bad?
Tool calls, their results and the server's `headers` (often a bearer token) cross the network unencrypted, and anyone on the path can read them or answer in the server's place, feeding the model tools and text of their choosing.

### Severity
Info: it loads and works as written; worth knowing. Claude Code connects over plain HTTP as asked; raise it in capc.toml (`[rules] insecure-mcp-url = "error"`) where every remote server must use HTTPS.

### Example
```json
{ "mcpServers": { "search": { "type": "http", "url": "http://search.internal.example.com/mcp" } } }
```
Use `https://`.

### Source
Claude Code docs, "Connect Claude Code to tools via MCP" (code.claude.com/docs/en/mcp), remote servers; capc's README, "Rules".
"##;
