//! Code actions: each fix `capc check --fix` can make, as a quick fix on its finding, and all
//! of a file's fixes at once (`source.fixAll`), applied in rounds as `--fix` applies them, so
//! the editor writes the very text `--fix` would.

use super::analysis::Analysis;
use super::text::{Lines, Snapshot};
use capc_compiler::{fix, walk};
use lsp_types::{
    CodeAction, CodeActionKind, CodeActionOrCommand, CodeActionParams, Range, TextEdit, Url, WorkspaceEdit,
};
use std::collections::HashMap;
use std::sync::Arc;

/// Rounds of fixes at most, as `capc check --fix` runs them: a fix that overlaps one taken
/// waits for the next round, after a fresh check.
const FIX_ROUNDS: usize = 10;

pub(crate) fn code_actions(analysis: &Analysis, params: CodeActionParams) -> Vec<CodeActionOrCommand> {
    let uri = params.text_document.uri;
    let Some(path) = analysis.shown(&uri) else { return Vec::new() };
    let Some(text) = analysis.text(&path) else { return Vec::new() };
    let text = &*text;
    let lines = Lines::new(text);
    let wants = |kind: &CodeActionKind| {
        // `only` names kinds or their parents (`source` covers `source.fixAll`).
        params.context.only.as_ref().is_none_or(|only| {
            only.iter().any(|k| kind.as_str() == k.as_str() || kind.as_str().starts_with(&format!("{}.", k.as_str())))
        })
    };
    let mut actions = Vec::new();
    let mut fixable = false;
    for (shown, finding) in analysis.findings(uri.as_str()) {
        let Some((finding, edits)) = finding.and_then(|f| Some((f, f.fix.as_ref()?))) else { continue };
        fixable = true;
        if !wants(&CodeActionKind::QUICKFIX) || !touches(shown.range, params.range) {
            continue;
        }
        let (after, applied) = fix::apply(text, &[(finding.rule, edits.as_slice())]);
        if applied.is_empty() || after == text {
            continue;
        }
        actions.push(CodeActionOrCommand::CodeAction(CodeAction {
            title: format!("Fix `{}`: {}", finding.rule, first_line(&super::shown::message(finding))),
            kind: Some(CodeActionKind::QUICKFIX),
            diagnostics: Some(vec![shown.lsp(Some(finding))]),
            edit: Some(workspace_edit(&uri, &lines, text, &after)),
            is_preferred: Some(true),
            ..Default::default()
        }));
    }
    if fixable && wants(&CodeActionKind::SOURCE_FIX_ALL) {
        if let Some(after) = fix_all(analysis, &path, text) {
            actions.push(CodeActionOrCommand::CodeAction(CodeAction {
                title: "Fix all capc findings in this file".to_string(),
                kind: Some(CodeActionKind::SOURCE_FIX_ALL),
                edit: Some(workspace_edit(&uri, &lines, text, &after)),
                ..Default::default()
            }));
        }
    }
    actions
}

fn first_line(message: &str) -> &str {
    message.lines().next().unwrap_or_default()
}

/// Two ranges meet (touching counts: the cursor at a finding's end is on it).
fn touches(a: Range, b: Range) -> bool {
    a.start <= b.end && b.start <= a.end
}

/// The text of `path` after every round of fixes `--fix` would make to it, checking the
/// fixed text again after each round; `None` when nothing changes.
fn fix_all(analysis: &Analysis, path: &str, text: &str) -> Option<String> {
    let file = capc_compiler::check::locate(&analysis.options, path);
    let mut current = text.to_string();
    let mut checked_now = None;
    for _ in 0..FIX_ROUNDS {
        let Some(checked) = checked_now.as_ref().or(analysis.checked.as_ref()) else { break };
        let Some(plan) = fix::plan(checked).into_iter().find(|p| p.path == path) else { break };
        current = plan.after;
        let mut buffers = (*analysis.snapshot.buffers).clone();
        buffers.insert(file.clone(), Arc::from(current.as_str()));
        let snapshot = Snapshot { buffers: Arc::new(buffers), disk: analysis.snapshot.disk.clone(), cancel: None };
        let options =
            capc_compiler::Options { texts: walk::Texts::new(Arc::new(snapshot)), ..analysis.options.clone() };
        match capc_compiler::check(&options) {
            Ok(checked) => checked_now = Some(checked),
            Err(_) => break,
        }
    }
    (current != text).then_some(current)
}

/// One edit from `before` to `after`: the span between their common prefix and suffix.
fn workspace_edit(uri: &Url, lines: &Lines<'_>, before: &str, after: &str) -> WorkspaceEdit {
    let mut prefix = before.bytes().zip(after.bytes()).take_while(|(a, b)| a == b).count();
    while !before.is_char_boundary(prefix) || !after.is_char_boundary(prefix) {
        prefix -= 1;
    }
    let longest = before.len().min(after.len()) - prefix;
    let mut suffix = before.bytes().rev().zip(after.bytes().rev()).take(longest).take_while(|(a, b)| a == b).count();
    while !before.is_char_boundary(before.len() - suffix) || !after.is_char_boundary(after.len() - suffix) {
        suffix -= 1;
    }
    let edit = TextEdit {
        range: lines.range(prefix, before.len() - suffix),
        new_text: after[prefix..after.len() - suffix].to_string(),
    };
    WorkspaceEdit { changes: Some(HashMap::from([(uri.clone(), vec![edit])])), ..Default::default() }
}
