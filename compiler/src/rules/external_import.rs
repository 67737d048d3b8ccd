//! Rule `external-import`: an instruction file imports a file outside the project.

use super::Rule;
use crate::diagnostic::Severity;

pub static RULE: Rule = Rule {
    id: "external-import",
    severity: Severity::Warning,
    summary: "an instruction file imports a file outside the project",
    docs: DOCS,
};

const DOCS: &str = r##"### What it does
Flags an `@` import of a project instruction file that names a file outside the project: `@~/…`, an absolute path, or a relative path that leaves the folder.

### Why is this bad?
Claude Code asks the user before it reads imports from outside the project and reads none of them until the user approves, so the same repository gives different instructions on different machines. capc does not read such a file (it is not in the lock).

### Severity
Warning: Claude Code loads the file, with something in it ignored or dropped. Until the user approves, the import brings in nothing.

### Example
```markdown
@~/my-preferences.md
```

### Source
https://code.claude.com/docs/en/memory; Claude Code, measured (capc's docs/reading.md, "Instruction files")
"##;
