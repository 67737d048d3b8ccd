//! The report stage, last of a check: the texts a report shows, then the findings in the
//! order every report prints them. Findings of the resolver and the measures may point into
//! files whose text was dropped as clean; a check from the disk, or one with a cache (`capc
//! lsp`, which keeps what it showed of a file until the file or its findings change), notes
//! where to read such a text again when a report needs it (a large tree may have tens of
//! thousands of them); otherwise the text is read here.

use super::checked::sort_diagnostics;
use super::placement::{left_out_local, locate};
use super::policy::Policed;
use super::{Checked, Options, SourceFile};
use crate::walk;
use std::sync::Arc;

/// The report stage: the finished check.
pub(super) fn report(options: &Options, policed: Policed) -> Checked {
    let Policed { mut all, pointed } = policed;
    let reread = options.cache.is_some() || options.texts.is_disk();
    for &at in &pointed {
        let file = &all.files[at];
        if file.text.is_some() {
            continue;
        }
        if reread {
            // Through the shared file: a kept reading's keeps it for the checks after.
            file.reread.get_or_init(|| Box::new(locate(options, &file.path)));
            continue;
        }
        if let walk::Content::Text(text) = options.texts.read(&locate(options, &file.path)) {
            Arc::make_mut(&mut all.files[at]).text = Some(text.into());
        }
    }
    drop(pointed);
    sort_diagnostics(&mut all.diagnostics);
    if !options.skip_sources {
        all.sources = sources(options, &mut all.files);
    }
    all
}

/// The lock's list of sources: every file read, in the files' order (by path), with its hash
/// (each file's is freed as its entry is made); without the local files the lock leaves out.
fn sources(options: &Options, files: &mut [Arc<SourceFile>]) -> Vec<crate::model::Source> {
    let mut sources = Vec::with_capacity(files.len());
    for file in files {
        // A file a cache keeps too keeps its hash.
        let sha256 = match Arc::get_mut(file) {
            Some(own) => own.sha256.take(),
            None => file.sha256.clone(),
        };
        let sha256 = sha256.map(|digest| crate::secrets::hex(&digest)).unwrap_or_default();
        if file.unlisted || (options.leave_out_local && left_out_local(options, &file.path)) {
            continue;
        }
        sources.push(crate::model::Source { path: file.path.to_string(), kind: file.kind.as_str().into(), sha256 });
    }
    sources
}
