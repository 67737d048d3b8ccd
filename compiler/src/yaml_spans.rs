//! Exact spans for frontmatter values. serde_yaml decides what the YAML means (and whether
//! it is valid); saphyr-parser, a second YAML reader that reports where every event starts
//! and ends, only supplies positions. The two trees are walked side by side, and wherever
//! they disagree in shape the coarser span already on the node is kept.

use crate::node::{Node, NodeKind};
use crate::span::Span;
use saphyr_parser::{Event, Parser};

/// The shape of a YAML document with a span for every node.
#[derive(Debug)]
enum Shape {
    Leaf(Span),
    Seq(Span, Vec<Shape>),
    Map(Span, Vec<(Span, Shape)>),
}

impl Shape {
    fn span(&self) -> Span {
        match self {
            Shape::Leaf(s) | Shape::Seq(s, _) | Shape::Map(s, _) => *s,
        }
    }
}

/// Refines the spans of `node` (read from `yaml`, which starts at byte `offset` of the file).
pub(crate) fn refine(node: &mut Node, yaml: &str, offset: usize) {
    if let Some(shape) = shape(yaml, offset) {
        overlay(node, &shape);
    }
}

fn shape(yaml: &str, offset: usize) -> Option<Shape> {
    // Markers count characters; map them to bytes.
    let bytes_at: Vec<usize> = yaml.char_indices().map(|(i, _)| i).chain(std::iter::once(yaml.len())).collect();
    let to_span = |s: saphyr_parser::Span| {
        let start = *bytes_at.get(s.start.index())?;
        let end = *bytes_at.get(s.end.index())?;
        Some(Span::new(offset + start, offset + end.max(start)))
    };
    enum Open {
        Seq(Span, Vec<Shape>),
        Map(Span, Vec<(Span, Shape)>, Option<Span>),
    }
    let mut stack: Vec<Open> = Vec::new();
    let mut root = None;
    let mut events = 0usize;
    for item in Parser::new_from_str(yaml) {
        let (event, span) = item.ok()?;
        events += 1;
        if events > 100_000 {
            return None;
        }
        let span = to_span(span)?;
        let done = match event {
            Event::Scalar(_, style, ..) => {
                // Block scalars (`|`, `>`) run to the next key; drop the trailing blank lines.
                let mut span = span;
                if matches!(style, saphyr_parser::ScalarStyle::Literal | saphyr_parser::ScalarStyle::Folded) {
                    let text = &yaml[span.start - offset..span.end - offset];
                    span.end = span.start + text.trim_end().len();
                }
                Some(Shape::Leaf(span))
            }
            Event::Alias(_) => Some(Shape::Leaf(span)),
            Event::SequenceStart(..) => {
                stack.push(Open::Seq(span, Vec::new()));
                None
            }
            Event::MappingStart(..) => {
                stack.push(Open::Map(span, Vec::new(), None));
                None
            }
            Event::SequenceEnd | Event::MappingEnd => match stack.pop()? {
                Open::Seq(start, items) => Some(Shape::Seq(Span::new(start.start, span.end.max(start.start)), items)),
                Open::Map(start, entries, _) => {
                    Some(Shape::Map(Span::new(start.start, span.end.max(start.start)), entries))
                }
            },
            _ => None,
        };
        let Some(done) = done else { continue };
        // Attach the finished node to its parent, or make it the root.
        match stack.last_mut() {
            None => {
                root.get_or_insert(done);
            }
            Some(Open::Seq(_, items)) => items.push(done),
            Some(Open::Map(_, entries, pending)) => match pending.take() {
                None => *pending = Some(done.span()),
                Some(key) => entries.push((key, done)),
            },
        }
    }
    root
}

fn overlay(node: &mut Node, shape: &Shape) {
    match (&mut node.kind, shape) {
        (NodeKind::Array(items), Shape::Seq(span, shapes)) if items.len() == shapes.len() => {
            node.span = *span;
            for (item, shape) in items.iter_mut().zip(shapes) {
                overlay(item, shape);
            }
        }
        (NodeKind::Object(entries), Shape::Map(span, shapes)) if entries.len() == shapes.len() => {
            node.span = *span;
            for ((key, value), (key_span, shape)) in entries.iter_mut().zip(shapes) {
                key.span = *key_span;
                overlay(value, shape);
            }
        }
        (NodeKind::Array(_) | NodeKind::Object(_), _) => {}
        (_, Shape::Leaf(span)) => node.span = *span,
        // A scalar where saphyr saw a collection: the parsers disagree; keep the coarse span.
        (_, Shape::Seq(..) | Shape::Map(..)) => {}
    }
}
