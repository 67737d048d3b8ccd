//! Claude Code's read-only flag table, as data: `compiler/data/claude-code/bash-read-only-flags.tsv`,
//! which `scripts/claude-code-tables` extracts from a release's bundle (the file's header says
//! how it is written): the commands in the bundle's order (the first entry whose words begin a
//! command decides it), each with the flags it accepts and the value each takes. The file is
//! embedded when the crate is built and read once, at first use; this crate does no I/O.

use super::spec::{FlagKind, FlagSpec};
use std::sync::OnceLock;

const DATA: &str = include_str!("../../../compiler/data/claude-code/bash-read-only-flags.tsv");

/// The table, read from [`DATA`] at first use. A file that does not read (a test reads it)
/// gives an empty table: every command then needs a rule, never the other way round.
pub(crate) fn table() -> &'static [FlagSpec] {
    static TABLE: OnceLock<Vec<FlagSpec>> = OnceLock::new();
    TABLE.get_or_init(|| parse(DATA).unwrap_or_default())
}

/// The entries of a table file, or the line that does not read and why.
fn parse(text: &'static str) -> Result<Vec<FlagSpec>, String> {
    let mut table: Vec<FlagSpec> = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let at = number + 1;
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(option) = line.strip_prefix('\t') {
            let (flag, kind) = option.split_once('\t').ok_or(format!("line {at}: an option without a value kind"))?;
            let kind = match kind {
                "none" => FlagKind::None,
                "number" => FlagKind::Number,
                "string" => FlagKind::String,
                "char" => FlagKind::Char,
                "{}" => FlagKind::Braces,
                "EOF" => FlagKind::Eof,
                other => return Err(format!("line {at}: `{other}` is not a value kind")),
            };
            let spec = table.last_mut().ok_or(format!("line {at}: an option before any command"))?;
            spec.flags.push((flag, kind));
            continue;
        }
        let mut fields = line.split('\t');
        let command = fields.next().unwrap_or_default();
        let mut spec = FlagSpec { command, respects_double_dash: true, flags: Vec::new() };
        for mark in fields {
            match mark {
                "options-after-double-dash" => spec.respects_double_dash = false,
                // Checked further by hand (`dangerous.rs`, `readonly.rs`).
                "callback" | "pattern" => {}
                other => return Err(format!("line {at}: `{other}` is not a mark of a command")),
            }
        }
        table.push(spec);
    }
    Ok(table)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_file_reads_whole_in_the_bundle_order() {
        let table = parse(DATA).expect("the flag table file reads");
        assert_eq!(table.len(), super::table().len());
        let commands: Vec<&str> = table.iter().map(|s| s.command).collect();
        assert_eq!(commands.first(), Some(&"xargs"), "the bundle's table opens with xargs");
        let at = |name: &str| commands.iter().position(|c| *c == name);
        assert!(at("git diff") < at("grep") && at("grep") < at("rg") && at("rg") < at("test"), "{commands:?}");
        assert!(table.iter().all(|s| !s.flags.is_empty()), "every command lists its flags");
        let log = table.iter().find(|s| s.command == "git log").expect("git log");
        assert_eq!(log.kind("--max-count"), Some(FlagKind::Number));
        assert_eq!(log.kind("--oneline"), Some(FlagKind::None));
        let xargs = table.iter().find(|s| s.command == "xargs").expect("xargs");
        assert_eq!(
            (xargs.kind("-I"), xargs.kind("-E"), xargs.kind("-d")),
            (Some(FlagKind::Braces), Some(FlagKind::Eof), Some(FlagKind::Char))
        );
        let no_end: Vec<&str> = table.iter().filter(|s| !s.respects_double_dash).map(|s| s.command).collect();
        assert_eq!(no_end, ["git stash list", "git blame", "ps", "base64", "test"]);
    }

    #[test]
    fn a_bad_line_is_named() {
        assert_eq!(parse("\t-n\tnumber\n").err().as_deref(), Some("line 1: an option before any command"));
        assert_eq!(parse("ls\n\t-l\tsome\n").err().as_deref(), Some("line 2: `some` is not a value kind"));
        assert_eq!(parse("ls\tloud\n").err().as_deref(), Some("line 1: `loud` is not a mark of a command"));
        assert_eq!(parse("ls\n\t-l\n").err().as_deref(), Some("line 2: an option without a value kind"));
    }
}
