//! The module layers of every crate, against the list in ARCHITECTURE.md (its ```` ```layers ````
//! block): the `crate::`, `super::` and `self::` paths of each source file (in `use` items and
//! in code; comments, string literals and `#[cfg(test)]` modules left out) are resolved to the
//! file that defines what they name, following `pub use` re-exports, and
//!
//! * no two files may reach each other, directly or round a circle;
//! * a file may use only top-level modules on lines above its own in the crate's list, and
//!   every top-level module must be on exactly one line, so the list cannot drift from the code.
//!
//! A folder's `mod.rs` (and a library's `lib.rs`) declares its files and re-exports from them:
//! its arrows down into its own folder are not counted. A binary's `main.rs` is code like any
//! other.
//!
//! Inside one folder, the same arrows hold `capc check`'s stages to their order (the
//! ```` ```stages ```` block): a file of `compiler/src/check/` may use only the files listed above
//! its own, so no stage calls back into an earlier one.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The crates' layer lists, lowest line first: `(package folder, lines of module names)`.
fn layer_lists() -> Vec<(String, Vec<Vec<String>>)> {
    let text = std::fs::read_to_string(repo().join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let start = text.find("```layers\n").expect("ARCHITECTURE.md has a ```layers block") + "```layers\n".len();
    let end = start + text[start..].find("```").expect("the layers block is closed");
    let block: Vec<&str> = text[start..end].lines().filter(|l| !l.trim().is_empty()).collect();
    // The block may be indented as a whole (it sits in a list item).
    let indent = block.iter().map(|l| l.len() - l.trim_start().len()).min().unwrap_or(0);
    let mut lists: Vec<(String, Vec<Vec<String>>)> = Vec::new();
    for line in block.iter().map(|l| &l[indent..]) {
        if let Some(folder) = line.strip_suffix(':').filter(|_| !line.starts_with(' ')) {
            lists.push((folder.to_string(), Vec::new()));
        } else {
            let (_, layers) = lists.last_mut().expect("a layer line after a `folder:` line");
            layers.push(line.split_whitespace().map(str::to_string).collect());
        }
    }
    lists
}

/// Every `.rs` file under `src`, by module path (`decl::hooks`; the crate root is `lib` or
/// `main`), except `tests.rs` files (test modules of their folder).
fn modules(src: &Path) -> BTreeMap<Vec<String>, PathBuf> {
    fn walk(dir: &Path, src: &Path, out: &mut BTreeMap<Vec<String>, PathBuf>) {
        let mut entries: Vec<PathBuf> =
            std::fs::read_dir(dir).expect("a source folder").map(|e| e.expect("an entry").path()).collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                walk(&path, src, out);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") || path.file_name().is_some_and(|n| n == "tests.rs") {
                continue;
            }
            let rel = path.strip_prefix(src).expect("under src").with_extension("");
            let mut segments: Vec<String> = rel.iter().map(|s| s.to_string_lossy().into_owned()).collect();
            if segments.last().is_some_and(|s| s == "mod") {
                segments.pop();
            }
            if segments.len() == 1 && (segments[0] == "lib" || segments[0] == "main") {
                segments.clear();
            }
            out.insert(segments, path);
        }
    }
    let mut out = BTreeMap::new();
    walk(src, src, &mut out);
    out
}

/// The code of a file with comments and string and character literals blanked (their bytes
/// replaced by spaces, so braces and paths inside them do not count) and `#[cfg(test)]`
/// modules removed.
fn code(text: &str) -> String {
    without_test_modules(blanked(text))
}

/// `text` with its comments and string and character literals blanked: each of their bytes but
/// newlines replaced by a space.
fn blanked(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = b.to_vec();
    let blank = |out: &mut Vec<u8>, from: usize, to: usize| {
        for c in &mut out[from..to.min(b.len())] {
            if *c != b'\n' {
                *c = b' ';
            }
        }
    };
    let mut i = 0;
    while i < b.len() {
        let rest = &b[i..];
        if rest.starts_with(b"//") {
            let end = rest.iter().position(|&c| c == b'\n').map_or(b.len(), |n| i + n);
            blank(&mut out, i, end);
            i = end;
        } else if rest.starts_with(b"/*") {
            let (mut depth, mut j) = (1, i + 2);
            while j < b.len() && depth > 0 {
                if b[j..].starts_with(b"/*") {
                    depth += 1;
                    j += 1;
                } else if b[j..].starts_with(b"*/") {
                    depth -= 1;
                    j += 1;
                }
                j += 1;
            }
            blank(&mut out, i, j);
            i = j;
        } else if let Some(hashes) = raw_string_start(b, i) {
            // A raw string: r"…", r#"…"#, br"…".
            let prefix = if b[i] == b'b' { 2 } else { 1 };
            let close: Vec<u8> = std::iter::once(b'"').chain(std::iter::repeat_n(b'#', hashes)).collect();
            let body = i + prefix + hashes + 1;
            let end = b[body..].windows(close.len()).position(|w| w == close.as_slice()).map_or(b.len(), |n| body + n);
            blank(&mut out, i, end + close.len());
            i = end + close.len();
        } else if rest[0] == b'"' {
            let mut j = i + 1;
            while j < b.len() && b[j] != b'"' {
                j += if b[j] == b'\\' { 2 } else { 1 };
            }
            blank(&mut out, i, j + 1);
            i = j + 1;
        } else if rest[0] == b'\'' {
            // A character literal ('x', '\n', '"'), or a lifetime ('a), which is left alone.
            let len = if rest.get(1) == Some(&b'\\') {
                rest.iter().skip(2).position(|&c| c == b'\'').map(|n| n + 3)
            } else {
                let width = text[i + 1..].chars().next().map_or(1, char::len_utf8);
                (rest.get(1 + width) == Some(&b'\'')).then_some(2 + width)
            };
            match len {
                Some(len) => {
                    blank(&mut out, i, i + len);
                    i += len;
                }
                None => i += 1,
            }
        } else {
            i += 1;
        }
    }
    String::from_utf8(out).expect("blanking keeps UTF-8 at ASCII boundaries")
}

/// `code` without its `#[cfg(test)]` modules.
fn without_test_modules(mut code: String) -> String {
    // `#[cfg(test)]`, perhaps more attributes, then `mod name { … }`: removed to its brace.
    let mut from = 0;
    while let Some(at) = code[from..].find("#[cfg(test)]").map(|n| from + n) {
        let mut rest = code[at + "#[cfg(test)]".len()..].trim_start();
        while rest.starts_with("#[") {
            rest = rest[rest.find(']').map_or(rest.len(), |n| n + 1)..].trim_start();
        }
        let item = code.len() - rest.len();
        let is_mod = rest.strip_prefix("mod ").is_some_and(|r| {
            let r = r.trim_start_matches(|c: char| c.is_alphanumeric() || c == '_').trim_start();
            r.starts_with('{')
        });
        if !is_mod {
            from = item;
            continue;
        }
        let open = item + rest.find('{').expect("checked");
        let mut depth = 0;
        let mut end = code.len();
        for (n, c) in code[open..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = open + n + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        code.replace_range(at..end, "");
        from = at;
    }
    code
}

/// At `i`, the start of a raw string literal (`r`, `br`, then `#`s and `"`): how many `#`s.
fn raw_string_start(b: &[u8], i: usize) -> Option<usize> {
    if i > 0 && is_ident(b[i - 1]) {
        return None;
    }
    let after = match b.get(i..)? {
        [b'r', ..] => i + 1,
        [b'b', b'r', ..] => i + 2,
        _ => return None,
    };
    let hashes = b[after..].iter().take_while(|&&c| c == b'#').count();
    (b.get(after + hashes) == Some(&b'"')).then_some(hashes)
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// The paths of a `use` tree (`a::{b, c::{d as e}, self}`), each as its segments.
fn use_paths(tree: &str) -> Vec<Vec<String>> {
    fn expand(prefix: &[String], tree: &str, out: &mut Vec<Vec<String>>) {
        let tree = tree.trim();
        let Some(open) = tree.find('{') else {
            let path = tree.split(" as ").next().unwrap_or_default();
            let mut full = prefix.to_vec();
            full.extend(path.split("::").map(str::trim).filter(|s| !s.is_empty() && *s != "*").map(String::from));
            if full.last().is_some_and(|s| s == "self") {
                full.pop();
            }
            if !full.is_empty() {
                out.push(full);
            }
            return;
        };
        let mut head = prefix.to_vec();
        head.extend(tree[..open].split("::").map(str::trim).filter(|s| !s.is_empty()).map(String::from));
        let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
        let (mut depth, mut start) = (0, 0);
        for (n, c) in inner.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    expand(&head, &inner[start..n], out);
                    start = n + 1;
                }
                _ => {}
            }
        }
        expand(&head, &inner[start..], out);
    }
    let mut out = Vec::new();
    expand(&[], tree, &mut out);
    out
}

/// Every `use` item of `code` (`use …;`, `pub use …;`, `pub(crate) use …;`): whether it is a
/// re-export, its tree, and the byte range of the whole item.
fn use_items(code: &str) -> Vec<(bool, &str, std::ops::Range<usize>)> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(at) = code[from..].find("use ").map(|n| from + n) {
        from = at + 4;
        if at > 0 && is_ident(code.as_bytes()[at - 1]) {
            continue;
        }
        let Some(end) = code[from..].find(';').map(|n| from + n) else { break };
        let before = code[..at].trim_end();
        let public = before.ends_with("pub") || before.ends_with(')') && before.contains("pub(");
        out.push((public, &code[from..end], at..end));
        from = end;
    }
    out
}

/// The paths a file's code names: those of its `use` items, and `crate::a::b`, `super::x`,
/// `self::y::z` written elsewhere.
fn all_paths(code: &str) -> Vec<Vec<String>> {
    let items = use_items(code);
    let mut rest = code.to_string();
    for (_, _, range) in &items {
        rest.replace_range(range.clone(), &" ".repeat(range.len()));
    }
    let mut paths: Vec<Vec<String>> = items.iter().flat_map(|(_, tree, _)| use_paths(tree)).collect();
    paths.extend(code_paths(&rest));
    paths
}

/// `crate::a::b`, `super::x`, `self::y::z` written in code.
fn code_paths(code: &str) -> Vec<Vec<String>> {
    let b = code.as_bytes();
    let mut out = Vec::new();
    for head in ["crate::", "super::", "self::"] {
        let mut from = 0;
        while let Some(at) = code[from..].find(head).map(|n| from + n) {
            from = at + head.len();
            if at > 0 && (is_ident(b[at - 1]) || b[at - 1] == b':') {
                continue;
            }
            let mut end = at;
            while end < b.len() && (is_ident(b[end]) || code[end..].starts_with("::")) {
                end += if b[end] == b':' { 2 } else { 1 };
            }
            out.push(code[at..end].split("::").filter(|s| !s.is_empty()).map(String::from).collect());
        }
    }
    out
}

struct Crate {
    modules: BTreeMap<Vec<String>, PathBuf>,
    binary: bool,
    /// Arrows between files, by module path.
    arrows: BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
}

fn read_crate(folder: &Path) -> Crate {
    let src = folder.join("src");
    let modules = modules(&src);
    let binary = !src.join("lib.rs").exists();
    let codes: BTreeMap<&Vec<String>, String> =
        modules.iter().map(|(m, p)| (m, code(&std::fs::read_to_string(p).expect("a source file")))).collect();
    // A path written in `module`, made absolute; `None` when it leaves the crate.
    let absolute = |module: &[String], path: &[String]| -> Option<Vec<String>> {
        let (first, rest) = path.split_first()?;
        let mut base: Vec<String> = match first.as_str() {
            "crate" => return Some(rest.to_vec()),
            "self" | "super" => module.to_vec(),
            _ => {
                let child: Vec<String> = module.iter().chain([first]).cloned().collect();
                return modules.contains_key(&child).then(|| module.iter().chain(path).cloned().collect());
            }
        };
        let mut path = path;
        while let Some((s, rest)) = path.split_first().filter(|(s, _)| *s == "self" || *s == "super") {
            if s == "super" {
                base.pop()?;
            }
            path = rest;
        }
        base.extend(path.iter().cloned());
        Some(base)
    };
    let mut reexports: BTreeMap<(Vec<String>, String), Vec<String>> = BTreeMap::new();
    for (module, code) in &codes {
        for (_, tree, _) in use_items(code).into_iter().filter(|(public, _, _)| *public) {
            for path in use_paths(tree) {
                if let (Some(target), Some(name)) = (absolute(module, &path), path.last()) {
                    reexports.insert(((*module).clone(), name.clone()), target);
                }
            }
        }
    }
    // The file that defines what an absolute path names.
    let resolve = |path: &[String]| -> Option<Vec<String>> {
        let mut path = path.to_vec();
        for _ in 0..16 {
            let known = (0..=path.len()).rev().find(|&n| modules.contains_key(&path[..n]))?;
            match path.get(known).and_then(|name| reexports.get(&(path[..known].to_vec(), name.clone()))) {
                Some(target) if *target != path[..=known] => {
                    path = target.iter().chain(&path[known + 1..]).cloned().collect();
                }
                _ => return Some(path[..known].to_vec()),
            }
        }
        None
    };
    let mut arrows: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
    for (module, code) in &codes {
        let paths = all_paths(code);
        let facade = !module.is_empty() || !binary;
        let to: BTreeSet<Vec<String>> = paths
            .iter()
            .filter_map(|p| absolute(module, p))
            .filter_map(|p| resolve(&p))
            .filter(|target| target != *module)
            .filter(|target| !(facade && target.starts_with(module)))
            .collect();
        arrows.insert((*module).clone(), to);
    }
    Crate { modules, binary, arrows }
}

fn name(module: &[String], binary: bool) -> String {
    match module {
        [] if binary => "main".to_string(),
        [] => "lib".to_string(),
        _ => module.join("::"),
    }
}

/// A circle through `start`, if there is one.
fn circle(arrows: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>, start: &Vec<String>) -> Option<Vec<Vec<String>>> {
    let mut stack = vec![(start.clone(), vec![start.clone()])];
    let mut seen = BTreeSet::new();
    while let Some((at, path)) = stack.pop() {
        for next in arrows.get(&at).into_iter().flatten() {
            if next == start {
                return Some(path.clone());
            }
            if seen.insert(next.clone()) {
                stack.push((next.clone(), path.iter().chain([next]).cloned().collect()));
            }
        }
    }
    None
}

#[test]
fn modules_follow_the_layers_architecture_md_lists() {
    let lists = layer_lists();
    let manifest = std::fs::read_to_string(repo().join("Cargo.toml")).expect("Cargo.toml");
    let members = manifest.lines().find_map(|l| l.strip_prefix("members = ")).expect("workspace members");
    let members: Vec<&str> = members.trim_matches(['[', ']']).split(',').map(|m| m.trim().trim_matches('"')).collect();
    let mut problems = Vec::new();
    for member in &members {
        let krate = read_crate(&repo().join(member));
        let listed = lists.iter().find(|(folder, _)| folder == member);
        if krate.modules.len() > 1 && listed.is_none() {
            problems.push(format!("{member}: {} files but no layer list in ARCHITECTURE.md", krate.modules.len()));
        }
        for module in krate.modules.keys() {
            if let Some(path) = circle(&krate.arrows, module).filter(|p| p.iter().min() == Some(module)) {
                let names: Vec<String> = path.iter().map(|m| name(m, krate.binary)).collect();
                problems.push(format!("{member}: import circle {} → {}", names.join(" → "), names[0]));
            }
        }
        let Some((_, layers)) = listed else { continue };
        let mut line_of: BTreeMap<&str, usize> = BTreeMap::new();
        for (line, names) in layers.iter().enumerate() {
            for n in names {
                if line_of.insert(n, line).is_some() {
                    problems.push(format!("{member}: `{n}` is listed twice"));
                }
            }
        }
        let top = |m: &[String]| m.first().cloned().unwrap_or_else(|| name(m, krate.binary));
        let tops: BTreeSet<String> = krate.modules.keys().map(|m| top(m)).collect();
        for t in &tops {
            if !line_of.contains_key(t.as_str()) {
                problems.push(format!("{member}: module `{t}` is on no line of its layer list"));
            }
        }
        for n in line_of.keys().filter(|n| !tops.contains(**n)) {
            problems.push(format!("{member}: the layer list names `{n}`, which is no module"));
        }
        for (from, targets) in &krate.arrows {
            for to in targets {
                let (a, b) = (top(from), top(to));
                if let (Some(&la), Some(&lb)) = (line_of.get(a.as_str()), line_of.get(b.as_str())) {
                    if a != b && lb >= la {
                        problems.push(format!(
                            "{member}: `{}` uses `{}`, which is not on a line below `{a}`'s",
                            name(from, krate.binary),
                            name(to, krate.binary)
                        ));
                    }
                }
            }
        }
    }
    assert!(problems.is_empty(), "the module layers do not hold:\n{}", problems.join("\n"));
}

#[test]
fn the_reader_sees_what_the_compiler_sees() {
    // Paths in comments, strings and test modules do not count; those in code and `use` do.
    let text = r##"
use crate::a::{b, c::{d as e, self}};
pub use super::f::G;
// crate::comment::x
/* crate::block /* nested */ crate::block2 */
fn f() { let s = "crate::string"; let r = r#"crate::raw"#; let c = '"'; crate::code::call(); }
fn g<'a>(x: &'a str) -> &'a str { self::local::h(x) }
#[cfg(test)]
#[allow(unused)]
mod tests { use crate::test_only::x; }
"##;
    let code = code(text);
    let mut shown: Vec<String> = all_paths(&code).iter().map(|p| p.join("::")).collect();
    shown.sort();
    shown.dedup();
    assert_eq!(
        shown,
        ["crate::a::b", "crate::a::c", "crate::a::c::d", "crate::code::call", "self::local::h", "super::f::G"]
    );
    assert_eq!(use_items(&code).iter().filter(|(public, _, _)| *public).count(), 1);
}

/// The list of `capc check`'s stages in ARCHITECTURE.md (its ```` ```stages ```` block): the
/// files of one folder of a crate, lowest line first, as `(crate folder, module path of the
/// folder, lines of file names)`.
fn stage_list() -> (String, Vec<String>, Vec<Vec<String>>) {
    let text = std::fs::read_to_string(repo().join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let start = text.find("```stages\n").expect("ARCHITECTURE.md has a ```stages block") + "```stages\n".len();
    let end = start + text[start..].find("```").expect("the stages block is closed");
    let mut lines = text[start..end].lines().map(str::trim).filter(|l| !l.is_empty());
    let head = lines.next().and_then(|l| l.strip_suffix(':')).expect("a `crate/src/folder:` line first");
    let (folder, module) = head.split_once("/src/").expect("the folder is `crate/src/…`");
    let module = module.split('/').map(str::to_string).collect();
    let lines = lines.map(|l| l.split_whitespace().map(str::to_string).collect()).collect();
    (folder.to_string(), module, lines)
}

/// `capc check`'s stages hand values forward only: a file of the check folder (a stage, or what
/// the stages share) may use only the files on lines above its own in ARCHITECTURE.md's
/// `stages` list (its `mod.rs`, the options and the values every stage shares, is below them
/// all), so a stage never calls back into an earlier one; every file is on exactly one line.
#[test]
fn check_stages_use_only_the_stages_before_them() {
    let (folder, module, lines) = stage_list();
    let krate = read_crate(&repo().join(&folder));
    let mut problems = Vec::new();
    let mut line_of: BTreeMap<&str, usize> = BTreeMap::new();
    for (line, names) in lines.iter().enumerate() {
        for n in names {
            if line_of.insert(n, line).is_some() {
                problems.push(format!("`{n}` is listed twice"));
            }
        }
    }
    // The file (or folder) of the check folder a module path is in, if any.
    let part = |m: &[String]| -> Option<String> { m.strip_prefix(module.as_slice())?.first().cloned() };
    let parts: BTreeSet<String> = krate.modules.keys().filter_map(|m| part(m)).collect();
    for p in &parts {
        if !line_of.contains_key(p.as_str()) {
            problems.push(format!("`{p}` is on no line of the stages list"));
        }
    }
    for n in line_of.keys().filter(|n| !parts.contains(**n)) {
        problems.push(format!("the stages list names `{n}`, which is no file of `{}`", module.join("::")));
    }
    for (from, targets) in &krate.arrows {
        let Some(a) = part(from) else { continue };
        for to in targets {
            let Some(b) = part(to) else { continue };
            if let (Some(&la), Some(&lb)) = (line_of.get(a.as_str()), line_of.get(b.as_str())) {
                if a != b && lb >= la {
                    problems.push(format!(
                        "`{}` uses `{}`, a stage not before its own",
                        from.join("::"),
                        to.join("::")
                    ));
                }
            }
        }
    }
    assert!(problems.is_empty(), "the stages of a check do not hold:\n{}", problems.join("\n"));
}
