//! Rule `unpinned-plugin-source`: a marketplace entry's remote plugin source is not pinned.

use super::Rule;
use crate::diagnostic::Severity;

pub static RULE: Rule = Rule {
    id: "unpinned-plugin-source",
    severity: Severity::Info,
    summary: "a marketplace plugin source without a pinned commit, version or checksum",
    docs: DOCS,
};

const DOCS: &str = r##"### What it does
Flags a plugin entry of `marketplace.json` whose `source` lies outside the marketplace and is not pinned: a `github`, `url` or `git-subdir` source without a 40-character commit `sha` (a `ref` names a branch or tag, which moves), an `npm` source without an exact `version`, an `archive` source without `sha256`. `capabilities.lock` records each source and its pin under `[[pin]]`; `capc verify` compares them with what a user installed.

### Why is this bad?
Installing or updating the plugin fetches whatever the branch, tag or registry holds at that moment. The plugin's skills, hooks and MCP servers then run with the user's permissions, yet the marketplace a team reviewed says nothing about that code.

### Severity
Info: it loads and works as written; worth knowing. The plugin installs from whatever the source holds at install time; a team that requires pins raises it in capc.toml (`[rules] unpinned-plugin-source = "error"`).

### Example
```json
{ "name": "lint", "source": { "source": "github", "repo": "acme/lint-plugin", "ref": "main" } }
```
Add `"sha": "<the 40-character commit you reviewed>"`.

### Source
Claude Code docs, "Create and distribute a plugin marketplace" (code.claude.com/docs/en/plugin-marketplaces), section "Plugin sources" (`ref`, `sha`); capc's README, "Rules".
"##;
