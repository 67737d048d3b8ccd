//! Rule `component-path-format`: a plugin component path is malformed.

use super::Rule;
use crate::diagnostic::Severity;

pub static RULE: Rule = Rule {
    id: "component-path-format",
    severity: Severity::Error,
    summary: "a plugin component path is malformed",
    docs: DOCS,
};

const DOCS: &str = r##"### What it does
Checks every path in a plugin's `skills`, `commands`, `agents`, `hooks`, `mcpServers`, `outputStyles`, `workflows` and `lspServers` fields: it must start with `./` (`skills` also accepts `.`), stay inside the plugin folder, and `agents` entries must name `.md` files and `hooks` entries `.json` files.

### Why is this bad?
`claude plugin validate` rejects such manifests, and installed plugins are copied into a cache, so absolute paths and `..` break after install.

### Severity
Error: Claude Code refuses to load the file, or the declaration can never work. Claude Code refuses a manifest whose component paths are malformed, and a path outside the plugin breaks once the plugin is installed into the cache.

### Example
```json
{ "agents": "./agents", "hooks": "hooks/hooks.json" }
// fix: { "agents": ["./agents/reviewer.md"], "hooks": "./hooks/hooks.json" }
```

### Source
https://code.claude.com/docs/en/plugins-reference (path behavior rules); `claude plugin validate` and the plugin loader of Claude Code, measured (see "Checked against Claude Code itself" in capc's docs/reading.md)
"##;
