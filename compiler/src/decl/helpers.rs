//! The commands settings run besides hooks: `statusLine`, `subagentStatusLine`,
//! `fileSuggestion` and the helpers (`apiKeyHelper`, `awsAuthRefresh`, …; `crate::runs::HELPERS`).
//! What they run is weighed as a hook's command is.

use crate::diagnostic::Sink;
use crate::node::Node;
use crate::rules;

/// Reports a helper or status line that downloads a script and runs it (`download-and-run`)
/// or starts a package launcher without an exact version (`unpinned-package`).
pub(crate) fn check(sink: &mut Sink<'_>, root: &Node) {
    for helper in crate::runs::HELPERS {
        let Some(command) = root.get(helper.key).and_then(crate::runs::helper_command) else { continue };
        let Some(line) = command.as_str() else { continue };
        if let Some(shape) = crate::provenance::download_and_run(line) {
            sink.report(
                &rules::download_and_run::RULE,
                command.span,
                format!("`{}` downloads a script and runs it (`{shape}`) {}", helper.key, helper.when),
            )
            .help("commit the script and run it from the repository, or pin what it fetches and check its checksum before running it");
        }
        unpinned(sink, command.span, &format!("`{}`", helper.key), line, helper.when);
    }
}

/// A run outside MCP servers whose shell line starts a package launcher without an exact
/// version (`unpinned-package`): `who` runs `line` `when`.
pub(crate) fn unpinned(sink: &mut Sink<'_>, span: crate::span::Span, who: &str, line: &str, when: &str) {
    let Some(u) = crate::provenance::unpinned_line(line) else { return };
    sink.report(
        &rules::unpinned_package::RULE,
        span,
        format!("{who} {} ({when}): each run may fetch a different release", u.runs()),
    )
    .help(u.fix);
}
