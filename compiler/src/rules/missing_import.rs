//! Rule `missing-import`: an instruction file imports a file that Claude Code does not read.

use super::Rule;
use crate::diagnostic::Severity;

pub static RULE: Rule = Rule {
    id: "missing-import",
    severity: Severity::Warning,
    summary: "an instruction file imports a file that Claude Code does not read",
    docs: DOCS,
};

const DOCS: &str = r##"### What it does
Flags an `@path` import in CLAUDE.md, AGENTS.md, a rule or an imported file that names no file, a folder, or a file whose extension is not text (`@notes.md.` at the end of a sentence names `notes.md.`).

### Why is this bad?
Claude Code skips such an import without a word: the instructions the author meant to include never reach the model.

### Severity
Warning: Claude Code loads the file, with something in it ignored or dropped. The file is sent; the import brings in nothing.

### Example
```markdown
See @docs/styel.md for the style guide.
```

### Source
https://code.claude.com/docs/en/memory; Claude Code, measured (capc's docs/reading.md, "Instruction files")
"##;
