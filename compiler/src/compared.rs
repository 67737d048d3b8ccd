//! What comparing a check's findings with a baseline or a git revision did (`capc check
//! --baseline`, `--new-since`), for the report to say. Below `check`, which carries it in
//! `Checked::baseline`; `baseline` does the comparing.

/// A recorded finding the check did not find again: fixed, or its text changed.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Gone {
    pub path: String,
    pub rule: String,
    pub fingerprint: String,
    pub count: usize,
    pub message: String,
}

/// What a baseline (or `--new-since`) did to a check's report, for the report to say.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Applied {
    /// What the findings were compared with: `baseline FILE` or `revision REV (COMMIT)`.
    pub against: String,
    /// The argument, for hints (`--write-baseline FILE`).
    pub file: Option<String>,
    /// Findings found and recorded, hence not reported.
    pub baselined: usize,
    /// Recorded findings not found again, sorted.
    pub gone: Vec<Gone>,
}

impl Applied {
    /// Lines for people after the report: how many findings the baseline hid, and which of
    /// its findings are gone.
    pub fn note(&self) -> String {
        use crate::plural::count;
        let mut out = format!(
            "{} already in {} not shown: only new findings are reported\n",
            count(self.baselined, "finding"),
            self.against
        );
        let gone: usize = self.gone.iter().map(|g| g.count).sum();
        if gone > 0 {
            let hint = match &self.file {
                Some(file) => format!(
                    "; `capc check --write-baseline {}` drops {}",
                    crate::printable::escape(file),
                    if gone == 1 { "it" } else { "them" }
                ),
                None => String::new(),
            };
            out.push_str(&format!(
                "{} of {} no longer found (fixed, or its text changed){hint}:\n",
                count(gone, "finding"),
                self.against
            ));
            for g in &self.gone {
                let times = if g.count > 1 { format!(" (×{})", g.count) } else { String::new() };
                out.push_str(&format!(
                    "  {}: [{}] {}{times}\n",
                    crate::printable::escape(&g.path),
                    g.rule,
                    crate::printable::escape(&g.message)
                ));
            }
        }
        out
    }
}
