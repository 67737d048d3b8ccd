//! `walk-hash DIR < LIST`: the least that any tool locking DIR has to do, for `bench/lock.sh`.
//!
//! `sha256sum` of capc's files (the hashing floor) is handed the list of files; capc
//! has to find them. This walks DIR in parallel, as capc does, into every folder capc enters
//! (the same [`is_skipped_dir`] rule), and hashes with SHA-256 the files named in LIST: capc's
//! own `check --list-files`, as NUL-separated paths that start with DIR. It prints
//! `digest  path` lines sorted by path, as `sha256sum` would, and parses nothing. What capc
//! takes beyond this is its own work: reading declarations, checking, resolving, writing.
//!
//! Not a capc feature and not installed: a workspace member only so it builds with the same
//! dependencies. Symbolic links are not followed (the shared corpora have none that capc
//! follows); `bench/lock.sh` compares the digests printed here with `sha256sum`'s.

use capc_compiler::walk::is_skipped_dir;
use rayon::prelude::*;
use sha2::{Digest, Sha256};
use std::collections::HashSet;
use std::fmt::Write as _;
use std::io::{Read, Write};
use std::path::Path;
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut args = std::env::args_os().skip(1);
    let (Some(dir), None) = (args.next(), args.next()) else {
        eprintln!("usage: walk-hash DIR < LIST   (LIST: NUL-separated paths under DIR)");
        return ExitCode::from(2);
    };
    let mut list = Vec::new();
    if let Err(e) = std::io::stdin().read_to_end(&mut list) {
        eprintln!("walk-hash: cannot read the list on standard input: {e}");
        return ExitCode::from(2);
    }
    let wanted: HashSet<&[u8]> = list.split(|&b| b == 0).filter(|p| !p.is_empty()).collect();
    let Some(root) = dir.to_str().map(|d| d.trim_end_matches('/').to_string()) else {
        eprintln!("walk-hash: DIR must be UTF-8");
        return ExitCode::from(2);
    };
    let mut hashed = walk(Path::new(&root), &root, &wanted);
    hashed.sort_unstable();
    let mut out = String::new();
    for (path, digest) in &hashed {
        for byte in digest {
            let _ = write!(out, "{byte:02x}");
        }
        let _ = writeln!(out, "  {path}");
    }
    match std::io::stdout().lock().write_all(out.as_bytes()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("walk-hash: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The listed files under `dir` (whose path is `shown`), each with its SHA-256.
fn walk(dir: &Path, shown: &str, wanted: &HashSet<&[u8]>) -> Vec<(String, [u8; 32])> {
    let mut hashed = Vec::new();
    let mut subdirs = Vec::new();
    let Ok(read) = std::fs::read_dir(dir) else { return hashed };
    for entry in read.filter_map(Result::ok) {
        let Ok(name) = entry.file_name().into_string() else { continue };
        let Ok(file_type) = entry.file_type() else { continue };
        let path = format!("{shown}/{name}");
        if file_type.is_dir() {
            if !is_skipped_dir(&name) {
                subdirs.push((entry.path(), path));
            }
        } else if wanted.contains(path.as_bytes()) {
            if let Ok(bytes) = std::fs::read(entry.path()) {
                hashed.push((path, Sha256::digest(&bytes).into()));
            }
        }
    }
    let below: Vec<_> = subdirs.into_par_iter().map(|(dir, shown)| walk(&dir, &shown, wanted)).collect();
    hashed.extend(below.into_iter().flatten());
    hashed
}
