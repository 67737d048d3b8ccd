//! Hover: what a key means (the compiler's field tables), what a `/name` reaches, what an MCP
//! server or a permission rule is, and when an instruction file or an `@` import is sent.

use super::navigation::{import_at, import_target, instruction};
use super::{frontmatter_at, json_string_at, markdown, server_named, servers, word_at, Doc, Texts};
use crate::lsp::analysis::Analysis;
use crate::lsp::text::Lines;
use capc_compiler::decl::fields;
use capc_compiler::decl::FileKind;
use lsp_types::*;

pub(crate) fn hover(analysis: &Analysis, texts: &Texts<'_>, params: HoverParams) -> Option<Hover> {
    let at = params.text_document_position_params;
    let doc = Doc::of(analysis, texts, &at.text_document.uri)?;
    let lines = Lines::new(&doc.text);
    let offset = lines.offset(at.position);
    let (start, end) = word_at(&doc.text, offset);
    let word = &doc.text[start..end];
    let mut range = Some(lines.range(start, end));
    let rule = (!doc.is_markdown()).then(|| json_string_at(&doc.text, offset)).flatten().filter(|l| {
        !l.is_key
            && l.parent.as_deref() == Some("permissions")
            && matches!(&l.container, Some((b'[', key)) if matches!(key.as_str(), "allow" | "ask" | "deny"))
    });
    let value = if let Some(value) = instruction_hover(analysis, &doc, offset) {
        if let Some((s, e)) = import_at(&doc.text, offset).map(|i| (i.span.start, i.span.end)) {
            range = Some(lines.range(s, e));
        } else {
            range = None;
        }
        value
    } else if let Some(rule) = rule {
        range = Some(lines.range(rule.start, rule.start + rule.value.len()));
        let behavior = rule.container.as_ref().map_or("", |(_, k)| k.as_str());
        crate::lsp::rules::hover(analysis, &doc.shown, behavior, &rule.value)?
    } else if let Some(server) = server_named(word) {
        server_summary(analysis, server)
    } else if doc.is_markdown() {
        let fm = frontmatter_at(&doc.text, offset)?;
        if fm.on_key {
            let text = fields::find(doc.keys(), fm.key)?.doc;
            format!("**`{}`** ({})\n\n{text}", fm.key, doc.kind.map_or("declaration", FileKind::as_str))
        } else if fm.key == "name" {
            name_summary(analysis, &doc.shown)?
        } else {
            return None;
        }
    } else {
        let literal = json_string_at(&doc.text, offset)?;
        if !literal.is_key {
            return None;
        }
        let text = super::completion::json_key_doc(doc.kind, &literal, &literal.value)?;
        format!("**`{}`**\n\n{text}", literal.value)
    };
    Some(Hover { contents: HoverContents::Markup(markdown(value)), range })
}

/// What a typed `/name` reaches in this file, and what it hides or is hidden by; for a file
/// no session here loads, why not.
fn name_summary(analysis: &Analysis, shown: &str) -> Option<String> {
    let checked = analysis.checked.as_ref()?;
    let resolution = checked.resolution.as_ref()?;
    let mut out = Vec::new();
    for row in resolution.table.iter().filter(|r| r.path.as_deref() == Some(shown)) {
        out.push(match &row.shadowed_by {
            Some(by) => format!(
                "`/{}` is hidden by `/{}` ({}; {}): typing it runs that one",
                row.name,
                by.name,
                by.path.as_deref().unwrap_or("built-in"),
                by.rule
            ),
            None => format!("`/{}` runs this {} ({} scope)", row.name, row.kind.as_str(), row.scope.as_str()),
        });
    }
    for row in &resolution.table {
        if let Some(by) = row.shadowed_by.as_ref().filter(|by| by.path.as_deref() == Some(shown)) {
            out.push(format!("hides `/{}` ({}; {})", row.name, row.path.as_deref().unwrap_or("built-in"), by.rule));
        }
    }
    for agent in resolution.lock.agents.iter().filter(|a| a.path == shown) {
        out.push(match &agent.shadowed_by {
            Some(by) => format!(
                "agent `{}` is hidden by `{}` ({}; {})",
                agent.name,
                by.name,
                by.path.as_deref().unwrap_or("built-in"),
                by.rule
            ),
            None => format!("agent `{}` ({} scope)", agent.name, agent.scope.as_str()),
        });
        for hidden in &agent.shadows {
            out.push(format!("hides agent `{}` ({})", hidden.name, hidden.path.as_deref().unwrap_or("built-in")));
        }
    }
    if out.is_empty() {
        let file = checked.source(shown)?;
        let name = file.name.as_deref()?;
        let why = checked.why_not_loaded(shown).unwrap_or("nothing here loads it");
        out.push(format!("{} `{name}` does not load in a session here: {why}", file.kind.as_str()));
    }
    Some(out.join("\n\n"))
}

fn server_summary(analysis: &Analysis, server: &str) -> String {
    let declared = servers(analysis, server);
    if declared.is_empty() {
        return format!("no MCP server `{server}` is declared in this check: a rule naming it matches nothing");
    }
    declared
        .iter()
        .map(|s| {
            let how = s.command.as_deref().or(s.url.as_deref()).unwrap_or("");
            format!("MCP server `{}` ({} scope, {}): `{how}`", s.name, s.scope.as_str(), s.path)
        })
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// Hover in an instruction file: on an `@` import, when the file it names is sent; elsewhere,
/// when this file is.
fn instruction_hover(analysis: &Analysis, doc: &Doc, offset: usize) -> Option<String> {
    let checked = analysis.checked.as_ref()?;
    instruction(analysis, &doc.shown)?;
    let shown = match import_target(analysis, doc, offset) {
        Some(target) => {
            let Some(text) = capc_compiler::lock::view::explain_instruction(&checked.instructions, &target) else {
                return Some(format!("**`{target}`**: not sent (see the finding on this import, if any)"));
            };
            text
        }
        None => capc_compiler::lock::view::explain_instruction(&checked.instructions, &doc.shown)?,
    };
    Some(shown.lines().map(|l| l.trim()).collect::<Vec<_>>().join("\n\n"))
}
