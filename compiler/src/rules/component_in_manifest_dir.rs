//! Rule `component-in-manifest-dir`: component folders sit inside `.claude-plugin/`.

use super::Rule;
use crate::diagnostic::Severity;

pub static RULE: Rule = Rule {
    id: "component-in-manifest-dir",
    severity: Severity::Warning,
    summary: "component folders sit inside `.claude-plugin/`",
    docs: DOCS,
};

const DOCS: &str = r##"### What it does
Flags `skills/`, `commands/`, `agents/` or `hooks/` folders placed inside a plugin's `.claude-plugin/` folder.

### Why is this bad?
Only `plugin.json` (and `marketplace.json`) belong in `.claude-plugin/`. Claude Code looks for components at the plugin root, so these files are never loaded.

### Severity
Warning: Claude Code loads the file, with something in it ignored or dropped. The plugin loads; the components inside `.claude-plugin/` are never read.

### Example
```text
my-plugin/.claude-plugin/commands/deploy.md   # never loaded
my-plugin/commands/deploy.md                  # loaded as /my-plugin:deploy
```

### Source
https://code.claude.com/docs/en/plugins-reference (plugin directory structure)
"##;
