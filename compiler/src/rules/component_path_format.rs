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

### Example
```json
{ "agents": "./agents", "hooks": "hooks/hooks.json" }
// fix: { "agents": ["./agents/reviewer.md"], "hooks": "./hooks/hooks.json" }
```

### Source
D:plugins-ref §Path behavior rules; measured with claude plugin validate 2.1.332
"##;
