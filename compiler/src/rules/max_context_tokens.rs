//! Rule `max-context-tokens`: what the folder adds to every turn is over the ceiling capc.toml
//! sets.

use super::Rule;
use crate::diagnostic::Severity;

pub static RULE: Rule = Rule {
    id: "max-context-tokens",
    severity: Severity::Error,
    summary: "what the folder adds to every turn (the Skill listing, MCP tools sent up front) is over capc.toml's `max-context-tokens`",
    docs: DOCS,
};

const DOCS: &str = r##"### What it does
Runs only when capc.toml sets `max-context-tokens`. For each context window of `[listing-budget] context-windows` (default: the default model's 1,000,000 tokens), it sums the tokens a plain turn in the folder reads of what the folder declares before the conversation starts, as `capc ls --budget` shows them:
- the Skill listing as sent (after the listing's own budget), its characters counted as its budget counts them (the window's bytes per token);
- the MCP tools sent up front, from the tool surface `capc lock --connect` recorded in `capabilities.lock`: every tool of a server with `alwaysLoad` and every tool whose own `_meta` says `anthropic/alwaysLoad`, and every tool when tool search is off (`ENABLE_TOOL_SEARCH=false` in a settings file's `env`, or `auto` below its threshold);
- the names of the tools deferred behind tool search, which Claude Code still announces.

A total over the ceiling is one finding, for the first window over it, at the largest share: the declaration of the server that sends the most up front, or the `description` of the listing's longest entry. The message gives every share; the help, what would bring the total down. Claude Code's own system prompt and built-in tools are not the folder's and are not counted. Without a recorded surface only the listing counts: record one with `capc lock --connect`.

### Why is this bad?
Every token the folder adds is read on every turn, before the user's words: it leaves less of the window for the conversation, and costs on each request. A team sets a ceiling so that a new server, a server update that adds tools, or `alwaysLoad` on a large server does not grow that share unnoticed.

### Severity
Error: the team chose the ceiling; a check that passes over it would not enforce it. Raise the ceiling in capc.toml when the growth is wanted.

### Example
```toml
# capc.toml
max-context-tokens = 20000
```
```json
{ "mcpServers": { "github": { "command": "github-mcp", "alwaysLoad": true } } }
// `capc lock --connect` recorded 90 tools, 31,000 tokens, for `github`; with `alwaysLoad`
// they are sent on every turn: 31,000 + the listing > 20,000. Fix: drop `alwaysLoad`.
```

### Source
https://code.claude.com/docs/en/mcp (tool search, `ENABLE_TOOL_SEARCH`); https://code.claude.com/docs/en/skills
"##;
