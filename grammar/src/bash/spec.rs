//! The shape of the read-only flag table: what `flags.rs` reads from the data file and
//! `readonly.rs` consults.

/// The kind of value a flag of the table takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FlagKind {
    /// No value: `--stat`.
    None,
    /// Digits: `-n 3`.
    Number,
    /// Any value not starting with `-`: `--format x`.
    String,
    /// One character: `xargs -d ,`.
    Char,
    /// Exactly `{}`: `xargs -I {}`.
    Braces,
    /// Exactly `EOF`: `xargs -E EOF`.
    Eof,
}

/// One command of the flag table: its leading words (`git log`) and the flags it accepts.
pub(crate) struct FlagSpec {
    pub(crate) command: &'static str,
    /// `--` ends the options (for `ps`, `base64`, `test`, `git blame`, `git stash list` it is
    /// skipped and options after it are still checked).
    pub(crate) respects_double_dash: bool,
    pub(crate) flags: Vec<(&'static str, FlagKind)>,
}

impl FlagSpec {
    pub(super) fn kind(&self, flag: &str) -> Option<FlagKind> {
        self.flags.iter().find(|(name, _)| *name == flag).map(|(_, kind)| *kind)
    }
}
