//! A fast reader for the TOML that `capc lock` writes. A lock is machine-written and holds a
//! small part of TOML: `[[array.of.tables]]` and `[sub.tables]` headers, `key = value` lines
//! with strings (basic, literal, multi-line), integers, booleans and one-line arrays of
//! those. This reader handles exactly that part, into a tree the lock's serde types read, one
//! top-level entry at a time: from a file's lines ([`from_lines`], its text never held whole)
//! or from a text ([`from_text`]); a large lock's whole tree, bigger than its text, is never
//! held either. Anything else (a hand edit using more of TOML) makes it give up,
//! and the general `toml` parser reads the file instead. It exists because a large lock must load in
//! well under the general parser's time (`cargo bench -p capc-runtime`), and it is tested
//! against `toml` on every lock in the test suite.

use std::borrow::Cow;

/// A parsed value. Keys and strings without escapes borrow from the text.
#[derive(Debug, Clone, PartialEq)]
pub enum TomlValue<'a> {
    Str(Cow<'a, str>),
    Int(i64),
    Bool(bool),
    Array(Vec<TomlValue<'a>>),
    Table(Table<'a>),
}

type Table<'a> = Vec<(Cow<'a, str>, TomlValue<'a>)>;

fn get_mut<'t, 'a>(table: &'t mut Table<'a>, key: &str) -> Option<&'t mut TomlValue<'a>> {
    table.iter_mut().find(|(k, _)| k == key).map(|(_, v)| v)
}

/// The first `"`, `\\` or newline: where a basic string's plain run ends.
fn stop_at(text: &str) -> Option<usize> {
    text.bytes().position(|b| matches!(b, b'"' | b'\\' | b'\n'))
}

struct Cursor<'a> {
    text: &'a str,
    at: usize,
    /// Arrays open around the value being read.
    depth: usize,
}

/// Arrays nested deeper than this make the reader give up (a lock nests one level).
const MAX_ARRAY_DEPTH: usize = 8;

impl<'a> Cursor<'a> {
    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.at).copied()
    }
    fn rest(&self) -> &'a str {
        &self.text[self.at..]
    }
    fn skip_spaces(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t')) {
            self.at += 1;
        }
    }
    fn eat(&mut self, s: &str) -> bool {
        if self.rest().starts_with(s) {
            self.at += s.len();
            true
        } else {
            false
        }
    }
    /// The rest of the line must be blank or a comment; moves past its newline.
    fn end_line(&mut self) -> Option<()> {
        self.skip_spaces();
        match self.peek() {
            None => Some(()),
            Some(b'#') => {
                self.at = self.rest().find('\n').map_or(self.text.len(), |i| self.at + i + 1);
                Some(())
            }
            Some(b'\n') => {
                self.at += 1;
                Some(())
            }
            Some(b'\r') if self.rest().starts_with("\r\n") => {
                self.at += 2;
                Some(())
            }
            _ => None,
        }
    }
    fn key(&mut self) -> Option<Cow<'a, str>> {
        self.skip_spaces();
        match self.peek()? {
            b'"' => {
                self.at += 1;
                self.basic_string()
            }
            b'\'' => {
                self.at += 1;
                self.literal_string()
            }
            _ => {
                let len =
                    self.rest().bytes().take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-')).count();
                if len == 0 {
                    return None;
                }
                let key = &self.rest()[..len];
                self.at += len;
                Some(Cow::Borrowed(key))
            }
        }
    }
    /// A dotted key path (for headers).
    fn path(&mut self) -> Option<Vec<Cow<'a, str>>> {
        let mut parts = vec![self.key()?];
        loop {
            self.skip_spaces();
            if !self.eat(".") {
                return Some(parts);
            }
            parts.push(self.key()?);
        }
    }
    /// A header line (`[a.b]` or `[[a.b]]`), from its `[` past its newline: its path and
    /// whether it opens an entry of an array of tables.
    fn header(&mut self) -> Option<(Vec<Cow<'a, str>>, bool)> {
        let array = self.eat("[[");
        if !array && !self.eat("[") {
            return None;
        }
        let path = self.path()?;
        self.skip_spaces();
        if !self.eat(if array { "]]" } else { "]" }) {
            return None;
        }
        self.end_line()?;
        Some((path, array))
    }
    /// A `key = value` line, past its newline (dotted keys and other forms: `None`).
    fn key_value(&mut self) -> Option<(Cow<'a, str>, TomlValue<'a>)> {
        let key = self.key()?;
        self.skip_spaces();
        if !self.eat("=") {
            return None;
        }
        let value = self.value()?;
        self.end_line()?;
        Some((key, value))
    }
    /// After the opening `"`.
    fn basic_string(&mut self) -> Option<Cow<'a, str>> {
        let rest = self.rest();
        let stop = stop_at(rest)?;
        if rest.as_bytes()[stop] == b'"' {
            self.at += stop + 1;
            return Some(Cow::Borrowed(&rest[..stop]));
        }
        let mut out = String::new();
        loop {
            let rest = self.rest();
            let stop = stop_at(rest)?;
            out.push_str(&rest[..stop]);
            self.at += stop;
            match self.peek()? {
                b'"' => {
                    self.at += 1;
                    return Some(Cow::Owned(out));
                }
                b'\\' => {
                    self.at += 1;
                    out.push(self.escape()?);
                }
                _ => return None,
            }
        }
    }
    fn escape(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.at += 1;
        Some(match c {
            b'"' => '"',
            b'\\' => '\\',
            b'n' => '\n',
            b't' => '\t',
            b'r' => '\r',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'e' => '\u{1b}',
            b'u' | b'U' => {
                let len = if c == b'u' { 4 } else { 8 };
                let hex = self.rest().get(..len)?;
                self.at += len;
                char::from_u32(u32::from_str_radix(hex, 16).ok()?)?
            }
            _ => return None,
        })
    }
    /// After the opening `'`.
    fn literal_string(&mut self) -> Option<Cow<'a, str>> {
        let rest = self.rest();
        let end = rest.find(['\'', '\n'])?;
        if rest.as_bytes()[end] != b'\'' {
            return None;
        }
        self.at += end + 1;
        Some(Cow::Borrowed(&rest[..end]))
    }
    /// After `"""`: a newline right after the delimiter is dropped; `\` at a line end
    /// joins lines.
    fn multiline_basic(&mut self) -> Option<String> {
        if !self.eat("\r\n") {
            self.eat("\n");
        }
        let mut out = String::new();
        loop {
            let rest = self.rest();
            let stop = rest.find(['"', '\\'])?;
            out.push_str(&rest[..stop]);
            self.at += stop;
            if self.rest().starts_with("\"\"\"") {
                // Up to two more quotes may belong to the content.
                let quotes = self.rest().bytes().take_while(|b| *b == b'"').count().min(5);
                for _ in 3..quotes {
                    out.push('"');
                }
                self.at += quotes;
                return Some(out);
            }
            if self.eat("\"") {
                out.push('"');
                continue;
            }
            self.at += 1; // the backslash
            if matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
                // A line-ending backslash: skip all whitespace and newlines that follow.
                let skipped = self.rest().bytes().take_while(|b| b.is_ascii_whitespace()).count();
                if !self.rest()[..skipped].contains('\n') {
                    return None;
                }
                self.at += skipped;
            } else {
                out.push(self.escape()?);
            }
        }
    }
    /// After `'''`.
    fn multiline_literal(&mut self) -> Option<String> {
        if !self.eat("\r\n") {
            self.eat("\n");
        }
        let rest = self.rest();
        let end = rest.find("'''")?;
        let quotes = rest[end..].bytes().take_while(|b| *b == b'\'').count().min(5);
        let content = &rest[..end + quotes - 3];
        self.at += end + quotes;
        Some(content.to_string())
    }
    fn value(&mut self) -> Option<TomlValue<'a>> {
        self.skip_spaces();
        match self.peek()? {
            b'"' if self.eat("\"\"\"") => self.multiline_basic().map(|s| TomlValue::Str(Cow::Owned(s))),
            b'"' => {
                self.at += 1;
                self.basic_string().map(TomlValue::Str)
            }
            b'\'' if self.eat("'''") => self.multiline_literal().map(|s| TomlValue::Str(Cow::Owned(s))),
            b'\'' => {
                self.at += 1;
                self.literal_string().map(TomlValue::Str)
            }
            b't' if self.eat("true") => Some(TomlValue::Bool(true)),
            b'f' if self.eat("false") => Some(TomlValue::Bool(false)),
            b'[' => {
                if self.depth >= MAX_ARRAY_DEPTH {
                    return None;
                }
                self.at += 1;
                self.depth += 1;
                let mut items = Vec::new();
                let items = loop {
                    self.skip_spaces();
                    if self.eat("]") {
                        break Some(items);
                    }
                    match self.value() {
                        Some(item) => items.push(item),
                        None => break None,
                    }
                    self.skip_spaces();
                    if !self.eat(",") {
                        self.skip_spaces();
                        break self.eat("]").then_some(items);
                    }
                };
                self.depth -= 1;
                items.map(TomlValue::Array)
            }
            b'-' | b'+' | b'0'..=b'9' => {
                let len = self.rest().bytes().take_while(|b| b.is_ascii_digit() || matches!(b, b'-' | b'+')).count();
                let digits = &self.rest()[..len];
                // Only plain decimal integers; floats, dates and `_` separators go to `toml`.
                if matches!(
                    self.rest().as_bytes().get(len),
                    Some(b'.' | b'_' | b'e' | b'E' | b':' | b'x' | b'o' | b'b')
                ) {
                    return None;
                }
                let n: i64 = digits.parse().ok()?;
                self.at += len;
                Some(TomlValue::Int(n))
            }
            _ => None,
        }
    }
}

/// The table at `parents` below `root` (the last element of an array of tables on the way),
/// creating missing tables when `create`.
fn descend<'t, 'a>(root: &'t mut Table<'a>, parents: &[Cow<'a, str>], create: bool) -> Option<&'t mut Table<'a>> {
    let mut table = root;
    for part in parents {
        if create && get_mut(table, part).is_none() {
            table.push((part.clone(), TomlValue::Table(Vec::with_capacity(4))));
        }
        table = match get_mut(table, part)? {
            TomlValue::Table(t) => t,
            TomlValue::Array(items) => match items.last_mut()? {
                TomlValue::Table(t) => t,
                _ => return None,
            },
            _ => return None,
        };
    }
    Some(table)
}

/// The table a header names, created on the way: for `[[a.b]]` a new element of the array
/// `b` in the last element of `a`.
fn open<'t, 'a>(root: &'t mut Table<'a>, path: &[Cow<'a, str>], array: bool) -> Option<&'t mut Table<'a>> {
    let (last, parents) = path.split_last()?;
    let table = descend(root, parents, true)?;
    if array {
        if get_mut(table, last).is_none() {
            table.push((last.clone(), TomlValue::Array(Vec::new())));
        }
        let TomlValue::Array(items) = get_mut(table, last)? else { return None };
        items.push(TomlValue::Table(Vec::with_capacity(4)));
        match items.last_mut()? {
            TomlValue::Table(t) => Some(t),
            _ => None,
        }
    } else {
        if get_mut(table, last).is_some() {
            return None; // a table defined twice, or after its subtables: let `toml` decide
        }
        table.push((last.clone(), TomlValue::Table(Vec::with_capacity(4))));
        match get_mut(table, last)? {
            TomlValue::Table(t) => Some(t),
            _ => None,
        }
    }
}

/// Reads the TOML subset a lock uses; `None` when the text uses more of TOML (or is not
/// valid), and the caller falls back to the general parser.
pub fn parse(text: &str) -> Option<TomlValue<'_>> {
    let mut root: Table<'_> = Vec::new();
    parse_into(&mut root, text)?;
    Some(TomlValue::Table(root))
}

/// [`parse`] into `root`, which may hold tables read from other parts of the same file.
fn parse_into<'a>(root: &mut Table<'a>, text: &'a str) -> Option<()> {
    let mut cur = Cursor { text, at: 0, depth: 0 };
    // The current table, as a header path and whether it is an array element.
    let mut current: Option<(Vec<Cow<'_, str>>, bool)> = None;
    while cur.at < text.len() {
        cur.skip_spaces();
        match cur.peek() {
            Some(b'#' | b'\n' | b'\r') => cur.end_line()?,
            Some(b'[') => {
                let (path, array) = cur.header()?;
                open(root, &path, array)?;
                current = Some((path, array));
            }
            Some(_) => {
                // Dotted keys and other forms: the general parser.
                let (key, value) = cur.key_value()?;
                let table = match &current {
                    None => &mut *root,
                    Some((path, array)) => find(root, path, *array)?,
                };
                if get_mut(table, &key).is_some() {
                    return None;
                }
                table.push((key, value));
            }
            None => break,
        }
    }
    Some(())
}

/// The table a header opened (its last element, for an array of tables).
fn find<'t, 'a>(root: &'t mut Table<'a>, path: &[Cow<'a, str>], array: bool) -> Option<&'t mut Table<'a>> {
    let (last, parents) = path.split_last()?;
    let table = descend(root, parents, false)?;
    match get_mut(table, last)? {
        TomlValue::Array(items) if array => match items.last_mut()? {
            TomlValue::Table(t) => Some(t),
            _ => None,
        },
        TomlValue::Table(t) if !array => Some(t),
        _ => None,
    }
}

/// A lock's text in parts, for reading it one top-level entry at a time: the texts of each
/// top-level array of tables' entries (`[[command]]` with the headers below it, up to the next
/// top-level header), by array in order of appearance; and the rest (the top-level keys and
/// tables). `None` when the text is not laid out as the lock writer lays it out (an array's
/// sub-table outside its entry, a key both an array and something else): the caller then
/// reads it whole.
struct Parts<'a> {
    rest: Vec<&'a str>,
    arrays: Vec<(Cow<'a, str>, Vec<&'a str>)>,
}

fn split(text: &str) -> Option<Parts<'_>> {
    let mut cur = Cursor { text, at: 0, depth: 0 };
    let mut parts = Parts { rest: Vec::new(), arrays: Vec::new() };
    // Where the part being read began, and whose entry it is (`None`: the rest).
    let mut start = 0;
    let mut entry: Option<Cow<'_, str>> = None;
    // The top-level keys and tables of the rest, by name.
    let mut others: Vec<Cow<'_, str>> = Vec::new();
    let mut preamble = true;
    loop {
        cur.skip_spaces();
        let line = cur.at;
        match cur.peek() {
            Some(b'#' | b'\n' | b'\r') => cur.end_line()?,
            Some(b'[') => {
                let (path, array) = cur.header()?;
                preamble = false;
                let top = path.first()?.clone();
                let continues = entry.as_ref().is_some_and(|e| *e == top) && !(array && path.len() == 1);
                if continues {
                    continue;
                }
                // The part before this header is complete.
                let done = &text[start..line];
                match entry.take() {
                    Some(key) => push_entry(&mut parts.arrays, key, done),
                    None => parts.rest.push(done),
                }
                start = line;
                if array && path.len() == 1 {
                    entry = Some(top);
                } else {
                    others.push(top);
                }
            }
            Some(_) => {
                let (key, _) = cur.key_value()?;
                if preamble {
                    others.push(key);
                }
            }
            None => {
                let done = &text[start..];
                match entry.take() {
                    Some(key) => push_entry(&mut parts.arrays, key, done),
                    None => parts.rest.push(done),
                }
                break;
            }
        }
    }
    // A name both an array of tables and a key or table of the rest: not the writer's layout.
    if parts.arrays.iter().any(|(key, _)| others.contains(key)) {
        return None;
    }
    Some(parts)
}

/// Adds an entry's text to its array's list (an array's entries are together, in order).
fn push_entry<'a>(arrays: &mut Vec<(Cow<'a, str>, Vec<&'a str>)>, key: Cow<'a, str>, text: &'a str) {
    match arrays.iter_mut().find(|(k, _)| *k == key) {
        Some((_, texts)) => texts.push(text),
        None => arrays.push((key, vec![text])),
    }
}

/// Reads a type from a lock's text one top-level entry at a time: each entry's text is parsed
/// when the type reads it and its parsed tree dropped before the next, so the whole file's tree
/// is never held (on a large lock, more than the text itself). `None` when the text is not
/// the lock writer's layout or uses more of TOML than [`parse`] reads.
pub(crate) fn from_text<T: serde::de::DeserializeOwned>(text: &str) -> Option<Result<T, Error>> {
    let parts = split(text)?;
    let mut root: Table<'_> = Vec::new();
    for rest in &parts.rest {
        parse_into(&mut root, rest)?;
    }
    Some(T::deserialize(Lazy { root, arrays: parts.arrays }))
}

/// Reads a type from a lock file's lines, one top-level entry at a time, without ever holding
/// the file's whole text (on a large lock, tens of MB): each top-level key, table and
/// `[[entry]]` is gathered, parsed and read before the next line is. `None` (or an error)
/// when the file is not laid out as the lock writer lays it out, is not UTF-8, or uses more
/// of TOML than [`parse`] reads: the caller then reads it whole. The top-level tables and
/// arrays of tables named in `left_out` are read past, not decoded: the type gets them as
/// absent.
pub(crate) fn from_lines<T: serde::de::DeserializeOwned>(
    reader: impl std::io::BufRead,
    left_out: &'static [&'static str],
) -> Result<T, Error> {
    let mut lines = Lines { reader, ahead: None, seen: Vec::new(), left_out };
    T::deserialize(Streamed { lines: &mut lines })
}

/// A lock file's logical lines: a header, a whole `key = value` (a multi-line string's lines
/// joined), or a blank or comment line; one header may be read ahead and put back.
struct Lines<R> {
    reader: R,
    ahead: Option<String>,
    /// The top-level names read so far: one read twice is not the writer's layout.
    seen: Vec<String>,
    /// The top-level names whose parts are read past.
    left_out: &'static [&'static str],
}

/// A header line's path and whether it opens an array entry.
fn header(line: &str) -> Option<(Vec<String>, bool)> {
    let mut cur = Cursor { text: line, at: 0, depth: 0 };
    cur.skip_spaces();
    let (path, array) = cur.header()?;
    Some((path.into_iter().map(Cow::into_owned).collect(), array))
}

fn is_header(line: &str) -> bool {
    line.trim_start_matches([' ', '\t']).starts_with('[')
}

impl<R: std::io::BufRead> Lines<R> {
    fn physical(&mut self) -> Result<Option<String>, Error> {
        let mut line = String::new();
        match self.reader.read_line(&mut line) {
            Ok(0) => Ok(None),
            Ok(_) => Ok(Some(line)),
            Err(e) => Err(Error::new(format!("cannot read the lock: {e}"))),
        }
    }

    /// The next logical line; a key line is read on until its value is whole.
    fn next(&mut self) -> Result<Option<String>, Error> {
        if let Some(line) = self.ahead.take() {
            return Ok(Some(line));
        }
        let Some(mut line) = self.physical()? else { return Ok(None) };
        let blank = line.trim_start_matches([' ', '\t']);
        if is_header(&line) || blank.is_empty() || blank.starts_with(['#', '\n', '\r']) {
            return Ok(Some(line));
        }
        loop {
            if (Cursor { text: &line, at: 0, depth: 0 }).key_value().is_some() {
                return Ok(Some(line));
            }
            // Only a multi-line string goes on past its line.
            if !(line.contains("\"\"\"") || line.contains("\'\'\'")) {
                return Err(Error::new("a line the lock writer does not write"));
            }
            match self.physical()? {
                Some(more) => line.push_str(&more),
                None => return Err(Error::new("a string that does not end")),
            }
        }
    }

    /// The lines of the part a header (already read) begins, up to the next header that ends
    /// it (put back): for an entry of `[[key]]`, the next `[[key]]` or a header outside `key`;
    /// for the table `[key]`, a header outside `key`.
    fn part(&mut self, first: String, key: &str, entry: bool) -> Result<String, Error> {
        let mut text = first;
        while let Some(line) = self.next()? {
            if is_header(&line) {
                let (path, array) =
                    header(&line).ok_or_else(|| Error::new("a header the lock writer does not write"))?;
                let ends = path[0] != key || (entry && array && path.len() == 1);
                if ends {
                    self.ahead = Some(line);
                    break;
                }
            }
            text.push_str(&line);
        }
        Ok(text)
    }
}

/// The top-level table of a lock file read by lines.
struct Streamed<'l, R> {
    lines: &'l mut Lines<R>,
}

impl<'de, R: std::io::BufRead> serde::Deserializer<'de> for Streamed<'_, R> {
    type Error = Error;

    fn deserialize_any<V: serde::de::Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_map(TopLevel { lines: self.lines, value: None })
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

/// What the next top-level value is, its key already given.
enum Pending {
    /// A key's line or a table's part: parsed when the value is read.
    Text(String, String),
    /// The entries of `[[key]]`, the first header read.
    Entries(String, String),
}

struct TopLevel<'l, R> {
    lines: &'l mut Lines<R>,
    value: Option<Pending>,
}

impl<'de, R: std::io::BufRead> serde::de::MapAccess<'de> for TopLevel<'_, R> {
    type Error = Error;

    fn next_key_seed<K: serde::de::DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, Error> {
        let not_writers = || Error::new("a layout the lock writer does not write");
        loop {
            let Some(line) = self.lines.next()? else { return Ok(None) };
            let (key, pending) = if is_header(&line) {
                let (path, array) = header(&line).ok_or_else(not_writers)?;
                // A sub-table (`[a.b]`) outside the part of its top-level name.
                if path.len() != 1 {
                    return Err(not_writers());
                }
                let key = path[0].clone();
                match array {
                    true => (key.clone(), Pending::Entries(key, line)),
                    false => {
                        let text = self.lines.part(line, &key, false)?;
                        (key.clone(), Pending::Text(key, text))
                    }
                }
            } else {
                let blank = line.trim_start_matches([' ', '\t']);
                if blank.is_empty() || blank.starts_with(['#', '\n', '\r']) {
                    continue;
                }
                // A top-level key: only before every header (the lines are read in order).
                let mut cur = Cursor { text: &line, at: 0, depth: 0 };
                let key = cur.key().ok_or_else(not_writers)?.into_owned();
                (key.clone(), Pending::Text(key, line))
            };
            if self.lines.seen.contains(&key) {
                return Err(not_writers());
            }
            self.lines.seen.push(key.clone());
            if self.lines.left_out.contains(&key.as_str()) {
                if let Pending::Entries(key, first) = pending {
                    let mut entries = EntriesOf { lines: &mut *self.lines, key, first: Some(first) };
                    while entries.next_text()?.is_some() {}
                }
                continue;
            }
            self.value = Some(pending);
            return seed.deserialize(TomlValue::Str(Cow::Owned(key))).map(Some);
        }
    }

    fn next_value_seed<V: serde::de::DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Error> {
        match self.value.take() {
            Some(Pending::Text(key, text)) => match parse_only(&text, &key) {
                Some(value) => seed.deserialize(value),
                None => Err(Error::new("a part the fast reader cannot read")),
            },
            Some(Pending::Entries(key, first)) => {
                seed.deserialize(EntriesOf { lines: &mut *self.lines, key, first: Some(first) })
            }
            None => Err(Error::new("a value without its key")),
        }
    }
}

/// The entries of a top-level array of tables, read one at a time.
struct EntriesOf<'l, R> {
    lines: &'l mut Lines<R>,
    key: String,
    /// The header of the next entry, when it has been read.
    first: Option<String>,
}

impl<'de, R: std::io::BufRead> serde::Deserializer<'de> for EntriesOf<'_, R> {
    type Error = Error;

    fn deserialize_any<V: serde::de::Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_seq(self)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

impl<R: std::io::BufRead> EntriesOf<'_, R> {
    /// The text of the next entry, unless the array ended.
    fn next_text(&mut self) -> Result<Option<String>, Error> {
        let first = match self.first.take() {
            Some(first) => first,
            // The next entry's header, unless the array ended.
            None => match self.lines.next()? {
                Some(line) if header(&line).is_some_and(|(p, a)| a && p.len() == 1 && p[0] == self.key) => line,
                Some(line) => {
                    self.lines.ahead = Some(line);
                    return Ok(None);
                }
                None => return Ok(None),
            },
        };
        self.lines.part(first, &self.key, true).map(Some)
    }
}

impl<'de, R: std::io::BufRead> serde::de::SeqAccess<'de> for EntriesOf<'_, R> {
    type Error = Error;

    fn next_element_seed<T: serde::de::DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>, Error> {
        let Some(text) = self.next_text()? else { return Ok(None) };
        seed.deserialize(Entry(Cow::Borrowed(self.key.as_str()), &text)).map(Some)
    }
}

/// A lock's top level: its rest parsed, its arrays' entries still text.
struct Lazy<'a> {
    root: Table<'a>,
    arrays: Vec<(Cow<'a, str>, Vec<&'a str>)>,
}

/// A value of [`Lazy`]'s top level: parsed, or an array of tables' entries still text.
enum LazyValue<'a> {
    Node(TomlValue<'a>),
    Entries(Cow<'a, str>, Vec<&'a str>),
}

/// `text` parsed, when it holds `key` and nothing else at its top level: `key`'s value.
fn parse_only<'a>(text: &'a str, key: &str) -> Option<TomlValue<'a>> {
    let mut root: Table<'a> = Vec::new();
    parse_into(&mut root, text)?;
    match root.pop() {
        Some((k, value)) if k == key && root.is_empty() => Some(value),
        _ => None,
    }
}

/// One entry of a top-level array of tables, as text.
struct Entry<'a>(Cow<'a, str>, &'a str);

impl<'de, 'a> serde::Deserializer<'de> for Lazy<'a> {
    type Error = Error;

    fn deserialize_any<V: serde::de::Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let nodes = self.root.into_iter().map(|(k, v)| (Key(k), LazyValue::Node(v)));
        let entries = self.arrays.into_iter().map(|(k, texts)| (Key(k.clone()), LazyValue::Entries(k, texts)));
        visitor.visit_map(serde::de::value::MapDeserializer::new(nodes.chain(entries)))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

impl<'de, 'a> serde::Deserializer<'de> for LazyValue<'a> {
    type Error = Error;

    fn deserialize_any<V: serde::de::Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self {
            LazyValue::Node(node) => node.deserialize_any(visitor),
            LazyValue::Entries(key, texts) => visitor.visit_seq(serde::de::value::SeqDeserializer::new(
                texts.into_iter().map(move |text| Entry(key.clone(), text)),
            )),
        }
    }

    fn deserialize_option<V: serde::de::Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_some(self)
    }

    fn deserialize_enum<V: serde::de::Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        match self {
            LazyValue::Node(node) => node.deserialize_enum(name, variants, visitor),
            LazyValue::Entries(..) => Err(serde::de::Error::custom("expected a string for an enum")),
        }
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct newtype_struct seq tuple
        tuple_struct map struct identifier ignored_any
    }
}

impl<'de, 'a> serde::de::IntoDeserializer<'de, Error> for LazyValue<'a> {
    type Deserializer = LazyValue<'a>;
    fn into_deserializer(self) -> LazyValue<'a> {
        self
    }
}

impl<'de, 'a> serde::de::IntoDeserializer<'de, Error> for Entry<'a> {
    type Deserializer = Entry<'a>;
    fn into_deserializer(self) -> Entry<'a> {
        self
    }
}

impl<'de, 'a> serde::Deserializer<'de> for Entry<'a> {
    type Error = Error;

    /// The entry's text parsed (its header and the sub-tables below it), read as its table;
    /// a text [`parse`] cannot read is an error, and the caller reads the file whole.
    fn deserialize_any<V: serde::de::Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let Entry(key, text) = self;
        let entry = match parse_only(text, &key) {
            Some(TomlValue::Array(mut items)) if items.len() == 1 => items.pop(),
            _ => None,
        };
        match entry {
            Some(entry) => entry.deserialize_any(visitor),
            None => Err(Error::new(format!("an entry of `{key}` is not in the writer's form"))),
        }
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

/// Why a lock could not be read into the lock's types (the caller then asks `toml`, whose
/// message is the one shown) or written.
#[derive(Debug)]
pub struct Error(String);

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

impl Error {
    pub(crate) fn new(message: impl Into<String>) -> Error {
        Error(message.into())
    }
}

impl serde::de::Error for Error {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        Error(msg.to_string())
    }
}

impl serde::ser::Error for Error {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        Error(msg.to_string())
    }
}

/// Reads a type from a parsed node, moving its strings (no second copy).
#[cfg(test)]
pub(crate) fn from_node<T: serde::de::DeserializeOwned>(node: TomlValue<'_>) -> Result<T, Error> {
    T::deserialize(node)
}

impl<'de, 'a> serde::Deserializer<'de> for TomlValue<'a> {
    type Error = Error;

    fn deserialize_any<V: serde::de::Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self {
            TomlValue::Str(Cow::Borrowed(s)) => visitor.visit_str(s),
            TomlValue::Str(Cow::Owned(s)) => visitor.visit_string(s),
            TomlValue::Int(n) => visitor.visit_i64(n),
            TomlValue::Bool(b) => visitor.visit_bool(b),
            TomlValue::Array(items) => visitor.visit_seq(serde::de::value::SeqDeserializer::new(items.into_iter())),
            TomlValue::Table(entries) => {
                visitor.visit_map(serde::de::value::MapDeserializer::new(entries.into_iter().map(|(k, v)| (Key(k), v))))
            }
        }
    }

    fn deserialize_option<V: serde::de::Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_some(self)
    }

    fn deserialize_enum<V: serde::de::Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        use serde::de::IntoDeserializer;
        match self {
            TomlValue::Str(s) => visitor.visit_enum(s.into_owned().into_deserializer()),
            _ => Err(serde::de::Error::custom("expected a string for an enum")),
        }
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct newtype_struct seq tuple
        tuple_struct map struct identifier ignored_any
    }
}

impl<'de, 'a> serde::de::IntoDeserializer<'de, Error> for TomlValue<'a> {
    type Deserializer = TomlValue<'a>;
    fn into_deserializer(self) -> TomlValue<'a> {
        self
    }
}

/// A table key, read as a string.
struct Key<'a>(Cow<'a, str>);

impl<'de, 'a> serde::de::IntoDeserializer<'de, Error> for Key<'a> {
    type Deserializer = TomlValue<'a>;
    fn into_deserializer(self) -> TomlValue<'a> {
        TomlValue::Str(self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn same_as_toml(text: &str) {
        let node = parse(text).unwrap_or_else(|| panic!("the fast reader gave up on:\n{text}"));
        let fast: serde_json::Value = from_node(node).expect("reads as JSON");
        let general: serde_json::Value = toml::from_str(text).expect("valid TOML");
        assert_eq!(fast, general, "{text}");
    }

    /// Read in parts, one top-level entry at a time, a text reads as it does whole.
    fn same_in_parts(text: &str) {
        let whole: serde_json::Value = from_node(parse(text).expect("reads whole")).expect("reads as JSON");
        let parts: serde_json::Value = from_text(text).expect("in the writer's layout").expect("reads in parts");
        assert_eq!(parts, whole, "{text}");
    }

    /// Read a line at a time, a text reads as it does whole.
    fn same_by_lines(text: &str) {
        let whole: serde_json::Value = from_node(parse(text).expect("reads whole")).expect("reads as JSON");
        let lines: serde_json::Value = from_lines(text.as_bytes(), &[]).unwrap_or_else(|e| panic!("{e}: {text}"));
        assert_eq!(lines, whole, "{text}");
    }

    #[test]
    fn reads_by_lines_what_it_reads_whole() {
        same_by_lines("# c\nversion = 1\nname = \"x\"\n\n[[command]]\nname = \"a\"\n\n[command.shadowed_by]\nrule = \"r\"\n\n[[command.shadows]]\nname = \"b\"\n\n[[command]]\nname = \"d\"\n\n[[plugin]]\nname = \"p\"\n\n[plugin.inventory]\n\n[[plugin.inventory.commands]]\nname = \"p:c\"\n\n[surface]\nk = 1\n\n[surface.tools]\nt = [\"a\"]\n");
        // Headers and keys inside multi-line strings are text; a last line without its newline.
        same_by_lines("v = '''\n[[a]]\nk = 1\n'''\n[[a]]\nx = \"\"\"\n[[b]]\n[a.c]\n\"\"\"\n\n[[a]]\nx = 'y'");
        same_by_lines("version = 1\r\n\r\n[[a]]\r\nx = 1\r\n");
        for text in ["version = 1\n", "", "\n# only a comment\n"] {
            same_by_lines(text);
        }
    }

    #[test]
    fn parts_left_out_are_read_past_and_nothing_else_is() {
        let text = "version = 1\n\n[[a]]\nx = 1\n\n[a.t]\ny = 2\n\n[[a.n]]\nz = 3\n\n[[a]]\nx = \"\"\"\n[[b]]\n\"\"\"\n\n[[b]]\nw = 4\n\n[c]\nv = 5\n\n[[d]]\nu = 6\n";
        let mut whole: serde_json::Value = from_node(parse(text).expect("reads whole")).expect("reads as JSON");
        let without: serde_json::Value = from_lines(text.as_bytes(), &["a", "c"]).expect("reads by lines");
        let map = whole.as_object_mut().expect("a table");
        assert!(map.remove("a").is_some() && map.remove("c").is_some());
        assert_eq!(without, whole);
        assert_eq!(without["b"], serde_json::json!([{"w": 4}]), "a header in a left-out string is text");
    }

    #[test]
    fn a_layout_the_writer_never_makes_is_not_read_by_lines() {
        for text in [
            "[[a]]\nx = 1\n\n[b]\ny = 2\n\n[[a]]\nx = 3\n",
            "[[a]]\nx = 1\n\n[b]\ny = 2\n\n[a.c]\nz = 3\n",
            "a = 1\n\n[[a]]\nx = 1\n",
            "[[a]]\nx = \"\"\"\nnever ends\n",
            "[[a]]\nx = 1\nx = 2\n",
            "a.b = 1\n",
        ] {
            let read: Result<serde_json::Value, Error> = from_lines(text.as_bytes(), &[]);
            assert!(read.is_err(), "{text}: {read:?}");
        }
    }

    #[test]
    fn reads_in_parts_what_it_reads_whole() {
        same_in_parts("# c\nversion = 1\nname = \"x\"\n\n[[command]]\nname = \"a\"\n\n[command.shadowed_by]\nrule = \"r\"\n\n[[command.shadows]]\nname = \"b\"\n\n[[command]]\nname = \"d\"\n\n[[plugin]]\nname = \"p\"\n\n[plugin.inventory]\n\n[[plugin.inventory.commands]]\nname = \"p:c\"\n\n[surface]\nk = 1\n\n[surface.tools]\nt = [\"a\"]\n");
        // An array's entries apart (TOML allows it): still one array, in order.
        same_in_parts("[[a]]\nx = 1\n\n[b]\ny = 2\n\n[[a]]\nx = 3\n");
        // A header inside a multi-line string is text, not a header.
        same_in_parts("[[a]]\nx = \"\"\"\n[[b]]\n[a.c]\n\"\"\"\n\n[[a]]\nx = 'y'\n");
        for text in ["version = 1\n", ""] {
            same_in_parts(text);
        }
    }

    #[test]
    fn a_layout_the_writer_never_makes_is_read_whole() {
        // A sub-table of an array's entry away from the entry, a name both a key and an array.
        for text in ["[[a]]\nx = 1\n\n[b]\ny = 2\n\n[a.c]\nz = 3\n", "a = 1\n\n[[a]]\nx = 1\n"] {
            assert!(split(text).is_none(), "{text}");
        }
        // An entry its own reader refuses is refused in parts too (the caller reads it whole).
        let bad: Option<Result<serde_json::Value, Error>> = from_text("[[a]]\nx = 1\n\n[[a]]\nx = 1\nx = 2\n");
        assert!(matches!(bad, Some(Err(_))), "{bad:?}");
    }

    #[test]
    fn reads_what_the_lock_writer_emits() {
        same_as_toml("# c\nversion = 1\nname = \"x\"\n\n[[command]]\nname = \"a\"\nflag = true\nlist = [\"a\", 'b\\c', 3]\n\n[command.shadowed_by]\nrule = \"r\"\n\n[[command.shadows]]\nname = \"b\"\n\n[[command.shadows]]\nname = \"c\"\n\n[[command]]\nname = \"d\"\n\n[command.env]\n\"X-Api-Key\" = \"sha256:00\"\n");
        same_as_toml("a = \"\"\"\nline one\nline \"two\" \\\n   joined\\ttab\"\"\"\nb = '''\nraw \\n ''quoted'''\nc = \"\\u00e9\\U0001F600 \\\"q\\\"\"\nd = -42\n");
        same_as_toml("a = \"\"\"ends with quotes\"\"\"\"\"\n");
    }

    /// Every lock committed in the test suite reads the same with both readers.
    #[test]
    fn agrees_with_toml_on_every_committed_lock() {
        let stories = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/precedence");
        let mut seen = 0;
        for entry in std::fs::read_dir(stories).expect("tests/precedence").filter_map(Result::ok) {
            let Ok(text) = std::fs::read_to_string(entry.path().join("capabilities.lock")) else { continue };
            same_as_toml(&text);
            same_in_parts(&text);
            same_by_lines(&text);
            seen += 1;
        }
        assert!(seen >= 15, "read {seen} locks");
    }

    #[test]
    fn deep_arrays_are_left_to_the_general_parser() {
        // Without the limit this overflowed the stack (the caller bounds what `toml` gets).
        let deep = format!("version = {}", "[".repeat(50_000));
        assert!(parse(&deep).is_none());
        same_as_toml("a = [[[[[[[[1]]]]]]]]\n");
    }

    #[test]
    fn gives_up_on_the_rest_of_toml() {
        for text in [
            "a.b = 1\n",
            "a = 1.5\n",
            "a = 1979-05-27\n",
            "a = { b = 1 }\n",
            "a = [\n 1,\n 2]\n",
            "[t]\n[t]\n",
            "a = 1\na = 2\n",
            "a = 1_000\n",
            "a = [[[[[[[[[1]]]]]]]]]\n",
        ] {
            assert!(parse(text).is_none(), "should give up on {text:?}");
        }
    }
}
