//! Rule `duplicate-declaration`: two declarations of one name in one scope.

use super::Rule;
use crate::diagnostic::Severity;

pub static RULE: Rule = Rule {
    id: "duplicate-declaration",
    severity: Severity::Warning,
    summary: "two skills, commands or agents of one scope share a name",
    docs: DOCS,
};

const DOCS: &str = r##"### What it does
Flags a skill, command or subagent whose name another declaration of the same kind already takes in the same scope: two project skills named `deploy` (one in `.claude/skills/`, one as a `SKILL.md` folder in `.claude/commands/`), two agents with the same frontmatter `name`, two skills of one plugin renamed to the same `name`. The report names both files.

### Why is this bad?
Claude Code keeps both and runs whichever it loaded first; for agents that depends on the order the file system lists them, so `/deploy` or the `reviewer` agent may change from one machine to the next.

### Severity
Warning: Claude Code loads the file, with something in it ignored or dropped. Both files load; one of them is never used, and which one may depend on the file system's order.

### Example
```text
.claude/agents/review.md        name: reviewer
.claude/agents/review-strict.md name: reviewer
```

### Source
https://code.claude.com/docs/en/skills; https://code.claude.com/docs/en/sub-agents; the command-table order of Claude Code (`capc rules shadowed-declaration`)
"##;
