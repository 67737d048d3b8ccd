//! The value tree every declaration is read into, whether it came from JSON or from
//! YAML frontmatter. Every key and value keeps the byte span it came from, so checks
//! written once point precisely into either format.

use crate::span::Span;
use std::fmt::Write as _;

#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub kind: NodeKind,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub enum NodeKind {
    Null,
    Bool(bool),
    /// The number as written: declarations only compare and echo numbers.
    Number(String),
    String(String),
    Array(Vec<Node>),
    /// Entries in source order; duplicates are kept so they can be reported.
    Object(Vec<(Key, Node)>),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Key {
    pub name: String,
    pub span: Span,
}

impl Node {
    pub fn as_str(&self) -> Option<&str> {
        match &self.kind {
            NodeKind::String(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self.kind {
            NodeKind::Bool(b) => Some(b),
            _ => None,
        }
    }

    pub fn as_array(&self) -> Option<&[Node]> {
        match &self.kind {
            NodeKind::Array(items) => Some(items),
            _ => None,
        }
    }

    pub fn as_object(&self) -> Option<&[(Key, Node)]> {
        match &self.kind {
            NodeKind::Object(entries) => Some(entries),
            _ => None,
        }
    }

    /// The last value of `key` (JavaScript's `JSON.parse` keeps the last duplicate).
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.as_object()?.iter().rev().find(|(k, _)| k.name == key).map(|(_, v)| v)
    }

    pub(crate) fn get_entry(&self, key: &str) -> Option<(&Key, &Node)> {
        self.as_object()?.iter().rev().find(|(k, _)| k.name == key).map(|(k, v)| (k, v))
    }

    /// A short noun for messages: "a string", "an array", …
    pub(crate) fn type_name(&self) -> &'static str {
        match self.kind {
            NodeKind::Null => "null",
            NodeKind::Bool(_) => "a boolean",
            NodeKind::Number(_) => "a number",
            NodeKind::String(_) => "a string",
            NodeKind::Array(_) => "an array",
            NodeKind::Object(_) => "an object",
        }
    }

    /// A compact rendering with spans, for tests: `{a@1..4: [1@7..8]@6..9}@0..10`.
    pub(crate) fn debug_tree(&self) -> String {
        let mut out = String::new();
        self.write_tree(&mut out);
        out
    }

    fn write_tree(&self, out: &mut String) {
        match &self.kind {
            NodeKind::Null => out.push_str("null"),
            NodeKind::Bool(b) => {
                let _ = write!(out, "{b}");
            }
            NodeKind::Number(n) => out.push_str(n),
            NodeKind::String(s) => {
                let _ = write!(out, "{s:?}");
            }
            NodeKind::Array(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    item.write_tree(out);
                }
                out.push(']');
            }
            NodeKind::Object(entries) => {
                out.push('{');
                for (i, (key, value)) in entries.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    let _ = write!(out, "{}@{}..{}: ", key.name, key.span.start, key.span.end);
                    value.write_tree(out);
                }
                out.push('}');
            }
        }
        let _ = write!(out, "@{}..{}", self.span.start, self.span.end);
    }
}
