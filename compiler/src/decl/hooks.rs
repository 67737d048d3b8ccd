//! Hooks: `hooks/hooks.json` (`{"description"?, "hooks": {Event: [group…]}}`), and the
//! same event map inline in plugin.json, settings and skill or agent frontmatter.

use super::{join_rel, FileCx};
use crate::diagnostic::{self, did_you_mean, Edit, EditPart, Severity, Sink};
use crate::node::{Node, NodeKind};
use crate::rules;
use crate::schema::{check_fields, field, Field, Ty, Unknown};
use crate::span::Span;

/// Hook events (case-sensitive), sorted: Claude Code's own list, as
/// `scripts/claude-code-tables` extracts it into `compiler/data/claude-code/hook-events.json`
/// (the hooks docs, https://code.claude.com/docs/en/hooks, name most of them).
pub static EVENTS: std::sync::LazyLock<Vec<&'static str>> = std::sync::LazyLock::new(|| {
    let mut events = hook_events_data().events.clone();
    events.sort_unstable();
    events
});

/// `compiler/data/claude-code/hook-events.json`: the version it was extracted from and the events
/// in Claude Code's order.
#[derive(Debug, Default, serde::Deserialize)]
pub struct HookEventsData {
    pub claude_code: &'static str,
    pub events: Vec<&'static str>,
}

const HOOK_EVENTS_FILE: &str = include_str!("../../data/claude-code/hook-events.json");

/// The hook events file, parsed once (a test proves it parses).
pub fn hook_events_data() -> &'static HookEventsData {
    static DATA: std::sync::OnceLock<HookEventsData> = std::sync::OnceLock::new();
    DATA.get_or_init(|| serde_json::from_str(HOOK_EVENTS_FILE).unwrap_or_default())
}

/// Guard events: written at the top level of a hooks file, they fail the whole plugin
/// (measured with Claude Code), rather than being ignored.
const GUARD_EVENTS: &[&str] = &["PermissionRequest", "PreSkillShellCommand", "PreToolUse"];

/// The first guard event a map declares (`{"PreToolUse": [...]}`, neither null nor empty).
fn guard_event(node: &Node) -> Option<&str> {
    node.as_object()?.iter().find_map(|(k, v)| {
        let declared = !matches!(v.kind, NodeKind::Null) && !v.as_array().is_some_and(<[Node]>::is_empty);
        (GUARD_EVENTS.contains(&k.name.as_str()) && declared).then_some(k.name.as_str())
    })
}

/// An object shaped as a matcher group (`{"matcher"?, "hooks": [...]}`) rather than an event map.
fn looks_like_matcher(node: &Node) -> bool {
    let Some(entries) = node.as_object() else { return false };
    let has_matcher = node.get("matcher").is_some();
    if !has_matcher && entries.iter().any(|(k, _)| EVENTS.contains(&k.name.as_str())) {
        return false;
    }
    match node.get("hooks").map(|h| &h.kind) {
        Some(NodeKind::Array(items)) => !items.is_empty(),
        Some(NodeKind::Object(_)) => {
            has_matcher || node.get("hooks").and_then(|h| h.get("type")).and_then(Node::as_str).is_some()
        }
        _ => false,
    }
}

/// Whether `node` holds guard hooks within `depth` levels, as Claude Code's plugin loader
/// looks for them in what it cannot read as hooks: a guard event map anywhere, or (while
/// `matchers_count`) a matcher group, which under no event could be a guard's.
fn holds_guards(node: &Node, depth: usize, matchers_count: bool, in_hooks_list: bool) -> bool {
    if guard_event(node).is_some() || (matchers_count && looks_like_matcher(node)) {
        return true;
    }
    if depth == 0 {
        return false;
    }
    match &node.kind {
        NodeKind::Array(items) => items.iter().any(|i| holds_guards(i, depth - 1, matchers_count, in_hooks_list)),
        NodeKind::Object(entries) => {
            if in_hooks_list && node.get("type").and_then(Node::as_str).is_some() {
                return false;
            }
            entries.iter().any(|(k, v)| {
                let key = k.name.as_str();
                holds_guards(
                    v,
                    depth - 1,
                    matchers_count && !EVENTS.contains(&key),
                    key == "hooks" && v.as_array().is_some(),
                )
            })
        }
        _ => false,
    }
}

/// Why Claude Code skips the plugin whose inline or file event map this is: a key that is no
/// event but holds guard hooks (`{"hooks": {"PreToolUse": …}}`, the file's shape written
/// inline), or the map written as a single matcher group. Such a guard cannot be loaded, and
/// it may be what protects the permissions beside it, so nothing of the plugin is applied.
pub(crate) fn unloadable_guard(map: &Node) -> Option<String> {
    if looks_like_matcher(map) || map.as_array().is_some_and(|items| items.iter().any(looks_like_matcher)) {
        return Some("its `hooks` is a matcher group, not an object of events".to_string());
    }
    map.as_object()?.iter().find_map(|(k, v)| {
        let event = k.name.as_str();
        if !EVENTS.contains(&event) {
            return holds_guards(v, 3, v.as_array().is_none(), false)
                .then(|| format!("`{event}` is not a hook event, but holds PreToolUse or PermissionRequest hooks"));
        }
        let guard = GUARD_EVENTS.contains(&event);
        let Some(groups) = v.as_array() else {
            return ((guard && !matches!(v.kind, NodeKind::Null)) || holds_guards(v, 3, false, false))
                .then(|| format!("the guard event `{event}` is {}, not an array of matcher groups", v.type_name()));
        };
        groups.iter().enumerate().find_map(|(i, group)| {
            if holds_guards(group, 3, false, false) {
                return Some(format!("matcher group {} of `{event}` holds PreToolUse or PermissionRequest hooks where a matcher was expected", i + 1));
            }
            // A guard event's matcher group that cannot be read is not dropped (as another
            // event's is): the guard it should hold would be missing.
            let unreadable = group.as_object().is_none() || group.get("hooks").and_then(Node::as_array).is_none();
            (guard && unreadable).then(|| format!("matcher group {} of the guard event `{event}` is not `{{\"hooks\": [ … ]}}`", i + 1))
        })
    })
}

/// The keys a handler of type `kind` may have (`decl/fields.rs`), and the one it needs.
fn handler_fields(kind: &str) -> Option<(Vec<Field>, &'static str)> {
    use super::fields::{HOOK_COMMAND, HOOK_HANDLER, HOOK_HTTP, HOOK_MCP_TOOL, HOOK_PROMPT};
    let (extra, required) = match kind {
        "command" => (HOOK_COMMAND, "command"),
        "http" => (HOOK_HTTP, "url"),
        "mcp_tool" => (HOOK_MCP_TOOL, "server"),
        "prompt" | "agent" => (HOOK_PROMPT, "prompt"),
        _ => return None,
    };
    Some((HOOK_HANDLER.iter().chain(extra).map(|k| field(k.name, k.ty)).collect(), required))
}

/// Why Claude Code refuses to load the whole plugin a hooks file belongs to, when it
/// does: a guard event (`PreToolUse`, `PermissionRequest`, `PreSkillShellCommand`) written at
/// the file's top level, or a `hooks` that is not an object. Its loader skips such a plugin
/// (a guard it cannot load may be what protects the rules beside it) and loads every other;
/// a hooks file that is only unreadable or malformed JSON costs the plugin its hooks, not its
/// other components.
pub(crate) fn skips_plugin(root: &Node) -> Option<String> {
    if let Some(event) = guard_event(root) {
        return Some(format!("its hooks file declares the guard event `{event}` at its top level, outside `hooks`"));
    }
    match root.get("hooks") {
        Some(hooks) if !matches!(hooks.kind, NodeKind::Null) && hooks.as_object().is_none() => {
            Some(format!("its hooks file's `hooks` is {}, not an object of events", hooks.type_name()))
        }
        Some(hooks) => unloadable_guard(hooks).map(|why| format!("in its hooks file, {why}")),
        None => None,
    }
}

/// A whole `hooks.json` file; returns the number of handlers.
pub fn check_file(sink: &mut Sink<'_>, cx: &FileCx<'_>, root: &Node) -> usize {
    if root.as_object().is_none() {
        sink.report(
            &rules::wrong_field_type::RULE,
            root.span,
            format!("a hooks file must be an object, found {}", root.type_name()),
        )
        .help("write `{\"hooks\": {\"PreToolUse\": [ … ]}}`");
        return 0;
    }
    // Events written at the top level are not loaded: only the `hooks` key is read.
    let mut top_level_events = Vec::new();
    for (key, _) in root.as_object().unwrap_or_default() {
        if EVENTS.contains(&key.name.as_str()) {
            top_level_events.push(key.clone());
        }
    }
    check_modules(sink, cx, root);
    let modules = root.get("modules").and_then(Node::as_array).is_some_and(|m| !m.is_empty());
    let has_hooks = root.get("hooks").is_some() || modules;
    let fix = cx.json_source.and_then(|text| move_under_hooks(text, root));
    for key in &top_level_events {
        let diagnostic = if GUARD_EVENTS.contains(&key.name.as_str()) {
            sink.report(
                &rules::hooks_at_top_level::RULE,
                key.span,
                format!("guard event `{}` sits at the top level of the hooks file", key.name),
            )
            .help("Claude Code then refuses to load the whole plugin; move every event inside `\"hooks\": { … }`")
        } else if has_hooks {
            sink.report(
                &rules::hooks_at_top_level::RULE,
                key.span,
                format!("event `{}` sits at the top level, where Claude Code does not read it", key.name),
            )
            .severity(Severity::Warning)
            .help("these hooks never run; move the event inside `\"hooks\": { … }`")
        } else {
            sink.report(&rules::hooks_at_top_level::RULE, key.span, format!("event `{}` sits at the top level, and the file has no `hooks`", key.name))
                .help("Claude Code rejects a hooks file without `hooks` (or `modules`); wrap the events in `\"hooks\": { … }`")
        };
        // One fix moves every event; each finding carries it, and it is applied once.
        if let Some(edits) = &fix {
            diagnostic.with_fix(edits.clone());
        }
    }
    let known: Vec<Field> = super::fields::HOOKS_FILE
        .iter()
        .map(|k| field(k.name, k.ty))
        .chain(EVENTS.iter().map(|e| field(e, Ty::Any)))
        .collect();
    check_fields(sink, root, &known, "the hooks file", Unknown::Warn);
    if !has_hooks && top_level_events.is_empty() {
        sink.report(
            &rules::missing_required_field::RULE,
            Span::new(root.span.start, root.span.start + 1),
            "the hooks file has neither `hooks` nor `modules`",
        )
        .help("write `{\"hooks\": {\"PreToolUse\": [ … ]}}`");
    }
    match root.get("hooks") {
        Some(map) if map.as_object().is_some() => check_event_map(sink, cx, map, "`hooks`"),
        _ => 0,
    }
}

/// `modules`: at most one hooks module per plugin, a path that exists (measured).
fn check_modules(sink: &mut Sink<'_>, cx: &FileCx<'_>, root: &Node) {
    let Some(modules) = root.get("modules").and_then(Node::as_array) else { return };
    if modules.len() > 1 {
        sink.report(&rules::invalid_field_value::RULE, modules[1].span, "a plugin names at most one hooks module")
            .severity(Severity::Error)
            .help("Claude Code refuses the hooks file; keep one entry in `modules`");
    }
    for module in modules {
        let Some(path) = module.as_str() else {
            sink.report(
                &rules::wrong_field_type::RULE,
                module.span,
                format!("a `modules` entry must be a path, found {}", module.type_name()),
            );
            continue;
        };
        // Relative to the hooks file's folder (measured).
        if cx.plugin_root.is_none() {
            continue;
        }
        match join_rel(super::parent(cx.rel), path) {
            Some(target) if cx.tree.exists(&target) => {}
            _ => {
                sink.report(
                    &rules::missing_component_path::RULE,
                    module.span,
                    format!("hooks module `{path}` does not exist"),
                )
                .help(
                    "Claude Code fails to load the plugin's hooks; fix the path (relative to the hooks file's folder)",
                );
            }
        }
    }
}

/// An event map `{Event: [{matcher?, hooks: [handler…]}]}`; returns the number of handlers.
pub(crate) fn check_event_map(sink: &mut Sink<'_>, cx: &FileCx<'_>, map: &Node, what: &str) -> usize {
    let Some(entries) = map.as_object() else { return 0 };
    let mut handlers = 0;
    for (event, groups) in entries {
        let unknown = !EVENTS.contains(&event.name.as_str());
        let before = sink.diagnostics.len();
        if unknown {
            let d = sink.report(
                &rules::unknown_hook_event::RULE,
                event.span,
                format!("`{}` is not a hook event", event.name),
            );
            match did_you_mean(&event.name, EVENTS.iter().copied()) {
                Some(s) => d.help(format!(
                    "did you mean `{s}`? Event names are case-sensitive; Claude Code ignores this entry"
                )),
                None => d.help("Claude Code ignores this entry; `capc rules unknown-hook-event` lists the events"),
            };
        }
        let found = check_event(sink, cx, &event.name, groups, what);
        if unknown {
            // Checked for when the event's name is fixed, but nothing here runs: what is wrong
            // in the entry cannot stop the plugin or the lock.
            for d in &mut sink.diagnostics[before + 1..] {
                if d.severity == Severity::Error {
                    d.severity = Severity::Warning;
                }
            }
        } else {
            handlers += found;
        }
    }
    handlers
}

/// One event's matcher groups; returns the number of handlers.
fn check_event(sink: &mut Sink<'_>, cx: &FileCx<'_>, event: &str, groups: &Node, what: &str) -> usize {
    let mut handlers = 0;
    // In a plugin, Claude Code drops an entry of another event it cannot read and loads the
    // rest; a guard event's (PreToolUse, PermissionRequest) costs the whole plugin.
    let dropped = cx.scope == super::FileScope::Plugin && !GUARD_EVENTS.contains(&event);
    let severity = if dropped { Severity::Warning } else { Severity::Error };
    let Some(groups) = groups.as_array() else {
        let help = if dropped {
            r#"Claude Code ignores this entry; write `"Stop": [{"hooks": [{"type": "command", "command": "…"}]}]`"#
        } else {
            r#"write `"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "…"}]}]`"#
        };
        let message =
            format!("event `{event}` in {what} must be an array of matcher groups, found {}", groups.type_name());
        sink.report(&rules::wrong_field_type::RULE, groups.span, message).severity(severity).help(help);
        return 0;
    };
    for group in groups {
        if group.as_object().is_none() {
            sink.report(
                &rules::wrong_field_type::RULE,
                group.span,
                format!("a matcher group must be an object, found {}", group.type_name()),
            )
            .severity(severity);
            continue;
        }
        check_fields(sink, group, super::fields::HOOK_GROUP, "a matcher group", Unknown::Warn);
        if group.get("hooks").is_none() {
            sink.report(
                &rules::missing_required_field::RULE,
                Span::new(group.span.start, group.span.start + 1),
                "a matcher group has no `hooks`",
            )
            .severity(Severity::Warning)
            .help("Claude Code ignores this entry; list its handlers under `\"hooks\": [ … ]`");
            continue;
        }
        for handler in group.get("hooks").and_then(Node::as_array).unwrap_or_default() {
            handlers += 1;
            check_handler(sink, cx, handler);
        }
    }
    handlers
}

fn check_handler(sink: &mut Sink<'_>, cx: &FileCx<'_>, handler: &Node) {
    if handler.as_object().is_none() {
        sink.report(
            &rules::wrong_field_type::RULE,
            handler.span,
            format!("a hook handler must be an object, found {}", handler.type_name()),
        );
        return;
    }
    let Some(kind_node) = handler.get("type") else {
        sink.report(
            &rules::invalid_hook_handler::RULE,
            crate::span::Span::new(handler.span.start, handler.span.start + 1),
            "hook handler has no `type`",
        )
        .help("set `\"type\"` to `command`, `http`, `mcp_tool`, `prompt` or `agent`");
        return;
    };
    let kind = kind_node.as_str().unwrap_or("");
    let Some((fields, required)) = handler_fields(kind) else {
        let d = sink.report(
            &rules::invalid_hook_handler::RULE,
            kind_node.span,
            format!("hook type `{kind}` does not exist"),
        );
        match did_you_mean(kind, ["command", "http", "mcp_tool", "prompt", "agent"]) {
            Some(s) => d.help(format!("did you mean `{s}`?")),
            None => d.help("use `command`, `http`, `mcp_tool`, `prompt` or `agent`; Claude Code ignores this handler"),
        };
        return;
    };
    check_fields(sink, handler, &fields, &format!("a `{kind}` hook"), Unknown::Warn);
    if let Some(condition) = handler.get("if").filter(|c| c.as_str().is_some()) {
        super::permissions::check_value(
            sink,
            cx,
            cx.json_source.unwrap_or(""),
            condition,
            super::permissions::Use::HookIf,
        );
    }
    if handler.get(required).is_none() {
        sink.report(&rules::invalid_hook_handler::RULE, kind_node.span, format!("`{kind}` hook has no `{required}`"))
            .help(format!("a `{kind}` hook needs `\"{required}\"`; Claude Code ignores this handler"));
    }
    if kind == "mcp_tool" && handler.get("tool").is_none() {
        sink.report(&rules::invalid_hook_handler::RULE, kind_node.span, "`mcp_tool` hook has no `tool`");
    }
    if kind == "command" {
        if let Some(command) = handler.get("command") {
            if let Some(text) = command.as_str() {
                let exec_form = handler.get("args").is_some();
                check_command_text(sink, cx, command, text, exec_form);
                // In exec form the arguments (an `sh -c` text) say what runs.
                let args: Vec<&str> = handler
                    .get("args")
                    .and_then(Node::as_array)
                    .unwrap_or_default()
                    .iter()
                    .filter_map(Node::as_str)
                    .collect();
                let line = if args.is_empty() { text.to_string() } else { format!("{text} {}", args.join(" ")) };
                let shape = crate::provenance::download_and_run(&line)
                    .or_else(|| args.iter().find_map(|a| crate::provenance::download_and_run(a)));
                if let Some(shape) = shape {
                    sink.report(
                        &rules::download_and_run::RULE,
                        command.span,
                        format!("this hook downloads a script and runs it (`{shape}`) on every matching event"),
                    )
                    .help("commit the script and run it from the repository (`\"${CLAUDE_PROJECT_DIR}\"/scripts/…` or `\"${CLAUDE_PLUGIN_ROOT}\"/…`), or pin what it fetches and check its checksum before running it");
                }
                crate::decl::helpers::unpinned(sink, command.span, "this hook", &line, "on every matching event");
            }
        }
    }
}

/// The edits that move every event written at the top level of a hooks file (`root`, JSON
/// `text`) under `hooks`, keeping each entry's text as written: the whole object wrapped in
/// `{"hooks": …}` when it holds only events, else the events appended to the `hooks` object
/// (or gathered into a new one where the first stood) and removed from the top level. `None`
/// when the result would not be certain: an event written twice, one already in `hooks`, or
/// a `hooks` that is not an object.
fn move_under_hooks(text: &str, root: &Node) -> Option<Vec<Edit>> {
    let entries = root.as_object()?;
    let moved: Vec<usize> = (0..entries.len()).filter(|&i| EVENTS.contains(&entries[i].0.name.as_str())).collect();
    let names: std::collections::BTreeSet<&str> = moved.iter().map(|&i| entries[i].0.name.as_str()).collect();
    if moved.is_empty() || names.len() != moved.len() || entries.iter().filter(|(k, _)| k.name == "hooks").count() > 1 {
        return None;
    }
    // The moved entries, copied from the file, separated by `separator`, each `step` deeper.
    let copies = |separator: &str, step: &str| {
        let mut parts = Vec::new();
        for (n, &i) in moved.iter().enumerate() {
            if n > 0 {
                parts.push(EditPart::Text(separator.to_string()));
            }
            let span = diagnostic::entry_span(&entries[i].0, &entries[i].1);
            parts.push(EditPart::Indented { span, indent: step.to_string() });
        }
        parts
    };
    match root.get("hooks") {
        None if moved.len() == entries.len() => diagnostic::wrap_entries(text, root, "hooks").map(|edit| vec![edit]),
        None => {
            let (first_key, first_value) = &entries[moved[0]];
            let last_value = &entries[entries.len() - 1].1;
            let open = diagnostic::inside(text, root.span.start + 1, entries[0].0.span.start);
            let close = diagnostic::inside(text, last_value.span.end, root.span.end - 1);
            // The new object closes at the indentation of its key; its entries one level deeper.
            let indent = open.rsplit_once('\n').map_or("", |(_, indent)| indent);
            let outer = close.rsplit_once('\n').map_or("", |(_, outer)| outer);
            let step = if open.contains('\n') {
                indent.strip_prefix(outer).filter(|s| !s.is_empty()).unwrap_or(indent)
            } else {
                ""
            };
            let mut parts = vec![EditPart::Text(format!("\"hooks\": {{{open}{step}"))];
            let separator = diagnostic::separator(text, root);
            let separator = if separator.contains('\n') { format!("{separator}{step}") } else { separator };
            parts.extend(copies(&separator, step));
            let closing = if open.contains('\n') { format!("\n{indent}}}") } else { format!("{close}}}") };
            parts.push(EditPart::Text(closing));
            let mut edits = diagnostic::remove_entries(entries, &moved[1..]);
            edits.push(Edit::Compose { span: Span::new(first_key.span.start, first_value.span.end), parts });
            Some(edits)
        }
        Some(hooks) => {
            let map = hooks.as_object()?;
            if map.iter().any(|(k, _)| names.contains(k.name.as_str())) {
                return None;
            }
            let mut edits = diagnostic::remove_entries(entries, &moved);
            edits.push(match map.last() {
                Some((_, last)) => {
                    let separator = diagnostic::separator(text, hooks);
                    // From the top level to inside `hooks`: as deep as its entries are.
                    let at = |s: &str| s.rsplit_once('\n').map(|(_, i)| i.to_string());
                    let step = match (at(&separator), at(&diagnostic::separator(text, root))) {
                        (Some(inner), Some(top)) => inner.strip_prefix(top.as_str()).unwrap_or("").to_string(),
                        _ => String::new(),
                    };
                    let mut parts = vec![EditPart::Text(separator.clone())];
                    parts.extend(copies(&separator, &step));
                    Edit::Compose { span: Span::new(last.span.end, last.span.end), parts }
                }
                None => Edit::Compose {
                    span: Span::new(hooks.span.start + 1, hooks.span.start + 1),
                    parts: copies(", ", ""),
                },
            });
            Some(edits)
        }
    }
}

const PATH_VARIABLES: &[&str] = &["CLAUDE_PLUGIN_ROOT", "CLAUDE_PLUGIN_DATA", "CLAUDE_PROJECT_DIR"];

/// Finds `$VAR`/`${VAR}` path placeholders outside double quotes in a shell-form command,
/// and scripts under `${CLAUDE_PLUGIN_ROOT}` or `$CLAUDE_PROJECT_DIR` that do not exist.
fn check_command_text(sink: &mut Sink<'_>, cx: &FileCx<'_>, node: &Node, text: &str, exec_form: bool) {
    let mut in_double = false;
    let mut in_single = false;
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' if !in_single => i += 1,
            b'"' if !in_single => in_double = !in_double,
            b'\'' if !in_double => in_single = !in_single,
            b'$' if !in_single => {
                if let Some((name, len)) = placeholder_at(&text[i..]) {
                    let written = &text[i..i + len];
                    if !in_double && !exec_form {
                        let diagnostic = sink.report(
                            &rules::unquoted_plugin_variable::RULE,
                            cx.sub_span(node, i..i + len),
                            format!("`{written}` is not quoted in a shell-form hook command"),
                        )
                        .help(format!("a path with spaces splits into several words; write `\"{written}/…\"` or use the exec form with `args`"));
                        if let Some(edits) = quote_word(cx, node, text, i, i + len) {
                            diagnostic.with_fix(edits);
                        }
                    }
                    let (path, path_len) = script_path(&text[i + len..]);
                    let path_span = cx.sub_span(node, i..i + len + path_len);
                    check_script(sink, cx, path_span, name, written, &path);
                    i += len;
                    continue;
                }
            }
            _ => {}
        }
        i += 1;
    }
}

/// Edits that put double quotes around the placeholder at `start..end` of a JSON string
/// `node` (decoded `text`) and the rest of its shell word: `${CLAUDE_PLUGIN_ROOT}/x.sh arg`
/// becomes `"${CLAUDE_PLUGIN_ROOT}/x.sh" arg`, written `\"` inside the JSON string. Certain
/// only when the rest of the word is plain path characters, so quoting changes nothing but
/// the word splitting (no glob, quote, escape or expansion in it); YAML frontmatter, whose
/// quoting depends on the scalar's style, is left alone.
fn quote_word(cx: &FileCx<'_>, node: &Node, text: &str, start: usize, end: usize) -> Option<Vec<Edit>> {
    let source = cx.json_source?;
    if !source.get(node.span.start..node.span.end)?.starts_with('"') {
        return None;
    }
    let rest = &text[end..];
    let word_len = rest
        .find(|c: char| {
            !(c.is_ascii_alphanumeric() || matches!(c, '/' | '.' | '_' | '-' | '+' | '@' | '%' | ',' | ':' | '='))
        })
        .unwrap_or(rest.len());
    let after = rest[word_len..].chars().next();
    if !after.is_none_or(|c| c == ' ' || c == '\t' || matches!(c, ';' | '&' | '|' | '<' | '>' | ')')) {
        return None;
    }
    let span = crate::json::string_sub_span(source, node.span, start..end + word_len)?;
    Some(vec![Edit::insert(span.start, "\\\""), Edit::insert(span.end, "\\\"")])
}

/// The path that follows a placeholder, up to the end of the shell word: quotes are
/// dropped (`"$DIR"/x.sh` is the word `$DIR/x.sh`). Returns the path and the bytes it spans.
fn script_path(rest: &str) -> (String, usize) {
    let mut path = String::new();
    let mut len = 0;
    for c in rest.chars() {
        if c.is_whitespace() || matches!(c, ';' | '&' | '|' | ')' | '<' | '>') {
            break;
        }
        len += c.len_utf8();
        if c != '"' && c != '\'' {
            path.push(c);
        }
    }
    (path, len)
}

/// `${NAME}` or `$NAME` for a path variable at the start of `s`: (name, length).
fn placeholder_at(s: &str) -> Option<(&'static str, usize)> {
    for name in PATH_VARIABLES {
        if s[1..].starts_with('{') && s[2..].starts_with(name) && s[2 + name.len()..].starts_with('}') {
            return Some((name, name.len() + 3));
        }
        if s[1..].starts_with(name) && !s[1 + name.len()..].starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
        {
            return Some((name, name.len() + 1));
        }
    }
    None
}

fn check_script(
    sink: &mut Sink<'_>,
    cx: &FileCx<'_>,
    span: crate::span::Span,
    variable: &str,
    written: &str,
    path: &str,
) {
    let base = match variable {
        "CLAUDE_PLUGIN_ROOT" => cx.plugin_root,
        "CLAUDE_PROJECT_DIR" => cx.project_root,
        _ => None,
    };
    let (Some(base), Some(rest)) = (base, path.strip_prefix('/')) else { return };
    if rest.is_empty() || rest.contains(['$', '*', '?', '`']) {
        return;
    }
    match join_rel(base, rest) {
        Some(target) if cx.tree.exists(&target) => {}
        Some(target) => {
            sink.report(&rules::missing_hook_script::RULE, span, format!("hook runs `{target}`, which does not exist"))
                .help(format!("create the script, or fix the path after `{written}`"));
        }
        None => {
            let place = if variable == "CLAUDE_PLUGIN_ROOT" { "plugin" } else { "project" };
            sink.report(
                &rules::missing_hook_script::RULE,
                span,
                format!("hook script `{written}{path}` is outside the {place}"),
            )
            .help("plugins are copied into a cache on install, so paths must stay inside the plugin");
        }
    }
}
