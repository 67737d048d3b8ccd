//! Rendering: diagnostics for people (miette, with the source line underlined, long lines
//! cut around the span: `excerpt`) and for tools (`--format json`, schema version 1;
//! `sarif`; the one-line `short` and `github` formats and `--statistics`: `lines`). All
//! come out in the same sorted order.

mod excerpt;
mod lines;
mod sarif;

pub(crate) use lines::short_lines;
pub use lines::{to_github, to_short, to_statistics, to_statistics_json};
pub use sarif::to_sarif;

use crate::check::{Checked, Positions};
use crate::diagnostic::{Diagnostic, Severity};
use crate::printable::{self, escape};
use crate::secrets::mask_words;
use miette::{GraphicalReportHandler, GraphicalTheme, LabeledSpan, MietteDiagnostic};
use serde::Serialize;

#[derive(Serialize)]
struct JsonReport<'a> {
    version: u32,
    files_checked: usize,
    declarations: JsonCounts,
    diagnostics: JsonDiagnostics<'a>,
    summary: JsonSummary,
    /// With `--baseline` or `--new-since`: what the diagnostics (the new findings only) were
    /// compared with, how many findings it hid, and which of its findings are gone.
    #[serde(skip_serializing_if = "Option::is_none")]
    baseline: Option<JsonBaseline<'a>>,
}

#[derive(Serialize)]
pub(crate) struct JsonBaseline<'a> {
    against: &'a str,
    baselined: usize,
    gone: Vec<JsonGone<'a>>,
}

#[derive(Serialize)]
pub(crate) struct JsonGone<'a> {
    path: &'a str,
    rule: &'a str,
    fingerprint: &'a str,
    count: usize,
    message: &'a str,
}

/// The `baseline` object of the JSON report (and SARIF's run properties).
pub(crate) fn json_baseline(checked: &Checked) -> Option<JsonBaseline<'_>> {
    checked.baseline.as_ref().map(|b| JsonBaseline {
        against: &b.against,
        baselined: b.baselined,
        gone: b
            .gone
            .iter()
            .map(|g| JsonGone {
                path: &g.path,
                rule: &g.rule,
                fingerprint: &g.fingerprint,
                count: g.count,
                message: &g.message,
            })
            .collect(),
    })
}

/// The findings of a JSON report, each made as it is written: a report of a large tree holds
/// no second list of them.
struct JsonDiagnostics<'a>(&'a Checked);

impl Serialize for JsonDiagnostics<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let checked = self.0;
        let mut positions = Positions::new(checked);
        serializer.collect_seq(checked.diagnostics.iter().map(|d| {
            let ((line, column), (end_line, end_column)) = positions.of(d);
            JsonDiagnostic {
                rule: d.rule,
                severity: d.severity.as_str(),
                path: &d.path,
                line,
                column,
                end_line,
                end_column,
                message: mask_words(&d.message),
                help: d.help.as_deref().map(mask_words),
            }
        }))
    }
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
    message: std::borrow::Cow<'a, str>,
    help: Option<std::borrow::Cow<'a, str>>,
}

#[derive(Serialize)]
struct JsonSummary {
    errors: usize,
    warnings: usize,
    infos: usize,
    /// Findings hidden by suppression comments or capc.toml's `per-path-ignores`.
    suppressed: usize,
}

/// The JSON report, as [`write_json`] writes it.
pub fn to_json(checked: &Checked) -> String {
    let mut out = Vec::new();
    // Writing into memory fails only when serializing does, which the report's types do not.
    let _ = write_json(checked, &mut out);
    String::from_utf8(out).unwrap_or_default()
}

/// Writes the JSON report to `out` as it is made: a report of a large tree (tens of MB) is
/// never held whole in memory. Every character [`printable::escape_json`] escapes is escaped
/// on the way.
pub fn write_json(checked: &Checked, out: impl std::io::Write) -> std::io::Result<()> {
    let c = checked.declarations;
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
        diagnostics: JsonDiagnostics(checked),
        summary: JsonSummary {
            errors: checked.count(Severity::Error),
            warnings: checked.count(Severity::Warning),
            infos: checked.count(Severity::Info),
            suppressed: checked.suppressed_count(),
        },
        baseline: json_baseline(checked),
    };
    let mut out = printable::JsonEscaping::new(out);
    serde_json::to_writer_pretty(&mut out, &report)?;
    std::io::Write::write_all(&mut out, b"\n")?;
    out.finish()
}

/// How much of each finding the terminal report shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Detail {
    /// Every finding with its source excerpt (`capc check --verbose`, and the rule fixtures).
    Full,
    /// Errors and warnings with their excerpt, infos in two lines and their help; a finding
    /// repeated word for word (same rule, severity, message and help) is shown once, followed by
    /// where else it was found, one place per line ([`MOST_PLACES_LISTED`] at most).
    Brief,
}

/// How many more places of a repeated finding the brief report lists before counting the rest.
pub(crate) const MOST_PLACES_LISTED: usize = 10;

/// Renders every diagnostic for a terminal, each in full, then a one-line summary.
pub fn to_text(checked: &Checked, color: bool, width: usize) -> String {
    to_text_with(checked, color, width, Detail::Full)
}

/// Renders the diagnostics for a terminal with the given [`Detail`], then a one-line summary.
pub fn to_text_with(checked: &Checked, color: bool, width: usize, detail: Detail) -> String {
    let theme = if color { GraphicalTheme::unicode() } else { GraphicalTheme::unicode_nocolor() };
    let handler = GraphicalReportHandler::new_themed(theme).with_width(width).with_links(false);
    let mut out = String::new();
    // Values reported as literal secrets, and every credential-shaped word, are masked in
    // every snippet, so a CI log of the report does not repeat them.
    let mut secrets: std::collections::BTreeMap<&str, Vec<crate::span::Span>> = std::collections::BTreeMap::new();
    for d in checked.diagnostics.iter().filter(|d| d.secret) {
        secrets.entry(d.path.as_str()).or_default().extend(d.span);
    }
    let mut masked: std::collections::BTreeMap<&str, String> = std::collections::BTreeMap::new();
    let mut positions = Positions::new(checked);
    // Brief: each repeated finding's places after the first, by the index of the first.
    type Same<'a> = (&'a str, Severity, &'a str, Option<&'a str>);
    let mut first_of: std::collections::HashMap<Same<'_>, usize> = std::collections::HashMap::new();
    let mut repeats: std::collections::BTreeMap<usize, Vec<usize>> = std::collections::BTreeMap::new();
    if detail == Detail::Brief {
        for (i, d) in checked.diagnostics.iter().enumerate() {
            let first = *first_of.entry((d.rule, d.severity, &*d.message, d.help.as_deref())).or_insert(i);
            if first != i {
                repeats.entry(first).or_default().push(i);
            }
        }
    }
    let repeated: std::collections::HashSet<usize> = repeats.values().flatten().copied().collect();
    // The places of repeats are in other files, mostly: their own index, so the main one
    // keeps the file it is in.
    let mut elsewhere = Positions::new(checked);
    for (i, d) in checked.diagnostics.iter().enumerate() {
        if repeated.contains(&i) {
            continue;
        }
        if detail == Detail::Brief && d.severity == Severity::Info {
            out.push_str(&info_line(d, positions.of(d).0));
        } else {
            // Read (again, for a text dropped as clean) once per file.
            let text = match d.span {
                Some(_) if !masked.contains_key(d.path.as_str()) => checked.source(&d.path).and_then(|f| f.text()),
                _ => None,
            };
            let text = match (d.span, text) {
                (Some(_), None) => masked.get(d.path.as_str()),
                (Some(_), Some(text)) => Some(&*masked.entry(d.path.as_str()).or_insert_with(|| {
                    let mut spans = secrets.get(d.path.as_str()).cloned().unwrap_or_default();
                    spans.extend(crate::secrets::token_spans(&text));
                    mask(&text, &spans)
                })),
                _ => None,
            };
            let rendered = render_one(&handler, d, text.map(|t| t.as_str()), positions.of(d), width);
            out.push_str(&rendered);
            if !rendered.ends_with('\n') {
                out.push('\n');
            }
        }
        if let Some(more) = repeats.get(&i) {
            out.push_str(&format!("  ↳ the same in {}:\n", crate::plural::count(more.len(), "more place")));
            for &j in more.iter().take(MOST_PLACES_LISTED) {
                let other = &checked.diagnostics[j];
                out.push_str(&format!("      {}\n", place(other, elsewhere.of(other).0)));
            }
            if more.len() > MOST_PLACES_LISTED {
                out.push_str(&format!(
                    "      … and {} more (`--verbose` shows each finding in full, `--format short` one per line)\n",
                    more.len() - MOST_PLACES_LISTED
                ));
            }
        }
    }
    out.push_str(&summary_line(checked));
    out.push('\n');
    out
}

/// Where a finding is, as a terminal and an editor open it: `path:line:col` (the path alone for
/// a finding about the whole file).
fn place(d: &Diagnostic, (line, column): (usize, usize)) -> String {
    let path = escape(&d.path);
    if d.span.is_some() {
        format!("{path}:{line}:{column}")
    } else {
        path.into_owned()
    }
}

/// An info in the brief report: `☞ [rule] message`, `at path:line:col` below it, then its help.
fn info_line(d: &Diagnostic, position: (usize, usize)) -> String {
    let message = escape(&mask_words(&d.message)).into_owned();
    let mut line = format!("  ☞ [{}] {message}\n    at {}\n", d.rule, place(d, position));
    if let Some(help) = &d.help {
        line.push_str(&format!("    help: {}\n", escape(&mask_words(help))));
    }
    line
}

/// The text of `path` as output may show it: the spans of its literal secrets and every
/// credential-shaped word masked, byte for byte (so offsets stay valid). For `check --fix --diff`.
pub(crate) fn masked_text(checked: &Checked, path: &str, text: &str) -> String {
    let mut spans: Vec<crate::span::Span> =
        checked.diagnostics.iter().filter(|d| d.secret && d.path == path).filter_map(|d| d.span).collect();
    spans.extend(crate::secrets::token_spans(text));
    mask(text, &spans)
}

/// `text` with each span replaced by `*`, byte for byte: the inside of a quoted value (a
/// JSON string, a quoted YAML scalar), or the whole span of a bare one.
fn mask(text: &str, spans: &[crate::span::Span]) -> String {
    let mut bytes = text.as_bytes().to_vec();
    for span in spans {
        let end = span.end.min(bytes.len());
        let quoted =
            end >= span.start + 2 && matches!(bytes[span.start], b'"' | b'\'') && bytes[end - 1] == bytes[span.start];
        let (start, end) = if quoted { (span.start + 1, end - 1) } else { (span.start, end) };
        for b in bytes.iter_mut().take(end).skip(start) {
            // Continuation bytes of a multi-byte character become `*` too; the result stays
            // valid UTF-8 because every byte of each masked character is replaced.
            *b = b'*';
        }
    }
    String::from_utf8(bytes).unwrap_or_default()
}

/// One diagnostic; `text` is its file's text with secrets masked, when it has a span, and
/// `(start, end)` where the span starts and ends in the file (1-based line and character
/// column).
fn render_one(
    handler: &GraphicalReportHandler,
    d: &Diagnostic,
    text: Option<&str>,
    (position, end): ((usize, usize), (usize, usize)),
    width: usize,
) -> String {
    let severity = match d.severity {
        Severity::Error => miette::Severity::Error,
        Severity::Warning => miette::Severity::Warning,
        Severity::Info => miette::Severity::Advice,
    };
    // Messages, paths and the source text come from the repository: no control character
    // reaches the terminal raw (`printable`).
    // A message quoting a value masks credential-shaped words in it, as snippets do.
    let (message, path) = (escape(&mask_words(&d.message)).into_owned(), escape(&d.path));
    let mut diagnostic = MietteDiagnostic::new(format!("[{}] {message}", d.rule)).with_severity(severity);
    if let Some(help) = &d.help {
        diagnostic = diagnostic.with_help(escape(&mask_words(help)).into_owned());
    }
    let mut out = String::new();
    match (d.span, text) {
        (Some(span), Some(text)) => {
            let (text, at) = printable::escape_lines_mapped(text);
            // Lines longer than the terminal are cut around the span. The gutter takes the
            // line number's digits and ` │ `, and a span over several lines draws its own
            // three-character bracket.
            let multi_line = if end.0 > position.0 { 3 } else { 0 };
            let gutter = end.0.saturating_add(1).to_string().len() + 4 + multi_line;
            let excerpt = excerpt::Excerpt::new(
                path.into_owned(),
                &text,
                (at(span.start), at(span.end)),
                position,
                width.saturating_sub(gutter),
            );
            let (start, end) = excerpt.span();
            diagnostic = diagnostic.with_label(LabeledSpan::new_primary_with_span(None, (start, end - start)));
            let report = miette::Report::new(diagnostic).with_source_code(excerpt);
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
    use crate::plural::count;
    let mut line = format!(
        "checked {}: {}, {}, {}",
        count(checked.files_checked, "file"),
        count(checked.count(Severity::Error), "error"),
        count(checked.count(Severity::Warning), "warning"),
        count(checked.count(Severity::Info), "info"),
    );
    if checked.suppressed_count() > 0 {
        line.push_str(&format!(", {} suppressed", checked.suppressed_count()));
    }
    line
}
