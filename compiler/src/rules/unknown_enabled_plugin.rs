//! Rule `unknown-enabled-plugin`: `enabledPlugins` names a plugin or marketplace that is not found.

use super::Rule;
use crate::diagnostic::Severity;

pub static RULE: Rule = Rule {
    id: "unknown-enabled-plugin",
    severity: Severity::Warning,
    summary: "`enabledPlugins` names a plugin or marketplace that is not found",
    docs: DOCS,
};

const DOCS: &str = r##"### What it does
Checks each `enabledPlugins` key `plugin@marketplace`: the marketplace must be in the checked tree, in `extraKnownMarketplaces` of some settings file, or Anthropic's official one; and when the marketplace's manifest is in the tree, it must list the plugin.

### Why is this bad?
Claude Code ignores an entry it cannot resolve, so the plugin a team meant to switch on (or off) stays as it was, without a word. A teammate who has not added the marketplace gets nothing.

### Severity
Warning: Claude Code loads the file, with something in it ignored or dropped. The settings load; the entry is ignored.

### Example
```json
{ "enabledPlugins": { "formatter@team-tools": true } }
```
with no `team-tools` marketplace declared anywhere.

### Source
https://code.claude.com/docs/en/settings (`enabledPlugins`, `extraKnownMarketplaces`); https://code.claude.com/docs/en/plugin-marketplaces
"##;
