//! A `Report` for people (text), for a pull-request comment (Markdown, escalations first, each
//! section in a collapsible `<details>`), and for tools (JSON, version 1).

use super::{Change, Class, Report, Section, Side};
use std::fmt::Write as _;

/// `capc diff --format json`.
pub fn to_json(report: &Report) -> String {
    // A report is plain data (strings, numbers, lists); serializing it cannot fail.
    let text = serde_json::to_string_pretty(report).unwrap_or_else(|e| format!("\"capc could not write JSON: {e}\""));
    format!("{text}\n")
}

fn side(s: &Side) -> String {
    let how = match s.read_as.as_str() {
        "lock" => "lock".to_string(),
        "tree" => "folder, resolved".to_string(),
        "revision-lock" => format!("capabilities.lock at {}", short(s.commit.as_deref())),
        "revision-tree" => format!("folder at {}, resolved", short(s.commit.as_deref())),
        other => other.to_string(),
    };
    let errors = match s.errors {
        0 => String::new(),
        1 => "; 1 error".to_string(),
        n => format!("; {n} errors"),
    };
    format!("{} ({how}{errors})", s.arg)
}

fn short(commit: Option<&str>) -> &str {
    commit.map_or("?", |c| c.get(..10).unwrap_or(c))
}

fn counts(report: &Report) -> String {
    let s = &report.summary;
    let total = s.added + s.removed + s.changed + s.rerouted;
    format!(
        "{}; {} ({} added, {} removed, {} changed, {} rerouted)",
        plural(s.escalations, "escalation", "escalations"),
        plural(total, "change", "changes"),
        s.added,
        s.removed,
        s.changed,
        s.rerouted
    )
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn symbol(class: Class) -> &'static str {
    match class {
        Class::Added => "+",
        Class::Removed => "-",
        Class::Changed => "~",
        Class::Rerouted => ">",
    }
}

fn field_line(f: &super::FieldChange) -> String {
    format!("{}: {} → {}", f.field, f.old.as_deref().unwrap_or("(unset)"), f.new.as_deref().unwrap_or("(unset)"))
}

/// `capc diff` for people: a summary, the escalations, then every change by section.
pub fn to_text(report: &Report) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "capc diff: {} → {}", side(&report.old), side(&report.new));
    if report.changes.is_empty() {
        out.push_str("no changes: both sides resolve to the same skills, commands, agents, MCP servers, hooks, rules, plugins and pins\n");
        return out;
    }
    let _ = writeln!(out, "{}", counts(report));
    if report.summary.escalations > 0 {
        out.push_str("\nEscalations:\n");
        for c in report.escalations() {
            let _ = writeln!(out, "  ! {} {} {}", c.section.as_str(), c.class.as_str(), c.subject);
            for why in &c.escalations {
                let _ = writeln!(out, "      {why}");
            }
            let _ = writeln!(out, "      in {}", c.files.join(", "));
        }
    }
    for section in Section::ALL {
        let changes: Vec<&Change> = report.changes.iter().filter(|c| c.section == section).collect();
        if changes.is_empty() {
            continue;
        }
        let _ = writeln!(out, "\n{}:", section.title());
        for c in changes {
            let mark = if c.is_escalation() { "!" } else { " " };
            let what = c.what.as_deref().map(|w| format!("  ({w})")).unwrap_or_default();
            let _ = writeln!(out, " {mark}{} {}{what}", symbol(c.class), c.subject);
            for f in &c.fields {
                let _ = writeln!(out, "      {}", field_line(f));
            }
            if !c.files.is_empty() {
                let _ = writeln!(out, "      in {}", c.files.join(", "));
            }
        }
    }
    out.push_str("\n+ added  - removed  ~ changed  > rerouted (a name reaches another entry)  ! escalation\n");
    out
}

/// Text for a Markdown table cell: pipes escaped, line breaks as `<br>`.
fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', "<br>")
}

/// Inline code that survives backquotes inside it.
fn code(text: &str) -> String {
    if text.contains('`') {
        format!("`` {text} ``")
    } else {
        format!("`{text}`")
    }
}

/// `capc diff --format markdown`: a pull-request comment, escalations first.
pub fn to_markdown(report: &Report) -> String {
    let mut out = String::new();
    let s = &report.summary;
    let total = s.added + s.removed + s.changed + s.rerouted;
    let headline = if s.escalations > 0 {
        format!("⚠️ {}, {}", plural(s.escalations, "escalation", "escalations"), plural(total, "change", "changes"))
    } else if total > 0 {
        format!("{}, no escalation", plural(total, "change", "changes"))
    } else {
        "no changes".to_string()
    };
    let _ = writeln!(out, "### capc diff: {headline}\n");
    let _ = writeln!(out, "{} → {}\n", cell(&side(&report.old)), cell(&side(&report.new)));
    if total == 0 {
        out.push_str("Both sides resolve to the same skills, commands, agents, MCP servers, hooks, permission rules, plugins and pins.\n");
        return out;
    }
    let _ =
        writeln!(out, "{} added, {} removed, {} changed, {} rerouted.\n", s.added, s.removed, s.changed, s.rerouted);
    if s.escalations > 0 {
        out.push_str("<details open>\n");
        let _ = writeln!(
            out,
            "<summary><strong>Escalations ({})</strong>: changes that give Claude Code more power than before</summary>\n",
            s.escalations
        );
        out.push_str("| section | change | why | files |\n| --- | --- | --- | --- |\n");
        for c in report.escalations() {
            let _ = writeln!(
                out,
                "| {} | {} {} | {} | {} |",
                c.section.as_str(),
                c.class.as_str(),
                cell(&code(&c.subject)),
                cell(&c.escalations.join("\n")),
                cell(&c.files.iter().map(|f| code(f)).collect::<Vec<_>>().join("\n"))
            );
        }
        out.push_str("\n</details>\n\n");
    }
    for section in Section::ALL {
        let changes: Vec<&Change> = report.changes.iter().filter(|c| c.section == section).collect();
        if changes.is_empty() {
            continue;
        }
        out.push_str("<details>\n");
        let _ = writeln!(out, "<summary>{} ({})</summary>\n", section.title(), changes.len());
        out.push_str("| change | subject | details | files |\n| --- | --- | --- | --- |\n");
        for c in changes {
            let mut details: Vec<String> = c.what.iter().cloned().collect();
            details.extend(c.fields.iter().map(field_line));
            let class =
                if c.is_escalation() { format!("⚠️ {}", c.class.as_str()) } else { c.class.as_str().to_string() };
            let _ = writeln!(
                out,
                "| {class} | {} | {} | {} |",
                cell(&code(&c.subject)),
                cell(&details.join("\n")),
                cell(&c.files.iter().map(|f| code(f)).collect::<Vec<_>>().join("\n"))
            );
        }
        out.push_str("\n</details>\n\n");
    }
    out.push_str("<sub>Generated by `capc diff --format markdown`.</sub>\n");
    out
}
