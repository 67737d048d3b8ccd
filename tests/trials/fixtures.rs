//! Fixture trees: `tests/fixtures/<name>/in/` is checked as a repository and the human
//! report (no color, 80 columns) must equal `tests/fixtures/<name>/expected.txt`.
//! Every rule has a fixture named after it, whose report shows that rule. Each fixture is a
//! trial named after it: `cargo test --test trials -- fixtures::blanket-allow` runs one.
//!
//! To accept new output, run `CAPC_BLESS=1 cargo test --test trials -- fixtures::` and read the
//! diff.

use capc_compiler::{check, report, rules, Options};
use libtest_mimic::Trial;
use std::path::{Path, PathBuf};

fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

fn fixture_names() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(fixtures_dir())
        .expect("tests/fixtures exists")
        .filter_map(Result::ok)
        .filter(|e| e.path().join("in").is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Files too large to commit are listed in `big-files.txt` (`<path under in/> <MiB>`) and
/// written here before the check; `.gitignore` keeps them out of git.
fn make_big_files(dir: &Path) {
    // Tests run in parallel threads (and other test binaries read these folders): one writer
    // at a time, and each file appears whole (written aside, then renamed).
    static WRITING: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _guard = WRITING.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let Ok(list) = std::fs::read_to_string(dir.join("big-files.txt")) else { return };
    for line in list.lines().filter(|l| !l.trim().is_empty()) {
        let (path, mib) = line.rsplit_once(' ').expect("`<path> <MiB>`");
        let target = dir.join("in").join(path);
        let size = mib.trim().parse::<usize>().expect("MiB is a number") * 1024 * 1024;
        if std::fs::metadata(&target).is_ok_and(|m| m.len() as usize == size) {
            continue;
        }
        std::fs::create_dir_all(target.parent().expect("has a parent")).expect("create folder");
        let mut text = if path.contains("/agents/") {
            String::from("---\nname: citation-checker\ndescription: Checks every citation against the bundled bibliography\n---\n")
        } else {
            String::from("---\ndescription: Every row of the quarterly export, pasted in by mistake\n---\n")
        };
        let row = "2026-09-30,EMEA,widgets,1284,19.99,shipped\n";
        while text.len() + row.len() <= size {
            text.push_str(row);
        }
        text.push_str(&"x".repeat(size - text.len()));
        let aside = target.with_extension(format!("partial-{}", std::process::id()));
        std::fs::write(&aside, text).expect("write big file");
        std::fs::rename(&aside, &target).expect("move big file into place");
    }
}

fn render(name: &str) -> String {
    let dir = fixtures_dir().join(name);
    make_big_files(&dir);
    let mut options = Options { root: dir.join("in"), ..Options::default() };
    if dir.join("user").is_dir() {
        options.user_dir = Some(dir.join("user"));
    }
    if dir.join("managed").is_dir() {
        options.managed_dir = Some(dir.join("managed"));
    }
    // Measured as `capc check` measures: the Skill listing for the windows of the fixture's own
    // capc.toml (default: the default model's), its `max-context-tokens`, and the tool surface
    // its lock recorded.
    let config = match capc_compiler::config::find_in(&options.root).expect("one capc.toml") {
        Some(file) => capc_compiler::config::Config::load(&options.root, Some(&file)).expect("fixture capc.toml"),
        None => capc_compiler::config::Config::defaults(&options.root),
    };
    let surface = std::sync::Arc::new(capc_compiler::surface::Recorded::read(
        &options.root.join(capc_compiler::lock::write::FILE_NAME),
    ));
    options.measure = capc_runtime::cost::measures(&config, &surface);
    options.surface = Some(surface);
    let checked = check(&options).expect("fixture root is a directory");
    report::to_text(&checked, false, 80)
}

/// One trial per fixture (its report matches `expected.txt`, and a second check gives the same
/// report), and one that every rule has a fixture.
pub(crate) fn trials() -> Vec<Trial> {
    let mut trials: Vec<Trial> = fixture_names()
        .into_iter()
        .map(|name| Trial::test(format!("fixtures::{name}"), move || fixture_matches_its_expected_report(&name)))
        .collect();
    trials.push(Trial::test("fixtures::every_rule_has_a_fixture_that_shows_it", || {
        every_rule_has_a_fixture_that_shows_it();
        Ok(())
    }));
    trials
}

fn fixture_matches_its_expected_report(name: &str) -> Result<(), libtest_mimic::Failed> {
    let actual = render(name);
    assert_eq!(render(name), actual, "fixture {name} is not deterministic");
    crate::support::golden::check(&fixtures_dir().join(name).join("expected.txt"), &actual).map_err(Into::into)
}

fn every_rule_has_a_fixture_that_shows_it() {
    let names = fixture_names();
    let mut missing = Vec::new();
    for rule in rules::RULES {
        let shown = names.contains(&rule.id.to_string())
            && std::fs::read_to_string(fixtures_dir().join(rule.id).join("expected.txt"))
                .is_ok_and(|t| t.contains(&format!("[{}]", rule.id)));
        if !shown {
            missing.push(rule.id);
        }
    }
    assert!(missing.is_empty(), "rules without a fixture that reports them: {missing:?}");
}
