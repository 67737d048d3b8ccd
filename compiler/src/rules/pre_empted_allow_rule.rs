//! Rule `pre-empted-allow-rule`: an allow rule a deny or ask rule always decides first.

use super::Rule;
use crate::diagnostic::Severity;

pub static RULE: Rule = Rule {
    id: "pre-empted-allow-rule",
    severity: Severity::Warning,
    summary: "an allow rule never decides: a deny or ask rule covers every call it matches",
    docs: DOCS,
};

const DOCS: &str = r##"### What it does
Flags an allow rule when a deny or ask rule, in any settings file, matches every call the allow rule matches: a whole-tool rule (`Bash`, `mcp__github`, `*`), the same rule, or a shell prefix that contains the allowed command (`Bash(git *)` covers `Bash(git push *)`).

### Why is this bad?
Claude Code checks deny, then ask, then allow, and the first match decides whatever its scope or specificity, so the allow rule is dead: the call is still blocked or still asks. Usually someone meant an exception the rules cannot express.

### Severity
Warning: Claude Code loads the file, with something in it ignored or dropped. The rule loads but never decides anything: in effect it is ignored.

### Example
```json
{ "permissions": { "deny": ["Bash(git *)"], "allow": ["Bash(git status)"] } }
```

### Source
https://code.claude.com/docs/en/permissions (deny, then ask, then allow)
"##;
