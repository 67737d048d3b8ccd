//! The vocabulary the compiler's two halves share: what readers declare (`decl`) and what
//! the lock holds (`lock`). Readers (`decl/`) and the resolver (`lock/`) both import this
//! module; it imports neither, so a change to how a file is read never reaches the
//! resolver except through these types.

pub mod decl;
pub mod lock;
mod thin;

pub(crate) use decl::ServerRef;
pub use decl::{Decl, Item, PartKind, Placement, PluginFolder, PolicyEntry};
pub use lock::*;
pub use thin::ThinStr;
