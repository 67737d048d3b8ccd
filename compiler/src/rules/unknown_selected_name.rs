//! Rule `unknown-selected-name`: an `outputStyle` or `agent` setting that names nothing.

use super::Rule;
use crate::diagnostic::Severity;

pub static RULE: Rule = Rule {
    id: "unknown-selected-name",
    severity: Severity::Warning,
    summary: "an `outputStyle` or `agent` setting names no output style or agent that loads",
    docs: DOCS,
};

const DOCS: &str = r##"### What it does
Reports an `outputStyle` setting that names no output style a session here has (the project's
`.claude/output-styles/`, the user's with `--user-dir`, a loaded plugin's as `plugin:name`, or
one of Claude Code's own: `default`, `Explanatory`, `Learning`, `Concise`, `Proactive`), and an
`agent` setting that names no agent (a project's, the user's, a loaded plugin's, whose name may
be given without its `plugin:` prefix, or a built-in one).

### Why is this bad?
The setting does nothing. Claude Code looks the output style up by its exact name and, finding
none, runs with no style at all, without a word; for `agent` it prints a warning and runs the
main thread as usual. A renamed style or agent, or a plugin that no longer loads, leaves the
setting behind.

### Severity
Warning: the setting is ignored, silently for `outputStyle`.

### Example
```json
{ "outputStyle": "Terse" }
```
with no `.claude/output-styles/` file whose `name` (or file name) is `Terse`.

### Source
https://code.claude.com/docs/en/output-styles; https://code.claude.com/docs/en/settings (behaviour of Claude Code)
"##;
