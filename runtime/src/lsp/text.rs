//! Texts the server checks: open buffers over a cache of what was read from disk, and the
//! conversion between byte offsets (capc's spans) and LSP positions (UTF-16 code units).

use capc_compiler::walk::{self, Content, TextSource};
use lsp_types::{Position, Range};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};

/// The open buffers at one moment, by the path a check reads them by.
pub(crate) type Buffers = BTreeMap<PathBuf, Arc<str>>;

/// What was read from disk, kept until the client says the file changed (`didSave`,
/// `didChangeWatchedFiles`) or closes its buffer, so a check after an edit reads nothing
/// but what changed: the hash of each file's text, not the text (the readings the check
/// keeps are found by the hash; a text is read again only when a reading needs it).
#[derive(Default)]
pub(crate) struct DiskCache {
    /// Each file's `walk::content_hash`, taken when it was read, and what reading it gave
    /// when that was no text (too large, not UTF-8, an error: rare, and boxed so that the
    /// entry of every other file is two words); by a hash of its path ([`path_key`]), not the
    /// path: on a large tree, a copy of every file's path would be most of the cache.
    texts: RwLock<HashMap<u64, Stamped>>,
    /// The tool surface the workspace's `capabilities.lock` recorded, read once until the lock
    /// changes (`invalid-mcp-tool-name`).
    surface: RwLock<Option<Arc<capc_compiler::surface::Recorded>>>,
    /// What each check keeps for the next: the folders' listings (forgotten with any file),
    /// each file's reading, the cross-file stage.
    pub(crate) check: Arc<capc_compiler::check::Cache>,
    /// Each file's findings as last converted, with a hash of its path as the report shows it,
    /// sorted by that hash (`analysis::convert`).
    pub(crate) converted: std::sync::Mutex<Vec<(u64, Converted)>>,
}

/// What [`DiskCache`] keeps a file's hash by: a hash of its path, however it is spelled (`a/./b`
/// and `a//b` are `a/b`, as `Path`s compare). A path already in that form (every path a check
/// reads, and every path an editor's event names) is hashed as its bytes, without taking it
/// apart: every lookup of a large tree's files pays for it.
fn path_key(path: &Path) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    if in_normal_form(path) {
        path.as_os_str().as_encoded_bytes().hash(&mut h);
    } else {
        path.components().collect::<PathBuf>().as_os_str().as_encoded_bytes().hash(&mut h);
    }
    h.finish()
}

/// Whether `path`'s bytes are those its components make again (no `.` after its start, no
/// doubled or trailing separator).
fn in_normal_form(path: &Path) -> bool {
    if cfg!(not(unix)) {
        return false;
    }
    let bytes = path.as_os_str().as_encoded_bytes();
    let doubled = bytes.windows(2).any(|w| w == b"//");
    let dot = bytes.windows(3).any(|w| w == b"/./") || bytes.ends_with(b"/.");
    let trailing = bytes.len() > 1 && bytes.ends_with(b"/");
    !(doubled || dot || trailing)
}

/// A file's `walk::content_hash`, with what reading it gave when that was no text.
type Stamped = (Option<Box<Content>>, u64);

/// A file's findings converted to LSP diagnostics (see `DiskCache::converted`).
#[derive(Clone)]
pub(crate) struct Converted {
    /// The stamp of the text the positions were computed on (the findings' hash is in
    /// `lsp`).
    pub(crate) stamp: u64,
    /// The file's URL as text, shared with every check and publication that names the file.
    pub(crate) url: super::shown::FileUrl,
    pub(crate) lsp: super::shown::Findings,
}

impl DiskCache {
    /// The text of `path` with its hash: what is kept when it was no text, else read now.
    fn read(&self, path: &Path) -> (Content, u64) {
        if let Some((Some(content), stamp)) = self.texts.read().ok().and_then(|t| t.get(&path_key(path)).cloned()) {
            return (*content, stamp);
        }
        self.load(path)
    }

    /// The hash of the text of `path` when it was read before; `None` (read it to know) when
    /// not: the reader then has the text at hand for the reading it makes, read once.
    fn stamp(&self, path: &Path) -> Option<u64> {
        self.texts.read().ok().and_then(|t| t.get(&path_key(path)).map(|(_, stamp)| *stamp))
    }

    /// Reads `path` and keeps its hash (and what it gave, when that was no text). A file read
    /// again gives the disk's text as it is now, with that text's hash.
    fn load(&self, path: &Path) -> (Content, u64) {
        // Read outside the lock: the check reads files in parallel.
        let content = walk::read(path);
        let stamp = walk::content_hash(&content);
        let kept = match &content {
            Content::Text(_) => None,
            other => Some(Box::new(other.clone())),
        };
        if let Ok(mut texts) = self.texts.write() {
            texts.insert(path_key(path), (kept, stamp));
        }
        (content, stamp)
    }

    /// The surface the lock in `root` recorded, from the cache.
    pub(crate) fn surface(&self, root: &Path) -> Arc<capc_compiler::surface::Recorded> {
        if let Some(surface) = self.surface.read().ok().and_then(|s| s.clone()) {
            return surface;
        }
        let surface =
            Arc::new(capc_compiler::surface::Recorded::read(&root.join(capc_compiler::lock::write::FILE_NAME)));
        if let Ok(mut cached) = self.surface.write() {
            *cached = Some(surface.clone());
        }
        surface
    }

    pub(crate) fn forget(&self, path: &Path) {
        if let Ok(mut texts) = self.texts.write() {
            texts.remove(&path_key(path));
        }
        // The file may be new, or gone: the folders are listed again.
        self.check.forget_walks();
        if path.file_name().is_some_and(|n| n == capc_compiler::lock::write::FILE_NAME) {
            if let Ok(mut surface) = self.surface.write() {
                *surface = None;
            }
        }
    }

    pub(crate) fn forget_all(&self) {
        if let Ok(mut texts) = self.texts.write() {
            texts.clear();
        }
        self.check.clear();
        if let Ok(mut converted) = self.converted.lock() {
            converted.clear();
        }
        if let Ok(mut surface) = self.surface.write() {
            *surface = None;
        }
    }
}

/// What one check reads: the buffers of its moment, then the disk cache.
#[derive(Clone)]
pub(crate) struct Snapshot {
    pub(crate) buffers: Arc<Buffers>,
    pub(crate) disk: Arc<DiskCache>,
    /// Set while the checker runs it: once a newer change is made, every further read fails
    /// at once, so a superseded check ends early (its result is then dropped unseen).
    pub(crate) cancel: Option<Cancel>,
}

/// The generation a check reads for, and the newest generation the main loop has made.
#[derive(Clone)]
pub(crate) struct Cancel {
    pub(crate) generation: u64,
    pub(crate) newest: Arc<AtomicU64>,
}

impl Cancel {
    pub(crate) fn is_superseded(&self) -> bool {
        self.newest.load(Ordering::Acquire) > self.generation
    }
}

impl TextSource for Snapshot {
    fn read(&self, path: &Path) -> Content {
        if self.cancelled() {
            return Content::Error("superseded by a newer change".to_string());
        }
        match self.buffers.get(path) {
            Some(text) => buffer_content(text),
            None => self.disk.read(path).0,
        }
    }

    fn read_stamped(&self, path: &Path) -> (Content, u64) {
        match self.buffers.get(path) {
            // The disk's text comes with the hash taken when it was read.
            None if !self.cancelled() => self.disk.read(path),
            _ => {
                let content = self.read(path);
                let stamp = walk::content_hash(&content);
                (content, stamp)
            }
        }
    }

    fn stamp(&self, path: &Path) -> Option<u64> {
        if self.cancelled() {
            return None;
        }
        Some(match self.buffers.get(path) {
            // A buffer read as text (the usual case) is hashed in place.
            Some(text) if reads_as_text(text) => walk::text_hash(text),
            Some(text) => walk::content_hash(&buffer_content(text)),
            None => self.disk.stamp(path)?,
        })
    }

    fn cancelled(&self) -> bool {
        self.cancel.as_ref().is_some_and(Cancel::is_superseded)
    }

    /// Open buffers of files that are not on disk (yet): checked as if they were saved.
    fn unsaved(&self) -> Vec<PathBuf> {
        self.buffers.keys().filter(|path| std::fs::symlink_metadata(path).is_err()).cloned().collect()
    }
}

/// An unsaved buffer as `walk::read` would have read it from disk: too large and NUL bytes
/// are refused the same way, so a buffer and its saved file get the same findings.
fn buffer_content(text: &str) -> Content {
    if reads_as_text(text) {
        return Content::Text(text.to_string());
    }
    if text.len() as u64 > walk::MAX_FILE_BYTES {
        return Content::TooLarge { bytes: text.len() as u64 };
    }
    let offset = text.find('\0').unwrap_or(0);
    Content::NotText { lossy: text.to_string(), offset, reason: "contains NUL bytes (a binary file?)" }
}

/// Whether [`buffer_content`] gives the buffer as text: not too large, no NUL byte.
fn reads_as_text(text: &str) -> bool {
    text.len() as u64 <= walk::MAX_FILE_BYTES && !text.contains('\0')
}

/// Line starts of a text, for positions in UTF-16 code units as LSP counts them.
pub(crate) struct Lines<'a> {
    text: &'a str,
    starts: Vec<usize>,
}

impl<'a> Lines<'a> {
    pub(crate) fn new(text: &'a str) -> Lines<'a> {
        let mut starts = vec![0];
        starts.extend(text.bytes().enumerate().filter(|(_, b)| *b == b'\n').map(|(i, _)| i + 1));
        Lines { text, starts }
    }

    /// The position of a byte offset (clamped to the text, moved back to a character start).
    pub(crate) fn position(&self, offset: usize) -> Position {
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.starts.partition_point(|&s| s <= offset) - 1;
        let start = self.starts[line];
        let character = self.text[start..offset].encode_utf16().count();
        Position::new(line as u32, character as u32)
    }

    pub(crate) fn range(&self, start: usize, end: usize) -> Range {
        Range::new(self.position(start), self.position(end))
    }

    /// The byte offset of a position; a line past the end is the end of the text, a character
    /// past the end of its line is the line's end (positions from clients may be stale).
    pub(crate) fn offset(&self, position: Position) -> usize {
        let Some(&start) = self.starts.get(position.line as usize) else { return self.text.len() };
        let end = self.starts.get(position.line as usize + 1).map_or(self.text.len(), |next| next - 1);
        let mut units = 0;
        for (i, c) in self.text[start..end].char_indices() {
            if units >= position.character as usize {
                return start + i;
            }
            units += c.len_utf16();
        }
        end
    }
}

/// Applies one `didChange` content change to `text`: a range edit, or the whole text.
pub(crate) fn apply_change(text: &mut String, change: lsp_types::TextDocumentContentChangeEvent) {
    match change.range {
        Some(range) => {
            let lines = Lines::new(text);
            let start = lines.offset(range.start);
            let end = lines.offset(range.end).max(start);
            text.replace_range(start..end, &change.text);
        }
        None => *text = change.text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file's hash is found by the path the check read it by and by the path an event
    /// names, spelled either way.
    #[test]
    fn a_path_is_kept_by_one_key_however_it_is_spelled() {
        let key = |p: &str| path_key(Path::new(p));
        assert_eq!(key("/w/.claude/skills/a/SKILL.md"), key("/w/./.claude//skills/a/SKILL.md"));
        assert_eq!(key("/w/a"), key("/w/a/"));
        assert_eq!(key("/w/a"), key("/w/a/."));
        assert_ne!(key("/w/a"), key("/w/b"));
        assert_ne!(key("/w/a"), key("w/a"));
        // A path in normal form is hashed as its bytes: those its components make again.
        for p in ["/w/a/b.md", "w/a", "./a", "/", "a.b/.c/..d"] {
            let path = Path::new(p);
            assert!(!cfg!(unix) || in_normal_form(path), "{p}");
            assert_eq!(path.components().collect::<PathBuf>().as_os_str(), path.as_os_str(), "{p}");
        }
        for p in ["/w//a", "/w/./a", "/w/a/", "/w/a/."] {
            assert!(!in_normal_form(Path::new(p)), "{p}");
        }
    }

    #[test]
    fn positions_count_utf16_code_units() {
        let text = "a: é😀x\nb";
        let lines = Lines::new(text);
        let x = text.find('x').expect("x");
        // `é` is one unit, the emoji two.
        assert_eq!(lines.position(x), Position::new(0, 6));
        assert_eq!(lines.offset(Position::new(0, 6)), x);
        assert_eq!(lines.position(text.len()), Position::new(1, 1));
        assert_eq!(lines.offset(Position::new(0, 99)), text.find('\n').expect("newline"));
        assert_eq!(lines.offset(Position::new(9, 0)), text.len());
    }

    #[test]
    fn changes_apply_in_order() {
        let mut text = "name: one\n".to_string();
        let edit = |sl, sc, el, ec, new: &str| lsp_types::TextDocumentContentChangeEvent {
            range: Some(Range::new(Position::new(sl, sc), Position::new(el, ec))),
            range_length: None,
            text: new.to_string(),
        };
        apply_change(&mut text, edit(0, 6, 0, 9, "two"));
        apply_change(&mut text, edit(1, 0, 1, 0, "x: y\n"));
        assert_eq!(text, "name: two\nx: y\n");
    }

    /// A buffer's stamp is the hash of what reading it gives, whether it reads as text, as
    /// a binary file or as too large, and so is a disk file's (a kept reading is keyed by it).
    #[test]
    fn a_buffer_stamp_is_the_hash_of_its_reading() {
        let big = "x".repeat(walk::MAX_FILE_BYTES as usize + 1);
        for text in ["name: one\n", "a\0b", big.as_str()] {
            let path = PathBuf::from("/w/SKILL.md");
            let buffers: Buffers = [(path.clone(), Arc::from(text))].into_iter().collect();
            let snapshot = Snapshot { buffers: Arc::new(buffers), disk: Arc::default(), cancel: None };
            let stamp = walk::TextSource::stamp(&snapshot, &path);
            let read = walk::TextSource::read(&snapshot, &path);
            assert_eq!(stamp, Some(walk::content_hash(&read)));
            assert_eq!(walk::TextSource::read_stamped(&snapshot, &path), (read, stamp.expect("a stamp")));
        }
        // A file on disk: its text and the hash taken when it was read, once kept as before.
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("SKILL.md");
        std::fs::write(&path, "name: disk\n").expect("write");
        let snapshot = Snapshot { buffers: Arc::default(), disk: Arc::default(), cancel: None };
        let first = walk::TextSource::read_stamped(&snapshot, &path);
        assert_eq!(first, (walk::Content::Text("name: disk\n".into()), walk::text_hash("name: disk\n")));
        assert_eq!(walk::TextSource::stamp(&snapshot, &path), Some(first.1));
        assert_eq!(walk::TextSource::read_stamped(&snapshot, &path), first);
    }
}
