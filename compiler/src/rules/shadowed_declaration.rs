//! Rule `shadowed-declaration`: a name resolves to another declaration than this one.

use super::Rule;
use crate::diagnostic::Severity;

pub static RULE: Rule = Rule {
    id: "shadowed-declaration",
    severity: Severity::Warning,
    summary: "a skill, command, agent or MCP server is hidden by another of the same name",
    docs: DOCS,
};

const DOCS: &str = r##"### What it does
Reports every name that more than one declaration answers to, naming the one Claude Code uses: a skill that hides a built-in command or bundled skill, a user skill that hides a project skill (managed > user > project), a skill that hides a `.claude/commands/` file of the same name, a plugin command that hides the plugin's skill of the same name, a project agent that hides a user agent, an MCP server defined in several scopes (local > project > user > plugin; a plugin server with the same command or URL as another server is dropped), and every server when `managed-mcp.json` exists. `capc explain NAME` shows the whole story.

### Why is this bad?
Claude Code resolves these silently: the hidden declaration is never run, and nobody finds out until `/deploy` does something else than the file they are reading.

### Severity
Warning: Claude Code loads the file, with something in it ignored or dropped. Everything loads; the hidden declaration is never used. Two plugins of one marketplace with the same bare name are an info: each works, their namespaced names (`plugin:name`) reach both, and the clash matters only to a user who installs both.

### Example
```text
~/.claude/skills/deploy/SKILL.md   (user: wins)
.claude/skills/deploy/SKILL.md     (project: hidden)
```

### Source
https://code.claude.com/docs/en/skills; https://code.claude.com/docs/en/sub-agents; https://code.claude.com/docs/en/mcp; the command-table order of Claude Code, measured on Claude Code (see "Checked against Claude Code itself" in capc's docs/reading.md)
"##;
