//! Rule `unread-agents-md`: AGENTS.md is never read because a CLAUDE.md is there.

use super::Rule;
use crate::diagnostic::Severity;

pub static RULE: Rule = Rule {
    id: "unread-agents-md",
    severity: Severity::Info,
    summary: "AGENTS.md is never read because a CLAUDE.md is there",
    docs: DOCS,
};

const DOCS: &str = r##"### What it does
Flags `AGENTS.md` or `.claude/AGENTS.md` in a folder that also holds `CLAUDE.md`, `.claude/CLAUDE.md` or `CLAUDE.local.md`.

### Why is this bad?
Claude Code reads AGENTS.md only in a folder without any of those files: beside a CLAUDE.md, what AGENTS.md tells other agents never reaches Claude Code. Importing it (`@AGENTS.md` in CLAUDE.md) gives it to both. Nothing is reported when the two are one file: the same text (`ln -s CLAUDE.md AGENTS.md`), or one holding only the other's path (how git checks a symbolic link out with `core.symlinks=false`).

### Severity
Info: it loads and works as written; worth knowing. The other agents that read AGENTS.md still get it.

### Example
```markdown
CLAUDE.md
AGENTS.md   (not read by Claude Code)
```

### Source
https://code.claude.com/docs/en/memory; Claude Code, measured (capc's docs/reading.md, "Instruction files")
"##;
