//! A `Report` for people (text), for a pull-request comment (Markdown, escalations first, each
//! section in a collapsible `<details>`), and for tools (JSON, version 1).
//!
//! Every string of a report comes from a lock, a tree or a revision someone else wrote, so it
//! is rendered inert: in text each field passes `printable::escape` (a name cannot move the
//! cursor, rewrite a line or set the clipboard); in Markdown each name is a code span fenced
//! longer than any backtick run in it and every other text is escaped (no HTML, links,
//! emphasis, `@mentions` or table cells of its own); JSON escapes what serde leaves raw.

use super::{Change, Class, Report, Section, Side};
use crate::printable::escape;
use std::fmt::Write as _;

/// `capc diff --format json`.
pub fn to_json(report: &Report) -> String {
    // A report is plain data (strings, numbers, lists); serializing it cannot fail.
    let text = serde_json::to_string_pretty(report).unwrap_or_else(|e| format!("\"capc could not write JSON: {e}\""));
    format!("{}\n", crate::printable::escape_json(&text))
}

fn side(s: &Side) -> String {
    let how = match s.read_as.as_str() {
        "lock" => "lock".to_string(),
        "tree" => "folder, resolved".to_string(),
        "revision-tree" => format!("folder at {}, resolved", short(s.commit.as_deref())),
        other => other.to_string(),
    };
    let errors = match s.errors {
        0 => String::new(),
        n => format!("; {}", count(n, "error")),
    };
    format!("{} ({how}{errors})", escape(&s.arg))
}

/// What each side's own `capabilities.lock` claims, when it does not match its sources.
fn lock_notes(report: &Report) -> Vec<String> {
    [&report.old, &report.new]
        .into_iter()
        .filter_map(|s| s.committed_lock.as_ref().and_then(|claim| claim.note(&s.arg)))
        .collect()
}

fn short(commit: Option<&str>) -> &str {
    commit.map_or("?", |c| c.get(..10).unwrap_or(c))
}

fn counts(report: &Report) -> String {
    let s = &report.summary;
    let total = s.added + s.removed + s.changed + s.rerouted;
    format!(
        "{}; {} ({} added, {} removed, {} changed, {} rerouted)",
        count(s.escalations, "escalation"),
        count(total, "change"),
        s.added,
        s.removed,
        s.changed,
        s.rerouted
    )
}

use crate::plural::count;

fn symbol(class: Class) -> &'static str {
    match class {
        Class::Added => "+",
        Class::Removed => "-",
        Class::Changed => "~",
        Class::Rerouted => ">",
    }
}

/// A field's change, its values escaped.
fn field_line(f: &super::FieldChange) -> String {
    let value = |v: &Option<String>| v.as_deref().map_or("(unset)".into(), escape).into_owned();
    format!("{}: {} → {}", escape(&f.field), value(&f.old), value(&f.new))
}

/// The files of a change, escaped, for a line of text.
fn files_line(files: &[String]) -> String {
    files.iter().map(|f| escape(f).into_owned()).collect::<Vec<_>>().join(", ")
}

/// `capc diff` for people: a summary, the escalations, then every change by section.
pub fn to_text(report: &Report) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "capc diff: {} → {}", side(&report.old), side(&report.new));
    for note in lock_notes(report) {
        let _ = writeln!(out, "note: {}", escape(&note));
    }
    if report.changes.is_empty() {
        out.push_str("no changes: both sides resolve to the same skills, commands, agents, MCP servers, hooks, rules, plugins and pins\n");
        return out;
    }
    let _ = writeln!(out, "{}", counts(report));
    if report.summary.escalations > 0 {
        out.push_str("\nEscalations:\n");
        for c in report.escalations() {
            let of = c.plugin.as_deref().map(|p| format!("marketplace plugin {}: ", escape(p))).unwrap_or_default();
            let _ = writeln!(out, "  ! {of}{} {} {}", c.section.as_str(), c.class.as_str(), escape(&c.subject));
            for why in &c.escalations {
                let _ = writeln!(out, "      {}", escape(why));
            }
            let _ = writeln!(out, "      in {}", files_line(&c.files));
        }
    }
    let line = |out: &mut String, c: &Change, label: &str| {
        let mark = if c.is_escalation() { "!" } else { " " };
        let what = c.what.as_deref().map(|w| format!("  ({})", escape(w))).unwrap_or_default();
        let _ = writeln!(out, " {mark}{} {label}{}{what}", symbol(c.class), escape(&c.subject));
        for f in &c.fields {
            let _ = writeln!(out, "      {}", field_line(f));
        }
        if !c.files.is_empty() {
            let _ = writeln!(out, "      in {}", files_line(&c.files));
        }
        if let Some(diff) = &c.text_diff {
            for l in &diff.lines {
                // A blank line of context would be spaces alone.
                let _ = writeln!(out, "{}", format!("      {}", escape(l)).trim_end());
            }
            if diff.more > 0 {
                let _ = writeln!(
                    out,
                    "      … {} more {} changed (`git diff -- {}`)",
                    diff.more,
                    crate::plural::noun_for(diff.more, "line"),
                    escape(&c.subject)
                );
            }
        }
    };
    for section in Section::ALL {
        let changes: Vec<&Change> =
            report.changes.iter().filter(|c| c.section == section && c.plugin.is_none()).collect();
        if changes.is_empty() {
            continue;
        }
        let _ = writeln!(out, "\n{}:", section.title());
        for c in changes {
            line(&mut out, c, "");
        }
    }
    for (plugin, changes) in by_plugin(report) {
        let _ = writeln!(
            out,
            "\nMarketplace plugin {} (as installed from its marketplace; no session here loads it):",
            escape(plugin)
        );
        for c in changes {
            line(&mut out, c, &format!("{} ", c.section.as_str()));
        }
    }
    out.push_str("\n+ added  - removed  ~ changed  > rerouted (a name reaches another entry)  ! escalation\n");
    out
}

/// The changes of each marketplace plugin, in report order.
fn by_plugin(report: &Report) -> Vec<(&str, Vec<&Change>)> {
    let mut groups: Vec<(&str, Vec<&Change>)> = Vec::new();
    for c in &report.changes {
        let Some(plugin) = c.plugin.as_deref() else { continue };
        match groups.last_mut() {
            Some((p, changes)) if *p == plugin => changes.push(c),
            _ => groups.push((plugin, vec![c])),
        }
    }
    groups
}

/// Text for Markdown that stays text: control characters escaped, every character that
/// Markdown, GitHub or HTML give a meaning to backslash-escaped (`|` included, so a table cell
/// stays one cell), `&` as an entity and `@` followed by a word joiner (no `@mention`). The
/// names capc quotes in its own messages (`` `name` ``) are code spans again ([`code`]); a name
/// with backticks may shift which parts are code, but each part is still inert.
fn text(message: &str) -> String {
    let message = escape(message);
    let parts: Vec<&str> = message.split('`').collect();
    // With an even number of backticks the odd parts are quoted; a stray last one is plain.
    let closed = parts.len() % 2 == 1;
    let mut out = String::with_capacity(message.len() + 16);
    for (i, part) in parts.iter().enumerate() {
        let quoted = i % 2 == 1 && (closed || i + 1 < parts.len());
        match quoted {
            true => out.push_str(&code(part)),
            false if i % 2 == 1 => {
                out.push_str("\\`");
                plain(&mut out, part);
            }
            false => plain(&mut out, part),
        }
    }
    out
}

fn plain(out: &mut String, text: &str) {
    for c in text.chars() {
        match c {
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '|' | '~' | '$' | '#' | '!' => {
                out.push('\\');
                out.push(c);
            }
            '&' => out.push_str("&amp;"),
            '@' => out.push_str("@&#8288;"),
            c => out.push(c),
        }
    }
}

/// A name as inline code that nothing in it can end: fenced by more backticks than its
/// longest run, padded with spaces when it starts or ends with a backtick or a space, control
/// characters escaped, `|` escaped for the table cell it sits in (GitHub reads `\|` inside a
/// code span in a table as `|`).
fn code(name: &str) -> String {
    let name = escape(name);
    if name.is_empty() {
        return "(empty)".to_string();
    }
    let longest = name.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    let pad = if name.starts_with(['`', ' ']) || name.ends_with(['`', ' ']) { " " } else { "" };
    format!("{fence}{pad}{}{pad}{fence}", name.replace('|', "\\|"))
}

/// A name inside HTML (a `<summary>`, where GitHub reads no Markdown): control characters
/// escaped, every character HTML or Markdown gives a meaning to as a numeric entity, and `@`
/// followed by a word joiner (no `@mention`).
fn html(name: &str) -> String {
    let mut out = String::new();
    for c in escape(name).chars() {
        match c {
            '@' => out.push_str("@&#8288;"),
            '&' | '<' | '>' | '"' | '\'' | '`' | '*' | '_' | '[' | ']' | '\\' | '|' | '~' | '#' | '!' | '$' => {
                let _ = write!(out, "&#{};", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}

/// Lines of a table cell, each inert, joined by `<br>`.
fn lines(items: impl IntoIterator<Item = String>) -> String {
    items.into_iter().collect::<Vec<_>>().join("<br>")
}

/// `capc diff --format markdown`: a pull-request comment, escalations first.
pub fn to_markdown(report: &Report) -> String {
    let mut out = String::new();
    let s = &report.summary;
    let total = s.added + s.removed + s.changed + s.rerouted;
    let headline = if s.escalations > 0 {
        format!("⚠️ {}, {}", count(s.escalations, "escalation"), count(total, "change"))
    } else if total > 0 {
        format!("{}, no escalation", count(total, "change"))
    } else {
        "no changes".to_string()
    };
    let _ = writeln!(out, "### capc diff: {headline}\n");
    let _ = writeln!(out, "{} → {}\n", text(&side(&report.old)), text(&side(&report.new)));
    for note in lock_notes(report) {
        let _ = writeln!(out, "> Note: {}\n", text(&note));
    }
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
            let of = c.plugin.as_deref().map(|p| format!(" of marketplace plugin {}", code(p))).unwrap_or_default();
            let _ = writeln!(
                out,
                "| {}{of} | {} {} | {} | {} |",
                c.section.as_str(),
                c.class.as_str(),
                code(&c.subject),
                lines(c.escalations.iter().map(|why| text(why))),
                lines(c.files.iter().map(|f| code(f)))
            );
        }
        out.push_str("\n</details>\n\n");
    }
    let row = |out: &mut String, c: &Change, section: bool| {
        let mut details: Vec<String> = c.what.iter().map(|w| text(w)).collect();
        details.extend(c.fields.iter().map(|f| text(&field_line(f))));
        let class =
            if c.is_escalation() { format!("⚠️ {}", c.class.as_str()) } else { c.class.as_str().to_string() };
        let section = if section { format!(" {} |", c.section.as_str()) } else { String::new() };
        let _ = writeln!(
            out,
            "| {class} |{section} {} | {} | {} |",
            code(&c.subject),
            lines(details),
            lines(c.files.iter().map(|f| code(f)))
        );
    };
    for section in Section::ALL {
        let changes: Vec<&Change> =
            report.changes.iter().filter(|c| c.section == section && c.plugin.is_none()).collect();
        if changes.is_empty() {
            continue;
        }
        out.push_str("<details>\n");
        let _ = writeln!(out, "<summary>{} ({})</summary>\n", section.title(), changes.len());
        out.push_str("| change | subject | details | files |\n| --- | --- | --- | --- |\n");
        for c in changes {
            row(&mut out, c, false);
        }
        out.push_str("\n</details>\n\n");
    }
    for (plugin, changes) in by_plugin(report) {
        out.push_str("<details>\n");
        let _ = writeln!(
            out,
            "<summary>Marketplace plugin <code>{}</code> ({}), as installed from its marketplace</summary>\n",
            html(plugin),
            changes.len()
        );
        out.push_str("| change | section | subject | details | files |\n| --- | --- | --- | --- | --- |\n");
        for c in changes {
            row(&mut out, c, true);
        }
        out.push_str("\n</details>\n\n");
    }
    out.push_str("<sub>Generated by `capc diff --format markdown`.</sub>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::html;

    #[test]
    fn a_name_in_a_summary_is_inert_html() {
        assert_eq!(html("lint@acme"), "lint@&#8288;acme");
        let hostile = html("<img src=x onerror=alert(1)>`*_[x](y)\u{1b}[31m");
        assert!(!hostile.contains(['<', '>', '`', '*', '_', '[', ']', '\u{1b}']), "{hostile}");
    }
}
