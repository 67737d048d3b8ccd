//! Rule `unsatisfied-dependency`: a plugin Claude Code turns off because a plugin it depends on
//! does not load.

use super::Rule;
use crate::diagnostic::Severity;

pub static RULE: Rule = Rule {
    id: "unsatisfied-dependency",
    severity: Severity::Error,
    summary: "a plugin's dependency does not load, so Claude Code turns the plugin off",
    docs: DOCS,
};

const DOCS: &str = r##"### What it does
Reports a plugin a session would load whose `dependencies` name a plugin that does not load
beside it: not given with `--plugin-dir`, not enabled, or itself turned off for the same reason.
An entry without a marketplace (`"base"`) means the depending plugin's own marketplace; for a
plugin loaded with `--plugin-dir`, any loaded plugin of that name satisfies it, and a
`--plugin-dir` plugin of the name satisfies `base@marketplace` too. An object entry's `version`
range (`{"name": "base", "version": "^2.0.0"}`) is compared, as an npm range, with the loaded
dependency's plugin.json `version` wherever the dependency is named with a marketplace (its
own, or the depending plugin's); a plugin outside the range, or with no `version`, fails it.

### Why is this bad?
Claude Code loads none of the plugin: `claude plugin list` shows it `enabled: false` with a
`dependency-unsatisfied` error (`Dependency "base" is not installed`), or a
`dependency-version-unsatisfied` one (`Requires "base@local" ^2.0.0, installed 1.2.0`), and its skills,
commands, agents, hooks and servers are absent from the session. A chain fails from its missing
end (a plugin that depends on a turned-off plugin is turned off too); plugins that depend on
each other load.

### Severity
Error: Claude Code refuses to load the plugin.

### Example
```json
{ "name": "deploy-kit", "dependencies": ["shared-tools"] }
```
loaded alone with `claude --plugin-dir ./deploy-kit`.

### Source
https://code.claude.com/docs/en/plugins-reference (behaviour of Claude Code, measured with `claude plugin list --json`)
"##;
