//! Rule `import-too-deep`: an import is past the depth Claude Code follows.

use super::Rule;
use crate::diagnostic::Severity;

pub static RULE: Rule = Rule {
    id: "import-too-deep",
    severity: Severity::Warning,
    summary: "an import is past the depth Claude Code follows",
    docs: DOCS,
};

const DOCS: &str = r##"### What it does
Flags an `@` import in a file that is itself four imports away from the file Claude Code read by its name: Claude Code follows imports five files deep at most.

### Why is this bad?
The file the import names is never read, without a word.

### Severity
Warning: Claude Code loads the file, with something in it ignored or dropped. The file is sent; the import past the limit brings in nothing.

### Example
```markdown
CLAUDE.md imports @a.md, a.md imports @b.md, … e.md imports @f.md (never read)
```

### Source
https://code.claude.com/docs/en/memory; Claude Code, measured (capc's docs/reading.md, "Instruction files")
"##;
