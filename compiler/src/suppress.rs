//! Inline suppressions in Markdown declarations (skills, commands, agents):
//!
//! - `<!-- capc-ignore-file RULE[, RULE…]: reason -->` anywhere in the body (on one line, not
//!   inside a fenced code block) suppresses those rules' findings in the whole file;
//! - `# capc-ignore RULE[, RULE…]: reason` as a YAML comment in the frontmatter suppresses them
//!   on its own line, or, written on a line by itself, on the line just below it.
//!
//! A suppression must give a reason and name known rules, and must suppress something; when it
//! does not, that is itself a finding (`unused-suppression`), so stale suppressions do not pile
//! up. JSON has no comments: `per-path-ignores` in capc.toml does the same for JSON files.

use crate::diagnostic::{did_you_mean, report_at, Diagnostic};
use crate::rules;
use crate::span::Span;
use std::collections::BTreeMap;

/// One suppression comment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Suppression {
    /// The file, as shown.
    pub path: String,
    /// The comment.
    pub span: Span,
    /// The rules named, as written, each with its place.
    pub rules: Vec<(String, Span)>,
    pub reason: Option<String>,
    /// The byte range of the line it covers; `None` for the whole file.
    pub line: Option<(usize, usize)>,
}

/// The suppressions written in a Markdown file's text (`path` is set by the caller).
pub(crate) fn parse(text: &str) -> Vec<Suppression> {
    if !text.contains("capc-ignore") {
        return Vec::new();
    }
    let mut lines: Vec<(usize, &str)> = Vec::new();
    let mut start = 0;
    for line in text.split_inclusive('\n') {
        lines.push((start, line.trim_end_matches(['\n', '\r'])));
        start += line.len();
    }
    let mut out = Vec::new();
    let mut frontmatter = lines.first().is_some_and(|(_, l)| l.trim_end() == "---");
    let mut fence: Option<&str> = None;
    for (i, &(start, line)) in lines.iter().enumerate() {
        if frontmatter {
            if i == 0 {
                continue;
            }
            if line.trim_end() == "---" {
                frontmatter = false;
                continue;
            }
            let Some(hash) = comment_start(line) else { continue };
            let Some(rest) = keyword(line[hash + 1..].trim_start(), "capc-ignore") else { continue };
            let own_line = line[..hash].trim().is_empty();
            let covered = if own_line {
                // The line just below, while it is still frontmatter.
                lines.get(i + 1).filter(|(_, next)| next.trim_end() != "---").map(|&(s, next)| (s, s + next.len()))
            } else {
                Some((start, start + line.len()))
            };
            let span = Span { start: start + hash, end: start + line.len() };
            // A comment-only line with nothing below it covers an empty range: it matches nothing.
            out.push(suppression(text, span, rest, Some(covered.unwrap_or((usize::MAX, usize::MAX)))));
            continue;
        }
        let trimmed = line.trim_start();
        let marker = ["```", "~~~"].into_iter().find(|m| trimmed.starts_with(m));
        match (fence, marker) {
            (None, Some(m)) => {
                fence = Some(m);
                continue;
            }
            (Some(open), Some(m)) if open == m => {
                fence = None;
                continue;
            }
            (Some(_), _) => continue,
            (None, None) => {}
        }
        let mut from = 0;
        while let Some(k) = line[from..].find("<!--") {
            let open = from + k;
            let Some(close) = line[open..].find("-->") else { break };
            let inner = &line[open + 4..open + close];
            if let Some(rest) = keyword(inner.trim_start(), "capc-ignore-file") {
                let span = Span { start: start + open, end: start + open + close + 3 };
                out.push(suppression(text, span, rest, None));
            }
            from = open + close + 3;
        }
    }
    out
}

/// `rest` after `word` when `text` starts with the whole word.
fn keyword<'t>(text: &'t str, word: &str) -> Option<&'t str> {
    let rest = text.strip_prefix(word)?;
    (rest.is_empty() || rest.starts_with(char::is_whitespace)).then_some(rest)
}

/// Where a YAML comment starts in a line: a `#` at the start or after a space or tab, outside
/// quotes.
fn comment_start(line: &str) -> Option<usize> {
    let mut quote: Option<char> = None;
    let mut previous = ' ';
    for (i, c) in line.char_indices() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == '"' || c == '\'' => quote = Some(c),
            None if c == '#' && (previous == ' ' || previous == '\t') => return Some(i),
            None => {}
        }
        previous = c;
    }
    None
}

/// One suppression from the text after its keyword: `RULE[, RULE…]: reason`.
fn suppression(text: &str, span: Span, rest: &str, line: Option<(usize, usize)>) -> Suppression {
    let (names, reason) = match rest.split_once(':') {
        Some((names, reason)) => (names, Some(reason)),
        None => (rest, None),
    };
    let reason = reason.map(|r| r.trim().trim_end_matches("-->").trim().to_string()).filter(|r| !r.is_empty());
    let names = names.trim_end_matches("-->");
    let base = offset_in(text, names);
    let mut rules = Vec::new();
    let mut at = 0;
    for piece in names.split([',', ' ', '\t']) {
        if !piece.is_empty() {
            rules.push((piece.to_string(), Span { start: base + at, end: base + at + piece.len() }));
        }
        at += piece.len() + 1;
    }
    Suppression { path: String::new(), span, rules, reason, line }
}

/// The byte offset of `part`, a slice of `text`, in `text`.
fn offset_in(text: &str, part: &str) -> usize {
    (part.as_ptr() as usize).saturating_sub(text.as_ptr() as usize).min(text.len())
}

/// Removes the findings the suppressions cover and returns how many, and the findings about the
/// suppressions themselves (no reason, unknown rule, nothing suppressed). `runs` says whether a
/// rule runs at all: a suppression of a rule that is off is not reported as unused.
pub(crate) fn apply(
    diagnostics: &mut Vec<Diagnostic>,
    suppressions: &[Suppression],
    runs: impl Fn(&str) -> bool,
) -> (usize, Vec<Diagnostic>) {
    let mut by_path: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, s) in suppressions.iter().enumerate() {
        by_path.entry(s.path.as_str()).or_default().push(i);
    }
    let mut used: Vec<Vec<bool>> = suppressions.iter().map(|s| vec![false; s.rules.len()]).collect();
    let mut suppressed = 0;
    diagnostics.retain(|d| {
        let Some(candidates) = by_path.get(d.path.as_str()) else { return true };
        for &i in candidates {
            let s = &suppressions[i];
            let covers = match (s.line, d.span) {
                (None, _) => true,
                (Some((start, end)), Some(span)) => span.start >= start && span.start <= end,
                (Some(_), None) => false,
            };
            if !covers {
                continue;
            }
            if let Some(k) = s.rules.iter().position(|(r, _)| r == d.rule) {
                used[i][k] = true;
                suppressed += 1;
                return false;
            }
        }
        true
    });
    let mut out = Vec::new();
    let rule = &rules::unused_suppression::RULE;
    for (s, used) in suppressions.iter().zip(&used) {
        if s.rules.is_empty() {
            report_at(&mut out, s.path.clone(), rule, s.span, "this suppression names no rule")
                .help("write the rule ids to suppress and why: `capc-ignore unknown-field: reason`");
            continue;
        }
        if s.reason.is_none() {
            report_at(&mut out, s.path.clone(), rule, s.span, "this suppression gives no reason")
                .help("say why after a colon, so the next reader knows whether it still holds: `RULE: reason`");
        }
        for ((name, span), used) in s.rules.iter().zip(used) {
            match rules::find(name) {
                None => {
                    let d = report_at(&mut out, s.path.clone(), rule, *span, format!("no rule `{name}` to suppress"));
                    match did_you_mean(name, rules::RULES.iter().map(|r| r.id)) {
                        Some(hint) => d.help(format!("did you mean `{hint}`?")),
                        None => d.help("`capc rules` lists every rule"),
                    };
                }
                Some(known) if !used && runs(known.id) => {
                    let place = if s.line.is_some() { "on this line" } else { "in this file" };
                    report_at(
                        &mut out,
                        s.path.clone(),
                        rule,
                        *span,
                        format!("`{name}` reports nothing {place}; this suppression is unused"),
                    )
                    .help("remove it (the finding it was for is gone), or move it onto the line the finding is on");
                }
                Some(_) => {}
            }
        }
    }
    (suppressed, out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn described(text: &str) -> Vec<String> {
        parse(text)
            .iter()
            .map(|s| {
                let rules: Vec<&str> = s
                    .rules
                    .iter()
                    .map(|(r, span)| {
                        assert_eq!(&text[span.start..span.end], r);
                        r.as_str()
                    })
                    .collect();
                let line = s.line.map(|(a, b)| text.get(a..b).unwrap_or("<none>").to_string());
                format!("{rules:?} {:?} {line:?}", s.reason)
            })
            .collect()
    }

    #[test]
    fn file_and_line_suppressions() {
        let text = "---\nname: x\n# capc-ignore unknown-field: generated by our tooling\nmodel-hint: fast\ncolor: red  # capc-ignore invalid-field-value, unknown-field: theme\nurl: \"a # capc-ignore not-a-comment\"\n---\nBody <!-- capc-ignore-file undeclared-argument: $ARG is literal text --> end\n```\n<!-- capc-ignore-file unknown-field: an example inside a fence -->\n```\n";
        assert_eq!(
            described(text),
            [
                "[\"unknown-field\"] Some(\"generated by our tooling\") Some(\"model-hint: fast\")",
                "[\"invalid-field-value\", \"unknown-field\"] Some(\"theme\") Some(\"color: red  # capc-ignore invalid-field-value, unknown-field: theme\")",
                "[\"undeclared-argument\"] Some(\"$ARG is literal text\") None",
            ]
        );
    }

    #[test]
    fn missing_reasons_and_rules_are_kept_for_reporting() {
        assert_eq!(described("body <!-- capc-ignore-file unknown-field -->\n"), ["[\"unknown-field\"] None None"]);
        assert_eq!(described("<!-- capc-ignore-file : why -->"), ["[] Some(\"why\") None"]);
        assert!(described("<!-- capc-ignore-files x: y -->").is_empty(), "another word");
    }

    fn finding(rule: &'static str, path: &str, at: usize) -> Diagnostic {
        let mut out = Vec::new();
        let rule = rules::find(rule).expect("known rule");
        report_at(&mut out, path.to_string(), rule, Span { start: at, end: at + 1 }, "m");
        out.remove(0)
    }

    #[test]
    fn applying_suppresses_and_reports_what_is_wrong_with_suppressions() {
        let text = "---\n# capc-ignore unknown-field: generated\nx: 1\ny: 2  # capc-ignore unknown-field\n---\n<!-- capc-ignore-file unknown-feild, undeclared-argument: literal -->\n";
        let mut suppressions = parse(text);
        for s in &mut suppressions {
            s.path = "a.md".to_string();
        }
        let x = text.find("x: 1").expect("x");
        let y = text.find("y: 2").expect("y");
        let mut diagnostics = vec![
            finding("unknown-field", "a.md", x),
            finding("unknown-field", "a.md", y + 1),
            finding("unknown-field", "b.md", x),
            finding("invalid-json", "a.md", x),
        ];
        let (suppressed, about) = apply(&mut diagnostics, &suppressions, |_| true);
        assert_eq!(suppressed, 2);
        let left: Vec<(&str, &str)> = diagnostics.iter().map(|d| (d.rule, d.path.as_str())).collect();
        assert_eq!(left, [("unknown-field", "b.md"), ("invalid-json", "a.md")]);
        let messages: Vec<&str> = about.iter().map(|d| &*d.message).collect();
        assert_eq!(
            messages,
            [
                "this suppression gives no reason",
                "no rule `unknown-feild` to suppress",
                "`undeclared-argument` reports nothing in this file; this suppression is unused",
            ]
        );
        assert_eq!(about[1].help.as_deref(), Some("did you mean `unknown-field`?"));
        // A rule that is off is not reported as unused.
        let (_, about) = apply(&mut Vec::new(), &suppressions[2..], |r| r != "undeclared-argument");
        assert_eq!(about.len(), 1, "{about:?}");
    }
}
