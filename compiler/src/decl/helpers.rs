//! The commands settings run besides hooks: `statusLine`, `subagentStatusLine`,
//! `fileSuggestion` and the helpers (`apiKeyHelper`, `awsAuthRefresh`, …; `crate::runs::HELPERS`).
//! What they run is weighed as a hook's command is.

use crate::diagnostic::Sink;
use crate::node::Node;
use crate::rules;

/// Reports a helper or status line that downloads a script and runs it (`download-and-run`).
pub fn check(sink: &mut Sink<'_>, root: &Node) {
    for helper in crate::runs::HELPERS {
        let Some(command) = root.get(helper.key).and_then(crate::runs::helper_command) else { continue };
        let Some(shape) = command.as_str().and_then(crate::provenance::download_and_run) else { continue };
        sink.report(
            &rules::download_and_run::RULE,
            command.span,
            format!("`{}` downloads a script and runs it (`{shape}`) {}", helper.key, helper.when),
        )
        .help("commit the script and run it from the repository, or pin what it fetches and check its checksum before running it");
    }
}
