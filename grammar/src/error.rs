//! The one error type of every grammar, plus the helpers the lowering modules share.

use std::fmt;

use crate::Span;

/// A mistake in one of the embedded languages, located by a byte span of the parsed string.
///
/// Messages follow STYLE.md habit 7: lowercase, no final period, names in backticks
/// (``expected `)` to close `Bash(` ``). `help` suggests a fix when there is an obvious one.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SyntaxError {
    pub span: Span,
    pub message: String,
    pub help: Option<String>,
}

impl SyntaxError {
    pub fn new(span: Span, message: impl Into<String>) -> SyntaxError {
        SyntaxError { span, message: message.into(), help: None }
    }
    pub fn with_help(mut self, help: impl Into<String>) -> SyntaxError {
        self.help = Some(help.into());
        self
    }
    /// Moves the error from a substring onto the enclosing text (see [`Span::shift`]).
    pub fn shift(mut self, by: usize) -> SyntaxError {
        self.span = self.span.shift(by);
        self
    }
}

impl fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.message)?;
        if let Some(help) = &self.help {
            write!(f, " (help: {help})")?;
        }
        Ok(())
    }
}

impl std::error::Error for SyntaxError {}

/// The span of a pest pair, as our own [`Span`] (pest types stay private to the crate).
pub(crate) fn span_of(pair: &pest::iterators::Pair<'_, impl pest::RuleType>) -> Span {
    let span = pair.as_span();
    Span::new(span.start(), span.end())
}

/// Every grammar here is total (it accepts any string), so pest failing means a bug in a `.pest`
/// file. We still never panic: the failure becomes an error at the position pest reports.
pub(crate) fn internal_error(error: &pest::error::Error<impl pest::RuleType>, len: usize) -> SyntaxError {
    let at = match error.location {
        pest::error::InputLocation::Pos(pos) => pos,
        pest::error::InputLocation::Span((start, _)) => start,
    };
    SyntaxError::new(Span::at(at.min(len)), "internal grammar error: input not recognised")
}

/// `did you mean …?`: the closest candidate within edit distance 2, as STYLE.md habit 7 asks.
pub(crate) fn suggest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    candidates
        .into_iter()
        .map(|candidate| (strsim::levenshtein(word, candidate), candidate))
        .filter(|&(distance, _)| distance < 3)
        .min_by_key(|&(distance, _)| distance)
        .map(|(_, candidate)| candidate)
}
