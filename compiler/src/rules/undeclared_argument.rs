//! Rule `undeclared-argument`: a named placeholder that `arguments` does not declare.

use super::Rule;
use crate::diagnostic::Severity;

pub static RULE: Rule = Rule {
    id: "undeclared-argument",
    severity: Severity::Warning,
    summary: "a named placeholder that `arguments` does not declare",
    docs: DOCS,
};

const DOCS: &str = r##"### What it does
In a skill or command that declares `arguments`, flags `$word` placeholders in the body whose word is not declared. Upper-case words such as `$HOME` are shell variables and are not reported.

### Why is this bad?
Claude Code substitutes only declared names; any other `$word` reaches the model as literal text, so the prompt silently lacks the value.

### Severity
Warning: Claude Code loads the file, with something in it ignored or dropped. The skill loads; the placeholder is not substituted and reaches the model as text.

### Example
```markdown
---
arguments: [issue]
---
Fix issue $issue in $repo.   # `$repo` is not declared
```

### Source
https://code.claude.com/docs/en/skills (available string substitutions)
"##;
