//! Rule `unpinned-package`: a hook, LSP server, monitor, helper, status line or `!` injection
//! fetches a package or image without an exact version.

use super::Rule;
use crate::diagnostic::Severity;

pub static RULE: Rule = Rule {
    id: "unpinned-package",
    severity: Severity::Info,
    summary: "a hook, LSP server, monitor, helper or `!` injection fetches a package without an exact version",
    docs: DOCS,
};

const DOCS: &str = r##"### What it does
Flags what Claude Code runs outside MCP servers — a plugin's LSP server (`command` with its `args`), a plugin's monitor, a hook `command` (in settings, a plugin's hooks, or the frontmatter `hooks` of an agent, skill or command, which run while it runs; a plugin agent's are ignored by Claude Code and not reported), a settings helper or status line (`statusLine`, `apiKeyHelper`, …) and a skill's or command's `!` injection — when it starts with a launcher that fetches what it runs — `npx`, `bunx`, `pnpm dlx`, `yarn dlx`, `uvx` (`uv tool run`), `pipx run`, `docker run`, `podman run` — without an exact version: `pkg@1.2.3` for npm, `pkg==1.2.3` for Python, `image@sha256:<digest>` for an image. These are the rows `capc ls --runs` marks `unpinned`.

It is the same test as `unpinned-mcp-package`, which keeps its id for MCP servers (stdio servers in `.mcp.json`, `~/.claude.json`, a plugin or an agent's `mcpServers`); this rule covers every other run, so each run is reported by exactly one of the two.

### Why is this bad?
The launcher resolves the name again each time the server, monitor or command starts: whatever the registry serves that day runs with the user's permissions. A compromised or hijacked release reaches everyone who loads the plugin or opens the repository, and a review of the configuration cannot say what will run.

### Severity
Info: it loads and works as written; worth knowing. A team that requires pins raises it in capc.toml (`[rules] unpinned-package = "error"`), as for `unpinned-mcp-package`.

### Example
```json
{ "typescript": { "command": "npx", "args": ["-y", "typescript-language-server", "--stdio"], "extensionToLanguage": { ".ts": "typescript" } } }
```
Write `"typescript-language-server@4.3.3"` (the release you reviewed), or install the server and name the program.

### Source
Claude Code docs, "Plugins reference" (code.claude.com/docs/en/plugins-reference), sections "LSP servers" and "Monitors"; "Hooks reference" (code.claude.com/docs/en/hooks); capc's README, "Rules".
"##;
