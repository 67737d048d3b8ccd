//! Rule `loose-skill-file`: a Markdown file directly inside a skills folder.

use super::Rule;
use crate::diagnostic::Severity;

pub static RULE: Rule = Rule {
    id: "loose-skill-file",
    severity: Severity::Warning,
    summary: "a Markdown file directly inside a skills folder",
    docs: DOCS,
};

const DOCS: &str = r##"### What it does
Flags `skills/foo.md`: a skill must be a folder with a `SKILL.md` inside.

### Why is this bad?
Claude Code ignores loose `.md` files in `skills/`, so the skill the author meant does not exist.

### Severity
Warning: Claude Code loads the file, with something in it ignored or dropped. The skills folder loads; the loose file is ignored.

### Example
```text
skills/deploy.md        # ignored
skills/deploy/SKILL.md  # a skill
```

### Source
https://code.claude.com/docs/en/skills; measured on Claude Code (see "Checked against Claude Code itself" in capc's docs/reading.md)
"##;
