//! A finding as the editor is shown it, kept compact between checks and made an LSP diagnostic
//! when sent. Below both the checks (`analysis`) and the texts' cache (`text`), which keep them.

use capc_compiler::Severity;
use lsp_types::{CodeDescription, DiagnosticSeverity, NumberOrString, Range, Url};
use std::sync::Arc;

/// Where the rules' documentation is published: `codeDescription` links each finding there.
const RULES_DOCS: &str = concat!(env!("CARGO_PKG_REPOSITORY"), "/blob/main/docs/rules.md");

/// A file's URL as text: the key of what is shown in it, shared with the converted findings
/// kept for the next check and with what was published. The `Url` itself (parsed, several
/// times the size on a tree with findings in tens of thousands of files) is made when the
/// file's findings are sent.
pub(crate) type FileUrl = Arc<str>;

/// A file's findings as shown, shared by the checks that found them the same and by what was
/// published.
pub(crate) type Findings = Arc<FileFindings>;

/// A file's findings as shown: where each is, and a hash of what its message is made of.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct FileFindings {
    /// A hash of each finding's rule, severity, span, message and help (and of a setup error's
    /// message): two lists with the same places and hash show the same messages.
    pub(crate) hash: u64,
    pub(crate) shown: Vec<Shown>,
}

/// One finding as the editor is shown it: what it is sent as, less its message, which is the
/// finding's in the check the editor is answered from (the same, the hash says, as when it
/// was converted), and less what every finding of a rule shares (its code, the link to its
/// documentation, the source `capc`): both are added when it is sent ([`Shown::lsp`]). On a
/// tree with tens of thousands of findings, a copy of each message would cost as much as the
/// findings themselves.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Shown {
    pub(crate) range: Range,
    pub(crate) severity: DiagnosticSeverity,
    /// The rule; `None` for an error of capc's own setup (capc.toml, the baseline).
    pub(crate) rule: Option<&'static str>,
    /// The message of an error of capc's own setup, which no finding of the check holds.
    pub(crate) own: Option<Box<str>>,
}

impl Shown {
    /// A finding of the check, placed at `range`.
    pub(crate) fn of(d: &capc_compiler::Diagnostic, range: Range) -> Shown {
        Shown {
            range,
            severity: match d.severity {
                Severity::Error => DiagnosticSeverity::ERROR,
                Severity::Warning => DiagnosticSeverity::WARNING,
                Severity::Info => DiagnosticSeverity::INFORMATION,
            },
            rule: Some(d.rule),
            own: None,
        }
    }

    /// As sent, with the message of `finding`, the check's finding it was converted from (or
    /// its own).
    pub(crate) fn lsp(&self, finding: Option<&capc_compiler::Diagnostic>) -> lsp_types::Diagnostic {
        self.sent(finding.map(Words::of).as_ref())
    }

    /// As sent, with the message made of `words` (or its own).
    pub(crate) fn sent(&self, words: Option<&Words>) -> lsp_types::Diagnostic {
        let message = match (&self.own, words) {
            (Some(own), _) => own.to_string(),
            (None, Some(words)) => words.message(),
            (None, None) => String::new(),
        };
        lsp_types::Diagnostic {
            range: self.range,
            severity: Some(self.severity),
            code: self.rule.map(|rule| NumberOrString::String(rule.to_string())),
            code_description: self
                .rule
                .and_then(|rule| Url::parse(&format!("{RULES_DOCS}#{rule}")).ok())
                .map(|href| CodeDescription { href }),
            source: Some("capc".to_string()),
            message,
            ..Default::default()
        }
    }
}

/// What a finding's message is made of: its message and help, shared with the check's finding
/// (so that the findings of a check can be sent after the check itself is freed).
#[derive(Debug, Clone)]
pub(crate) struct Words {
    message: Arc<str>,
    help: Option<Arc<str>>,
}

impl Words {
    pub(crate) fn of(d: &capc_compiler::Diagnostic) -> Words {
        Words { message: d.message.clone(), help: d.help.clone() }
    }

    /// The message as the editor shows it: masked, with its help.
    fn message(&self) -> String {
        use capc_compiler::secrets::mask_words;
        let mut message = mask_words(&self.message).into_owned();
        if let Some(help) = &self.help {
            message.push_str("\nhelp: ");
            message.push_str(&mask_words(help));
        }
        message
    }
}

/// A finding's message as the editor shows it: masked, with its help.
pub(crate) fn message(d: &capc_compiler::Diagnostic) -> String {
    Words::of(d).message()
}
