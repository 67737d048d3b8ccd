//! The policy stage: capc.toml's severities and per-path ignores, then the suppression
//! comments, over every finding of the check ([`Crossed`]); it hands the report stage a
//! [`Policed`] check.

use super::cross::Crossed;
use super::placement::Places;
use super::{Checked, Options};
use crate::diagnostic::Diagnostic;
use std::collections::BTreeMap;
use std::sync::Arc;

/// What the policy stage hands the report stage.
pub(super) struct Policed {
    pub(super) all: Checked,
    /// The files the cross-check stage's findings point into: their places in `all.files`, in
    /// order, each once (a large tree has tens of thousands; their paths are not copied).
    pub(super) pointed: Vec<usize>,
}

/// The policy stage.
pub(super) fn police(options: &Options, crossed: Crossed) -> Policed {
    let Crossed { mut all, later } = crossed;
    // `files` is sorted by path (`read::gather`).
    let mut pointed: Vec<usize> = later
        .iter()
        .filter(|d| d.span.is_some())
        .filter_map(|d| all.files.binary_search_by(|f| (*f.path).cmp(d.path.as_str())).ok())
        .collect();
    pointed.sort_unstable();
    pointed.dedup();
    // Moved when no cache shares them; else copied straight in (no list of copies between).
    match Arc::try_unwrap(later) {
        Ok(later) => all.diagnostics.extend(later),
        Err(shared) => all.diagnostics.extend(shared.iter().cloned()),
    }
    apply_policy(options, &mut all);
    Policed { all, pointed }
}

/// capc.toml's severities and per-path ignores, then the suppression comments.
fn apply_policy(options: &Options, all: &mut Checked) {
    let policy = options.policy.as_deref();
    let grade = |diagnostics: &mut Vec<Diagnostic>| {
        if let Some(policy) = policy {
            diagnostics.retain_mut(|d| match policy.severity(d.rule, d.severity) {
                Some(severity) => {
                    d.severity = severity;
                    true
                }
                None => false,
            });
        }
    };
    grade(&mut all.diagnostics);
    if options.no_suppressions {
        return;
    }
    let places = Places::new(options);
    let mut suppressed: Vec<Diagnostic> = Vec::new();
    let mut per_path = |diagnostics: &mut Vec<Diagnostic>| {
        let Some(policy) = policy.filter(|p| !p.per_path.is_empty()) else { return };
        let (hidden, kept): (Vec<Diagnostic>, Vec<Diagnostic>) =
            std::mem::take(diagnostics).into_iter().partition(|d| policy.ignores(&places.absolute(&d.path), d.rule));
        *diagnostics = kept;
        suppressed.extend(hidden);
    };
    per_path(&mut all.diagnostics);
    // What the comments hid, by file (counted only when there are comments).
    let mut gone: BTreeMap<String, usize> = BTreeMap::new();
    if !all.suppressions.is_empty() {
        let runs = |rule: &str| policy.is_none_or(|p| p.severity(rule, crate::diagnostic::Severity::Info).is_some());
        let before: BTreeMap<String, usize> =
            count_by_path(&all.diagnostics).into_iter().map(|(p, n)| (p.to_string(), n)).collect();
        let (_, mut about) = crate::suppress::apply(&mut all.diagnostics, &all.suppressions, runs);
        let after = count_by_path(&all.diagnostics);
        for (path, n) in before {
            let hidden = n - after.get(path.as_str()).copied().unwrap_or(0);
            if hidden > 0 {
                gone.insert(path, hidden);
            }
        }
        grade(&mut about);
        per_path(&mut about);
        all.diagnostics.extend(about);
    }
    all.suppressed = count_by_path(&suppressed).into_iter().map(|(p, n)| (p.to_string(), n)).collect();
    for (path, n) in gone {
        *all.suppressed.entry(path).or_default() += n;
    }
}

fn count_by_path(diagnostics: &[Diagnostic]) -> BTreeMap<&str, usize> {
    let mut counts = BTreeMap::new();
    for d in diagnostics {
        *counts.entry(d.path.as_str()).or_default() += 1;
    }
    counts
}
