//! Writing the lock's TOML. The lock is plain data (tables, arrays of tables, strings,
//! integers, booleans, arrays of strings), so it is written by this small serializer rather
//! than a general TOML document model, which is an order of magnitude slower on a large
//! lock. Layout, as TOML requires and as people read it: a table's plain values first (in
//! field order), then its sub-tables, then its arrays of tables, each header after a blank
//! line. Strings are basic strings with escapes. The output is read back by `lock::read`
//! and by the `toml` crate; tests check both.

use serde::ser::{self, Serialize};
use std::fmt::Write as _;

mod stream;

pub(crate) use stream::to_writer;

/// A serialized value.
#[derive(Debug)]
enum Out {
    Str(String),
    Int(i128),
    Bool(bool),
    Array(Vec<Out>),
    Table(Vec<(String, Out)>),
    /// `None`: left out.
    Skip,
}

/// The lock's one error type for its own reader and writer.
use super::read::Error;

/// Writes a value whose top level is a struct as a TOML document.
#[cfg(test)]
fn to_string<T: Serialize>(value: &T) -> Result<String, Error> {
    let Out::Table(root) = value.serialize(ToOut)? else {
        return Err(Error::new("the top level of a TOML document must be a table"));
    };
    let mut text = String::with_capacity(1 << 16);
    write_table(&mut text, &mut Vec::new(), &root, false);
    Ok(text)
}

fn is_table(v: &Out) -> bool {
    matches!(v, Out::Table(_))
}

fn is_table_array(v: &Out) -> bool {
    matches!(v, Out::Array(items) if !items.is_empty() && items.iter().all(is_table))
}

fn write_key(out: &mut String, key: &str) {
    if !key.is_empty() && key.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-') {
        out.push_str(key);
    } else {
        write_string(out, key);
    }
}

fn write_path(out: &mut String, path: &[&str]) {
    for (i, key) in path.iter().enumerate() {
        if i > 0 {
            out.push('.');
        }
        write_key(out, key);
    }
}

fn write_string(out: &mut String, s: &str) {
    out.push('"');
    // Runs of characters that need no escape are copied whole; every escaped character is
    // ASCII, so a byte test finds them.
    let mut plain = 0;
    for (at, b) in s.bytes().enumerate() {
        let escape = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\t' => "\\t",
            b'\r' => "\\r",
            b if b < 0x20 || b == 0x7f => "",
            _ => continue,
        };
        out.push_str(&s[plain..at]);
        if escape.is_empty() {
            let _ = write!(out, "\\u{:04X}", b);
        } else {
            out.push_str(escape);
        }
        plain = at + 1;
    }
    out.push_str(&s[plain..]);
    out.push('"');
}

fn write_inline(out: &mut String, v: &Out) {
    match v {
        Out::Str(s) => write_string(out, s),
        Out::Int(n) => {
            let _ = write!(out, "{n}");
        }
        Out::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Out::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().filter(|i| !matches!(i, Out::Skip)).enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_inline(out, item);
            }
            out.push(']');
        }
        Out::Table(entries) => {
            out.push('{');
            for (i, (k, v)) in entries.iter().filter(|(_, v)| !matches!(v, Out::Skip)).enumerate() {
                out.push_str(if i > 0 { ", " } else { " " });
                write_key(out, k);
                out.push_str(" = ");
                write_inline(out, v);
            }
            out.push_str(" }");
        }
        Out::Skip => {}
    }
}

/// Writes a table's body under `path` (its header is already written).
fn write_table<'a>(out: &mut String, path: &mut Vec<&'a str>, entries: &'a [(String, Out)], _nested: bool) {
    for (key, value) in entries {
        if matches!(value, Out::Skip) || is_table(value) || is_table_array(value) {
            continue;
        }
        write_key(out, key);
        out.push_str(" = ");
        write_inline(out, value);
        out.push('\n');
    }
    for (key, value) in entries {
        if let Out::Table(sub) = value {
            path.push(key);
            out.push_str("\n[");
            write_path(out, path);
            out.push_str("]\n");
            write_table(out, path, sub, true);
            path.pop();
        }
    }
    for (key, value) in entries {
        if !is_table_array(value) {
            continue;
        }
        let Out::Array(items) = value else { continue };
        path.push(key);
        for item in items {
            if let Out::Table(sub) = item {
                out.push_str("\n[[");
                write_path(out, path);
                out.push_str("]]\n");
                write_table(out, path, sub, true);
            }
        }
        path.pop();
    }
}

struct ToOut;

struct Seq(Vec<Out>);
struct Struct(Vec<(String, Out)>);
struct MapOut(Vec<(String, Out)>, Option<String>);

impl ser::Serializer for ToOut {
    type Ok = Out;
    type Error = Error;
    type SerializeSeq = Seq;
    type SerializeTuple = Seq;
    type SerializeTupleStruct = Seq;
    type SerializeTupleVariant = ser::Impossible<Out, Error>;
    type SerializeMap = MapOut;
    type SerializeStruct = Struct;
    type SerializeStructVariant = ser::Impossible<Out, Error>;

    fn serialize_bool(self, v: bool) -> Result<Out, Error> {
        Ok(Out::Bool(v))
    }
    fn serialize_i8(self, v: i8) -> Result<Out, Error> {
        Ok(Out::Int(v.into()))
    }
    fn serialize_i16(self, v: i16) -> Result<Out, Error> {
        Ok(Out::Int(v.into()))
    }
    fn serialize_i32(self, v: i32) -> Result<Out, Error> {
        Ok(Out::Int(v.into()))
    }
    fn serialize_i64(self, v: i64) -> Result<Out, Error> {
        Ok(Out::Int(v.into()))
    }
    fn serialize_u8(self, v: u8) -> Result<Out, Error> {
        Ok(Out::Int(v.into()))
    }
    fn serialize_u16(self, v: u16) -> Result<Out, Error> {
        Ok(Out::Int(v.into()))
    }
    fn serialize_u32(self, v: u32) -> Result<Out, Error> {
        Ok(Out::Int(v.into()))
    }
    fn serialize_u64(self, v: u64) -> Result<Out, Error> {
        // TOML integers are 64-bit signed.
        if v > i64::MAX as u64 {
            return Err(Error::new(format!("{v} does not fit a TOML integer")));
        }
        Ok(Out::Int(v.into()))
    }
    fn serialize_f32(self, _: f32) -> Result<Out, Error> {
        Err(Error::new("the lock holds no floats"))
    }
    fn serialize_f64(self, _: f64) -> Result<Out, Error> {
        Err(Error::new("the lock holds no floats"))
    }
    fn serialize_char(self, v: char) -> Result<Out, Error> {
        Ok(Out::Str(v.to_string()))
    }
    fn serialize_str(self, v: &str) -> Result<Out, Error> {
        Ok(Out::Str(v.to_string()))
    }
    fn serialize_bytes(self, _: &[u8]) -> Result<Out, Error> {
        Err(Error::new("the lock holds no bytes"))
    }
    fn serialize_none(self) -> Result<Out, Error> {
        Ok(Out::Skip)
    }
    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Result<Out, Error> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<Out, Error> {
        Ok(Out::Skip)
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<Out, Error> {
        Ok(Out::Skip)
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> Result<Out, Error> {
        Ok(Out::Str(variant.to_string()))
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(self, _: &'static str, value: &T) -> Result<Out, Error> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<Out, Error> {
        Err(Error::new("the lock holds no data-carrying enums"))
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<Seq, Error> {
        Ok(Seq(Vec::with_capacity(len.unwrap_or(0))))
    }
    fn serialize_tuple(self, len: usize) -> Result<Seq, Error> {
        Ok(Seq(Vec::with_capacity(len)))
    }
    fn serialize_tuple_struct(self, _: &'static str, len: usize) -> Result<Seq, Error> {
        Ok(Seq(Vec::with_capacity(len)))
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, Error> {
        Err(Error::new("the lock holds no data-carrying enums"))
    }
    fn serialize_map(self, len: Option<usize>) -> Result<MapOut, Error> {
        Ok(MapOut(Vec::with_capacity(len.unwrap_or(0)), None))
    }
    fn serialize_struct(self, _: &'static str, len: usize) -> Result<Struct, Error> {
        Ok(Struct(Vec::with_capacity(len)))
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, Error> {
        Err(Error::new("the lock holds no data-carrying enums"))
    }
}

impl ser::SerializeSeq for Seq {
    type Ok = Out;
    type Error = Error;
    fn serialize_element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), Error> {
        self.0.push(value.serialize(ToOut)?);
        Ok(())
    }
    fn end(self) -> Result<Out, Error> {
        Ok(Out::Array(self.0))
    }
}

impl ser::SerializeTuple for Seq {
    type Ok = Out;
    type Error = Error;
    fn serialize_element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), Error> {
        ser::SerializeSeq::serialize_element(self, value)
    }
    fn end(self) -> Result<Out, Error> {
        ser::SerializeSeq::end(self)
    }
}

impl ser::SerializeTupleStruct for Seq {
    type Ok = Out;
    type Error = Error;
    fn serialize_field<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), Error> {
        ser::SerializeSeq::serialize_element(self, value)
    }
    fn end(self) -> Result<Out, Error> {
        ser::SerializeSeq::end(self)
    }
}

impl ser::SerializeStruct for Struct {
    type Ok = Out;
    type Error = Error;
    fn serialize_field<T: ?Sized + Serialize>(&mut self, key: &'static str, value: &T) -> Result<(), Error> {
        let value = value.serialize(ToOut)?;
        if !matches!(value, Out::Skip) {
            self.0.push((key.to_string(), value));
        }
        Ok(())
    }
    fn end(self) -> Result<Out, Error> {
        Ok(Out::Table(self.0))
    }
}

impl ser::SerializeMap for MapOut {
    type Ok = Out;
    type Error = Error;
    fn serialize_key<T: ?Sized + Serialize>(&mut self, key: &T) -> Result<(), Error> {
        match key.serialize(ToOut)? {
            Out::Str(k) => {
                self.1 = Some(k);
                Ok(())
            }
            _ => Err(Error::new("TOML keys are strings")),
        }
    }
    fn serialize_value<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), Error> {
        let key = self.1.take().ok_or_else(|| Error::new("a map value without a key"))?;
        let value = value.serialize(ToOut)?;
        if !matches!(value, Out::Skip) {
            self.0.push((key, value));
        }
        Ok(())
    }
    fn end(self) -> Result<Out, Error> {
        Ok(Out::Table(self.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Serialize)]
    struct Inner {
        rule: String,
    }

    #[derive(serde::Serialize)]
    struct SampleEntry {
        name: String,
        tags: Vec<String>,
        missing: Option<String>,
        inner: Option<Inner>,
        many: Vec<Inner>,
        env: std::collections::BTreeMap<String, String>,
    }

    #[derive(serde::Serialize)]
    struct SampleDoc {
        version: u32,
        entry: Vec<SampleEntry>,
    }

    #[test]
    fn writes_toml_that_both_readers_read_alike() {
        let doc = SampleDoc {
            version: 1,
            entry: vec![SampleEntry {
                name: "a \"quoted\" \\ name\nwith a newline\tand\u{1} control, é, 😀".into(),
                tags: vec!["x".into(), "y z".into()],
                missing: None,
                inner: Some(Inner { rule: "r".into() }),
                many: vec![Inner { rule: "one".into() }, Inner { rule: "two".into() }],
                env: [("X-Api-Key".to_string(), "${KEY}".to_string()), ("a.b".to_string(), "c".to_string())].into(),
            }],
        };
        let text = to_string(&doc).expect("writes");
        assert_eq!(
            text.lines().take(4).collect::<Vec<_>>(),
            [
                "version = 1",
                "",
                "[[entry]]",
                r#"name = "a \"quoted\" \\ name\nwith a newline\tand\u0001 control, é, 😀""#
            ]
        );
        let general: serde_json::Value = toml::from_str(&text).expect("toml reads it");
        let fast: serde_json::Value =
            crate::lock::read::from_node(crate::lock::read::parse(&text).expect("the fast reader reads it"))
                .expect("as JSON");
        assert_eq!(general, fast);
        assert_eq!(general["entry"][0]["many"][1]["rule"], "two");
        assert_eq!(general["entry"][0]["env"]["a.b"], "c");
        assert!(general["entry"][0].get("missing").is_none());
    }

    /// A sink that keeps what it is given and the largest single write.
    #[derive(Default)]
    struct Chunks {
        bytes: Vec<u8>,
        largest: usize,
    }

    impl std::io::Write for Chunks {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.largest = self.largest.max(buf.len());
            self.bytes.extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_document_is_written_as_it_is_made_with_the_same_bytes() {
        let entry = |i: usize| SampleEntry {
            name: format!("entry {i} \"quoted\""),
            tags: vec!["x".into(); i % 3],
            missing: None,
            inner: i.is_multiple_of(2).then(|| Inner { rule: format!("r{i}") }),
            many: vec![Inner { rule: "one".into() }],
            env: [("K".to_string(), format!("{i}"))].into(),
        };
        let doc = SampleDoc { version: 2, entry: (0..20_000).map(entry).collect() };
        let whole = to_string(&doc).expect("writes");
        let mut sink = Chunks::default();
        to_writer(&doc, &mut sink).expect("streams");
        assert_eq!(String::from_utf8(sink.bytes).expect("UTF-8"), whole);
        // Megabytes of TOML, never handed over (nor held) more than a buffer's worth at once.
        assert!(whole.len() > 20 * stream::FLUSH_BYTES, "{}", whole.len());
        assert!(sink.largest < 2 * stream::FLUSH_BYTES, "{} bytes written at once", sink.largest);
        // An empty array of tables is a plain value, as `to_string` writes it.
        let empty = SampleDoc { version: 1, entry: Vec::new() };
        let mut sink = Chunks::default();
        to_writer(&empty, &mut sink).expect("streams");
        assert_eq!(String::from_utf8(sink.bytes).expect("UTF-8"), to_string(&empty).expect("writes"));
    }

    #[test]
    fn a_value_after_the_tables_is_refused_rather_than_misplaced() {
        #[derive(serde::Serialize)]
        struct Late {
            entry: Vec<Inner>,
            version: u32,
        }
        let late = Late { entry: vec![Inner { rule: "r".into() }], version: 1 };
        // `to_string` moves the value up; written as it comes, it would land in the last table.
        assert!(to_string(&late).expect("writes").starts_with("version = 1\n"));
        let err = to_writer(&late, &mut Chunks::default()).expect_err("refused");
        assert!(err.to_string().contains("`version` comes after the tables"), "{err}");
    }
}
