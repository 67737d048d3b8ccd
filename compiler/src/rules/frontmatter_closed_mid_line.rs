//! Rule `frontmatter-closed-mid-line`: a `---` that is not a line of its own ends the frontmatter.

use super::Rule;
use crate::diagnostic::Severity;

pub static RULE: Rule = Rule {
    id: "frontmatter-closed-mid-line",
    severity: Severity::Warning,
    summary: "a `---` inside a line ends the frontmatter early",
    docs: DOCS,
};

const DOCS: &str = r##"### What it does
Flags frontmatter that Claude Code ends at a `---` which is not a line of its own: inside a value (`description: before --- after`), after text, or followed by more than whitespace (`----`, `--- notes`). Claude Code finds the end of the frontmatter with a pattern that is not anchored to lines, so the first `---` after the opening line closes it wherever it stands.

### Why is this bad?
What follows that `---` is not frontmatter any more: the rest of the value, and every field after it, become the start of the prompt's body, and the fields are silently missing (a `description` cut short, `allowed-tools` gone). An editor or a YAML reader shows the file as the author meant it, so nothing looks wrong.

### Severity
Warning: Claude Code loads the file, with less metadata than written and the rest in the body.

### Example
```markdown
---
description: Deploy --- staging only
allowed-tools: Bash(make deploy:*)
---
```
Claude Code reads `description: Deploy` and nothing else; `staging only` and the `allowed-tools` line open the body. Fix: write `—` or `-` instead of `---` in the value, or quote it differently (`Deploy - staging only`).

### Source
https://code.claude.com/docs/en/slash-commands#frontmatter
"##;
