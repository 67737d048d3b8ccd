//! What every reader of the read stage is given ([`At`]) and fills ([`Made`]): a reader is a
//! [`Reader`], named for its kind in `file.rs`'s `reader` table.

use super::super::placement::Realm;
use super::super::Claim;
use crate::decl::{Counts, FileCx};
use crate::diagnostic::Sink;
use crate::model::Decl;
use crate::node::Node;

/// One claimed file, as every reader is given it.
#[derive(Clone, Copy)]
pub(super) struct At<'a> {
    pub(super) rel: &'a str,
    pub(super) claim: &'a Claim,
    pub(super) realm: Realm,
    /// The path shown.
    pub(super) path: &'a str,
    pub(super) text: &'a str,
    /// The keys `~/.claude.json` may file the checked project under.
    pub(super) project_keys: &'a [String],
}

/// What a reader makes of a file besides the findings, declarations and server names its
/// sink collects.
#[derive(Default)]
pub(super) struct Made {
    pub(super) counts: Counts,
    /// For skills, commands and agents: the name Claude Code gives it.
    pub(super) name: Option<String>,
    /// Declarations, after the sink's own.
    pub(super) decls: Vec<Decl>,
    /// What runs while an agent or skill runs: its frontmatter, its owner's name, whether an
    /// agent.
    pub(super) own_runs: Option<(Node, String, bool)>,
    /// The file, when a session started in the checked folder does not load it, and why.
    pub(super) not_loaded: Option<(String, String)>,
    /// The plugin (its root, as shown) Claude Code refuses to load because of this file, and why.
    pub(super) skips_plugin: Option<(String, String)>,
}

/// A reader of one kind of file.
pub(super) type Reader = fn(&mut Sink<'_>, &FileCx<'_>, &At<'_>, &mut Made);
