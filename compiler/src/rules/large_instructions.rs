//! Rule `large-instructions`: an instruction file, or all of them, past the size Claude Code
//! warns about.

use super::Rule;
use crate::diagnostic::Severity;

pub static RULE: Rule = Rule {
    id: "large-instructions",
    severity: Severity::Warning,
    summary: "instruction files are past the size Claude Code warns about",
    docs: DOCS,
};

const DOCS: &str = r##"### What it does
Flags an instruction file Claude Code sends at the start of every session (CLAUDE.md, a rule, an imported file) whose text is longer than 40,000 characters, and the largest one when those files together (each under that size) pass 120,000 characters. These are Claude Code's thresholds for its "Large CLAUDE.md will impact performance" and "Instruction files will impact performance" warnings with a model of up to 200,000 tokens of context (with a larger context window they grow to 5% of it).

### Why is this bad?
Every turn pays for the text, and a model follows long instructions less well; Claude Code itself warns about it.

### Severity
Warning: Claude Code loads the file, with something in it ignored or dropped. It is sent whole, at a cost in every turn and with Claude Code's own warning.

### Example
```text
CLAUDE.md: 52,300 characters
```

### Source
https://code.claude.com/docs/en/memory; Claude Code, measured (capc's docs/reading.md, "Instruction files")
"##;
