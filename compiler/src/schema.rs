//! Field tables and the one checker that walks an object against them, so every format
//! reports wrong types, unknown fields and duplicate keys the same way.

use crate::diagnostic::{did_you_mean, did_you_mean_unique, Edit, Severity, Sink};
use crate::node::{Node, NodeKind};
use crate::rules;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ty {
    String,
    Number,
    Integer,
    Bool,
    /// Frontmatter booleans: since Claude Code 2.1.218 `true/false/yes/no/on/off/1/0` in any case.
    BoolLike,
    Object,
    Array,
    StringArray,
    /// A path or a list of paths (plugin component fields).
    StringOrStringArray,
    /// A path, a list of paths, or an inline object (plugin `hooks`, `mcpServers`).
    StringOrArrayOrObject,
    /// A path, an inline object, or a list of either (plugin `hooks`).
    PathsOrObjects,
    /// A comma- or space-separated string, or a list of strings (`allowed-tools`, `paths`).
    StringOrList,
    Any,
}

impl Ty {
    /// The type in words, as messages and `docs/lock.md`'s field table say it.
    pub fn describe(self) -> &'static str {
        match self {
            Ty::String => "a string",
            Ty::Number => "a number",
            Ty::Integer => "a whole number",
            Ty::Bool => "`true` or `false`",
            Ty::BoolLike => "a boolean (`true` or `false`)",
            Ty::Object => "an object",
            Ty::Array => "an array",
            Ty::StringArray => "an array of strings",
            Ty::StringOrStringArray => "a path string or an array of path strings",
            Ty::StringOrArrayOrObject => "a path, an array of paths or an object",
            Ty::PathsOrObjects => "a path, an object, or an array of paths and objects",
            Ty::StringOrList => "a string or a list of strings",
            Ty::Any => "any value",
        }
    }

    pub fn accepts(self, node: &Node) -> bool {
        let all_strings = |items: &[Node]| items.iter().all(|i| matches!(i.kind, NodeKind::String(_)));
        match (self, &node.kind) {
            (Ty::Any, _) => true,
            (Ty::String, NodeKind::String(_)) => true,
            (Ty::Number, NodeKind::Number(_)) => true,
            (Ty::Integer, NodeKind::Number(n)) => n.parse::<i64>().is_ok(),
            (Ty::Bool, NodeKind::Bool(_)) => true,
            (Ty::BoolLike, NodeKind::Bool(_)) => true,
            (Ty::BoolLike, NodeKind::String(s)) => bool_like(s).is_some(),
            (Ty::BoolLike, NodeKind::Number(n)) => n == "0" || n == "1",
            (Ty::Object, NodeKind::Object(_)) => true,
            (Ty::Array, NodeKind::Array(_)) => true,
            (Ty::StringArray, NodeKind::Array(items)) => all_strings(items),
            (Ty::StringOrStringArray | Ty::StringOrList, NodeKind::String(_)) => true,
            (Ty::StringOrStringArray | Ty::StringOrList, NodeKind::Array(items)) => all_strings(items),
            (Ty::StringOrArrayOrObject, NodeKind::String(_) | NodeKind::Object(_)) => true,
            (Ty::StringOrArrayOrObject, NodeKind::Array(items)) => all_strings(items),
            (Ty::PathsOrObjects, NodeKind::String(_) | NodeKind::Object(_)) => true,
            (Ty::PathsOrObjects, NodeKind::Array(items)) => {
                items.iter().all(|i| matches!(i.kind, NodeKind::String(_) | NodeKind::Object(_)))
            }
            _ => false,
        }
    }
}

pub(crate) fn bool_like(s: &str) -> Option<bool> {
    match s.to_ascii_lowercase().as_str() {
        "true" | "yes" | "on" | "1" => Some(true),
        "false" | "no" | "off" | "0" => Some(false),
        _ => None,
    }
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct Field {
    pub name: &'static str,
    pub ty: Ty,
}

pub(crate) const fn field(name: &'static str, ty: Ty) -> Field {
    Field { name, ty }
}

/// A key with the type capc checks: a [`Field`] of a small nested table, or a
/// [`Key`](crate::decl::fields::Key) of a file kind's table in `decl/fields.rs`.
pub(crate) trait Named {
    fn name(&self) -> &'static str;
    fn ty(&self) -> Ty;
}

impl Named for Field {
    fn name(&self) -> &'static str {
        self.name
    }
    fn ty(&self) -> Ty {
        self.ty
    }
}

/// How unknown fields are treated in one format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Unknown {
    /// Reported as a warning (Claude Code ignores them).
    Warn,
    /// Reported as a warning only when a known field is a near miss (objects where Claude Code
    /// keeps keys it does not know, for newer releases): an unknown key with no suggestion is
    /// an info.
    SuggestOnly,
}

/// Checks `object` against `fields`: wrong types are errors, unknown fields warnings with
/// a suggestion, duplicate keys warnings. `what` names the thing in messages
/// ("plugin.json", "frontmatter", "server `github`").
pub(crate) fn check_fields<F: Named>(sink: &mut Sink<'_>, object: &Node, fields: &[F], what: &str, unknown: Unknown) {
    check_fields_knowing(sink, object, fields, &[], what, unknown);
}

/// [`check_fields`] for a format where Claude Code knows more keys than capc checks the values
/// of (`known`, such as its own list of frontmatter keys): those are accepted as they are, and
/// are candidates for did-you-mean like the checked ones.
pub(crate) fn check_fields_knowing<F: Named>(
    sink: &mut Sink<'_>,
    object: &Node,
    fields: &[F],
    known: &[&'static str],
    what: &str,
    unknown: Unknown,
) {
    let Some(entries) = object.as_object() else { return };
    let candidates = || fields.iter().map(Named::name).chain(known.iter().copied());
    let is_known = |name: &str| fields.iter().any(|f| f.name() == name) || known.contains(&name);
    let mut seen: Vec<&str> = Vec::with_capacity(entries.len());
    for (key, value) in entries {
        if seen.contains(&key.name.as_str()) {
            sink.report(
                &rules::duplicate_key::RULE,
                key.span,
                format!("`{}` appears more than once in {what}", key.name),
            )
            .help("the last value wins; delete the other");
        }
        seen.push(&key.name);
        match fields.iter().find(|f| f.name() == key.name) {
            Some(f) => {
                if !f.ty().accepts(value) {
                    wrong_type(sink, value, &key.name, f.ty(), what);
                }
            }
            None if known.contains(&key.name.as_str()) => {}
            // A real field written in the wrong place is metadata Claude Code ignores here:
            // worth knowing, not worth a warning (see the severity policy).
            None if misplaced_hint(&key.name, what).is_some() => {
                sink.report(&rules::unknown_field::RULE, key.span, format!("unknown field `{}` in {what}", key.name))
                    .severity(Severity::Info)
                    .help(misplaced_hint(&key.name, what).unwrap_or_default());
            }
            None => {
                let suggestion = did_you_mean(&key.name, candidates());
                match (suggestion, unknown) {
                    (Some(s), _) => {
                        let diagnostic = sink
                            .report(
                                &rules::unknown_field::RULE,
                                key.span,
                                format!("unknown field `{}` in {what}", key.name),
                            )
                            .help(format!("did you mean `{s}`? Claude Code ignores fields it does not know"));
                        // A rename is certain when no other field is as near, the object
                        // does not have the field it would become, and no other unknown key
                        // would become it too.
                        let unique = did_you_mean_unique(&key.name, candidates()) == Some(s);
                        let rivals = entries.iter().any(|(k, _)| {
                            k.name != key.name && !is_known(&k.name) && did_you_mean(&k.name, candidates()) == Some(s)
                        });
                        if unique && !rivals && object.get(s).is_none() {
                            diagnostic.with_fix(vec![Edit::RenameKey {
                                span: key.span,
                                from: key.name.clone(),
                                to: s.to_string(),
                            }]);
                        }
                    }
                    // Near no known key: custom metadata, which Claude Code ignores and many
                    // repositories keep on purpose, so an info, not a warning.
                    (None, Unknown::Warn) => {
                        sink.report(
                            &rules::unknown_field::RULE,
                            key.span,
                            format!("unknown field `{}` in {what}", key.name),
                        )
                        .severity(Severity::Info)
                        .help(if what.contains("frontmatter") {
                            "Claude Code ignores fields it does not know; keep free-form data under `metadata:`, or check the spelling"
                        } else {
                            "Claude Code ignores fields it does not know; check the spelling, or remove it"
                        });
                    }
                    (None, Unknown::SuggestOnly) => {
                        sink.report(
                            &rules::unknown_field::RULE,
                            key.span,
                            format!("unknown field `{}` in {what}", key.name),
                        )
                        .severity(Severity::Info)
                        .help("Claude Code keeps it for newer releases and ignores it; check the spelling");
                    }
                }
            }
        }
    }
}

/// Fields that are real somewhere else, with where they belong. (Keys in Claude Code's own
/// frontmatter list, such as `tools` or `author`, never get here: they are known everywhere.)
fn misplaced_hint(name: &str, what: &str) -> Option<&'static str> {
    let frontmatter = what.contains("skill frontmatter") || what.contains("command frontmatter");
    Some(match name {
        "globs" if frontmatter => "`globs` is another tool's field; a skill limits itself to files with `paths`",
        "tags" | "category" if frontmatter => "Claude Code ignores it; free-form data belongs under `metadata:`",
        _ => return None,
    })
}

pub(crate) fn wrong_type(sink: &mut Sink<'_>, value: &Node, name: &str, expected: Ty, what: &str) {
    let found = match &value.kind {
        NodeKind::Array(items) if matches!(expected, Ty::StringArray | Ty::StringOrStringArray | Ty::StringOrList) => {
            match items.iter().find(|i| i.as_str().is_none()) {
                Some(item) => format!("an array holding {}", item.type_name()),
                None => value.type_name().to_string(),
            }
        }
        NodeKind::String(s) if expected == Ty::BoolLike => format!("the string `{s}`"),
        _ => value.type_name().to_string(),
    };
    sink.report(
        &rules::wrong_field_type::RULE,
        value.span,
        format!("`{name}` in {what} must be {}, found {found}", expected.describe()),
    );
}

/// Reports a missing required field on `object` (blamed on the object's span).
pub(crate) fn require(sink: &mut Sink<'_>, object: &Node, name: &str, what: &str) -> bool {
    if object.get(name).is_some() {
        return true;
    }
    let span = object.span;
    sink.report(
        &rules::missing_required_field::RULE,
        crate::span::Span::new(span.start, span.start.saturating_add(1).min(span.end)),
        format!("{what} has no `{name}`"),
    );
    false
}
