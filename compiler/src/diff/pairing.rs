//! Entries of two locks matched by key and compared field by field, for `compare.rs` and
//! `runs.rs`.

use super::{Change, Class, FieldChange, Section};
use serde::Serialize;
use serde_json::Value;
use std::collections::{BTreeSet, HashMap};
use std::hash::Hash;

pub(super) fn entry(section: Section, class: Class, subject: String, what: Option<String>, files: &[&str]) -> Change {
    let mut files: Vec<String> = files.iter().filter(|f| !f.is_empty()).map(|f| f.to_string()).collect();
    files.dedup();
    Change {
        section,
        class,
        subject,
        plugin: None,
        what,
        fields: Vec::new(),
        files,
        escalations: Vec::new(),
        text_diff: None,
    }
}

/// Entries of two lists matched by key: a key that appears several times is matched in order.
pub(super) struct Paired<'a, T> {
    pub(super) added: Vec<&'a T>,
    pub(super) removed: Vec<&'a T>,
    pub(super) kept: Vec<(&'a T, &'a T)>,
}

pub(super) fn pair<'a, T, K: Eq + Hash>(old: &'a [T], new: &'a [T], key: impl Fn(&'a T) -> K) -> Paired<'a, T> {
    let mut by_key: HashMap<K, std::collections::VecDeque<usize>> = HashMap::with_capacity(old.len());
    for (i, o) in old.iter().enumerate() {
        by_key.entry(key(o)).or_default().push_back(i);
    }
    let mut matched = vec![false; old.len()];
    let mut paired = Paired { added: Vec::new(), removed: Vec::new(), kept: Vec::new() };
    for n in new {
        match by_key.get_mut(&key(n)).and_then(|q| q.pop_front()) {
            Some(i) => {
                matched[i] = true;
                paired.kept.push((&old[i], n));
            }
            None => paired.added.push(n),
        }
    }
    paired.removed = old.iter().zip(&matched).filter(|(_, m)| !**m).map(|(o, _)| o).collect();
    paired
}

/// The fields that differ, by their names in the lock, as text (`None` for unset or empty).
pub(super) fn compare_fields<T: Serialize>(old: &T, new: &T, ignore: &[&str]) -> Vec<FieldChange> {
    let (Ok(Value::Object(o)), Ok(Value::Object(n))) = (serde_json::to_value(old), serde_json::to_value(new)) else {
        return Vec::new();
    };
    let keys: BTreeSet<&String> = o.keys().chain(n.keys()).collect();
    keys.into_iter()
        .filter(|k| !ignore.contains(&k.as_str()))
        .filter_map(|k| {
            let (a, b) = (o.get(k).and_then(text), n.get(k).and_then(text));
            (a != b).then(|| FieldChange { field: k.clone(), old: a, new: b })
        })
        .collect()
}

/// A lock value as one line of text.
fn text(v: &Value) -> Option<String> {
    match v {
        Value::Null => None,
        Value::String(s) => Some(s.clone()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Number(n) => Some(n.to_string()),
        Value::Array(items) if items.is_empty() => None,
        Value::Array(items) if items.iter().all(Value::is_string) => {
            Some(items.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(", "))
        }
        Value::Object(map) if map.is_empty() => None,
        other => Some(other.to_string()),
    }
}
