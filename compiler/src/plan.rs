//! What `capc lock` does with a checked folder: whether it writes the lock, and what it
//! reports beside it — the errors that block it, the files it leaves out, the errors Claude
//! Code's loader survives, the plugins asked for that do not load. The CLI prints the
//! [`Plan`]; whether the lock on disk is fresh is [`crate::lock::write::freshness`].
//!
//! `capc lock` reports in a few lines whatever the repository holds: each list shows its
//! first [`LISTED`] entries and how many more there are, and `capc check` is the full report.

use crate::check::Checked;
use crate::diagnostic::{Diagnostic, Severity};
use crate::model::Lock;
use crate::plural::count;

/// How many entries of each list (blocking errors, left-out files, errors loaded anyway)
/// `capc lock` shows before `… and N more`.
pub(crate) const LISTED: usize = 10;

/// What the caller asked for.
#[derive(Clone, Copy, Debug)]
pub struct Choices {
    /// A folder without declarations still gets a lock (`--allow-empty`, or `--check`, which
    /// writes nothing and compares the empty lock with the one on disk).
    pub write_empty: bool,
    /// Local files (`settings.local.json`, `CLAUDE.local.md`) that git does not track stay out
    /// of the lock (no `--include-local`).
    pub leave_out_local: bool,
}

/// The first [`LISTED`] entries of a list, and how many more it holds.
#[derive(Debug)]
pub struct Listed<T> {
    pub shown: Vec<T>,
    pub more: usize,
}

impl<T> Listed<T> {
    fn first(all: impl IntoIterator<Item = T>) -> Listed<T> {
        let mut all = all.into_iter();
        let shown: Vec<T> = all.by_ref().take(LISTED).collect();
        Listed { shown, more: all.count() }
    }

    /// How many entries the whole list holds.
    pub fn len(&self) -> usize {
        self.shown.len() + self.more
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// What `capc lock` does with one checked folder.
#[derive(Debug)]
pub enum Plan {
    /// Errors in what a session here loads: no lock is written and the run fails.
    Blocked {
        /// The blocking errors, each a `path:line:col: severity[rule] message` line.
        errors: Listed<String>,
        /// Every finding of the check, counted (`2 errors, 14 warnings`).
        findings: String,
    },
    /// No declaration found, and no empty lock asked for: nothing is written.
    Empty,
    /// The lock is written (or, with `--check`, compared with the one on disk).
    Lock(Box<Lockable>),
}

/// A lock to write, with what is reported beside it.
#[derive(Debug)]
pub struct Lockable {
    /// Plugins the session is asked to load that Claude Code skips, with why: the lock records
    /// each as not loaded and is written, and the run succeeds (Claude Code runs the session
    /// without them); the CLI names them.
    pub refused_asked: Vec<(String, String)>,
    /// Files with errors a session here does not load (so they do not block the lock), each
    /// with why; by path.
    pub left_out: Listed<(String, String)>,
    /// Errors Claude Code's loader survives, loading what it can as the lock records it (only
    /// `claude plugin validate` rejects them), each a `path:line:col: …` line.
    pub loaded_anyway: Listed<String>,
    /// When the check found anything: every finding counted, and whether a warning is among
    /// them.
    pub findings: Option<(String, bool)>,
    /// Local settings files left out of the lock, as shown.
    pub local_left_out: Vec<String>,
    pub lock: Lock,
    /// Every file the lock's header names as left out, with why (`left_out` shows the first).
    notes: Vec<(String, String)>,
    /// Whether the header says every local file is in (`--include-local`).
    all_local: bool,
}

impl Lockable {
    /// The lock's text, as written to `capabilities.lock`.
    pub fn text(&self) -> String {
        crate::lock::write::encode_with(&self.lock, &self.notes(), self.all_local)
    }

    /// Writes the lock to `path` as it is encoded, without its whole text in memory
    /// ([`crate::lock::write::write_with`]): the bytes [`Lockable::text`] gives.
    pub fn write(&self, path: &std::path::Path) -> std::io::Result<crate::lock::write::Written> {
        let notes = self.notes();
        crate::lock::write::write_with(path, |sink| {
            crate::lock::write::encode_to(&self.lock, &notes, self.all_local, sink)
        })
    }

    /// Whether the lock at `path` is the one [`Lockable::text`] gives, compared as it is
    /// encoded ([`crate::lock::write::freshness_with`]): `capc lock --check`.
    pub fn freshness(&self, path: &std::path::Path) -> Result<crate::lock::write::Freshness, crate::walk::ReadError> {
        let notes = self.notes();
        crate::lock::write::freshness_with(path, |sink| {
            crate::lock::write::encode_to(&self.lock, &notes, self.all_local, sink)
        })
    }

    fn notes(&self) -> Vec<(&str, &str)> {
        self.notes.iter().map(|(p, w)| (p.as_str(), w.as_str())).collect()
    }
}

/// Decides what `capc lock` does with `checked`. The lock moves out of `checked` (see
/// [`Checked::take_lock`]); the rest stays.
pub fn plan(checked: &mut Checked, policy: Choices) -> Plan {
    plan_with(checked, policy, |_| {})
}

/// [`plan`], with `surface` setting the lock's MCP tool surface (`[[mcp_tool]]`) before it is
/// written: kept from the lock on disk, or listed live (`capc lock --connect`).
pub fn plan_with(checked: &mut Checked, policy: Choices, surface: impl FnOnce(&mut Lock)) -> Plan {
    let blocking: Vec<&Diagnostic> = checked.blocking_errors().collect();
    if !blocking.is_empty() {
        return Plan::Blocked { errors: short_lines(checked, &blocking), findings: findings(checked) };
    }
    if checked.files_checked == 0 && !policy.write_empty {
        return Plan::Empty;
    }
    let left_out: Vec<(String, String)> =
        checked.left_out().into_iter().map(|(p, w)| (p.to_string(), w.to_string())).collect();
    let anyway: Vec<&Diagnostic> = checked.loaded_anyway().collect();
    let loaded_anyway = short_lines(checked, &anyway);
    let findings = (!checked.diagnostics.is_empty()).then(|| (findings(checked), checked.count(Severity::Warning) > 0));
    let local_files: Vec<String> =
        checked.files.iter().map(|f| f.path.to_string()).filter(|p| crate::lock::write::is_local_file(p)).collect();
    let refused_asked = std::mem::take(&mut checked.refused_asked);
    let mut lock = checked.take_lock();
    // The local files the lock leaves out: those git does not track (none outside a repository).
    let local_left_out = if policy.leave_out_local {
        local_files.into_iter().filter(|p| !lock.sources.iter().any(|s| &s.path == p)).collect()
    } else {
        Vec::new()
    };
    surface(&mut lock);
    Plan::Lock(Box::new(Lockable {
        refused_asked,
        left_out: Listed::first(left_out.iter().cloned()),
        loaded_anyway,
        findings,
        local_left_out,
        lock,
        notes: left_out,
        all_local: !policy.leave_out_local,
    }))
}

/// The first [`LISTED`] of `errors` as `path:line:col: …` lines, and how many more there are.
fn short_lines(checked: &Checked, errors: &[&Diagnostic]) -> Listed<String> {
    let shown = &errors[..errors.len().min(LISTED)];
    let lines = crate::report::short_lines(checked, shown.iter().copied()).lines().map(str::to_string).collect();
    Listed { shown: lines, more: errors.len() - shown.len() }
}

/// `2 errors, 14 warnings, 6 infos` (the severities found, errors first), `no findings` when
/// there are none.
fn findings(checked: &Checked) -> String {
    let parts: Vec<String> = [(Severity::Error, "error"), (Severity::Warning, "warning"), (Severity::Info, "info")]
        .into_iter()
        .filter(|(s, _)| checked.count(*s) > 0)
        .map(|(s, noun)| count(checked.count(s), noun))
        .collect();
    if parts.is_empty() {
        "no findings".to_string()
    } else {
        parts.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_list_shows_its_first_ten_and_counts_the_rest() {
        let short = Listed::first(0..3);
        assert_eq!((short.shown, short.more), (vec![0, 1, 2], 0));
        let long = Listed::first(0..25);
        assert_eq!(long.shown, (0..LISTED).collect::<Vec<_>>());
        assert_eq!((long.more, long.len()), (15, 25));
        assert!(Listed::first(std::iter::empty::<u8>()).is_empty());
    }
}
