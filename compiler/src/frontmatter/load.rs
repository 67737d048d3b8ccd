//! YAML read into a `Node` through serde_yaml, with the error's span.

use crate::node::{Key, Node, NodeKind};
use crate::span::Span;

pub(super) struct YamlError {
    pub(super) span: Span,
    pub(super) message: String,
}

pub(super) fn load(yaml: &str) -> Result<Node, YamlError> {
    serde_yaml::from_str::<NodeDocument>(yaml).map(|l| l.0).map_err(|e| {
        let offset = e.location().map_or(0, |l| l.index().min(yaml.len()));
        let mut start = offset;
        while !yaml.is_char_boundary(start) {
            start -= 1;
        }
        let mut end = (start + 1).min(yaml.len());
        while !yaml.is_char_boundary(end) {
            end += 1;
        }
        // serde_yaml appends " at line L column C"; our span carries that.
        let text = e.to_string();
        let message = match text.find(" at line ") {
            Some(i) => text[..i].to_string(),
            None => text,
        };
        YamlError { span: Span::new(start, end), message }
    })
}

/// A YAML document read straight into a `Node` (spans are filled in afterwards).
struct NodeDocument(Node);

impl<'de> serde::Deserialize<'de> for NodeDocument {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<NodeDocument, D::Error> {
        deserializer.deserialize_any(NodeVisitor).map(NodeDocument)
    }
}

struct NodeVisitor;

fn leaf(kind: NodeKind) -> Node {
    Node { kind, span: Span::default() }
}

impl<'de> serde::de::Visitor<'de> for NodeVisitor {
    type Value = Node;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a YAML value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Node, E> {
        Ok(leaf(NodeKind::Bool(v)))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Node, E> {
        Ok(leaf(NodeKind::Number(v.to_string())))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Node, E> {
        Ok(leaf(NodeKind::Number(v.to_string())))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Node, E> {
        Ok(leaf(NodeKind::Number(serde_yaml::Number::from(v).to_string())))
    }
    fn visit_str<E>(self, v: &str) -> Result<Node, E> {
        Ok(leaf(NodeKind::String(v.to_string())))
    }
    fn visit_string<E>(self, v: String) -> Result<Node, E> {
        Ok(leaf(NodeKind::String(v)))
    }
    fn visit_unit<E>(self) -> Result<Node, E> {
        Ok(leaf(NodeKind::Null))
    }
    fn visit_none<E>(self) -> Result<Node, E> {
        Ok(leaf(NodeKind::Null))
    }
    fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<Node, D::Error> {
        d.deserialize_any(NodeVisitor)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Node, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(64));
        while let Some(NodeDocument(item)) = seq.next_element::<NodeDocument>()? {
            items.push(item);
        }
        Ok(leaf(NodeKind::Array(items)))
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Node, A::Error> {
        let mut entries: Vec<(Key, Node)> = Vec::new();
        while let Some(NodeDocument(key)) = map.next_key::<NodeDocument>()? {
            let NodeDocument(value) = map.next_value::<NodeDocument>()?;
            // Duplicate keys are kept: Claude Code loads such frontmatter (the last value
            // wins), and the field check reports the repetition (`duplicate-key`).
            entries.push((Key { name: scalar_key(&key), span: Span::default() }, value));
        }
        Ok(leaf(NodeKind::Object(entries)))
    }
    fn visit_enum<A: serde::de::EnumAccess<'de>>(self, data: A) -> Result<Node, A::Error> {
        // A tagged value (`!tag value`): the tag has no meaning here; keep the value.
        use serde::de::VariantAccess;
        let (_tag, variant) = data.variant::<String>()?;
        variant.newtype_variant::<NodeDocument>().map(|l| l.0)
    }
}

fn scalar_key(key: &Node) -> String {
    match &key.kind {
        NodeKind::String(s) | NodeKind::Number(s) => s.clone(),
        NodeKind::Bool(b) => b.to_string(),
        NodeKind::Null => "null".to_string(),
        _ => key.debug_tree(),
    }
}
