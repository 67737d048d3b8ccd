//! A revision's tree extracted into a temporary folder: listed with `ls-tree`, streamed
//! with one `cat-file --batch`, bounded (each file, the total, link targets, paths) and
//! never written through a link.

use super::*;

/// At most this many bytes of file content are written when a revision is extracted: past it
/// the revision is refused rather than half read. Files over the walk's own cap do not count
/// (they are not written, see [`write_blob`]).
pub(super) const MAX_EXTRACT_BYTES: u64 = 1024 * 1024 * 1024;

/// A link's target longer than this is not a path (Linux's own limit is 4096 bytes).
const MAX_LINK_BYTES: u64 = 4096;

/// One blob of the tree to extract.
struct Blob {
    oid: String,
    /// Relative to the extraction root, `/`-separated, each part a plain name.
    rel: String,
    link: bool,
}

/// Writes the files under `prefix` at `commit` into `root` (`prefix` removed): `ls-tree`
/// lists them, one `cat-file --batch` process streams them all. Folders capc never reads
/// (`node_modules`, `target`, `.git`) are skipped; so are submodules.
///
/// The tree is hostile (git accepts on fetch a tree holding a link and a folder of the same
/// name), so nothing is written through anything but a folder this extraction made: every
/// parent is checked without following links, files are created new and never through a link,
/// and links are created only once every file is written, so no write can pass through one.
/// The walk then treats them as it treats links in a checkout (followed only inside the root).
/// A path whose parent is a file or a link, or that two entries claim, refuses the revision.
pub(super) fn extract(top: &Path, commit: &str, prefix: &str, root: &Path) -> Result<(), String> {
    std::fs::create_dir_all(root).map_err(|e| format!("cannot create {}: {e}", root.display()))?;
    let entries = list_tree(top, commit, prefix)?;
    if entries.is_empty() {
        return Ok(());
    }
    let mut child = git_command(top)
        .args(["cat-file", "--batch"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot run git: {e}"))?;
    let mut stdin = child.stdin.take().ok_or("git cat-file has no stdin")?;
    let oids: String = entries.iter().map(|entry| format!("{}\n", entry.oid)).collect();
    // Written from another thread: git answers while it reads, and both pipes are bounded.
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(oids.as_bytes());
    });
    let mut stdout = BufReader::new(child.stdout.take().ok_or("git cat-file has no stdout")?);
    let result = write_entries(&entries, &mut stdout, root);
    // Whatever stopped the writing, git is not left blocked on a full pipe.
    drop(stdout);
    let _ = child.kill();
    let _ = writer.join();
    let _ = child.wait();
    result
}

/// The blobs under `prefix` at `commit`, paths made relative to it.
fn list_tree(top: &Path, commit: &str, prefix: &str) -> Result<Vec<Blob>, String> {
    let mut args = vec!["ls-tree", "-r", "-z", "--full-tree", commit];
    if !prefix.is_empty() {
        args.extend(["--", prefix]);
    }
    // Streamed record by record and bounded, never read whole: a hostile tree may list
    // millions of entries or paths of any length.
    let mut child = git_command(top)
        .args(&args)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot run git: {e}"))?;
    let stdout = child.stdout.take().ok_or("git ls-tree has no stdout")?;
    let listed = read_listing(BufReader::new(stdout), commit, prefix);
    if listed.is_err() {
        let _ = child.kill();
    }
    let status = child.wait().map_err(|e| format!("cannot run git: {e}"))?;
    let entries = listed?;
    if !status.success() {
        return Err(format!("git cannot list the tree at {commit} ({status})"));
    }
    Ok(entries)
}

/// A path in a tree longer than this is refused (Linux's own limit on a path is 4096 bytes).
const MAX_TREE_PATH_BYTES: u64 = 4096;

/// Reads `ls-tree -r -z` records, at most [`crate::walk::MAX_ENTRIES`] of them, each at most
/// [`MAX_TREE_PATH_BYTES`] past its mode, type and id; paths made relative to `prefix`.
fn read_listing(mut listing: impl BufRead, commit: &str, prefix: &str) -> Result<Vec<Blob>, String> {
    let mut entries = Vec::new();
    let mut records = 0usize;
    let mut record = Vec::new();
    loop {
        record.clear();
        let read = listing
            .by_ref()
            .take(MAX_TREE_PATH_BYTES + 128)
            .read_until(0, &mut record)
            .map_err(|e| format!("cannot read git ls-tree: {e}"))?;
        if read == 0 {
            break;
        }
        if record.last() != Some(&0) && read as u64 >= MAX_TREE_PATH_BYTES + 128 {
            return Err(format!("the tree at {commit} holds a path longer than {MAX_TREE_PATH_BYTES} bytes"));
        }
        if record.last() == Some(&0) {
            record.pop();
        }
        if record.is_empty() {
            continue;
        }
        records += 1;
        if records > crate::walk::MAX_ENTRIES {
            return Err(format!("the tree at {commit} holds more than {} files", crate::walk::MAX_ENTRIES));
        }
        let record = String::from_utf8_lossy(&record);
        let Some((meta, path)) = record.split_once('\t') else { continue };
        let mut meta = meta.split(' ');
        let (mode, kind, oid) = (meta.next().unwrap_or(""), meta.next().unwrap_or(""), meta.next().unwrap_or(""));
        if kind != "blob" {
            continue;
        }
        let Some(rel) = path.strip_prefix(prefix) else { continue };
        let plain = rel.split('/').all(|p| {
            !(p.is_empty()
                || p == "."
                || p == ".."
                || p.contains('\\')
                || matches!(p, "node_modules" | "target" | ".git"))
        });
        if plain {
            entries.push(Blob { oid: oid.to_string(), rel: rel.to_string(), link: mode == "120000" });
        }
    }
    Ok(entries)
}

/// Reads each entry's blob from `cat-file --batch` output, in order, and writes it.
fn write_entries(entries: &[Blob], stdout: &mut impl BufRead, root: &Path) -> Result<(), String> {
    let mut folders = MadeFolders::new(root);
    let mut written: u64 = 0;
    let mut links: Vec<(&Blob, PathBuf, String)> = Vec::new();
    for entry in entries {
        let size = read_header(stdout, &entry.oid)?;
        let target = folders.parent_of(&entry.rel)?;
        if entry.link {
            let to = read_bounded(stdout, size, MAX_LINK_BYTES)?;
            if !folders.taken.insert(entry.rel.clone()) {
                return Err(clash(&entry.rel));
            }
            links.push((entry, target, String::from_utf8_lossy(&to).into_owned()));
            continue;
        }
        if size <= crate::walk::MAX_FILE_BYTES {
            written += size;
            if written > MAX_EXTRACT_BYTES {
                return Err(format!(
                    "the revision holds more than {MAX_EXTRACT_BYTES} bytes of files; compare a checkout of it instead"
                ));
            }
        }
        write_blob(stdout, size, &target, &entry.rel)?;
        folders.taken.insert(entry.rel.clone());
    }
    for (entry, target, to) in links {
        if folders.made.contains(&entry.rel) {
            return Err(clash(&entry.rel));
        }
        #[cfg(unix)]
        std::os::unix::fs::symlink(&to, &target).map_err(|e| format!("cannot create the link {}: {e}", entry.rel))?;
        #[cfg(not(unix))]
        let _ = (target, to);
    }
    Ok(())
}

fn clash(rel: &str) -> String {
    format!("the revision's tree holds `{rel}` twice, or below a file or link of the same name; git cannot check it out either")
}

/// The size `cat-file --batch` announces for `oid` (`<oid> blob <size>`).
fn read_header(stdout: &mut impl BufRead, oid: &str) -> Result<u64, String> {
    let mut header = Vec::new();
    // A header is a line of at most a hundred bytes; a longer one is not git's.
    (&mut *stdout).take(256).read_until(b'\n', &mut header).map_err(|e| e.to_string())?;
    let header = String::from_utf8_lossy(&header);
    let header = header.trim_end();
    if header.is_empty() {
        return Err(format!("git cat-file stopped before {oid}"));
    }
    let mut fields = header.split(' ');
    match (fields.next(), fields.next(), fields.next().and_then(|s| s.parse().ok())) {
        (Some(id), Some("blob"), Some(size)) if id == oid => Ok(size),
        _ if header.ends_with(" missing") => {
            Err(format!("the blob {oid} is missing from the repository (capc never fetches; run `git fetch` first)"))
        }
        _ => Err(format!("git cat-file answered `{header}` for {oid}")),
    }
}

/// The `size` bytes of a blob and the newline after them, when `size` is at most `limit`.
fn read_bounded(stdout: &mut impl BufRead, size: u64, limit: u64) -> Result<Vec<u8>, String> {
    if size > limit {
        return Err(format!("a link's target is {size} bytes long"));
    }
    let mut content = vec![0; size as usize + 1];
    stdout.read_exact(&mut content).map_err(|e| format!("reading from git: {e}"))?;
    content.truncate(size as usize);
    Ok(content)
}

/// Streams a blob of `size` bytes (and the newline after it) into a new file at `target`. A
/// blob over the walk's cap is not copied: the file is made that long but empty (sparse), so
/// the walk reports it as too large, as it would in a checkout, without it ever being stored.
fn write_blob(stdout: &mut impl BufRead, size: u64, target: &Path, rel: &str) -> Result<(), String> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW);
    }
    let mut file = options.open(target).map_err(|e| match e.kind() {
        std::io::ErrorKind::AlreadyExists => clash(rel),
        _ => format!("cannot write {}: {e}", target.display()),
    })?;
    let copied = if size > crate::walk::MAX_FILE_BYTES {
        file.set_len(size).map_err(|e| format!("cannot write {}: {e}", target.display()))?;
        std::io::copy(&mut (&mut *stdout).take(size), &mut std::io::sink())
    } else {
        std::io::copy(&mut (&mut *stdout).take(size), &mut file)
    }
    .map_err(|e| format!("reading {rel} from git: {e}"))?;
    let mut newline = [0u8; 1];
    if copied != size || stdout.read_exact(&mut newline).is_err() {
        return Err(format!("git cat-file stopped inside {rel}"));
    }
    Ok(())
}

/// The folders an extraction made, so a path's parents are checked once each, never through
/// a link: a parent that exists and is not one of them refuses the entry.
struct MadeFolders<'a> {
    root: &'a Path,
    made: std::collections::HashSet<String>,
    /// Paths a file or link holds.
    taken: std::collections::HashSet<String>,
}

impl<'a> MadeFolders<'a> {
    fn new(root: &'a Path) -> MadeFolders<'a> {
        MadeFolders { root, made: std::collections::HashSet::new(), taken: std::collections::HashSet::new() }
    }

    /// Makes the folders above `rel` (each a real folder made here) and returns its path.
    fn parent_of(&mut self, rel: &str) -> Result<PathBuf, String> {
        let mut at = String::new();
        let parts: Vec<&str> = rel.split('/').collect();
        for part in &parts[..parts.len() - 1] {
            if !at.is_empty() {
                at.push('/');
            }
            at.push_str(part);
            if self.made.contains(&at) {
                continue;
            }
            if self.taken.contains(&at) {
                return Err(clash(rel));
            }
            let path = self.root.join(&at);
            // `create_dir` fails on anything already there, a link included: nothing followed.
            std::fs::create_dir(&path).map_err(|e| match e.kind() {
                std::io::ErrorKind::AlreadyExists => clash(rel),
                _ => format!("cannot create {}: {e}", path.display()),
            })?;
            self.made.insert(at.clone());
        }
        if self.made.contains(rel) {
            return Err(clash(rel));
        }
        Ok(self.root.join(rel))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_listing_is_read_record_by_record_and_bounded() {
        let oid = "0".repeat(40);
        let listing = format!(
            "100644 blob {oid}\tsub/a.md\0120000 blob {oid}\tsub/link\0040000 tree {oid}\tsub/t\0100644 blob {oid}\tother/b.md\0"
        );
        let entries = read_listing(listing.as_bytes(), "c", "sub/").expect("read");
        let read: Vec<(&str, bool)> = entries.iter().map(|e| (e.rel.as_str(), e.link)).collect();
        assert_eq!(read, [("a.md", false), ("link", true)]);
        // A path longer than any file system takes stops the listing, however it goes on.
        let long = format!("100644 blob {oid}\t{}", "x".repeat(1 << 20));
        let error = read_listing(long.as_bytes(), "c", "").err().expect("refused");
        assert!(error.contains("longer than 4096 bytes"), "{error}");
    }
}
