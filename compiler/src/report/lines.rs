//! One line per finding: `--format short` (`path:line:col: severity[rule] message`, for
//! editors and grep) and `--format github` (GitHub Actions workflow commands, which the
//! runner turns into annotations on the pull request), and `--statistics` (a count per rule).

use crate::check::{Checked, Positions};
use crate::diagnostic::{Diagnostic, Severity};
use crate::printable::escape;
use crate::secrets::mask_words;

/// `path:line:col: severity[rule] message`, then the summary line. Text from the repository
/// is escaped for a terminal, as in the human report.
pub fn to_short(checked: &Checked) -> String {
    let mut out = short_lines(checked, &checked.diagnostics);
    out.push_str(&super::summary_line(checked));
    out.push('\n');
    out
}

/// `path:line:col: severity[rule] message` for each of `diagnostics` (findings of `checked`),
/// one line each, escaped and masked as in [`to_short`].
pub(crate) fn short_lines<'d>(checked: &Checked, diagnostics: impl IntoIterator<Item = &'d Diagnostic>) -> String {
    let mut positions = Positions::new(checked);
    let mut out = String::new();
    for d in diagnostics {
        let ((line, column), _) = positions.of(d);
        out.push_str(&format!(
            "{}:{line}:{column}: {}[{}] {}\n",
            escape(&d.path),
            d.severity.as_str(),
            d.rule,
            escape(&mask_words(&d.message))
        ));
    }
    out
}

/// `::error file=…,line=…,col=…,endLine=…,endColumn=…,title=…::message`, one per finding
/// (`warning` for warnings, `notice` for infos), then the summary line as plain log text.
/// A finding about a whole file names only the file.
pub fn to_github(checked: &Checked) -> String {
    let mut positions = Positions::new(checked);
    let mut out = String::new();
    for d in &checked.diagnostics {
        let command = match d.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "notice",
        };
        let mut properties = format!("file={}", property(&d.path));
        if d.span.is_some() {
            let ((line, col), (end_line, end_column)) = positions.of(d);
            properties.push_str(&format!(",line={line},col={col},endLine={end_line},endColumn={end_column}"));
        }
        properties.push_str(&format!(",title={}", property(&format!("capc {}", d.rule))));
        let mut message = mask_words(&d.message).into_owned();
        if let Some(help) = &d.help {
            message.push_str("\nhelp: ");
            message.push_str(&mask_words(help));
        }
        out.push_str(&format!("::{command} {properties}::{}\n", data(&message)));
    }
    out.push_str(&super::summary_line(checked));
    out.push('\n');
    out
}

/// A command's message, escaped as the Actions runner requires (`%`, CR and LF), with every
/// other control character written visibly so none reaches the log raw.
fn data(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '%' => out.push_str("%25"),
            '\r' => out.push_str("%0D"),
            '\n' => out.push_str("%0A"),
            c => out.push_str(&escape(c.encode_utf8(&mut [0; 4]))),
        }
    }
    out
}

/// A property value: [`data`] plus `:` and `,`, which separate properties.
fn property(text: &str) -> String {
    data(text).replace(':', "%3A").replace(',', "%2C")
}

/// Findings per (severity, rule), most first, then by severity and id.
fn statistics(checked: &Checked) -> Vec<((Severity, &str), usize)> {
    let mut counts = std::collections::BTreeMap::<(Severity, &str), usize>::new();
    for d in &checked.diagnostics {
        *counts.entry((d.severity, d.rule)).or_default() += 1;
    }
    let mut rows: Vec<((Severity, &str), usize)> = counts.into_iter().collect();
    rows.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    rows
}

/// `--statistics`: how many findings each rule made, most first (then by severity and id),
/// then the summary line.
pub fn to_statistics(checked: &Checked) -> String {
    let rows = statistics(checked);
    let width = rows.first().map_or(1, |(_, n)| n.to_string().len());
    let mut out = String::new();
    for ((severity, rule), n) in rows {
        out.push_str(&format!("{n:>width$}  {:7}  {rule}\n", severity.as_str()));
    }
    out.push_str(&super::summary_line(checked));
    out.push('\n');
    out
}

/// The same counts as JSON (`--statistics --format json`), version 1.
pub fn to_statistics_json(checked: &Checked) -> String {
    let rows = statistics(checked);
    let statistics: Vec<serde_json::Value> = rows
        .into_iter()
        .map(|((severity, rule), count)| serde_json::json!({"rule": rule, "severity": severity.as_str(), "count": count}))
        .collect();
    let value = serde_json::json!({
        "version": 1,
        "files_checked": checked.files_checked,
        "statistics": statistics,
        "summary": {
            "errors": checked.count(Severity::Error),
            "warnings": checked.count(Severity::Warning),
            "infos": checked.count(Severity::Info),
        },
    });
    let mut out = crate::printable::escape_json(&serde_json::to_string_pretty(&value).unwrap_or_default()).into_owned();
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workflow_command_escaping() {
        assert_eq!(data("50% done\r\nnext"), "50%25 done%0D%0Anext");
        assert_eq!(property("a:b,c%"), "a%3Ab%2Cc%25");
        assert_eq!(data("\u{1b}[31mred"), "\\x1b[31mred");
    }
}
