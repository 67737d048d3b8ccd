//! Words for counts in messages people read.

/// `1 file`, `2 files`: the count and the noun that fits it.
pub fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}
