//! `--format sarif`: SARIF 2.1.0, the format code-scanning services read (GitHub's
//! `upload-sarif` among them). One run; the driver lists every rule with its docs, so a
//! viewer can explain a finding without capc; results point at 1-based lines and columns
//! counted in Unicode code points, as the JSON format does. The output is deterministic:
//! rules in `RULES` order, results in the report's order, no time and no absolute path.

use crate::check::{Checked, Positions};
use crate::diagnostic::{Diagnostic, Severity};
use crate::rules::{self, RULES};
use crate::secrets::mask_words;
use serde::Serialize;

/// The schema SARIF files name; the OASIS TC's published copy of SARIF 2.1.0 (errata 01).
const SCHEMA: &str = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";

#[derive(Serialize)]
struct Log<'a> {
    #[serde(rename = "$schema")]
    schema: &'static str,
    version: &'static str,
    runs: [Run<'a>; 1],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Run<'a> {
    tool: Tool,
    /// Columns count characters (code points), not UTF-16 units.
    column_kind: &'static str,
    results: Vec<SarifResult<'a>>,
    /// With `--baseline` or `--new-since`: `capcBaseline`, what the results were compared
    /// with, how many findings it hid and which of its findings are gone.
    #[serde(skip_serializing_if = "Option::is_none")]
    properties: Option<RunProperties<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RunProperties<'a> {
    capc_baseline: super::JsonBaseline<'a>,
}

#[derive(Serialize)]
struct Tool {
    driver: Driver,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Driver {
    name: &'static str,
    version: &'static str,
    semantic_version: &'static str,
    information_uri: String,
    rules: Vec<ReportingDescriptor>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ReportingDescriptor {
    id: &'static str,
    short_description: Text,
    full_description: Text,
    help: Markdown,
    help_uri: String,
    default_configuration: Configuration,
}

#[derive(Serialize)]
struct Text {
    text: String,
}

#[derive(Serialize)]
struct Markdown {
    text: String,
    markdown: String,
}

#[derive(Serialize)]
struct Configuration {
    level: &'static str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifResult<'a> {
    rule_id: &'a str,
    rule_index: usize,
    level: &'static str,
    message: Text,
    locations: [Location; 1],
    /// `new` when the findings were compared with a baseline: only new ones are reported.
    #[serde(skip_serializing_if = "Option::is_none")]
    baseline_state: Option<&'static str>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Location {
    physical_location: PhysicalLocation,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PhysicalLocation {
    artifact_location: ArtifactLocation,
    #[serde(skip_serializing_if = "Option::is_none")]
    region: Option<Region>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ArtifactLocation {
    uri: String,
    /// None for an absolute `file://` URI (a `--plugin-dir` folder outside the checked one).
    #[serde(skip_serializing_if = "Option::is_none")]
    uri_base_id: Option<String>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Region {
    start_line: usize,
    start_column: usize,
    end_line: usize,
    end_column: usize,
}

fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

pub fn to_sarif(checked: &Checked) -> String {
    let driver = Driver {
        name: "capc",
        version: env!("CARGO_PKG_VERSION"),
        semantic_version: env!("CARGO_PKG_VERSION"),
        information_uri: env!("CARGO_PKG_REPOSITORY").to_string(),
        rules: RULES
            .iter()
            .map(|rule| ReportingDescriptor {
                id: rule.id,
                short_description: Text { text: capitalize_sentence(rule.summary) },
                full_description: Text { text: rules::section(rule.docs, "What it does").to_string() },
                help: Markdown { text: rule.docs.trim().to_string(), markdown: rule.docs.trim().to_string() },
                help_uri: rules::docs_url(rule.id),
                default_configuration: Configuration { level: level(rule.severity) },
            })
            .collect(),
    };
    let mut positions = Positions::new(checked);
    let compared = checked.baseline.is_some();
    let results = checked
        .diagnostics
        .iter()
        .map(|d| SarifResult { baseline_state: compared.then_some("new"), ..result(d, &mut positions) })
        .collect();
    let properties = super::json_baseline(checked).map(|capc_baseline| RunProperties { capc_baseline });
    let log = Log {
        schema: SCHEMA,
        version: "2.1.0",
        runs: [Run { tool: Tool { driver }, column_kind: "unicodeCodePoints", results, properties }],
    };
    let mut out = crate::printable::escape_json(&serde_json::to_string_pretty(&log).unwrap_or_default()).into_owned();
    out.push('\n');
    out
}

fn result<'a>(d: &'a Diagnostic, positions: &mut Positions<'_>) -> SarifResult<'a> {
    let mut text = mask_words(&d.message).into_owned();
    if let Some(help) = &d.help {
        text.push_str("\nhelp: ");
        text.push_str(&mask_words(help));
    }
    let region = d.span.map(|_| {
        let ((start_line, start_column), (end_line, end_column)) = positions.of(d);
        Region { start_line, start_column, end_line, end_column }
    });
    let (uri_base_id, path) = base_and_path(&d.path);
    SarifResult {
        rule_id: d.rule,
        rule_index: RULES.iter().position(|r| r.id == d.rule).unwrap_or_default(),
        level: level(d.severity),
        message: Text { text },
        locations: [Location {
            physical_location: PhysicalLocation {
                artifact_location: match path.strip_prefix('/') {
                    // An absolute path (a `--plugin-dir` file): a `file://` URI, which an editor
                    // opens and GitHub's upload makes relative to the checkout.
                    Some(rest) if uri_base_id == "%SRCROOT%" => {
                        ArtifactLocation { uri: format!("file:///{}", uri_path(rest)), uri_base_id: None }
                    }
                    _ => ArtifactLocation { uri: uri_path(path), uri_base_id: Some(uri_base_id.to_string()) },
                },
                region,
            },
        }],
        baseline_state: None,
    }
}

/// The base a reported path is relative to: `%SRCROOT%` (the checked folder, the name
/// GitHub's code scanning resolves to the repository) for the project's own files, and a
/// named base for the extra scopes (`~/…` is `USER_DIR`, `<managed>/…` `MANAGED_DIR`,
/// `<add-dir N>/…` `ADD_DIR_N`, `<plugin-dir N>/…` `PLUGIN_DIR_N`), which a viewer can map.
fn base_and_path(path: &str) -> (String, &str) {
    if let Some(rest) = path.strip_prefix("~/") {
        return ("USER_DIR".into(), rest);
    }
    if let Some(rest) = path.strip_prefix("<managed>/") {
        return ("MANAGED_DIR".into(), rest);
    }
    for (prefix, base) in [("<add-dir ", "ADD_DIR_"), ("<plugin-dir ", "PLUGIN_DIR_")] {
        if let Some((n, rest)) = path.strip_prefix(prefix).and_then(|r| r.split_once(">/")) {
            if n.bytes().all(|b| b.is_ascii_digit()) {
                return (format!("{base}{n}"), rest);
            }
        }
    }
    ("%SRCROOT%".into(), path)
}

/// A relative path as a URI reference: every byte outside the unreserved set and `/`
/// percent-encoded (spaces, `%`, `#`, `?`, non-ASCII).
fn uri_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'/') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn capitalize_sentence(s: &str) -> String {
    let mut chars = s.chars();
    let mut out: String =
        chars.next().map(|c| c.to_uppercase().collect::<String>() + chars.as_str()).unwrap_or_default();
    out.push('.');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_become_uri_references_under_a_base() {
        assert_eq!(base_and_path(".claude/settings.json"), ("%SRCROOT%".into(), ".claude/settings.json"));
        assert_eq!(base_and_path("~/.claude/settings.json"), ("USER_DIR".into(), ".claude/settings.json"));
        assert_eq!(base_and_path("<managed>/managed-mcp.json"), ("MANAGED_DIR".into(), "managed-mcp.json"));
        assert_eq!(base_and_path("<plugin-dir 2>/hooks/hooks.json"), ("PLUGIN_DIR_2".into(), "hooks/hooks.json"));
        assert_eq!(uri_path("skills/my skill/SKILL.md"), "skills/my%20skill/SKILL.md");
        assert_eq!(uri_path("a#b%/é"), "a%23b%25/%C3%A9");
    }
}
