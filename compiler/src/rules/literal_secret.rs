//! Rule `literal-secret`: a declaration holds a literal secret (MCP fields, hook commands,
//! permission rules, frontmatter, settings `env`).

use super::Rule;
use crate::diagnostic::Severity;

pub static RULE: Rule = Rule {
    id: "literal-secret",
    severity: Severity::Warning,
    summary: "a declaration holds what looks like a literal secret",
    docs: DOCS,
};

const DOCS: &str = r##"### What it does
Flags a value that looks like a credential written out: a key named like a secret (`*_TOKEN`, `*_KEY`, `Authorization`, `password`, …) with a literal value, a known token shape (`sk-…`, `ghp_…`, `xoxb-…`, `AKIA…`, a JWT), a long generated-looking string (not a name of short words joined by `_`, `-` or `.`, such as the MCP tool `mcp__context7__resolve-library-id`), or a value written where a secret goes, whatever it looks like: after a `--password`, `--token` or `--api-key`-style flag (in `args`, the argument after the flag), after `sshpass -p`, `mysql -p`, `redis-cli -a` or `curl -u user:`, a URL's password or a secret query or `;` parameter key (`api_key`, `token`, `access_token`, `key`, `secret`, `sig`, `password`), the path of a webhook URL whose path is its credential (Slack's `hooks.slack.com/services/…`, Discord, Microsoft Teams, Zapier, Telegram bots) and a URL under a key naming a webhook whose path holds a token (8 characters or more mixing letters and digits), a connection string's `Password=`, `Pwd=`, `AccountKey=` or `SharedAccessKey=` value (`Server=db;User Id=sa;Password=…;`), or the value of an `Authorization:` or `X-Api-Key:`-style header or a `Bearer` scheme. It looks wherever a value reaches `capabilities.lock`: an MCP server's `command`, `args`, `url`, `cwd`, `env`, `headers` and `headersHelper` (in `.mcp.json`, a plugin's `.mcp.json` or `~/.claude.json`), a hook's command, URL or `if` (in settings, `hooks.json` or `plugin.json`), a permission rule (settings, `allowed-tools`, an agent's `tools`), the frontmatter fields of skills, commands and agents, and the `source` of a marketplace's plugin or of a settings file's known marketplace (the lock's pins); and in a settings file's `env`. The lock keeps such a value only as `sha256:<hex>`: whole for what runs or connects (a session refuses to start a server from it), the content of a permission rule (`Bash(sha256:…)`; a session applies such a deny or ask rule to the whole tool and such an allow rule to nothing), word by word in a description, and in place in a pin (`https://deploy:sha256:…@host/…`). Reports mask the value in every snippet. In `settings.local.json`, which is each user's own, the `env` finding is an info.

### Why is this bad?
The file is committed and shared; the secret is now in the repository's history. Claude Code expands `${VAR}` (and `${VAR:-default}`) in these fields, so the value can come from each user's environment instead.

### Severity
Warning: Claude Code loads the file, with something in it ignored or dropped. Claude Code loads it, but capc keeps only the value's SHA-256 in the lock, so a session run from the lock drops the server or rule that holds it; and the secret is in the repository.

### Example
```json
{ "mcpServers": { "github": { "command": "gh-mcp", "env": { "GITHUB_TOKEN": "ghp_abc123…" } } } }
```
Write `"GITHUB_TOKEN": "${GITHUB_TOKEN}"`; in a hook, read `$API_TOKEN` from the environment the hook runs in.

### Source
https://code.claude.com/docs/en/mcp (environment variable expansion); capc's docs/lock.md ("The lock file": no secret in the lock or any output)
"##;
