//! Byte spans into a file's text: the grammar crate's type, shared so that spans found
//! inside a string shift onto the file without conversion.

pub use capc_grammar::Span;
