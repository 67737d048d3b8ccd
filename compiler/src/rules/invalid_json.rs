//! Rule `invalid-json`: a JSON file does not parse.

use super::Rule;
use crate::diagnostic::Severity;

pub static RULE: Rule =
    Rule { id: "invalid-json", severity: Severity::Error, summary: "a JSON file does not parse", docs: DOCS };

const DOCS: &str = r##"### What it does
Reports the line and column where a JSON declaration (plugin.json, marketplace.json, .mcp.json, hooks.json, settings) stops parsing, including trailing commas, comments and nesting deeper than 128 levels.

### Why is this bad?
Claude Code refuses the whole file: a plugin does not load, a settings file is ignored.

### Severity
Error: Claude Code refuses to load the file, or the declaration can never work. Claude Code refuses the whole file; a settings file it refuses is recorded in the lock as not loaded (`[[settings_not_loaded]]`, with the words of Claude Code's notice), so `capc lock` still writes the lock. An empty settings file is a warning: Claude Code reads it as no settings, without a word.

### Example
```json
{ "name": "x", }
```

### Source
https://code.claude.com/docs/en/plugins-reference; https://code.claude.com/docs/en/settings; https://code.claude.com/docs/en/mcp
"##;
