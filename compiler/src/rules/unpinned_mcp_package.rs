//! Rule `unpinned-mcp-package`: an MCP server fetches a package or image without an exact version.

use super::Rule;
use crate::diagnostic::Severity;

pub static RULE: Rule = Rule {
    id: "unpinned-mcp-package",
    severity: Severity::Info,
    summary: "an MCP server fetches a package or image without an exact version",
    docs: DOCS,
};

const DOCS: &str = r##"### What it does
Flags a stdio MCP server (in `.mcp.json`, `~/.claude.json`, a plugin, or a project's or user's agent's own `mcpServers`, which starts when the agent runs) whose command fetches what it runs at start-up — `npx`, `bunx`, `pnpm dlx`, `yarn dlx`, `uvx` (`uv tool run`), `pipx run`, `docker run`, `podman run` — without an exact version: `pkg@1.2.3` for npm, `pkg==1.2.3` (or `pkg@1.2.3` for `uvx`) for Python, `image@sha256:<digest>` for an image. A tag (`latest`, `1`), a range (`^1.2`, `>=1.0`) or nothing at all is not exact. `capabilities.lock` records each package with its version under `[[pin]]`, so `capc diff` shows a version moving. The same test on every other run (an LSP server, a monitor, a hook, a helper, a `!` injection) is `unpinned-package`.

### Why is this bad?
Claude Code starts the server again in every session, and the launcher resolves the name again each time: whatever the registry serves that day runs with the user's permissions and sees the server's `env`. A compromised or hijacked release reaches everyone who opens the repository, and a review of the configuration cannot say what will run.

### Severity
Info: it loads and works as written; worth knowing. The server starts with whatever version the registry serves that day; a team that requires pins raises it in capc.toml (`[rules] unpinned-mcp-package = "error"`).

### Example
```json
{ "mcpServers": { "github": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"] } } }
```
Write `"@modelcontextprotocol/server-github@2025.4.8"` (the release you reviewed), or for an image `ghcr.io/github/github-mcp-server@sha256:…`.

### Source
Claude Code docs, "Connect Claude Code to tools via MCP" (code.claude.com/docs/en/mcp): stdio servers run the `command` with `args` as given; capc's README, "Rules".
"##;
