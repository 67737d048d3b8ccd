//! Writing the lock's TOML as it is made: the layout of [`super::to_string`], one top-level
//! field (or one element of a top-level array of tables) at a time, so that a lock of 100,000
//! skills is never whole in memory as text nor as a tree of values.

use super::{is_table_array, write_inline, write_key, write_table, Error, MapOut, Out, Struct, ToOut};
use serde::ser::{self, Serialize};

/// Writes a value whose top level is a struct as a TOML document to `sink`, as [`to_string`]
/// writes it, without holding the document: each element of a top-level array of tables is
/// turned into a table and written before the next is looked at, through a buffer of
/// [`FLUSH_BYTES`]. The layout [`to_string`] gives (plain values, then sub-tables, then arrays
/// of tables) is kept by refusing a top level whose fields come in another order; the lock's
/// do not.
pub(crate) fn to_writer<T: Serialize>(value: &T, sink: &mut dyn std::io::Write) -> std::io::Result<()> {
    let mut top = Top { out: String::with_capacity(FLUSH_BYTES * 2), sink, phase: Phase::Plain, failed: None };
    let result = value.serialize(&mut top).and_then(|()| top.flush());
    match (result, top.failed) {
        (_, Some(e)) => Err(e),
        (Err(e), None) => Err(std::io::Error::other(e.to_string())),
        (Ok(()), None) => Ok(()),
    }
}

/// How much [`to_writer`] gathers before writing it out.
pub(super) const FLUSH_BYTES: usize = 1 << 16;

/// What a top level has written so far: later parts may not come before earlier ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Phase {
    Plain,
    Tables,
    Arrays,
}

struct Top<'w> {
    out: String,
    sink: &'w mut dyn std::io::Write,
    phase: Phase,
    /// The sink's error, which the serializer's error type cannot carry.
    failed: Option<std::io::Error>,
}

impl Top<'_> {
    fn flush(&mut self) -> Result<(), Error> {
        if let Err(e) = self.sink.write_all(self.out.as_bytes()) {
            self.failed = Some(e);
            return Err(Error::new("cannot write"));
        }
        self.out.clear();
        Ok(())
    }

    fn enter(&mut self, phase: Phase, key: &str) -> Result<(), Error> {
        if phase < self.phase {
            return Err(Error::new(format!("`{key}` comes after the tables it must precede")));
        }
        self.phase = phase;
        Ok(())
    }

    /// One top-level field, whole.
    fn place(&mut self, key: &'static str, value: Out) -> Result<(), Error> {
        match &value {
            Out::Skip => return Ok(()),
            Out::Table(sub) => {
                self.enter(Phase::Tables, key)?;
                self.out.push_str("\n[");
                write_key(&mut self.out, key);
                self.out.push_str("]\n");
                write_table(&mut self.out, &mut vec![key], sub, true);
            }
            Out::Array(items) if is_table_array(&value) => {
                for item in items {
                    self.array_table(key, item)?;
                }
            }
            _ => {
                self.enter(Phase::Plain, key)?;
                write_key(&mut self.out, key);
                self.out.push_str(" = ");
                write_inline(&mut self.out, &value);
                self.out.push('\n');
            }
        }
        if self.out.len() >= FLUSH_BYTES {
            self.flush()?;
        }
        Ok(())
    }

    /// One element of a top-level array of tables.
    fn array_table(&mut self, key: &'static str, item: &Out) -> Result<(), Error> {
        let Out::Table(sub) = item else { return Err(Error::new(format!("`{key}` mixes tables and values"))) };
        self.enter(Phase::Arrays, key)?;
        self.out.push_str("\n[[");
        write_key(&mut self.out, key);
        self.out.push_str("]]\n");
        write_table(&mut self.out, &mut vec![key], sub, true);
        if self.out.len() >= FLUSH_BYTES {
            self.flush()?;
        }
        Ok(())
    }
}

/// A top-level field: a sequence is written element by element, anything else whole.
struct Field<'t, 'w> {
    top: &'t mut Top<'w>,
    key: &'static str,
}

/// A top-level sequence: its tables written as they come; values (which make it an inline
/// array) kept until its end.
struct FieldSeq<'t, 'w> {
    field: Field<'t, 'w>,
    values: Vec<Out>,
    tables: bool,
}

impl<'a, 'w> ser::Serializer for &'a mut Top<'w> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = ser::Impossible<(), Error>;
    type SerializeTuple = ser::Impossible<(), Error>;
    type SerializeTupleStruct = ser::Impossible<(), Error>;
    type SerializeTupleVariant = ser::Impossible<(), Error>;
    type SerializeMap = ser::Impossible<(), Error>;
    type SerializeStruct = Self;
    type SerializeStructVariant = ser::Impossible<(), Error>;

    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self, Error> {
        Ok(self)
    }
    fn serialize_bool(self, _: bool) -> Result<(), Error> {
        Err(not_a_table())
    }
    fn serialize_i8(self, _: i8) -> Result<(), Error> {
        Err(not_a_table())
    }
    fn serialize_i16(self, _: i16) -> Result<(), Error> {
        Err(not_a_table())
    }
    fn serialize_i32(self, _: i32) -> Result<(), Error> {
        Err(not_a_table())
    }
    fn serialize_i64(self, _: i64) -> Result<(), Error> {
        Err(not_a_table())
    }
    fn serialize_u8(self, _: u8) -> Result<(), Error> {
        Err(not_a_table())
    }
    fn serialize_u16(self, _: u16) -> Result<(), Error> {
        Err(not_a_table())
    }
    fn serialize_u32(self, _: u32) -> Result<(), Error> {
        Err(not_a_table())
    }
    fn serialize_u64(self, _: u64) -> Result<(), Error> {
        Err(not_a_table())
    }
    fn serialize_f32(self, _: f32) -> Result<(), Error> {
        Err(not_a_table())
    }
    fn serialize_f64(self, _: f64) -> Result<(), Error> {
        Err(not_a_table())
    }
    fn serialize_char(self, _: char) -> Result<(), Error> {
        Err(not_a_table())
    }
    fn serialize_str(self, _: &str) -> Result<(), Error> {
        Err(not_a_table())
    }
    fn serialize_bytes(self, _: &[u8]) -> Result<(), Error> {
        Err(not_a_table())
    }
    fn serialize_none(self) -> Result<(), Error> {
        Err(not_a_table())
    }
    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Result<(), Error> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), Error> {
        Err(not_a_table())
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<(), Error> {
        Err(not_a_table())
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, _: &'static str) -> Result<(), Error> {
        Err(not_a_table())
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(self, _: &'static str, value: &T) -> Result<(), Error> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<(), Error> {
        Err(not_a_table())
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, Error> {
        Err(not_a_table())
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, Error> {
        Err(not_a_table())
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeTupleStruct, Error> {
        Err(not_a_table())
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, Error> {
        Err(not_a_table())
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, Error> {
        Err(not_a_table())
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, Error> {
        Err(not_a_table())
    }
}

fn not_a_table() -> Error {
    Error::new("the top level of a TOML document must be a table")
}

impl ser::SerializeStruct for &mut Top<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: ?Sized + Serialize>(&mut self, key: &'static str, value: &T) -> Result<(), Error> {
        value.serialize(Field { top: self, key })
    }
    fn end(self) -> Result<(), Error> {
        Ok(())
    }
}

/// A field's value other than a sequence: made whole ([`ToOut`]), then placed.
macro_rules! whole {
    ($($name:ident($($arg:ident: $ty:ty),*);)*) => {
        $(fn $name(self, $($arg: $ty),*) -> Result<(), Error> {
            let value = ser::Serializer::$name(ToOut, $($arg),*)?;
            self.top.place(self.key, value)
        })*
    };
}

impl<'t, 'w> ser::Serializer for Field<'t, 'w> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = FieldSeq<'t, 'w>;
    type SerializeTuple = FieldSeq<'t, 'w>;
    type SerializeTupleStruct = ser::Impossible<(), Error>;
    type SerializeTupleVariant = ser::Impossible<(), Error>;
    type SerializeMap = Whole<'t, 'w, MapOut>;
    type SerializeStruct = Whole<'t, 'w, Struct>;
    type SerializeStructVariant = ser::Impossible<(), Error>;

    whole! {
        serialize_bool(v: bool);
        serialize_i8(v: i8);
        serialize_i16(v: i16);
        serialize_i32(v: i32);
        serialize_i64(v: i64);
        serialize_u8(v: u8);
        serialize_u16(v: u16);
        serialize_u32(v: u32);
        serialize_u64(v: u64);
        serialize_f32(v: f32);
        serialize_f64(v: f64);
        serialize_char(v: char);
        serialize_str(v: &str);
        serialize_bytes(v: &[u8]);
        serialize_none();
        serialize_unit();
        serialize_unit_struct(name: &'static str);
        serialize_unit_variant(name: &'static str, index: u32, variant: &'static str);
    }
    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Result<(), Error> {
        value.serialize(self)
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(self, _: &'static str, value: &T) -> Result<(), Error> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        let value = ser::Serializer::serialize_newtype_variant(ToOut, name, index, variant, value)?;
        self.top.place(self.key, value)
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<FieldSeq<'t, 'w>, Error> {
        let _ = len;
        Ok(FieldSeq { field: self, values: Vec::new(), tables: false })
    }
    fn serialize_tuple(self, len: usize) -> Result<FieldSeq<'t, 'w>, Error> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeTupleStruct, Error> {
        Err(Error::new("the lock holds no tuple structs"))
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
    fn serialize_map(self, len: Option<usize>) -> Result<Self::SerializeMap, Error> {
        Ok(Whole { field: self, inner: ser::Serializer::serialize_map(ToOut, len)? })
    }
    fn serialize_struct(self, name: &'static str, len: usize) -> Result<Self::SerializeStruct, Error> {
        Ok(Whole { field: self, inner: ser::Serializer::serialize_struct(ToOut, name, len)? })
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

/// A top-level map or sub-table, gathered whole ([`MapOut`], [`Struct`]) and then placed.
struct Whole<'t, 'w, I> {
    field: Field<'t, 'w>,
    inner: I,
}

impl ser::SerializeMap for Whole<'_, '_, MapOut> {
    type Ok = ();
    type Error = Error;
    fn serialize_key<T: ?Sized + Serialize>(&mut self, key: &T) -> Result<(), Error> {
        ser::SerializeMap::serialize_key(&mut self.inner, key)
    }
    fn serialize_value<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), Error> {
        ser::SerializeMap::serialize_value(&mut self.inner, value)
    }
    fn end(self) -> Result<(), Error> {
        let value = ser::SerializeMap::end(self.inner)?;
        self.field.top.place(self.field.key, value)
    }
}

impl ser::SerializeStruct for Whole<'_, '_, Struct> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: ?Sized + Serialize>(&mut self, key: &'static str, value: &T) -> Result<(), Error> {
        ser::SerializeStruct::serialize_field(&mut self.inner, key, value)
    }
    fn end(self) -> Result<(), Error> {
        let value = ser::SerializeStruct::end(self.inner)?;
        self.field.top.place(self.field.key, value)
    }
}

impl ser::SerializeSeq for FieldSeq<'_, '_> {
    type Ok = ();
    type Error = Error;
    fn serialize_element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), Error> {
        let value = value.serialize(ToOut)?;
        // As `to_string` decides: an array whose every element is a table is an array of
        // tables; anything else is an inline array, written whole at its end.
        if self.values.is_empty() && matches!(value, Out::Table(_)) {
            self.tables = true;
            return self.field.top.array_table(self.field.key, &value);
        }
        if self.tables {
            return Err(Error::new(format!("`{}` mixes tables and values", self.field.key)));
        }
        self.values.push(value);
        Ok(())
    }
    fn end(self) -> Result<(), Error> {
        if self.tables {
            return Ok(());
        }
        self.field.top.place(self.field.key, Out::Array(self.values))
    }
}

impl ser::SerializeTuple for FieldSeq<'_, '_> {
    type Ok = ();
    type Error = Error;
    fn serialize_element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), Error> {
        ser::SerializeSeq::serialize_element(self, value)
    }
    fn end(self) -> Result<(), Error> {
        ser::SerializeSeq::end(self)
    }
}
