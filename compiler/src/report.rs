//! Rendering: diagnostics for people (miette, with the source line underlined) and for
//! tools (`--format json`, schema version 1). Both come out in the same sorted order.

use crate::check::{Checked, Positions};
use crate::diagnostic::{Diagnostic, Severity};
use crate::printable::{self, escape};
use miette::{GraphicalReportHandler, GraphicalTheme, LabeledSpan, MietteDiagnostic, NamedSource};
use serde::Serialize;

#[derive(Serialize)]
struct JsonReport<'a> {
    version: u32,
    files_checked: usize,
    declarations: JsonCounts,
    diagnostics: Vec<JsonDiagnostic<'a>>,
    summary: JsonSummary,
}

#[derive(Serialize)]
struct JsonCounts {
    skills: usize,
    commands: usize,
    agents: usize,
    plugins: usize,
    marketplaces: usize,
    mcp_servers: usize,
    hooks: usize,
    settings: usize,
}

#[derive(Serialize)]
struct JsonDiagnostic<'a> {
    rule: &'a str,
    severity: &'a str,
    path: &'a str,
    line: usize,
    column: usize,
    end_line: usize,
    end_column: usize,
    message: &'a str,
    help: Option<&'a str>,
}

#[derive(Serialize)]
struct JsonSummary {
    errors: usize,
    warnings: usize,
    infos: usize,
}

pub fn to_json(checked: &Checked) -> String {
    let c = checked.declarations;
    let mut positions = Positions::new(checked);
    let report = JsonReport {
        version: 1,
        files_checked: checked.files_checked,
        declarations: JsonCounts {
            skills: c.skills,
            commands: c.commands,
            agents: c.agents,
            plugins: c.plugins,
            marketplaces: c.marketplaces,
            mcp_servers: c.mcp_servers,
            hooks: c.hooks,
            settings: c.settings,
        },
        diagnostics: checked
            .diagnostics
            .iter()
            .map(|d| {
                let ((line, column), (end_line, end_column)) = positions.of(d);
                JsonDiagnostic {
                    rule: d.rule,
                    severity: d.severity.as_str(),
                    path: &d.path,
                    line,
                    column,
                    end_line,
                    end_column,
                    message: &d.message,
                    help: d.help.as_deref(),
                }
            })
            .collect(),
        summary: JsonSummary {
            errors: checked.count(Severity::Error),
            warnings: checked.count(Severity::Warning),
            infos: checked.count(Severity::Info),
        },
    };
    let mut out = serde_json::to_string_pretty(&report).unwrap_or_default();
    out.push('\n');
    out
}

/// Renders every diagnostic for a terminal, then a one-line summary.
pub fn to_text(checked: &Checked, color: bool, width: usize) -> String {
    let theme = if color { GraphicalTheme::unicode() } else { GraphicalTheme::unicode_nocolor() };
    let handler = GraphicalReportHandler::new_themed(theme).with_width(width).with_links(false);
    let mut out = String::new();
    // Values reported as literal secrets are masked in every snippet, so a CI log of the
    // report does not repeat them.
    let mut secrets: std::collections::BTreeMap<&str, Vec<crate::span::Span>> = std::collections::BTreeMap::new();
    for d in checked.diagnostics.iter().filter(|d| d.secret) {
        secrets.entry(d.path.as_str()).or_default().extend(d.span);
    }
    for d in &checked.diagnostics {
        let rendered = render_one(&handler, checked, d, secrets.get(d.path.as_str()).map(Vec::as_slice));
        out.push_str(&rendered);
        if !rendered.ends_with('\n') {
            out.push('\n');
        }
    }
    out.push_str(&summary_line(checked));
    out.push('\n');
    out
}

/// `text` with the inside of each span (a quoted value) replaced by `*`, byte for byte.
fn mask(text: &str, spans: &[crate::span::Span]) -> String {
    let mut bytes = text.as_bytes().to_vec();
    for span in spans {
        let (start, end) = (span.start + 1, span.end.saturating_sub(1).min(bytes.len()));
        for b in bytes.iter_mut().take(end).skip(start) {
            // Continuation bytes of a multi-byte character become `*` too; the result stays
            // valid UTF-8 because every byte of each masked character is replaced.
            *b = b'*';
        }
    }
    String::from_utf8(bytes).unwrap_or_default()
}

fn render_one(
    handler: &GraphicalReportHandler,
    checked: &Checked,
    d: &Diagnostic,
    secrets: Option<&[crate::span::Span]>,
) -> String {
    let severity = match d.severity {
        Severity::Error => miette::Severity::Error,
        Severity::Warning => miette::Severity::Warning,
        Severity::Info => miette::Severity::Advice,
    };
    // Messages, paths and the source text come from the repository: no control character
    // reaches the terminal raw (`printable`).
    let (message, path) = (escape(&d.message), escape(&d.path));
    let mut diagnostic = MietteDiagnostic::new(format!("[{}] {message}", d.rule)).with_severity(severity);
    if let Some(help) = &d.help {
        diagnostic = diagnostic.with_help(escape(help).into_owned());
    }
    let mut out = String::new();
    let source = checked.source(&d.path);
    match (d.span, source.and_then(|f| f.text.as_ref())) {
        (Some(span), Some(text)) => {
            let text = match secrets {
                Some(spans) => mask(text, spans),
                None => text.clone(),
            };
            let (text, at) = printable::escape_lines_mapped(&text);
            let (start, end) = (at(span.start), at(span.end));
            diagnostic = diagnostic.with_label(LabeledSpan::new_primary_with_span(None, (start, end - start)));
            let report = miette::Report::new(diagnostic).with_source_code(NamedSource::new(path, text.into_owned()));
            let _ = handler.render_report(&mut out, report.as_ref());
        }
        _ => {
            diagnostic.message = format!("[{}] {path}: {message}", d.rule);
            let _ = handler.render_report(&mut out, &diagnostic);
        }
    }
    out
}

pub fn summary_line(checked: &Checked) -> String {
    let plural = |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    format!(
        "checked {}: {}, {}, {}",
        plural(checked.files_checked, "file", "files"),
        plural(checked.count(Severity::Error), "error", "errors"),
        plural(checked.count(Severity::Warning), "warning", "warnings"),
        plural(checked.count(Severity::Info), "info", "infos"),
    )
}
