//! `capc serve --watch`: the folder is polled, and after a save the lock is recomputed in
//! memory (as `capc lock` would write it; the file on disk is not touched) and served, with
//! `list_changed` for the lists that changed.
//!
//! Polling rather than file-system events: no new dependency, the same behaviour on every
//! platform and file system (network mounts, containers' bind mounts, editors that save by
//! renaming), and a bounded cost: one walk of the folder (the walk `capc lock` makes, without
//! reading files) and one `stat` per file every `INTERVAL`.

use super::Shared;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// How often the folder is looked at: a save is served within this plus one `capc lock`.
pub(crate) const INTERVAL: Duration = Duration::from_millis(150);

/// What a folder's files look like: a hash of each file's path, size and modification time,
/// in the walk's order. Only whether it changed is asked, so no map of every path is held
/// between two looks (nor two maps during one): on a 100,000-file tree that map was 20 MB.
type Fingerprint = u64;

fn fingerprint(folders: &[PathBuf]) -> Fingerprint {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    for folder in folders {
        let tree = capc_compiler::walk::walk(folder);
        (folder, tree.files.len()).hash(&mut h);
        for file in tree.files.iter() {
            let meta = std::fs::symlink_metadata(folder.join(file)).ok();
            (file, meta.map_or((0, None), |m| (m.len(), m.modified().ok()))).hash(&mut h);
        }
    }
    h.finish()
}

/// The folders a lock is made from: the project and the scope folders given.
fn folders(roots: &crate::loaded::Roots) -> Vec<PathBuf> {
    let mut out = vec![roots.root.clone()];
    out.extend(roots.user_dir.iter().map(|d| d.join(".claude")));
    out.extend(roots.managed_dir.iter().cloned());
    out.extend(roots.add_dirs.iter().map(|d| d.join(".claude")));
    out.extend(roots.plugin_dirs.iter().cloned());
    out.retain(|d: &PathBuf| Path::is_dir(d));
    out
}

/// Starts the watcher on its own thread; it lives as long as the process.
///
/// The first look at the folder is taken here, before the server answers anyone: a save a
/// client makes right after `initialize` is then a change, not part of the starting picture.
pub fn start(shared: Arc<Shared>) {
    let handle = tokio::runtime::Handle::current();
    let mut current = shared.rederive();
    let watched = folders(current.roots());
    let mut last = fingerprint(&watched);
    let spawned = std::thread::Builder::new().name("capc-serve-watch".to_string()).spawn(move || loop {
        std::thread::sleep(INTERVAL);
        let now = fingerprint(&watched);
        if now == last {
            continue;
        }
        last = now;
        let changed = saved(&shared, &mut current);
        if !changed.is_empty() {
            handle.block_on(shared.notify(&changed));
        }
    });
    if let Err(e) = spawned {
        eprintln!("capc: cannot watch the folder: {e}");
    }
}

/// What the watcher does after a save: the lock recomputed from `current`'s folders and
/// served; returns the lists that changed, for `list_changed`. The in-process serve
/// transcripts call it where they save a file. Between saves the watcher holds `current`, the
/// served lock shared with the session, not a copy of the session's state.
pub fn saved(shared: &Shared, current: &mut crate::loaded::Rederive) -> Vec<super::catalog::List> {
    match current.derive() {
        Ok(lock) if lock != *current.lock => {
            let loaded = current.reloaded(lock);
            *current = loaded.rederive();
            shared.reload(Some(loaded))
        }
        // Served again all the same: a skill's supporting file may have changed.
        Ok(_) => shared.reload(None),
        // Served as before until the folder checks again.
        // The error quotes the folder's files (names, a line of a declaration): escaped.
        Err(e) => {
            eprintln!(
                "capc: still serving the previous lock: {}",
                capc_compiler::printable::escape_lines(&e.to_string())
            );
            Vec::new()
        }
    }
}
