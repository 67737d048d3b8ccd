//! Rule `import-cycle`: instruction files import each other.

use super::Rule;
use crate::diagnostic::Severity;

pub static RULE: Rule =
    Rule { id: "import-cycle", severity: Severity::Info, summary: "instruction files import each other", docs: DOCS };

const DOCS: &str = r##"### What it does
Flags an `@` import that names a file that is importing this one (directly or through other imports).

### Why is this bad?
Claude Code sends each file once, so the cycle does no harm, but the import adds nothing and the files are harder to follow.

### Severity
Info: it loads and works as written; worth knowing. Each file is sent once, at its first import.

### Example
```markdown
a.md: See @b.md
b.md: See @a.md
```

### Source
https://code.claude.com/docs/en/memory; Claude Code, measured (capc's docs/reading.md, "Instruction files")
"##;
