//! The data-driven and outside-tool tests, one libtest-mimic binary (`harness = false`): a trial
//! per fixture, corpus, oracle scenario or tool suite, each runnable alone by its name
//! (`cargo test --test trials -- fixtures::blanket-allow`). A trial whose input is absent (the
//! shared corpora, git, an MCP server, pre-commit, the LSP client) is reported as ignored, and
//! fails under `CI` (`support::harness`). Each module names its trials `module::test`:
//!
//! - `fixtures`: every rule's fixture tree against its expected report;
//! - `corpora`: the eleven shared corpora, read completely and pinned, and baselines on one;
//! - `oracle_validate`: plugins as Claude Code's own validator and loader see them;
//! - `oracle`: what capc sends against what Claude Code sent, scenario by scenario;
//! - `differential`: Claude Code run live beside capc on every corpus, a fixed sample of turns;
//! - `diff`: `capc diff` on its cases, git revisions and a marketplace pull request;
//! - `docs`: every fenced block of the README and docs/, run or parsed as its mark says;
//! - `live`: pre-commit, real MCP servers, the REPL on a terminal, `capc serve` with real clients;
//! - `lsp`: `capc lsp` driven by pytest-lsp and by Neovim;
//! - `tables`: Claude Code's tables regenerated from its binary, equal to the committed data.

#[path = "../support/mod.rs"]
mod support;

mod corpora;
mod diff;
mod differential;
mod docs;
mod fixtures;
mod live;
mod lsp;
mod oracle;
mod oracle_validate;
mod tables;

fn main() {
    let args = libtest_mimic::Arguments::from_args();
    let npm_cache = oracle::offline_npm();
    let trials = [
        fixtures::trials(),
        corpora::trials(),
        oracle_validate::trials(),
        oracle::trials(),
        differential::trials(),
        diff::trials(),
        docs::trials(),
        live::trials(),
        lsp::trials(),
        tables::trials(),
    ]
    .into_iter()
    .flatten()
    .collect();
    let conclusion = libtest_mimic::run(&args, trials);
    drop(npm_cache);
    conclusion.exit();
}
