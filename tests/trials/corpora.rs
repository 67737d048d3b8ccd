//! Runs the compiler over every real tree in `../shared/corpora` and pins what it read.
//!
//! Two independent counts must agree for each corpus: what capc read, by kind, and a naive
//! walk of the tree (`SKILL.md` files, `.md` files under a `commands/` or `agents/` folder,
//! `.claude-plugin/plugin.json`, …) minus the files this test names as not declarations,
//! each with its reason. A corpus that gains or loses a declaration fails here.
//!
//! Each corpus is its own test (`corpora_are_read_completely::<corpus>`). This target has its
//! own harness (libtest-mimic, `harness = false`, see `harness/mod.rs`): when the corpora, or
//! one corpus, are absent, the tests that read them are reported as ignored, marked
//! `[missing corpora]` or `[missing corpus]`, never as passed; with `CI` set they fail.
//!
//! `baseline/mod.rs` adds the tests of `capc check --baseline` and `--new-since` on a copy of
//! one corpus in a scratch git repository (ignored, `[missing git]`, without git).

mod adoption;
mod baseline;

use crate::support::harness::{self, Missing};
use capc_compiler::decl::FileKind;
use capc_compiler::{check, Options, Severity};
use libtest_mimic::Trial;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// `../shared/corpora`, or the folder `CAPC_CORPORA` names (another copy of the corpora, e.g.
/// one that kept the upstream symbolic links).
fn corpora_dir() -> Option<PathBuf> {
    let dir = crate::support::corpora_path();
    dir.is_dir().then_some(dir)
}

/// Expected files of each kind: skills, commands, agents, plugin.json, marketplace.json,
/// .mcp.json, hooks.json.
#[derive(Debug, PartialEq, Eq, Clone, Copy)]
struct Kinds {
    skills: usize,
    commands: usize,
    agents: usize,
    plugin_json: usize,
    marketplace_json: usize,
    mcp_json: usize,
    hooks_json: usize,
}

struct Corpus {
    name: &'static str,
    kinds: Kinds,
    /// Path prefixes (`*` matches one segment) whose commands, agents, hooks and MCP files
    /// are not declarations, with the reason.
    not_declarations: &'static [(&'static str, &'static str)],
    /// Findings by rule, pinned: each was read and is a real problem (see the README).
    findings: &'static [(&'static str, usize)],
    /// What `capc check --format json` reports by default, by severity: at the corpus root, and
    /// summed over each plugin below the root checked on its own (`capc check plugins/X`).
    /// docs/rules.md ("Measured on real repositories") shows these against an earlier capc.
    defaults: Defaults,
    /// Symbolic links of the upstream repository, each with the declarations it adds when
    /// followed. A copy may keep a link (`git clone` does; Claude Code follows it) or store it
    /// as a plain file holding its target (an archive without links): the pinned `kinds` are
    /// the latter's, and each link found as a link adds its declarations.
    links: &'static [(&'static str, Kinds)],
    /// What a copy that kept the upstream links reports beyond the pinned findings and
    /// severities (a link that points at nothing, names that now clash).
    linked: Linked,
}

/// Findings and severities a copy adds when it kept the upstream links; `probe` is one of
/// them, a link in such a copy and a plain file otherwise.
#[derive(Debug, Clone, Copy)]
struct Linked {
    probe: &'static str,
    /// What the links add to the pinned findings by rule (or take away: a finding the linked
    /// declarations answer).
    findings: &'static [(&'static str, isize)],
    root: Severities,
    plugins: Severities,
}

impl Linked {
    const NONE: Linked = Linked { probe: "", findings: &[], root: sev(0, 0, 0), plugins: sev(0, 0, 0) };
}

/// Findings by severity: errors, warnings, infos.
#[derive(Debug, PartialEq, Eq, Clone, Copy, Default)]
struct Severities {
    errors: usize,
    warnings: usize,
    infos: usize,
}

#[derive(Debug, Clone, Copy)]
struct Defaults {
    root: Severities,
    plugins: Severities,
}

const fn sev(errors: usize, warnings: usize, infos: usize) -> Severities {
    Severities { errors, warnings, infos }
}

const NONE: Kinds =
    Kinds { skills: 0, commands: 0, agents: 0, plugin_json: 0, marketplace_json: 0, mcp_json: 0, hooks_json: 0 };

impl Severities {
    fn plus(self, o: Severities) -> Severities {
        sev(self.errors + o.errors, self.warnings + o.warnings, self.infos + o.infos)
    }
}

impl Kinds {
    fn plus(self, o: Kinds) -> Kinds {
        Kinds {
            skills: self.skills + o.skills,
            commands: self.commands + o.commands,
            agents: self.agents + o.agents,
            plugin_json: self.plugin_json + o.plugin_json,
            marketplace_json: self.marketplace_json + o.marketplace_json,
            mcp_json: self.mcp_json + o.mcp_json,
            hooks_json: self.hooks_json + o.hooks_json,
        }
    }
}

impl Corpus {
    /// The pinned counts for the copy at `root`: with the declarations of every link it kept.
    fn expected(&self, root: &Path) -> Kinds {
        self.links
            .iter()
            .filter(|(path, _)| root.join(path).symlink_metadata().is_ok_and(|m| m.file_type().is_symlink()))
            .fold(self.kinds, |k, (_, adds)| k.plus(*adds))
    }

    /// Whether the copy at `root` kept the upstream links `linked` is pinned for.
    fn kept_links(&self, root: &Path) -> bool {
        !self.linked.probe.is_empty()
            && root.join(self.linked.probe).symlink_metadata().is_ok_and(|m| m.file_type().is_symlink())
    }

    /// The pinned findings by rule for the copy at `root`.
    fn expected_findings(&self, root: &Path) -> BTreeMap<&'static str, usize> {
        let mut pinned: BTreeMap<&str, usize> = self.findings.iter().copied().collect();
        if self.kept_links(root) {
            for (rule, n) in self.linked.findings {
                let count = pinned.entry(rule).or_default();
                *count = count.saturating_add_signed(*n);
                if *count == 0 {
                    pinned.remove(rule);
                }
            }
        }
        pinned
    }

    /// The pinned severities (at the root, plugin by plugin) for the copy at `root`.
    fn expected_defaults(&self, root: &Path) -> (Severities, Severities) {
        let Defaults { root: at_root, plugins } = self.defaults;
        if self.kept_links(root) {
            (at_root.plus(self.linked.root), plugins.plus(self.linked.plugins))
        } else {
            (at_root, plugins)
        }
    }
}

const CORPORA: &[Corpus] = &[
    Corpus {
        name: "0xBigBoss__claude-code",
        kinds: Kinds { skills: 31, commands: 5, agents: 0, plugin_json: 2, marketplace_json: 1, mcp_json: 0, hooks_json: 2 },
        not_declarations: &[
            ("commands/", "a `~/.claude` configuration repository: its root `commands/` and `agents/` load when the folder is installed as `~/.claude`, not as a project's"),
            ("agents/", "the same root `agents/` of the `~/.claude` configuration repository"),
        ],
        findings: &[("lenient-frontmatter", 2), ("unquoted-plugin-variable", 2), ("version-mismatch", 1)],
        // Kept as links, the 25 `.claude/skills/*` links point outside the tree at nothing: a
        // warning each; `AGENTS.local.md -> CLAUDE.local.md` adds no declaration.
        defaults: Defaults { root: sev(0, 3, 2), plugins: sev(0, 2, 2) },
        links: &[],
        linked: Linked { probe: "AGENTS.local.md", findings: &[("unfollowed-symlink", 25)], root: sev(0, 25, 0), plugins: sev(0, 0, 0) },
    },
    Corpus {
        name: "Donchitos__Claude-Code-Game-Studios",
        kinds: Kinds { skills: 73, commands: 0, agents: 49, plugin_json: 0, marketplace_json: 0, mcp_json: 0, hooks_json: 0 },
        not_declarations: &[
            ("CCGS Skill Testing Framework/", "the project's own test specifications for its agents and skills, outside `.claude/`: not subagents"),
        ],
        // `unmatched-rule-paths`: 11 infos, the template's rules for folders a game project
        // creates later (`src/ai/**`, `assets/shaders/**`, …), none of which the template holds.
        findings: &[("blanket-allow", 32), ("invalid-field-value", 3), ("shadowed-declaration", 2), ("unmatched-rule-paths", 11)],
        defaults: Defaults { root: sev(0, 5, 43), plugins: sev(0, 0, 0) },
        links: &[],
        linked: Linked::NONE,
    },
    Corpus {
        name: "EveryInc__compound-engineering-plugin",
        kinds: Kinds { skills: 39, commands: 1, agents: 0, plugin_json: 1, marketplace_json: 1, mcp_json: 0, hooks_json: 0 },
        not_declarations: &[
            ("tests/fixtures/", "converter fixtures: folders with `claude-plugin/` (no dot) are not plugins, so their commands, agents, hooks and `.mcp.json` are not read"),
            ("skills/*/references/", "reference files inside a skill folder, loaded by the skill, not agents"),
        ],
        findings: &[("ignored-field", 1), ("unknown-field", 1)],
        // `.claude/skills -> ../.agents/skills`: the one skill of `.agents/skills/`, a project skill.
        defaults: Defaults { root: sev(0, 0, 2), plugins: sev(0, 0, 0) },
        links: &[(".claude/skills", Kinds { skills: 1, ..NONE })],
        linked: Linked::NONE,
    },
    Corpus {
        name: "K-Dense-AI__claude-scientific-skills",
        kinds: Kinds { skills: 134, commands: 0, agents: 0, plugin_json: 0, marketplace_json: 1, mcp_json: 0, hooks_json: 0 },
        not_declarations: &[],
        findings: &[("skill-description-too-long", 1)],
        defaults: Defaults { root: sev(0, 1, 0), plugins: sev(0, 0, 0) },
        links: &[],
        linked: Linked::NONE,
    },
    Corpus {
        name: "Kanevry__session-orchestrator",
        kinds: Kinds { skills: 48, commands: 27, agents: 16, plugin_json: 1, marketplace_json: 1, mcp_json: 2, hooks_json: 1 },
        not_declarations: &[
            ("skills/*/templates/", "templates a skill copies into a project, not the plugin's agents"),
            ("tests/fixtures/*/*/hooks/", "a test fixture project's `hooks/hooks.json`: outside a plugin, hooks load from settings files only"),
        ],
        // `unknown-field`: 122 in skills and agents, and 30 infos, one per rule of `.claude/rules/`
        // whose frontmatter holds keys Claude Code ignores there (`globs`, `alwaysApply`,
        // `tier`, …; each of these rules has `paths`, so none is a misspelt condition).
        // `unmatched-rule-paths`: 13 infos, rules whose globs name files the repository does not
        // hold (`.husky/**`, `**/*.bash`, …). `large-instructions`: the files sent at the start
        // come to more than the 120,000 characters Claude Code warns about.
        findings: &[("invalid-field-value", 1), ("large-instructions", 1), ("mcp-tool-name-too-long", 1), ("shadowed-declaration", 20), ("unknown-field", 152), ("unknown-mcp-server-in-rule", 5), ("unmatched-rule-paths", 13)],
        defaults: Defaults { root: sev(0, 27, 166), plugins: sev(0, 0, 0) },
        links: &[],
        linked: Linked::NONE,
    },
    Corpus {
        name: "anthropics__claude-plugins-official",
        kinds: Kinds { skills: 31, commands: 30, agents: 31, plugin_json: 40, marketplace_json: 1, mcp_json: 15, hooks_json: 6 },
        not_declarations: &[("plugins/skill-creator/skills/skill-creator/agents/", "prompt files inside a skill folder, not subagents")],
        findings: &[("invalid-field-value", 1), ("lenient-frontmatter", 1), ("mcp-tool-name-too-long", 2), ("reserved-name", 1), ("shadowed-declaration", 3), ("unknown-tool-in-rule", 9), ("unloaded-plugin", 1), ("unpinned-mcp-package", 4)],
        defaults: Defaults { root: sev(0, 4, 18), plugins: sev(3, 3, 15) },
        links: &[],
        linked: Linked::NONE,
    },
    Corpus {
        name: "boostvolt__claude-code-lsps",
        kinds: Kinds { skills: 0, commands: 0, agents: 0, plugin_json: 22, marketplace_json: 1, mcp_json: 0, hooks_json: 22 },
        not_declarations: &[],
        findings: &[("unknown-field", 3), ("unquoted-plugin-variable", 22), ("version-mismatch", 1)],
        defaults: Defaults { root: sev(0, 23, 3), plugins: sev(0, 22, 0) },
        links: &[],
        linked: Linked::NONE,
    },
    Corpus {
        name: "damionrashford__media-os",
        kinds: Kinds { skills: 128, commands: 1, agents: 14, plugin_json: 2, marketplace_json: 2, mcp_json: 0, hooks_json: 1 },
        not_declarations: &[],
        findings: &[("invalid-field-value", 1), ("loose-skill-file", 1), ("skill-description-too-long", 1), ("unknown-field", 3), ("unquoted-plugin-variable", 5)],
        defaults: Defaults { root: sev(0, 7, 4), plugins: sev(0, 0, 1) },
        links: &[],
        linked: Linked::NONE,
    },
    Corpus {
        name: "obra__superpowers",
        kinds: Kinds { skills: 14, commands: 0, agents: 0, plugin_json: 1, marketplace_json: 1, mcp_json: 0, hooks_json: 1 },
        not_declarations: &[],
        findings: &[],
        defaults: Defaults { root: sev(0, 0, 0), plugins: sev(0, 0, 0) },
        links: &[],
        linked: Linked::NONE,
    },
    Corpus {
        name: "stijnvanhulle__template",
        kinds: Kinds { skills: 0, commands: 7, agents: 1, plugin_json: 1, marketplace_json: 1, mcp_json: 0, hooks_json: 0 },
        not_declarations: &[
            ("tools/cursor/", "Cursor's copy of the commands and agents"),
            ("tools/opencode/", "OpenCode's copy of the agents (its `commands` links to the Claude Code plugin's)"),
        ],
        // Without its links, `.claude/output-styles` is a plain file, so the project's
        // `outputStyle: house` names no output style.
        findings: &[("unknown-selected-name", 1), ("unquoted-plugin-variable", 3)],
        // Kept as links, `.claude/commands` and `.claude/skills` name the same skills twice, and the
        // plugin's skills and commands clash (6 warnings); the plugin checked alone has a link
        // leaving it (`tools/claude/skills`); `.claude/output-styles` holds `house`.
        defaults: Defaults { root: sev(0, 4, 0), plugins: sev(0, 0, 0) },
        links: &[
            (".claude/skills", Kinds { skills: 8, ..NONE }),
            (".claude/commands", Kinds { commands: 7, ..NONE }),
            (".claude/agents", Kinds { agents: 1, ..NONE }),
            ("tools/claude/skills", Kinds { skills: 8, ..NONE }),
            ("tools/codex/skills", Kinds { skills: 8, ..NONE }),
            ("tools/gemini/skills", Kinds { skills: 8, ..NONE }),
            ("tools/opencode/skills", Kinds { skills: 8, ..NONE }),
            ("tools/cursor/skills", Kinds { skills: 8, ..NONE }),
        ],
        linked: Linked {
            probe: ".claude/skills",
            findings: &[("shadowed-declaration", 6), ("unknown-selected-name", -1)],
            root: sev(0, 5, 0),
            plugins: sev(0, 1, 0),
        },
    },
    Corpus {
        name: "wshobson__agents",
        kinds: Kinds { skills: 181, commands: 105, agents: 202, plugin_json: 91, marketplace_json: 1, mcp_json: 0, hooks_json: 2 },
        not_declarations: &[],
        findings: &[("component-path-format", 1), ("invalid-field-value", 2), ("unknown-field", 9), ("unknown-tool-in-rule", 2), ("unpinned-plugin-source", 1)],
        defaults: Defaults { root: sev(1, 0, 14), plugins: sev(1, 0, 13) },
        links: &[],
        linked: Linked::NONE,
    },
];

fn read_kinds(root: &Path) -> (Kinds, capc_compiler::Checked) {
    let checked = check(&Options { root: root.to_path_buf(), ..Options::default() }).expect("corpus is a directory");
    let kinds = Kinds {
        skills: checked.files_of(FileKind::Skill),
        commands: checked.files_of(FileKind::Command),
        agents: checked.files_of(FileKind::Agent),
        plugin_json: checked.files_of(FileKind::PluginManifest),
        marketplace_json: checked.files_of(FileKind::Marketplace),
        mcp_json: checked.files.iter().filter(|f| f.path.ends_with(".mcp.json")).count(),
        hooks_json: checked.files.iter().filter(|f| f.path.ends_with("hooks.json")).count(),
    };
    (kinds, checked)
}

/// The naive count: every file that looks like a declaration by name and folder.
fn naive_kinds(root: &Path, excluded: &[(&str, &str)]) -> Kinds {
    let mut kinds = NONE;
    let mut stack = vec![(root.to_path_buf(), String::new())];
    while let Some((dir, rel)) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("readable corpus").filter_map(Result::ok) {
            let name = entry.file_name().to_string_lossy().into_owned();
            let child = if rel.is_empty() { name.clone() } else { format!("{rel}/{name}") };
            // A link is followed, as Claude Code and capc follow links inside the tree.
            let file_type =
                std::fs::metadata(entry.path()).or_else(|_| entry.metadata()).expect("file type").file_type();
            if file_type.is_dir() {
                // Hidden folders other than Claude Code's own belong to other tools
                // (`.cursor-plugin`, `.agents`, `.codex-plugin`, …).
                let other_tool = name.starts_with('.') && name != ".claude" && name != ".claude-plugin";
                if !other_tool && name != "node_modules" {
                    stack.push((entry.path(), child));
                }
                continue;
            }
            // Every SKILL.md is a skill (unclaimed ones form a collection), so exclusions
            // apply to the other kinds only.
            if name != "SKILL.md" && excluded.iter().any(|(prefix, _)| matches_prefix(&child, prefix)) {
                continue;
            }
            let segments: Vec<&str> = child.split('/').collect();
            let folders = &segments[..segments.len() - 1];
            if name == "SKILL.md" {
                kinds.skills += 1;
            } else if name.ends_with(".md") && folders.contains(&"commands") {
                kinds.commands += 1;
            } else if name.ends_with(".md") && folders.contains(&"agents") {
                kinds.agents += 1;
            } else if child.ends_with(".claude-plugin/plugin.json") {
                kinds.plugin_json += 1;
            } else if child.ends_with(".claude-plugin/marketplace.json") {
                kinds.marketplace_json += 1;
            } else if name == ".mcp.json" {
                kinds.mcp_json += 1;
            } else if name == "hooks.json" {
                kinds.hooks_json += 1;
            }
        }
    }
    kinds
}

/// `prefix` may hold `*` for one path segment.
fn matches_prefix(path: &str, prefix: &str) -> bool {
    let pattern: Vec<&str> = prefix.trim_end_matches('/').split('/').collect();
    let segments: Vec<&str> = path.split('/').collect();
    segments.len() > pattern.len() && pattern.iter().zip(&segments).all(|(p, s)| *p == "*" || p == s)
}

/// One trial per corpus and question, and the baseline tests on one corpus.
pub(crate) fn trials() -> Vec<Trial> {
    let dir = corpora_dir();
    let absent = dir.is_none().then(|| Missing {
        label: "corpora",
        why: "the shared corpora are not beside the repository (../shared/corpora)".to_string(),
    });
    if let Some(absent) = &absent {
        harness::note(absent);
    }
    let mut trials = Vec::new();
    for corpus in CORPORA {
        let missing = match &dir {
            None => absent.iter().cloned().collect(),
            Some(dir) if !dir.join(corpus.name).is_dir() => vec![Missing {
                label: "corpus",
                why: format!("the corpus {} is absent (every_corpus_is_pinned fails too)", corpus.name),
            }],
            Some(_) => Vec::new(),
        };
        let name = format!("corpora::corpora_are_read_completely::{}", corpus.name);
        trials.push(harness::trial(name, &missing, move || corpus_is_read_completely(corpus)));
    }
    for corpus in CORPORA {
        let missing = match &dir {
            Some(dir) if dir.join(corpus.name).is_dir() => Vec::new(),
            _ => vec![Missing { label: "corpus", why: format!("the corpus {} is absent", corpus.name) }],
        };
        let name = format!("corpora::default_findings_by_severity::{}", corpus.name);
        trials.push(harness::trial(name, &missing, move || default_findings_by_severity(corpus)));
    }
    for corpus in CORPORA {
        let missing = match &dir {
            Some(dir) if dir.join(corpus.name).is_dir() => Vec::new(),
            _ => vec![Missing { label: "corpus", why: format!("the corpus {} is absent", corpus.name) }],
        };
        let name = format!("corpora::lock_says_its_findings_in_a_line::{}", corpus.name);
        trials.push(harness::trial(name, &missing, move || lock_says_its_findings_in_a_line(corpus)));
    }
    for corpus in CORPORA {
        let missing = match &dir {
            Some(dir) if dir.join(corpus.name).is_dir() => Vec::new(),
            _ => vec![Missing { label: "corpus", why: format!("the corpus {} is absent", corpus.name) }],
        };
        let name = format!("corpora::the_brief_report_places_every_finding::{}", corpus.name);
        trials.push(harness::trial(name, &missing, move || the_brief_report_places_every_finding(corpus)));
    }
    trials.push(harness::trial("corpora::every_corpus_is_pinned", absent.as_slice(), every_corpus_is_pinned));
    trials.push(harness::trial(
        "corpora::no_settings_key_claude_code_knows_is_unknown",
        absent.as_slice(),
        no_settings_key_claude_code_knows_is_unknown,
    ));
    let readme: Vec<Missing> = match &dir {
        Some(dir) if README_CORPORA.iter().all(|(name, _)| dir.join(name).is_dir()) => Vec::new(),
        _ => vec![Missing { label: "corpus", why: "a corpus the README measures is absent".to_string() }],
    };
    trials.push(harness::trial("corpora::readme_measures_what_capc_finds", &readme, readme_measures_what_capc_finds));
    // Baselines and `--new-since` on a copy of one corpus in a git repository.
    let mut needs: Vec<Missing> = match &dir {
        None => absent.iter().cloned().collect(),
        Some(dir) if !dir.join(baseline::CORPUS).is_dir() => {
            vec![Missing { label: "corpus", why: format!("the corpus {} is absent", baseline::CORPUS) }]
        }
        Some(_) => Vec::new(),
    };
    if !crate::support::git::available() {
        let git = Missing { label: "git", why: "`git` is not installed, so revisions cannot be read".to_string() };
        harness::note(&git);
        needs.push(git);
    }
    let corpora = dir.clone().unwrap_or_default();
    let at = corpora.clone();
    trials.push(harness::trial("corpora::baseline::a_baseline_reports_only_new_findings", &needs, move || {
        baseline::a_baseline_reports_only_new_findings(&at)
    }));
    let at = corpora.clone();
    trials.push(harness::trial("corpora::baseline::new_since_reports_only_what_a_change_adds", &needs, move || {
        baseline::new_since_reports_only_what_a_change_adds(&at)
    }));
    trials.push(harness::trial(
        "corpora::adoption::exclude_and_ignore_files_leave_out_what_a_marketplace_does_not_ship",
        &needs,
        move || adoption::exclude_and_ignore_files_leave_out_what_a_marketplace_does_not_ship(&corpora),
    ));
    trials
}

/// What capc reads in one corpus, by kind, equals the pinned counts and the naive walk of the
/// tree; its findings by rule equal the pinned ones.
fn corpus_is_read_completely(corpus: &Corpus) {
    let dir = corpora_dir().expect("the corpora are here");
    let mut problems = Vec::new();
    let root = dir.join(corpus.name);
    let (read, checked) = read_kinds(&root);
    let expected = corpus.expected(&root);
    if read != expected {
        problems.push(format!("{}: capc read {read:?}, pinned {expected:?}", corpus.name));
    }
    let naive = naive_kinds(&root, corpus.not_declarations);
    if naive != expected {
        problems.push(format!("{}: the tree holds {naive:?} (after exclusions), pinned {expected:?}", corpus.name));
    }
    let mut findings: BTreeMap<&str, usize> = BTreeMap::new();
    for d in &checked.diagnostics {
        *findings.entry(d.rule).or_default() += 1;
    }
    let pinned = corpus.expected_findings(&root);
    if findings != pinned {
        let listing: Vec<String> =
            checked.diagnostics.iter().map(|d| format!("  {} {} {}", d.rule, d.path, d.message)).collect();
        problems.push(format!("{}: findings {findings:?}, pinned {pinned:?}\n{}", corpus.name, listing.join("\n")));
    }
    let errors: Vec<String> = checked
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| format!("{} {}", d.rule, d.path))
        .collect();
    assert!(
        problems.is_empty(),
        "{}\n({}: {} files, {} errors {:?})",
        problems.join("\n"),
        corpus.name,
        checked.files_checked,
        errors.len(),
        errors
    );
}

/// `capc check --format json PATH` as a user runs it, counted by severity.
fn cli_severities(path: &Path) -> Severities {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_capc"))
        .args(["check", "--format", "json"])
        .arg(path)
        .output()
        .expect("capc runs");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("capc check --format json prints JSON");
    let mut counts = Severities::default();
    for d in report["diagnostics"].as_array().expect("diagnostics") {
        match d["severity"].as_str() {
            Some("error") => counts.errors += 1,
            Some("warning") => counts.warnings += 1,
            Some("info") => counts.infos += 1,
            other => panic!("unknown severity {other:?}"),
        }
    }
    counts
}

/// The settings files of the corpora, as the check of each corpus and of each of its plugins
/// claims them, with their kind: project and local settings, and a plugin's root
/// `settings.json` (none of the corpora's plugins has one; the pin says so, and grows when one
/// does). No `unknown-field` finding in any of them names a key Claude Code's settings table
/// knows at that level; in a plugin's settings, where Claude Code applies only `agent` and
/// `subagentStatusLine`, every other key is `ignored-field`, never `unknown-field`.
fn no_settings_key_claude_code_knows_is_unknown() {
    use capc_compiler::decl::settings::{known_keys, nested_keys};
    let dir = corpora_dir().expect("the corpora are here");
    let mut covered: BTreeMap<PathBuf, FileKind> = BTreeMap::new();
    let mut wrong = Vec::new();
    for corpus in CORPORA {
        let root = dir.join(corpus.name);
        for folder in std::iter::once(root.clone()).chain(plugin_folders(&root)) {
            let checked =
                check(&Options { root: folder.clone(), ..Options::default() }).expect("corpus is a directory");
            let settings: BTreeMap<&str, FileKind> = checked
                .files
                .iter()
                .filter(|f| matches!(f.kind, FileKind::Settings | FileKind::PluginSettings))
                .map(|f| (&*f.path, f.kind))
                .collect();
            for (path, kind) in &settings {
                covered.insert(folder.join(path), *kind);
            }
            for d in checked.diagnostics.iter().filter(|d| d.rule == "unknown-field") {
                let Some(kind) = settings.get(d.path.as_str()) else { continue };
                // `unknown field `KEY` in settings` or `… in `a.b``.
                let parsed = d.message.strip_prefix("unknown field `").and_then(|m| m.split_once("` in "));
                let Some((key, what)) = parsed else { continue };
                let level: Vec<&str> = match what.trim_matches('`') {
                    "settings" => Vec::new(),
                    path => path.split('.').collect(),
                };
                let known = if level.is_empty() { known_keys() } else { nested_keys(&level) };
                if *kind == FileKind::PluginSettings || known.contains(&key) {
                    wrong.push(format!("{}: {}", folder.join(&d.path).display(), d.message));
                }
            }
        }
    }
    assert!(wrong.is_empty(), "keys Claude Code knows, reported unknown:\n{}", wrong.join("\n"));
    let count = |kind: FileKind| covered.values().filter(|k| **k == kind).count();
    assert_eq!(
        (count(FileKind::Settings), count(FileKind::PluginSettings)),
        (5, 0),
        "the corpora's settings files (project and local; plugin root): {covered:#?}"
    );
}

/// The folders holding `.claude-plugin/plugin.json` at or below `root` (not entering
/// `node_modules` or `.git`), sorted.
pub(crate) fn plugin_folders(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        if dir.join(".claude-plugin/plugin.json").is_file() {
            out.push(dir.clone());
        }
        for entry in std::fs::read_dir(&dir).expect("readable corpus").filter_map(Result::ok) {
            let name = entry.file_name();
            if entry.file_type().is_ok_and(|t| t.is_dir()) && name != "node_modules" && name != ".git" {
                stack.push(entry.path());
            }
        }
    }
    out.sort();
    out
}

/// The default severities, through the CLI, at the corpus root and plugin by plugin: the
/// numbers of the severity policy's table. A rule made louder or quieter fails here.
fn default_findings_by_severity(corpus: &Corpus) {
    let root = corpora_dir().expect("the corpora are here").join(corpus.name);
    let at_root = cli_severities(&root);
    let mut plugins = Severities::default();
    for folder in plugin_folders(&root).into_iter().filter(|f| *f != root) {
        let s = cli_severities(&folder);
        plugins.errors += s.errors;
        plugins.warnings += s.warnings;
        plugins.infos += s.infos;
    }
    assert_eq!(
        (at_root, plugins),
        corpus.expected_defaults(&root),
        "{}: (root, plugins one by one) by severity",
        corpus.name
    );
}

/// `capc lock --check CORPUS` (which writes nothing) reports in a few lines: the count of
/// findings with the `capc check` that shows them, the files it leaves out, and that no lock
/// exists; never the report itself.
fn lock_says_its_findings_in_a_line(corpus: &Corpus) {
    let root = corpora_dir().expect("the corpora are here").join(corpus.name);
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_capc"))
        .args(["lock", "--check"])
        .arg(&root)
        .output()
        .expect("capc runs");
    let err = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        lines.last().is_some_and(|l| l.ends_with("capabilities.lock does not exist; run `capc lock` to create it")),
        "{err}"
    );
    let d = corpus.expected_defaults(&root).0;
    let total = d.errors + d.warnings + d.infos;
    let summary: Vec<&&str> = lines.iter().filter(|l| l.contains("; `capc check ")).collect();
    assert_eq!(summary.len(), usize::from(total > 0), "one summary line when there are findings: {err}");
    if let Some(line) = summary.first() {
        let level = if d.warnings > 0 { "warning: found " } else { "note: found " };
        assert!(line.starts_with(level), "{err}");
    }
    assert!(!err.contains('╭') && !err.contains("checked "), "the report is `capc check`'s: {err}");
    assert!(lines.len() <= 4, "{} lines: {err}", lines.len());
    assert!(out.stdout.is_empty());
}

/// `capc check`'s terminal report, brief by default, still accounts for every finding that
/// `--format short` lists: each place is shown (an error or warning in full, an info as its
/// `at` line, a repeat in the list under the finding it repeats), or counted in a repeat's
/// `… and N more`; and it is shorter than `--verbose`, which shows each one in full.
fn the_brief_report_places_every_finding(corpus: &Corpus) {
    let root = corpora_dir().expect("the corpora are here").join(corpus.name);
    let run = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_capc"))
            .args(["check", "--color", "never"])
            .args(args)
            .arg(".")
            .current_dir(&root)
            .env("COLUMNS", "100")
            .output()
            .expect("capc runs");
        assert!(matches!(out.status.code(), Some(0 | 1)), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let (short, brief, verbose) = (run(&["--format", "short"]), run(&[]), run(&["--verbose"]));
    // `path:line:col: severity[rule] message`, one per finding, then the summary.
    let places: Vec<&str> =
        short.lines().filter_map(|l| l.split_once(": ").map(|(place, _)| place)).filter(|p| p.contains(':')).collect();
    // A finding about a whole file is placed at 1:1 by `short`, and named by its path here.
    let shown = places
        .iter()
        .filter(|p| {
            let whole = p.strip_suffix(":1:1").is_some_and(|path| brief.contains(&format!(" {path}")));
            whole || brief.contains(&format!("{p}]")) || brief.contains(&format!(" {p}\n"))
        })
        .count();
    let counted: usize = brief
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("… and "))
        .filter_map(|rest| rest.split(' ').next()?.parse::<usize>().ok())
        .sum();
    assert!(
        shown + counted >= places.len(),
        "{}: {} findings, {shown} places shown and {counted} counted:\n{brief}",
        corpus.name,
        places.len()
    );
    assert_eq!(brief.lines().last(), verbose.lines().last(), "the same summary");
    if !places.is_empty() {
        assert!(brief.lines().count() <= verbose.lines().count(), "{}: brief is not longer", corpus.name);
    }
}

/// The corpora the README's table measures, with their public address.
const README_CORPORA: &[(&str, &str)] = &[
    ("wshobson__agents", "https://github.com/wshobson/agents"),
    ("anthropics__claude-plugins-official", "https://github.com/anthropics/claude-plugins-official"),
];

/// The README's table of what `capc check` finds in two real repositories is what it finds.
fn readme_measures_what_capc_finds() {
    let dir = corpora_dir().expect("the corpora are here");
    let mut table = String::from("| repository | files read | findings (default options) |\n| --- | ---: | --- |\n");
    for (name, url) in README_CORPORA {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_capc"))
            .args(["check", "--format", "json", "."])
            .current_dir(dir.join(name))
            .output()
            .expect("capc runs");
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("a JSON report");
        let n = |k: &str| report["summary"][k].as_u64().unwrap_or(0) as usize;
        use capc_compiler::plural::count;
        let shown = url.trim_start_matches("https://github.com/");
        table.push_str(&format!(
            "| [{shown}]({url}) | {} | {}, {}, {} |\n",
            report["files_checked"],
            count(n("errors"), "error"),
            count(n("warnings"), "warning"),
            count(n("infos"), "info"),
        ));
    }
    let readme = Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md");
    crate::support::golden::assert_section(&readme, "<!-- corpora:start", "<!-- corpora:end -->", &table);
}

/// The corpora on disk are exactly the pinned ones.
fn every_corpus_is_pinned() {
    let on_disk = crate::support::corpus_names(&corpora_dir().expect("the corpora are here"));
    let pinned: Vec<String> = CORPORA.iter().map(|c| c.name.to_string()).collect();
    assert_eq!(on_disk, pinned, "a corpus was added or removed: pin its counts here");
}
