//! [`ThinStr`]: a string one pointer wide, for the lock model's fields that are rarely set.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::fmt;
use thin_vec::ThinVec;

/// An immutable string one pointer wide (`Option<ThinStr>` too), its length stored with its
/// bytes. A command has a dozen optional strings, nearly all unset, and a large tree holds a
/// command per file several times over: a `String` is three words even when absent, this is
/// one. Reads as a `&str` (`Deref`); serialized as a string.
#[derive(Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ThinStr(ThinVec<u8>);

impl ThinStr {
    pub fn as_str(&self) -> &str {
        // Only whole strings go in (`From<&str>`, `From<String>`), so the bytes are UTF-8.
        std::str::from_utf8(&self.0).unwrap_or_default()
    }
}

impl std::ops::Deref for ThinStr {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for ThinStr {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl std::borrow::Borrow<str> for ThinStr {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl From<&str> for ThinStr {
    fn from(s: &str) -> ThinStr {
        ThinStr(ThinVec::from(s.as_bytes()))
    }
}

impl From<String> for ThinStr {
    fn from(s: String) -> ThinStr {
        ThinStr::from(s.as_str())
    }
}

impl From<ThinStr> for String {
    fn from(s: ThinStr) -> String {
        s.as_str().to_string()
    }
}

impl PartialEq<str> for ThinStr {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for ThinStr {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl fmt::Debug for ThinStr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for ThinStr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for ThinStr {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ThinStr {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<ThinStr, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = ThinStr;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<ThinStr, E> {
                Ok(ThinStr::from(s))
            }
        }
        deserializer.deserialize_str(Visitor)
    }
}

impl JsonSchema for ThinStr {
    fn schema_name() -> String {
        String::schema_name()
    }
    fn json_schema(generator: &mut schemars::gen::SchemaGenerator) -> schemars::schema::Schema {
        String::json_schema(generator)
    }
    fn is_referenceable() -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::ThinStr;

    #[test]
    fn a_thin_string_is_one_pointer_and_reads_back_as_written() {
        assert_eq!(std::mem::size_of::<Option<ThinStr>>(), std::mem::size_of::<usize>());
        for s in ["", "fork", "Deploy the app — to staging ✓"] {
            let thin = ThinStr::from(s);
            assert_eq!(&*thin, s);
            assert_eq!(thin.to_string(), s);
            let json = serde_json::to_string(&thin).expect("serializes");
            assert_eq!(json, serde_json::to_string(s).expect("serializes"));
            let back: ThinStr = serde_json::from_str(&json).expect("deserializes");
            assert_eq!(back, thin);
            let toml_back: std::collections::BTreeMap<String, ThinStr> =
                toml::from_str(&format!("k = {}", toml::Value::String(s.to_string()))).expect("reads TOML");
            assert_eq!(toml_back["k"], thin);
        }
    }
}
