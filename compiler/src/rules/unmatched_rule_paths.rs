//! Rule `unmatched-rule-paths`: a rule's `paths:` glob does not parse or matches no file.

use super::Rule;
use crate::diagnostic::Severity;

pub static RULE: Rule = Rule {
    id: "unmatched-rule-paths",
    severity: Severity::Warning,
    summary: "a rule's `paths:` glob does not parse or matches no file",
    docs: DOCS,
};

const DOCS: &str = r##"### What it does
Flags a glob in the `paths:` frontmatter of a project rule (`.claude/rules/**/*.md`) that cannot be read as a gitignore pattern, or that matches no file of the checked folder (relative to the folder whose `.claude/rules/` holds the rule).

### Why is this bad?
Claude Code sends a rule with `paths:` only when the session reads a file one of its globs matches. A glob that matches nothing (a typo, a folder that moved, `src/*.ts` meant as `src/**/*.ts`) keeps the rule from ever loading, without a word. A glob that does not parse, such as `src/[ab` (a `[` never closed), matches no file at all in Claude Code, not even one named `src/[ab`: a rule with only such globs is sent neither at the start nor when a file is read, and one with other globs loads through those (measured: `instructions-rule-paths-unparsed`).

### Severity
Warning: Claude Code loads the file, with something in it ignored or dropped. A glob that does not parse never brings the rule in. A glob that matches no file yet is an info: a template's rules may wait for the files to come, and the rule loads once one exists.

### Example
```markdown
---
paths: srcs/**/*.rs
---
Use tabs.
```

### Source
https://code.claude.com/docs/en/memory; Claude Code, measured (capc's docs/reading.md, "Instruction files")
"##;
