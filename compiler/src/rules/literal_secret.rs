//! Rule `literal-secret`: an MCP server's `env`, `headers` or arguments hold a literal secret.

use super::Rule;
use crate::diagnostic::Severity;

pub static RULE: Rule = Rule {
    id: "literal-secret",
    severity: Severity::Warning,
    summary: "an MCP server config holds what looks like a literal secret",
    docs: DOCS,
};

const DOCS: &str = r##"### What it does
Flags a value in an MCP server's `env`, `headers`, `args` or `url` that looks like a credential written out: a key named like a secret (`*_TOKEN`, `*_KEY`, `Authorization`, `password`, …) with a literal value, a known token shape (`sk-…`, `ghp_…`, `xoxb-…`, `AKIA…`, a JWT), or a URL with a password in it. `capabilities.lock` stores such a value only as `sha256:<hex>`.

### Why is this bad?
The file is committed and shared; the secret is now in the repository's history. Claude Code expands `${VAR}` (and `${VAR:-default}`) in these fields, so the value can come from each user's environment instead.

### Example
```json
{ "mcpServers": { "github": { "command": "gh-mcp", "env": { "GITHUB_TOKEN": "ghp_abc123…" } } } }
```
Write `"GITHUB_TOKEN": "${GITHUB_TOKEN}"`.

### Source
FORMATS §4.3 (environment-variable expansion); the capc brief (no secret in a lock or a log)
"##;
