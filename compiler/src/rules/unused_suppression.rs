//! Rule `unused-suppression`: a suppression comment that is wrong or suppresses nothing.

use super::Rule;
use crate::diagnostic::Severity;

pub static RULE: Rule = Rule {
    id: "unused-suppression",
    severity: Severity::Warning,
    summary: "a suppression comment without a reason, naming an unknown rule, or suppressing nothing",
    docs: DOCS,
};

const DOCS: &str = r##"### What it does
Checks capc's own suppression comments in skills, commands and agents: `<!-- capc-ignore-file RULE: reason -->` in the body (the whole file) and `# capc-ignore RULE: reason` as a frontmatter comment (its line, or the line below when it stands alone). It reports one that gives no reason, names a rule capc does not have (with a did-you-mean), names no rule, or suppresses no finding of a rule that runs.

### Why is this bad?
A suppression hides findings from everyone who reads the report after you. Without a reason nobody can tell whether it still holds; with a misspelt rule it hides nothing while looking as if it did; once the finding it was written for is fixed, it would silently hide the next real one on that line.

### Severity
Warning: Claude Code never reads these comments, so nothing fails to load; but the report no longer says what you think it says. `capc check --no-suppressions` shows every suppressed finding, for an audit.

### Example
```markdown
---
name: triage
# capc-ignore unknown-feild: our tooling reads it   ← no rule `unknown-feild`; did you mean `unknown-field`?
x-owner: platform-team
---
<!-- capc-ignore-file undeclared-argument -->       ← gives no reason
```

### Source
capc's own suppression comments: "Suppressing findings" in capc's docs/configuration.md.
"##;
