//! Byte spans into a file's text.

/// A half-open byte range `start..end`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

impl Span {
    pub fn new(start: usize, end: usize) -> Span {
        Span { start, end }
    }
    /// Moves a span found inside a substring onto the enclosing text.
    pub fn shift(self, by: usize) -> Span {
        Span { start: self.start + by, end: self.end + by }
    }
    pub fn len(self) -> usize {
        self.end - self.start
    }
    pub fn is_empty(self) -> bool {
        self.start == self.end
    }
}
