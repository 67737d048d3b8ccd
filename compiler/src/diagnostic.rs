//! Diagnostics are data: a rule, a severity, a place and words. Rendering (miette for
//! people, JSON for tools) happens at the edge, in `report`.

use crate::node::{Key, Node};
use crate::span::Span;
use serde::Serialize;
use std::sync::Arc;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
    Info,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }
}

/// A rule: a stable kebab-case id, its default severity, a one-line summary and docs
/// (Markdown, with the sections What it does, Why is this bad?, Example, Source).
#[derive(Debug)]
pub struct Rule {
    pub id: &'static str,
    pub severity: Severity,
    pub summary: &'static str,
    pub docs: &'static str,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// The stable kebab-case id of the rule (the registry is `rules::RULES`).
    pub rule: &'static str,
    pub severity: Severity,
    /// The file, relative to the checked root, with `/` separators.
    pub path: String,
    /// Where in the file; `None` blames the whole file (reported at 1:1).
    pub span: Option<Span>,
    /// Shared text: a check that keeps the cross-file stage's findings (`check::Cache`) hands
    /// them to every check after it without copying their words.
    pub message: Arc<str>,
    pub help: Option<Arc<str>>,
    /// The span covers a secret value: every report of this file shows it masked.
    pub secret: bool,
    /// A mechanical fix whose result is certain (`capc check --fix`): edits of this file's
    /// text, by byte span, that leave every other byte as it was.
    pub fix: Option<Vec<Edit>>,
    /// Claude Code survives the error: it loads the file as it is and only its official
    /// validator rejects it (a plugin named as one of Anthropic's, loaded with `--plugin-dir`),
    /// or it skips the one declaration and loads the rest (a reserved skill or server name).
    /// The error is reported, and does not keep `capc lock` from recording what loads.
    pub loads_anyway: bool,
}

/// One change of a file's text, by byte span.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Edit {
    /// Replace the bytes of `span` (empty: insert) with `text`.
    Replace { span: Span, text: String },
    /// Rename the key written at `span` from `from` to `to`, written as it was (bare, or in
    /// the same quotes); when the bytes there are none of those, the fix is dropped.
    RenameKey { span: Span, from: String, to: String },
    /// Replace the bytes of `span` with `parts`: literal text and copies of other spans of the
    /// same file (an entry moved elsewhere), so the edit can be replayed on a masked copy.
    Compose { span: Span, parts: Vec<EditPart> },
}

/// A piece of [`Edit::Compose`]'s replacement.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum EditPart {
    Text(String),
    /// The file's own bytes at this span, as they are.
    Source(Span),
    /// The file's own bytes at this span moved one level deeper: `indent` added after each of
    /// its line breaks (before a line that is not empty).
    Indented {
        span: Span,
        indent: String,
    },
}

impl Edit {
    pub fn insert(at: usize, text: impl Into<String>) -> Edit {
        Edit::Replace { span: Span::new(at, at), text: text.into() }
    }

    pub fn replace(span: Span, text: impl Into<String>) -> Edit {
        Edit::Replace { span, text: text.into() }
    }

    pub fn span(&self) -> Span {
        match self {
            Edit::Replace { span, .. } | Edit::RenameKey { span, .. } | Edit::Compose { span, .. } => *span,
        }
    }
}

// Edits of a JSON object's entries, for fixes that remove or move them (`decl/hooks.rs`).

/// The span of an object entry, from its key to the end of its value.
pub(crate) fn entry_span(key: &Key, value: &Node) -> Span {
    Span::new(key.span.start, value.span.end)
}

/// Edits that delete `remove` (indices into `entries`, an object's entries in source order)
/// with their separating commas, leaving valid JSON. Whitespace and line breaks between the
/// entries that stay are kept.
pub(crate) fn remove_entries(entries: &[(Key, Node)], remove: &[usize]) -> Vec<Edit> {
    let gone = |i: usize| remove.contains(&i);
    let mut edits = Vec::new();
    let mut i = 0;
    while i < entries.len() {
        if !gone(i) {
            i += 1;
            continue;
        }
        let first = i;
        while i < entries.len() && gone(i) {
            i += 1;
        }
        let last = i - 1;
        let span = if i < entries.len() {
            // A run followed by a kept entry: up to that entry's key.
            Span::new(entries[first].0.span.start, entries[i].0.span.start)
        } else if let Some(kept) = (0..first).rev().find(|k| !gone(*k)) {
            // A run at the end: from the end of the last kept value (its comma goes).
            Span::new(entries[kept].1.span.end, entries[last].1.span.end)
        } else {
            // Every entry: the object is left empty.
            Span::new(entries[first].0.span.start, entries[last].1.span.end)
        };
        edits.push(Edit::replace(span, ""));
    }
    edits
}

/// The text that separates two entries of `object` (`,\n  `): taken from between its first
/// two entries, or with one entry from before it (`,` and the whitespace after `{`), else
/// `", "`.
pub(crate) fn separator(text: &str, object: &Node) -> String {
    match object.as_object() {
        Some([(_, a), (b, _), ..]) => text[a.span.end..b.span.start].to_string(),
        Some([(key, _)]) => format!(",{}", inside(text, object.span.start + 1, key.span.start)),
        _ => ", ".to_string(),
    }
}

/// The edit that puts every entry of the JSON object `root` under a new `key` —
/// `{"key": {…}}` — each entry one level deeper and the new object's braces on lines of their
/// own, in the file's own indentation; an object written on one line stays on one line.
pub(crate) fn wrap_entries(text: &str, root: &Node, key: &str) -> Option<Edit> {
    let entries = root.as_object()?;
    let (first, last) = (entries.first()?, entries.last()?);
    let open = inside(text, root.span.start + 1, first.0.span.start);
    let close = inside(text, last.1.span.end, root.span.end.checked_sub(1)?);
    let Some((_, indent)) = open.rsplit_once('\n') else {
        let parts = vec![
            EditPart::Text(format!("{{\"{key}\": ")),
            EditPart::Source(root.span),
            EditPart::Text("}".to_string()),
        ];
        return Some(Edit::Compose { span: root.span, parts });
    };
    let outer = close.rsplit_once('\n').map_or("", |(_, i)| i);
    let step = indent.strip_prefix(outer).filter(|s| !s.is_empty()).unwrap_or(indent);
    let parts = vec![
        EditPart::Text(format!("{{\n{indent}\"{key}\": {{\n{indent}{step}")),
        EditPart::Indented { span: Span::new(first.0.span.start, last.1.span.end), indent: step.to_string() },
        EditPart::Text(format!("\n{indent}}}\n{outer}}}")),
    ];
    Some(Edit::Compose { span: root.span, parts })
}

/// `text` with `indent` after each line break that a non-empty line follows ([`Part::Indented`]).
pub(crate) fn indented(text: &str, indent: &str) -> String {
    let mut out = String::with_capacity(text.len() + indent.len() * 8);
    let mut lines = text.split('\n');
    if let Some(first) = lines.next() {
        out.push_str(first);
    }
    for line in lines {
        out.push('\n');
        if !line.trim().is_empty() {
            out.push_str(indent);
        }
        out.push_str(line);
    }
    out
}

/// The whitespace between `from` and `to` (after an object's `{`, before its `}`), or
/// nothing when something else is there.
pub(crate) fn inside(text: &str, from: usize, to: usize) -> &str {
    text.get(from..to).filter(|t| t.chars().all(char::is_whitespace)).unwrap_or("")
}

/// Collects the diagnostics of one file; the rule's default severity applies unless the
/// finding sets another.
#[derive(Debug)]
pub struct Sink<'a> {
    path: &'a str,
    pub diagnostics: Vec<Diagnostic>,
    /// MCP servers this file declares, by the name their tools carry (`github`,
    /// `plugin_kit_db`), for checks across files.
    pub(crate) declared_servers: Vec<String>,
    /// MCP servers this file's permission rules name.
    pub(crate) server_refs: Vec<crate::model::ServerRef>,
    /// What the file declares, for the resolver and the lock.
    pub decls: Vec<crate::model::Decl>,
}

impl<'a> Sink<'a> {
    pub fn new(path: &'a str) -> Sink<'a> {
        Sink { path, diagnostics: Vec::new(), declared_servers: Vec::new(), server_refs: Vec::new(), decls: Vec::new() }
    }

    pub fn path(&self) -> &'a str {
        self.path
    }

    /// Takes in what `other` (a sink for part of the same file) collected, after what this one has.
    pub(crate) fn absorb(&mut self, other: Sink<'_>) {
        self.diagnostics.extend(other.diagnostics);
        self.declared_servers.extend(other.declared_servers);
        self.server_refs.extend(other.server_refs);
        self.decls.extend(other.decls);
    }

    /// Reports a finding of `rule` at `span`.
    pub fn report(
        &mut self,
        rule: &Rule,
        span: impl Into<Option<Span>>,
        message: impl Into<Arc<str>>,
    ) -> &mut Diagnostic {
        report_at(&mut self.diagnostics, self.path.to_string(), rule, span, message)
    }
}

/// Adds a finding of `rule` about `path` to `out`, with the rule's default severity. For
/// findings about a file the check does not read (a stray folder, a link) or across files.
pub fn report_at<'o>(
    out: &'o mut Vec<Diagnostic>,
    path: String,
    rule: &Rule,
    span: impl Into<Option<Span>>,
    message: impl Into<Arc<str>>,
) -> &'o mut Diagnostic {
    out.push(Diagnostic {
        rule: rule.id,
        severity: rule.severity,
        path,
        span: span.into(),
        message: message.into(),
        help: None,
        secret: false,
        fix: None,
        loads_anyway: false,
    });
    let last = out.len() - 1;
    &mut out[last]
}

impl Diagnostic {
    pub fn help(&mut self, help: impl Into<Arc<str>>) -> &mut Diagnostic {
        self.help = Some(help.into());
        self
    }

    pub fn severity(&mut self, severity: Severity) -> &mut Diagnostic {
        self.severity = severity;
        self
    }

    /// Attaches a fix (see [`Diagnostic::fix`]).
    pub(crate) fn with_fix(&mut self, edits: Vec<Edit>) -> &mut Diagnostic {
        self.fix = Some(edits);
        self
    }

    /// Marks an error Claude Code's loader survives (see [`Diagnostic::loads_anyway`]).
    pub fn loads_anyway(&mut self) -> &mut Diagnostic {
        self.loads_anyway = true;
        self
    }

    /// Marks the span as a secret value, to be masked wherever the file is shown.
    pub fn secret(&mut self) -> &mut Diagnostic {
        self.secret = true;
        self
    }
}

/// Line starts of a text, to turn byte offsets into 1-based line and column numbers.
/// Columns count characters, as editors do.
#[derive(Debug, Clone)]
pub struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    pub fn new(text: &str) -> LineIndex {
        let mut starts = vec![0];
        starts.extend(text.bytes().enumerate().filter(|(_, b)| *b == b'\n').map(|(i, _)| i + 1));
        LineIndex { starts }
    }

    /// (line, column), both 1-based.
    pub fn position(&self, text: &str, offset: usize) -> (usize, usize) {
        let offset = offset.min(text.len());
        let line = self.starts.partition_point(|&s| s <= offset) - 1;
        let start = self.starts[line];
        let mut end = offset;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        let column = text[start..end].chars().count() + 1;
        (line + 1, column)
    }
}

/// The nearest candidate by edit distance, when it is close enough to be a likely typo.
pub fn did_you_mean<'c>(word: &str, candidates: impl IntoIterator<Item = &'c str>) -> Option<&'c str> {
    let lower = word.to_ascii_lowercase();
    let normalized = normalize_separators(&lower);
    candidates
        .into_iter()
        .filter_map(|c| {
            let c_lower = c.to_ascii_lowercase();
            // `mcp_servers` for `mcpServers`, `allowed_tools` for `allowed-tools`.
            if normalize_separators(&c_lower) == normalized {
                return Some((0, c));
            }
            let distance = strsim::levenshtein(&lower, &c_lower);
            let limit = if word.len() <= 4 { 1 } else { 2 };
            (distance <= limit).then_some((distance, c))
        })
        .min_by_key(|(d, c)| (*d, *c))
        .map(|(_, c)| c)
}

/// [`did_you_mean`] when exactly one candidate is nearest: a suggestion certain enough to
/// apply (`capc check --fix`).
pub(crate) fn did_you_mean_unique<'c>(
    word: &str,
    candidates: impl IntoIterator<Item = &'c str> + Clone,
) -> Option<&'c str> {
    let best = did_you_mean(word, candidates.clone())?;
    let rank = |c: &str| {
        let (lower, c_lower) = (word.to_ascii_lowercase(), c.to_ascii_lowercase());
        if normalize_separators(&lower) == normalize_separators(&c_lower) {
            0
        } else {
            strsim::levenshtein(&lower, &c_lower)
        }
    };
    let distance = rank(best);
    let mut tied: Vec<&str> = candidates.into_iter().filter(|c| rank(c) == distance).collect();
    tied.sort_unstable();
    tied.dedup();
    (tied.len() == 1).then_some(best)
}

fn normalize_separators(word: &str) -> String {
    word.chars().filter(|c| !matches!(c, '-' | '_' | ' ')).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_characters() {
        let text = "ab\néé\nx";
        let index = LineIndex::new(text);
        assert_eq!(index.position(text, 0), (1, 1));
        assert_eq!(index.position(text, 3), (2, 1));
        assert_eq!(index.position(text, 5), (2, 2));
        assert_eq!(index.position(text, 8), (3, 1));
        assert_eq!(index.position(text, 99), (3, 2));
    }

    #[test]
    fn suggestions() {
        assert_eq!(did_you_mean("mcp_servers", ["mcpServers", "commands"]), Some("mcpServers"));
        assert_eq!(did_you_mean("descripton", ["description", "name"]), Some("description"));
        assert_eq!(did_you_mean("zzz", ["name"]), None);
        assert_eq!(did_you_mean("allowed_tools", ["allowed-tools"]), Some("allowed-tools"));
    }

    #[test]
    fn unique_suggestions() {
        assert_eq!(did_you_mean_unique("descripton", ["description", "name"]), Some("description"));
        // `cola` is one edit from both: no certain answer.
        assert_eq!(did_you_mean_unique("cola", ["cols", "colt"]), None);
        assert_eq!(did_you_mean_unique("mcp_servers", ["mcpServers", "mcp-servers"]), None);
    }
}
