//! What a check applies of a configuration: severities and per-path ignores.

use super::ALL;
use crate::diagnostic::Severity;
use ignore::gitignore::Gitignore;
use std::collections::BTreeMap;
use std::path::Path;

/// What a check applies of a configuration: severities and per-path ignores.
#[derive(Debug, Clone, Default)]
pub struct Policy {
    /// Rules whose severity differs from their default: `None` turns the rule off.
    pub levels: BTreeMap<&'static str, Option<Severity>>,
    pub(crate) per_path: Vec<PerPath>,
}

/// One `per-path-ignores` entry.
#[derive(Debug, Clone)]
pub(crate) struct PerPath {
    pub matcher: Gitignore,
    pub rules: Vec<&'static str>,
}

impl Policy {
    /// The severity `rule` reports at, or `None` when it is off.
    pub fn severity(&self, rule: &str, reported: Severity) -> Option<Severity> {
        match self.levels.get(rule) {
            Some(level) => *level,
            None => Some(reported),
        }
    }

    /// Whether a per-path entry suppresses `rule` in the file at `path` (absolute).
    pub fn ignores(&self, path: &Path, rule: &str) -> bool {
        self.per_path.iter().any(|p| {
            (p.rules.contains(&rule) || p.rules.contains(&ALL))
                && path.starts_with(p.matcher.path())
                && p.matcher.matched_path_or_any_parents(path, false).is_ignore()
        })
    }
}
