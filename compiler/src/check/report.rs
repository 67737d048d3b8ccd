//! The report stage, last of a check: the texts a report shows, then the findings in the
//! order every report prints them. Findings of the resolver and the measures may point into
//! files whose text was dropped as clean; a check from the disk without a cache notes where to
//! read such a text again when a report needs it (a large tree may have tens of thousands of
//! them); otherwise the text is read here and lent to the kept reading of its file, for the
//! next checks.

use super::checked::sort_diagnostics;
use super::placement::{left_out_local, locate};
use super::policy::Policed;
use super::{Checked, Options, SourceFile};
use crate::walk;
use std::collections::BTreeMap;
use std::sync::Arc;

/// The report stage: the finished check.
pub(super) fn report(options: &Options, policed: Policed) -> Checked {
    let Policed { mut all, pointed, kept } = policed;
    let reread = options.cache.is_none() && options.texts.is_disk();
    let mut read_now: Vec<usize> = Vec::new();
    for &at in &pointed {
        let file = &mut all.files[at];
        if file.text.is_some() {
            continue;
        }
        if reread {
            if file.reread.is_none() {
                file.reread = Some(locate(options, &file.path).into_boxed_path());
            }
            continue;
        }
        if let walk::Content::Text(text) = options.texts.read(&locate(options, &file.path)) {
            file.text = Some(text.into());
            read_now.push(at);
        }
    }
    drop(pointed);
    let lent: BTreeMap<&str, &Arc<str>> =
        read_now.iter().filter_map(|&at| Some((all.files[at].path.as_str(), all.files[at].text.as_ref()?))).collect();
    if !lent.is_empty() {
        for read in &kept {
            if let Some(text) = read.outcome.file.as_ref().and_then(|f| lent.get(f.path.as_str())) {
                let _ = read.text.set(Arc::clone(text));
            }
        }
    }
    drop(lent);
    drop(kept);
    sort_diagnostics(&mut all.diagnostics);
    if !options.skip_sources {
        all.sources = sources(options, &mut all.files);
    }
    all
}

/// The lock's list of sources: every file read, in the files' order (by path), with its hash
/// (each file's is freed as its entry is made); without the local files the lock leaves out.
fn sources(options: &Options, files: &mut [SourceFile]) -> Vec<crate::model::Source> {
    let mut sources = Vec::with_capacity(files.len());
    for file in files {
        let sha256 = file.sha256.take().map(|digest| crate::secrets::hex(&digest)).unwrap_or_default();
        if file.unlisted || (options.leave_out_local && left_out_local(options, &file.path)) {
            continue;
        }
        sources.push(crate::model::Source { path: file.path.clone(), kind: file.kind.as_str().to_string(), sha256 });
    }
    sources
}
