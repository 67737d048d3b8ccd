//! How one file is read: only regular files, bounded, opened without blocking ([`read_regular`],
//! [`read`]); and where texts come from ([`TextSource`], [`Texts`]) and their hashes.

use super::MAX_FILE_BYTES;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What reading a file gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Content {
    Text(String),
    /// Not UTF-8, or binary (NUL bytes); the text is a lossy copy for display.
    NotText {
        lossy: String,
        offset: usize,
        reason: &'static str,
    },
    TooLarge {
        bytes: u64,
    },
    Error(String),
}

/// Why a file was not read.
#[derive(Debug)]
pub enum ReadError {
    /// A FIFO, socket, device or folder: what it is, for the message.
    NotRegular(&'static str),
    /// Larger than the limit the caller gave (the size seen).
    TooLarge(u64),
    Io(std::io::Error),
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadError::NotRegular(what) => write!(f, "it is {what}, not a regular file; capc reads only regular files"),
            ReadError::TooLarge(bytes) => write!(f, "it is {bytes} bytes, more than capc reads"),
            ReadError::Io(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for ReadError {}

/// What a file that is not a regular file is, in words.
fn file_kind(file_type: std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if file_type.is_fifo() {
            return "a named pipe (FIFO)";
        }
        if file_type.is_socket() {
            return "a socket";
        }
        if file_type.is_block_device() {
            return "a block device";
        }
        if file_type.is_char_device() {
            return "a character device";
        }
    }
    if file_type.is_dir() {
        "a folder"
    } else if file_type.is_symlink() {
        "a symbolic link"
    } else {
        "not a regular file"
    }
}

/// How [`read_regular`] opens a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Links {
    Follow,
    /// A symbolic link at the path itself is refused (lock files).
    Refuse,
}

/// Opens `path` for reading only if it is a regular file. The open never blocks (a FIFO
/// with no writer would otherwise hang it) and the type is checked on the opened handle, so
/// swapping the file between a check and the open gains nothing.
pub(crate) fn open_regular(path: &Path, links: Links) -> Result<(std::fs::File, u64), ReadError> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        let no_follow = if links == Links::Refuse { libc::O_NOFOLLOW } else { 0 };
        options.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY | no_follow);
    }
    let file = match options.open(path) {
        Ok(file) => file,
        Err(e) => {
            // A socket cannot be opened at all, a link is refused by O_NOFOLLOW: say what it is.
            let meta = match links {
                Links::Follow => std::fs::metadata(path),
                Links::Refuse => std::fs::symlink_metadata(path),
            };
            return Err(match meta {
                Ok(m) if !m.is_file() => ReadError::NotRegular(file_kind(m.file_type())),
                _ => ReadError::Io(e),
            });
        }
    };
    let meta = file.metadata().map_err(ReadError::Io)?;
    if !meta.is_file() {
        return Err(ReadError::NotRegular(file_kind(meta.file_type())));
    }
    Ok((file, meta.len()))
}

/// A regular file of at most `limit` bytes (see [`open_regular`]) opened to be read, with its
/// size: reading stops one byte past `limit`, so that a file that grows while it is read is
/// seen to be too large (more than `limit` bytes read).
pub(crate) fn open_within(
    path: &Path,
    limit: u64,
    links: Links,
) -> Result<(std::io::Take<std::fs::File>, u64), ReadError> {
    use std::io::Read;
    let (file, size) = open_regular(path, links)?;
    if size > limit {
        return Err(ReadError::TooLarge(size));
    }
    Ok((file.take(limit + 1), size))
}

/// The bytes of a regular file of at most `limit` bytes (see [`open_within`]).
pub fn read_regular(path: &Path, limit: u64, links: Links) -> Result<Vec<u8>, ReadError> {
    use std::io::Read;
    let (mut file, size) = open_within(path, limit, links)?;
    let mut bytes = Vec::with_capacity(size as usize + 1);
    file.read_to_end(&mut bytes).map_err(ReadError::Io)?;
    if bytes.len() as u64 > limit {
        return Err(ReadError::TooLarge(bytes.len() as u64));
    }
    Ok(bytes)
}

/// The bytes of a regular file of at most `limit` bytes, and whether its mode lets it run
/// (taken from the opened handle): a plugin's `bin/` file, hashed and never parsed.
pub(crate) fn read_program(path: &Path, limit: u64) -> Result<(Vec<u8>, bool), ReadError> {
    use std::io::Read;
    let (file, size) = open_regular(path, Links::Follow)?;
    if size > limit {
        return Err(ReadError::TooLarge(size));
    }
    #[cfg(unix)]
    let executable = {
        use std::os::unix::fs::PermissionsExt;
        file.metadata().is_ok_and(|m| m.permissions().mode() & 0o111 != 0)
    };
    #[cfg(not(unix))]
    let executable = true;
    let mut bytes = Vec::with_capacity(size as usize + 1);
    file.take(limit + 1).read_to_end(&mut bytes).map_err(ReadError::Io)?;
    if bytes.len() as u64 > limit {
        return Err(ReadError::TooLarge(bytes.len() as u64));
    }
    Ok((bytes, executable))
}

/// A source of declaration texts other than the disk: `capc lsp` answers with the unsaved
/// text of open buffers and with texts it read before, so an edit does not re-read the
/// repository. Paths are the ones a check reads by: a root as [`crate::Options`] gives it,
/// joined with a relative path.
pub trait TextSource: Send + Sync {
    /// What reading `path` gives; an implementation falls back on [`read`] for what it lacks.
    fn read(&self, path: &Path) -> Content;

    /// Files the source has that are not on disk (an editor's new, unsaved files), as absolute
    /// paths: a walk lists them as if they were saved ([`Tree::add_unsaved`]).
    fn unsaved(&self) -> Vec<PathBuf> {
        Vec::new()
    }

    /// [`content_hash`] of what `read` gives for `path`, when the source knows it without
    /// copying the text out (`None`: read it to know).
    fn stamp(&self, _path: &Path) -> Option<u64> {
        None
    }

    /// What `read` gives for `path` with its [`content_hash`], from one reading (a source that
    /// keeps the hashes of what it read gives the one it kept).
    fn read_stamped(&self, path: &Path) -> (Content, u64) {
        let content = self.read(path);
        let stamp = content_hash(&content);
        (content, stamp)
    }

    /// Whether the source has stopped answering (an editor's check superseded by a newer
    /// edit: its reads fail from then on). Once true it stays true, so a check that finds it
    /// false after computing something read nothing but real texts for it, and only then may
    /// keep it in a cache for the next checks.
    fn cancelled(&self) -> bool {
        false
    }
}

/// A hash of what a read gave, for a cache's keys.
pub fn content_hash(content: &Content) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    match content {
        Content::Text(text) => return text_hash(text),
        Content::NotText { lossy, offset, reason } => (1u8, lossy, offset, reason).hash(&mut h),
        Content::TooLarge { bytes } => (2u8, bytes).hash(&mut h),
        Content::Error(e) => (3u8, e).hash(&mut h),
    }
    h.finish()
}

/// [`content_hash`] of `Content::Text(text)`, without a copy of the text.
pub fn text_hash(text: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    (0u8, text).hash(&mut h);
    h.finish()
}

/// Where a check reads declaration texts: the disk ([`read`]) by default, or a [`TextSource`].
#[derive(Clone, Default)]
pub struct Texts(Option<Arc<dyn TextSource>>);

impl Texts {
    pub fn new(source: Arc<dyn TextSource>) -> Texts {
        Texts(Some(source))
    }

    /// Reads a declaration file from the source, or from the disk when there is none.
    pub fn read(&self, path: &Path) -> Content {
        match &self.0 {
            Some(source) => source.read(path),
            None => read(path),
        }
    }

    /// [`Texts::read`] with its [`content_hash`] ([`TextSource::read_stamped`]).
    pub fn read_stamped(&self, path: &Path) -> (Content, u64) {
        match &self.0 {
            Some(source) => source.read_stamped(path),
            None => {
                let content = read(path);
                let stamp = content_hash(&content);
                (content, stamp)
            }
        }
    }

    /// The source's [`TextSource::stamp`] of `path` (the disk has none).
    pub fn stamp(&self, path: &Path) -> Option<u64> {
        self.0.as_ref().and_then(|source| source.stamp(path))
    }

    /// The source's files that are not on disk (none for the disk itself).
    pub fn unsaved(&self) -> Vec<PathBuf> {
        self.0.as_ref().map(|source| source.unsaved()).unwrap_or_default()
    }

    /// [`TextSource::cancelled`] (the disk never is).
    pub fn cancelled(&self) -> bool {
        self.0.as_ref().is_some_and(|source| source.cancelled())
    }

    /// Whether texts are read from the disk itself (no [`TextSource`] over it).
    pub(crate) fn is_disk(&self) -> bool {
        self.0.is_none()
    }
}

impl std::fmt::Debug for Texts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() { "Texts(source)" } else { "Texts(disk)" })
    }
}

/// Reads a declaration file: a regular file of at most [`MAX_FILE_BYTES`], as text.
pub fn read(path: &Path) -> Content {
    let bytes = match read_regular(path, MAX_FILE_BYTES, Links::Follow) {
        Ok(bytes) => bytes,
        Err(ReadError::TooLarge(bytes)) => return Content::TooLarge { bytes },
        Err(e) => return Content::Error(e.to_string()),
    };
    match String::from_utf8(bytes) {
        Ok(text) => match text.find('\0') {
            Some(offset) => {
                Content::NotText { lossy: text.clone(), offset, reason: "contains NUL bytes (a binary file?)" }
            }
            None => Content::Text(text),
        },
        Err(e) => {
            let offset = e.utf8_error().valid_up_to();
            let lossy = String::from_utf8_lossy(e.as_bytes()).into_owned();
            // The lossy copy replaces bad bytes with U+FFFD; the valid prefix is unchanged.
            Content::NotText { lossy, offset, reason: "is not valid UTF-8" }
        }
    }
}
