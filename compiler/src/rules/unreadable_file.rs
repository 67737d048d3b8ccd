//! Rule `unreadable-file`: a declaration file cannot be read as text.

use super::Rule;
use crate::diagnostic::Severity;

pub static RULE: Rule = Rule {
    id: "unreadable-file",
    severity: Severity::Error,
    summary: "a declaration file cannot be read as text",
    docs: DOCS,
};

const DOCS: &str = r##"### What it does
Flags declaration files that cannot be opened, are not valid UTF-8, or contain NUL bytes, and
files named like a declaration that are not regular files (a named pipe, a socket, a device),
saying which. capc never reads those: a named pipe would block the read and a device may never
end.

### Why is this bad?
Claude Code cannot read them either; a binary file named `SKILL.md` is usually a mistake, and a
named pipe or device under a declaration's name is a trap for whatever reads the repository.

### Severity
Error: Claude Code refuses to load the file, or the declaration can never work. Claude Code cannot read the file either.

### Example
```text
skills/logo/SKILL.md            # actually a PNG
.claude/settings.json           # a named pipe (mkfifo)
```

### Source
capc's docs/reading.md ("Files") and docs/robustness.md ("Limits on untrusted input")
"##;
