//! The harness of the test targets whose tests need something that may be absent (the shared
//! corpora, an MCP server, git): a test whose input is missing is reported as *ignored*, with
//! what is missing in brackets (`test [missing corpora] name ... ignored`), and counted as
//! ignored in cargo's summary, never as passed; with `CI` set it fails instead.
//! `--include-ignored` runs such tests anyway (they fail, saying what is missing). The targets
//! using it set `harness = false` (libtest-mimic); `runtime/tests/mcp_live.rs` includes this
//! file by path.

use libtest_mimic::{Failed, Trial};

/// Something a test needs that is absent.
#[derive(Clone)]
pub(crate) struct Missing {
    /// A short name for the test line: `[missing LABEL]`.
    pub(crate) label: &'static str,
    /// What is missing, and how to get it.
    pub(crate) why: String,
}

/// A test that runs `test` when nothing is `missing`; otherwise ignored (or, under `CI`, failed)
/// with the reason.
pub(crate) fn trial(name: impl Into<String>, missing: &[Missing], test: impl FnOnce() + Send + 'static) -> Trial {
    let name = name.into();
    if missing.is_empty() {
        return Trial::test(name, move || {
            test();
            Ok(())
        });
    }
    let why = missing.iter().map(|m| m.why.as_str()).collect::<Vec<_>>().join("; ");
    if in_ci() {
        return Trial::test(name, move || {
            Err(Failed::from(format!("{why} (`CI` is set, so this fails; .ci/run installs it)")))
        });
    }
    let labels: Vec<&str> = missing.iter().map(|m| m.label).collect();
    Trial::test(name, move || Err(Failed::from(why)))
        .with_kind(format!("missing {}", labels.join(", ")))
        .with_ignored_flag(true)
}

/// Says once, outside CI, why the tests marked `[missing LABEL]` are ignored.
pub(crate) fn note(missing: &Missing) {
    if !in_ci() {
        eprintln!("note: the tests marked `missing {}` are ignored: {}", missing.label, missing.why);
    }
}

fn in_ci() -> bool {
    std::env::var_os("CI").is_some()
}
