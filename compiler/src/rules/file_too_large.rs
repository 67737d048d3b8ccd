//! Rule `file-too-large`: a declaration file too large to read or to load.

use super::Rule;
use crate::diagnostic::Severity;

pub static RULE: Rule = Rule {
    id: "file-too-large",
    severity: Severity::Error,
    summary: "a declaration file too large to read or to load",
    docs: DOCS,
};

const DOCS: &str = r##"### What it does
Flags declaration files over 10 MiB, which capc does not parse, and plugin agents over 1 MiB, which Claude Code's plugin loader skips (a warning).

### Why is this bad?
A skill, command or config that large is almost certainly a mistake (a generated or binary file), and it would fill the model's context if it loaded.

### Severity
Error: Claude Code refuses to load the file, or the declaration can never work. capc does not read a file over 10 MiB, so nothing it declares can be checked or locked, and a prompt that large exceeds any context window: it can never work. A plugin agent over 1 MiB is a warning (the plugin loads, that agent is skipped).

### Example
```text
skills/huge/SKILL.md   # 50 MB
```

### Source
capc's own limit (capc's docs/robustness.md, "Limits on untrusted input"); measured on Claude Code (see "Checked against Claude Code itself" in capc's docs/reading.md) for plugin agents
"##;
