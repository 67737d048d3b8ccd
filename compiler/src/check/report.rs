//! The report stage, last of a check: the texts a report shows, then the findings in the
//! order every report prints them. Findings of the resolver and the measures may point into
//! files whose text was dropped as clean; a check from the disk without a cache notes where to
//! read such a text again when a report needs it (a large tree may have tens of thousands of
//! them); otherwise the text is read here and lent to the kept reading of its file, for the
//! next checks.

use super::checked::sort_diagnostics;
use super::placement::locate;
use super::policy::Policed;
use super::{Checked, Options};
use crate::walk;
use std::collections::BTreeMap;
use std::sync::Arc;

/// The report stage: the finished check.
pub(super) fn report(options: &Options, policed: Policed) -> Checked {
    let Policed { mut all, pointed, kept } = policed;
    // (`pointed` is sorted by path, as `files` is: one pass over both.)
    let reread = options.cache.is_none() && options.texts.is_disk();
    let mut lent: BTreeMap<&str, Arc<str>> = BTreeMap::new();
    let mut at = 0;
    for path in &pointed {
        while at < all.files.len() && all.files[at].path < *path {
            at += 1;
        }
        let Some(file) = all.files.get_mut(at).filter(|f| f.path == *path && f.text.is_none()) else { continue };
        if reread {
            if file.reread.is_none() {
                file.reread = Some(locate(options, path));
            }
            continue;
        }
        if let walk::Content::Text(text) = options.texts.read(&locate(options, path)) {
            let text: Arc<str> = text.into();
            file.text = Some(text.clone());
            lent.insert(path, text);
        }
    }
    if !lent.is_empty() {
        for read in &kept {
            if let Some(text) = read.outcome.file.as_ref().and_then(|f| lent.get(f.path.as_str())) {
                let _ = read.text.set(text.clone());
            }
        }
    }
    drop(lent);
    drop(kept);
    sort_diagnostics(&mut all.diagnostics);
    all
}
