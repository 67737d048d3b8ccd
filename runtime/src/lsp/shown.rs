//! A finding as the editor is shown it, kept compact between checks and made an LSP diagnostic
//! when sent. Below both the checks (`analysis`) and the texts' cache (`text`), which keep them.

use lsp_types::{CodeDescription, DiagnosticSeverity, NumberOrString, Range, Url};
use std::sync::Arc;

/// Where the rules' documentation is published: `codeDescription` links each finding there.
const RULES_DOCS: &str = concat!(env!("CARGO_PKG_REPOSITORY"), "/blob/main/docs/rules.md");

/// A file's findings as shown, shared by the checks that found them the same and by what was
/// published.
pub(crate) type Findings = Arc<Vec<Shown>>;

/// One finding as the editor is shown it: what it is sent as, less what every finding of a
/// rule shares (its code, the link to its documentation, the source `capc`), which is added
/// when it is sent ([`Shown::lsp`]): an LSP diagnostic holds each of those as a string of its
/// own, twice the memory of the finding on a tree with tens of thousands of them.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Shown {
    pub(crate) range: Range,
    pub(crate) severity: DiagnosticSeverity,
    /// The rule; `None` for an error of capc's own setup (capc.toml, the baseline).
    pub(crate) rule: Option<&'static str>,
    /// The message, masked, with its help.
    pub(crate) message: Box<str>,
}

impl Shown {
    pub(crate) fn lsp(&self) -> lsp_types::Diagnostic {
        lsp_types::Diagnostic {
            range: self.range,
            severity: Some(self.severity),
            code: self.rule.map(|rule| NumberOrString::String(rule.to_string())),
            code_description: self
                .rule
                .and_then(|rule| Url::parse(&format!("{RULES_DOCS}#{rule}")).ok())
                .map(|href| CodeDescription { href }),
            source: Some("capc".to_string()),
            message: self.message.to_string(),
            ..Default::default()
        }
    }
}

/// A file's findings as LSP diagnostics, to send.
pub(crate) fn lsp(shown: &[Shown]) -> Vec<lsp_types::Diagnostic> {
    shown.iter().map(Shown::lsp).collect()
}
