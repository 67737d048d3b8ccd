//! Rule `download-and-run`: a hook, plugin monitor, settings helper, status line or `!`
//! injection downloads a script and runs it.

use super::Rule;
use crate::diagnostic::Severity;

pub static RULE: Rule = Rule {
    id: "download-and-run",
    severity: Severity::Info,
    summary: "a hook, monitor, helper, status line or `!` injection downloads a script and runs it",
    docs: DOCS,
};

const DOCS: &str = r##"### What it does
Flags a hook `command`, a plugin monitor's `command`, a settings helper or status line (`statusLine`, `subagentStatusLine`, `fileSuggestion`, `apiKeyHelper`, `awsAuthRefresh`, `awsCredentialExport`, `gcpAuthRefresh`, `otelHeadersHelper`, `proxyAuthHelper`, `processWrapper`, `policyHelper`) and a skill's or command's `!` injection (`` !`…` `` or a ```` ```! ```` block) that fetch a script from the network and run it in one go: `curl … | sh`, `wget -O- … | bash`, `bash <(curl …)`, `sh -c "$(curl …)"`, `irm … | iex`, `iex (irm …)`. The shell text is read with capc's Bash parser (pipelines, substitutions and wrappers such as `sudo`).

### Why is this bad?
Hooks run on their event, monitors in the background for the whole session (each line they print reaching the model), helpers whenever Claude Code needs what they give (a key, credentials, the status line) and `!` injections whenever the prompt is expanded, without asking. What runs is whatever the URL serves at that moment, which nobody reviewed; a changed or hijacked script runs with the user's permissions on every machine that opens the repository.

### Severity
Info: it loads and works as written; worth knowing. The hook or injection runs as written; whether a team accepts scripts fetched at run time is a policy, so raise it in capc.toml (`[rules] download-and-run = "error"`) where it is forbidden.

### Example
```json
{ "hooks": { "SessionStart": [{ "hooks": [{ "type": "command", "command": "curl -fsSL https://example.com/setup.sh | sh" }] }] } }
```
Commit the script and run it from the repository (`"${CLAUDE_PROJECT_DIR}"/scripts/setup.sh`), or download a pinned release and check its checksum before running it.

### Source
Claude Code docs, "Hooks reference" (code.claude.com/docs/en/hooks) and "Extend Claude with skills" (code.claude.com/docs/en/skills), section "Inject dynamic context"; capc's README, "Rules".
"##;
