//! `capc serve --watch`: the folder is polled, and after a save the lock is recomputed in
//! memory (as `capc lock` would write it; the file on disk is not touched) and served, with
//! `list_changed` for the lists that changed.
//!
//! Polling rather than file-system events: no new dependency, the same behaviour on every
//! platform and file system (network mounts, containers' bind mounts, editors that save by
//! renaming), and a bounded cost: one walk of the folder (the walk `capc lock` makes, without
//! reading files) and one `stat` per file every `INTERVAL`, or, on a folder so large that a
//! look takes longer than a tenth of that, ten times as long as the last look took ([`pause`]).

use super::Shared;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// How often the folder is looked at: a save is served within this plus one `capc lock`.
pub(crate) const INTERVAL: Duration = Duration::from_millis(150);

/// How long the watcher waits before its next look, when the last took `looked`: `INTERVAL`,
/// or ten times `looked` when that is longer, so that looking takes at most a tenth of the
/// time. On a 100,000-file tree a look takes about 0.65 s on two cores: looking again 150 ms
/// after each, the watcher kept more than a core busy while nothing changed (docs/serve.md).
pub(crate) fn pause(looked: Duration) -> Duration {
    INTERVAL.max(looked.saturating_mul(10))
}

/// What a folder's files look like: a hash of each file's path, size and modification time,
/// in the walk's order. Only whether it changed is asked, so no map of every path is held
/// between two looks (nor two maps during one): on a 100,000-file tree that map was 20 MB.
type Fingerprint = u64;

/// One look at `folders`: their fingerprint, and how long taking it took.
fn look(folders: &[PathBuf]) -> (Fingerprint, Duration) {
    let started = std::time::Instant::now();
    let fingerprint = fingerprint(folders);
    (fingerprint, started.elapsed())
}

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
    let (mut last, mut looked) = look(&watched);
    let spawned = std::thread::Builder::new().name("capc-serve-watch".to_string()).spawn(move || loop {
        std::thread::sleep(pause(looked));
        let (now, took) = look(&watched);
        looked = took;
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

#[cfg(test)]
mod tests {
    use super::{pause, INTERVAL};
    use std::time::Duration;

    #[test]
    fn a_quick_look_waits_the_interval_and_a_slow_one_ten_times_its_length() {
        assert_eq!(pause(Duration::ZERO), INTERVAL);
        assert_eq!(pause(Duration::from_millis(2)), INTERVAL);
        assert_eq!(pause(Duration::from_millis(15)), INTERVAL);
        assert_eq!(pause(Duration::from_millis(16)), Duration::from_millis(160));
        assert_eq!(pause(Duration::from_millis(200)), Duration::from_secs(2));
        assert_eq!(pause(Duration::MAX), Duration::MAX);
    }
}
