//! Where what a folder runs comes from: the package or image an MCP server's command fetches
//! before it starts (`npx`, `bunx`, `pnpm dlx`, `uvx`, `pipx run`, `docker run`, …) and
//! whether an exact version or digest pins it; shell text that downloads a script and runs it
//! (`curl … | sh`, `bash <(curl …)`, `iex (irm …)`); remote MCP URLs in plain `http` to
//! another machine. Pure functions of strings, shared by the readers (which report and
//! record pins) and the rules' tests.

use crate::model::Pin;

/// The package a server's command line fetches, as the lock records it (`of`, `name` and
/// `path` are filled in by the reader).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Fetch {
    /// The launcher, as the lock names it: `npx`, `bunx`, `pnpm dlx`, `yarn dlx`, `uvx`,
    /// `pipx run`, `docker run`, `podman run`.
    pub via: &'static str,
    /// The package or image, without its version.
    pub package: String,
    pub exact: Option<String>,
    pub requested: Option<String>,
}

impl Fetch {
    pub(crate) fn pin(self, of: crate::model::PinOf, name: &str, path: &str) -> Pin {
        Pin {
            of,
            name: name.to_string(),
            path: path.to_string(),
            via: self.via.to_string(),
            package: self.package,
            exact: self.exact,
            requested: self.requested,
        }
    }

    /// How the package is written with an exact version, for a suggestion.
    pub(crate) fn pinned_example(&self) -> String {
        match self.via {
            "uvx" | "pipx run" => format!("{}==1.2.3", self.package),
            "docker run" | "podman run" => format!("{}@sha256:<digest>", self.package),
            _ if self.package.starts_with("git+") && self.via != "npx" => format!("{}@<commit>", self.package),
            _ if self.package.starts_with("git") => format!("{}#<commit>", self.package),
            _ => format!("{}@1.2.3", self.package),
        }
    }
}

/// A launcher that fetches its package or image without an exact version: the test behind
/// `unpinned-mcp-package` (MCP servers) and `unpinned-package` (every other run), and the
/// `unpinned` mark of `capc ls --runs`.
pub(crate) struct Unpinned {
    pub launch: Fetch,
    /// `package` or `image`.
    pub what: &'static str,
    /// What was asked instead of an exact version: "no version", "tag `latest`, not a digest", ….
    pub asked: String,
    /// How to pin it.
    pub fix: String,
}

impl Unpinned {
    /// "runs package `x` through `npx` with no version".
    pub(crate) fn runs(&self) -> String {
        format!("runs {} `{}` through `{}` with {}", self.what, self.launch.package, self.launch.via, self.asked)
    }
}

/// `command` and `args` start a package launcher without an exact version.
pub(crate) fn unpinned(command: &str, args: &[String]) -> Option<Unpinned> {
    let launch = server_launch(command, args)?;
    if launch.exact.is_some() {
        return None;
    }
    let what = match launch.via {
        "docker run" | "podman run" => "image",
        _ => "package",
    };
    let git = launch.package.starts_with("git");
    let asked = match &launch.requested {
        Some(r) if git => format!("`{r}`, not a commit"),
        Some(r) if what == "image" => format!("tag `{r}`, not a digest"),
        Some(r) => format!("`{r}`, not an exact version"),
        None if git => "no commit".to_string(),
        None => "no version".to_string(),
    };
    let fix = match launch.via {
        "docker run" | "podman run" => format!("pin the image by digest: `{}`", launch.pinned_example()),
        _ if git => format!("pin the commit you reviewed: `{}`", launch.pinned_example()),
        _ => format!("pin the release you reviewed: `{}`", launch.pinned_example()),
    };
    Some(Unpinned { launch, what, asked, fix })
}

/// A shell line that starts with a package launcher without an exact version (its words as
/// `capc ls --runs` reads them).
pub(crate) fn unpinned_line(line: &str) -> Option<Unpinned> {
    let words: Vec<String> = line.split_whitespace().map(str::to_string).collect();
    let (first, rest) = words.split_first()?;
    unpinned(first, rest)
}

/// What a stdio server's `command` and `args` fetch, when they start a package launcher.
pub(crate) fn server_launch(command: &str, args: &[String]) -> Option<Fetch> {
    // A whole command line in `command` (it fails to start, but it says what was meant).
    let mut words: Vec<&str> = command.split_whitespace().collect();
    words.extend(args.iter().map(String::as_str));
    // Windows wrappers: `cmd /c npx …`.
    if words.first().is_some_and(|w| program(w) == "cmd") && words.get(1).is_some_and(|w| w.eq_ignore_ascii_case("/c"))
    {
        words.drain(..2);
    }
    let first = program(words.first()?);
    let rest = &words[1..];
    match first.as_str() {
        "npx" => npm_like("npx", rest, &["-p", "--package"], &["-c", "--call"]),
        "bunx" => npm_like("bunx", rest, &["-p", "--package"], &[]),
        "pnpx" => npm_like("pnpm dlx", rest, &["--package"], &[]),
        "pnpm" | "yarn" => {
            let at = rest.iter().position(|w| *w == "dlx")?;
            let via = if first == "pnpm" { "pnpm dlx" } else { "yarn dlx" };
            npm_like(via, &rest[at + 1..], &["--package", "-p"], &[])
        }
        "uvx" => python_like("uvx", rest),
        "uv" => {
            // `uv tool run` is `uvx`.
            let at = rest.windows(2).position(|w| w == ["tool", "run"])?;
            python_like("uvx", &rest[at + 2..])
        }
        "pipx" => {
            let at = rest.iter().position(|w| *w == "run")?;
            python_like("pipx run", &rest[at + 1..])
        }
        "docker" | "podman" => {
            let via = if first == "docker" { "docker run" } else { "podman run" };
            let at = rest.iter().position(|w| *w == "run")?;
            // `docker run` or `docker container run`, after global options only.
            if rest[..at].iter().any(|w| !w.starts_with('-') && *w != "container") {
                return None;
            }
            container(via, &rest[at + 1..])
        }
        _ => None,
    }
}

/// The file name of a program, without a Windows `.cmd`/`.exe`.
fn program(word: &str) -> String {
    let name = word.rsplit(['/', '\\']).next().unwrap_or(word).to_ascii_lowercase();
    for ext in [".cmd", ".exe", ".bat"] {
        if let Some(stem) = name.strip_suffix(ext) {
            return stem.to_string();
        }
    }
    name
}

/// `npx`-style launchers: the package is `--package`'s value, else the first word that is not
/// an option; its version follows the last `@` that is not the scope's.
fn npm_like(via: &'static str, words: &[&str], package_flags: &[&str], command_flags: &[&str]) -> Option<Fetch> {
    let mut spec = None;
    let mut i = 0;
    while i < words.len() {
        let w = words[i];
        if w == "--" {
            spec = spec.or(words.get(i + 1).copied());
            break;
        }
        if let Some((flag, value)) = w.split_once('=') {
            if package_flags.contains(&flag) {
                spec = Some(value);
                break;
            }
        } else if package_flags.contains(&w) {
            spec = words.get(i + 1).copied();
            break;
        } else if command_flags.contains(&w) {
            return None;
        }
        if !w.starts_with('-') {
            spec = Some(w);
            break;
        }
        i += 1;
    }
    let spec = spec?;
    // A git source (`github:owner/repo#ref`, `git+https://…#ref`) is pinned only by a commit.
    if spec.starts_with("git+") || spec.starts_with("github:") {
        return Some(git_spec(via, spec, '#'));
    }
    // `name@version`, where a scoped name starts with its own `@`.
    let (package, version) = match spec.char_indices().skip(1).filter(|(_, c)| *c == '@').last() {
        Some((at, _)) => (&spec[..at], Some(&spec[at + 1..])),
        None => (spec, None),
    };
    // A local path or a URL is not a registry package.
    if package.starts_with(['.', '/', '~']) || package.contains("://") || package.starts_with("git+") {
        return None;
    }
    let (exact, requested) = classify(version, is_exact_semver);
    Some(Fetch { via, package: package.to_string(), exact, requested })
}

/// `uvx` and `pipx run`: `--from`/`--spec` name the package, else the first word that is not
/// an option; `pkg==1.2.3` (or uv's `pkg@1.2.3`) is exact.
fn python_like(via: &'static str, words: &[&str]) -> Option<Fetch> {
    const WITH_VALUE: &[&str] = &[
        "--with",
        "--with-editable",
        "--with-requirements",
        "--python",
        "-p",
        "--index",
        "--index-url",
        "--extra-index-url",
        "--default-index",
        "--pip-args",
        "--constraints",
        "--overrides",
        "--python-platform",
        "--cache-dir",
        "--directory",
        "--project",
        "--config-file",
    ];
    let mut spec = None;
    let mut i = 0;
    while i < words.len() {
        let w = words[i];
        if let Some((flag, value)) = w.split_once('=').filter(|(f, _)| f.starts_with("--")) {
            if flag == "--from" || flag == "--spec" {
                spec = Some(value);
                break;
            }
        } else if w == "--from" || w == "--spec" {
            spec = words.get(i + 1).copied();
            break;
        } else if WITH_VALUE.contains(&w) {
            i += 2;
            continue;
        } else if w == "--" {
            spec = words.get(i + 1).copied();
            break;
        } else if !w.starts_with('-') {
            spec = Some(w);
            break;
        }
        i += 1;
    }
    let spec = spec?;
    // `git+https://host/repo@rev` (pip's form; `#egg=` fragments dropped).
    if spec.starts_with("git+") {
        return Some(git_spec(via, spec.split('#').next().unwrap_or(spec), '@'));
    }
    if spec.starts_with(['.', '/', '~']) || spec.contains("://") {
        return None;
    }
    let cut = spec.find(['=', '<', '>', '~', '!', '@', '[', ';', ' ']).unwrap_or(spec.len());
    let package = &spec[..cut];
    let rest = &spec[cut..];
    // Extras (`pkg[cli]==1.0`) sit between the name and the version.
    let rest = match rest.strip_prefix('[') {
        Some(r) => r.split_once(']').map_or("", |(_, after)| after),
        None => rest,
    };
    let (exact, requested) = if let Some(v) = rest.strip_prefix("==").or_else(|| rest.strip_prefix('@')) {
        classify(Some(v), is_exact_python_version)
    } else if rest.is_empty() {
        (None, None)
    } else {
        (None, Some(rest.to_string()))
    };
    Some(Fetch { via, package: package.to_string(), exact, requested })
}

/// A package fetched from a git repository: pinned only by a full commit hash after `sep`
/// (after the URL's own `user@host`, for pip's `@`).
fn git_spec(via: &'static str, spec: &str, sep: char) -> Fetch {
    let path_start = spec.find("://").map_or(0, |i| i + 3);
    let cut = spec[path_start..].find('/').map_or(spec.len(), |i| path_start + i);
    let (package, rev) = match spec[cut..].rfind(sep) {
        Some(at) => (&spec[..cut + at], Some(&spec[cut + at + 1..])),
        None => (spec, None),
    };
    let (exact, requested) = classify(rev, is_commit_sha);
    Fetch { via, package: package.to_string(), exact, requested }
}

/// `docker run` options that take a value (the next word when not written `--opt=value`).
const DOCKER_WITH_VALUE: &[&str] = &[
    "-a",
    "--attach",
    "--add-host",
    "--annotation",
    "--blkio-weight",
    "--cap-add",
    "--cap-drop",
    "--cgroup-parent",
    "--cgroupns",
    "--cidfile",
    "--cpu-period",
    "--cpu-quota",
    "--cpu-shares",
    "-c",
    "--cpus",
    "--cpuset-cpus",
    "--cpuset-mems",
    "--device",
    "--dns",
    "--dns-option",
    "--dns-search",
    "--domainname",
    "--entrypoint",
    "-e",
    "--env",
    "--env-file",
    "--expose",
    "--gpus",
    "--group-add",
    "--health-cmd",
    "--health-interval",
    "--health-retries",
    "--health-timeout",
    "-h",
    "--hostname",
    "--ip",
    "--ip6",
    "--ipc",
    "--isolation",
    "-l",
    "--label",
    "--label-file",
    "--link",
    "--log-driver",
    "--log-opt",
    "--mac-address",
    "-m",
    "--memory",
    "--memory-reservation",
    "--memory-swap",
    "--mount",
    "--name",
    "--net",
    "--network",
    "--network-alias",
    "--pid",
    "--pids-limit",
    "--platform",
    "-p",
    "--publish",
    "--pull",
    "--restart",
    "--runtime",
    "--security-opt",
    "--shm-size",
    "--stop-signal",
    "--stop-timeout",
    "--storage-opt",
    "--sysctl",
    "--tmpfs",
    "--ulimit",
    "-u",
    "--user",
    "--userns",
    "--uts",
    "-v",
    "--volume",
    "--volume-driver",
    "--volumes-from",
    "-w",
    "--workdir",
];

fn container(via: &'static str, words: &[&str]) -> Option<Fetch> {
    let mut i = 0;
    while i < words.len() {
        let w = words[i];
        if w == "--" {
            i += 1;
            break;
        }
        if !w.starts_with('-') {
            break;
        }
        i += if DOCKER_WITH_VALUE.contains(&w) { 2 } else { 1 };
    }
    let image = *words.get(i)?;
    if image.contains('$') && !image.contains("@sha256:") {
        // An image named by a variable: what runs is decided by whoever sets it.
        return Some(Fetch { via, package: image.to_string(), exact: None, requested: None });
    }
    let (name, digest) = match image.split_once('@') {
        Some((name, digest)) => (name, Some(digest)),
        None => (image, None),
    };
    // A tag follows the last `:` after the last `/` (a registry may carry a port).
    let slash = name.rfind('/').map_or(0, |i| i + 1);
    let (repository, tag) = match name[slash..].rfind(':') {
        Some(at) => (&name[..slash + at], Some(&name[slash + at + 1..])),
        None => (name, None),
    };
    let exact = digest.filter(|d| is_sha256_digest(d)).map(str::to_string);
    let requested = if exact.is_some() { None } else { Some(tag.unwrap_or("latest").to_string()) };
    Some(Fetch { via, package: repository.to_string(), exact, requested })
}

fn is_sha256_digest(digest: &str) -> bool {
    digest.strip_prefix("sha256:").is_some_and(|hex| hex.len() == 64 && hex.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// An exact version and what was asked for otherwise.
fn classify(version: Option<&str>, exact: fn(&str) -> bool) -> (Option<String>, Option<String>) {
    match version.filter(|v| !v.is_empty()) {
        Some(v) if exact(v) => (Some(v.to_string()), None),
        Some(v) => (None, Some(v.to_string())),
        None => (None, None),
    }
}

/// `1.2.3`, `1.2.3-rc.1`, `1.2.3+build` (an npm tag, range or partial version is not exact).
pub(crate) fn is_exact_semver(v: &str) -> bool {
    let core = v.split(['-', '+']).next().unwrap_or("");
    let parts: Vec<&str> = core.split('.').collect();
    parts.len() == 3 && parts.iter().all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
}

/// A PEP 440 release without wildcards (`1.2`, `1.2.3`, `2.0.0rc1`).
fn is_exact_python_version(v: &str) -> bool {
    !v.is_empty()
        && !v.contains('*')
        && !v.contains(',')
        && v.bytes().next().is_some_and(|b| b.is_ascii_digit())
        && v.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'+' || b == b'-' || b == b'!')
}

/// A full 40-character lowercase commit hash.
pub(crate) fn is_commit_sha(s: &str) -> bool {
    s.len() == 40 && s.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// Programs that fetch a URL's content.
const DOWNLOADERS: &[&str] = &["curl", "wget", "fetch", "http", "https", "xh", "aria2c"];
/// Programs that run the text they are given as a program.
const INTERPRETERS: &[&str] = &[
    "sh",
    "bash",
    "zsh",
    "dash",
    "ksh",
    "fish",
    "ash",
    "csh",
    "tcsh",
    "python",
    "python3",
    "python2",
    "node",
    "perl",
    "ruby",
    "php",
    "pwsh",
    "powershell",
    "deno",
    "bun",
    "source",
    ".",
    "eval",
];

/// Whether a shell command line downloads something and runs it as a program; returns the
/// shape found (`curl … | sh`), for the message.
pub(crate) fn download_and_run(line: &str) -> Option<String> {
    if let Some(shape) = powershell_download_and_run(line) {
        return Some(shape);
    }
    let lower = line.to_ascii_lowercase();
    // Fast exit: no downloader named anywhere.
    if !DOWNLOADERS.iter().any(|d| lower.contains(d)) {
        return None;
    }
    let analysis = capc_grammar::analyse_shell(line);
    let name_of =
        |c: &capc_grammar::SimpleCommand| -> Option<String> { c.program_words().first().map(|w| program(&w.text)) };
    let is_downloader = |c: &capc_grammar::SimpleCommand| name_of(c).is_some_and(|n| DOWNLOADERS.contains(&n.as_str()));
    let is_interpreter =
        |c: &capc_grammar::SimpleCommand| name_of(c).is_some_and(|n| INTERPRETERS.contains(&n.as_str()));
    // `curl … | sh`: a downloader whose output is piped, further along the same pipeline, into
    // an interpreter reading it.
    let commands = &analysis.commands;
    for (i, c) in commands.iter().enumerate() {
        if !is_downloader(c) {
            continue;
        }
        let mut j = i;
        while matches!(commands[j].operator, Some(capc_grammar::Operator::Pipe | capc_grammar::Operator::PipeAll)) {
            j += 1;
            let Some(next) = commands.get(j) else { break };
            if is_interpreter(next) && reads_stdin_program(next) {
                let (d, r) = (name_of(c).unwrap_or_default(), name_of(next).unwrap_or_default());
                return Some(format!("{d} … | {r}"));
            }
        }
    }
    // `bash <(curl …)`, `sh -c "$(curl …)"`, `eval "$(wget -O- …)"`, `source <(curl …)`: an
    // interpreter given a substitution that downloads.
    for c in commands.iter().filter(|c| is_interpreter(c)) {
        for w in c.program_words().iter().skip(1) {
            let text = w.text.to_ascii_lowercase();
            let substitution = text.contains("<(") || text.contains("$(") || text.contains('`');
            if substitution && DOWNLOADERS.iter().any(|d| contains_word(&text, d)) {
                let r = name_of(c).unwrap_or_default();
                let d = DOWNLOADERS.iter().find(|d| contains_word(&text, d)).copied().unwrap_or("curl");
                let shape =
                    if text.contains("<(") { format!("{r} <({d} …)") } else { format!("{r} … \"$({d} …)\"") };
                return Some(shape);
            }
        }
    }
    // The analyser keeps a refused process substitution's commands but may drop the word;
    // fall back to the text for `<(curl`.
    for r in INTERPRETERS.iter().filter(|r| r.len() > 1) {
        for d in DOWNLOADERS {
            for sep in [" <(", " < <("] {
                if lower.contains(&format!("{r}{sep}{d} ")) {
                    return Some(format!("{r} <({d} …)"));
                }
            }
        }
    }
    None
}

/// An interpreter in a pipeline runs what it reads unless it is given a script or `-c` text.
fn reads_stdin_program(c: &capc_grammar::SimpleCommand) -> bool {
    let words = c.program_words();
    let args: Vec<&str> = words.iter().skip(1).map(|w| w.text.as_str()).collect();
    match args.first() {
        None => true,
        Some(first) => {
            // `sh -s -- args`, `bash -`, `python -`: read the program from stdin.
            matches!(*first, "-" | "-s" | "--")
                || (first.starts_with('-') && !args.iter().any(|a| *a == "-c" || *a == "-e"))
        }
    }
}

fn contains_word(text: &str, word: &str) -> bool {
    text.match_indices(word).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + word.len()..].chars().next();
        !before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
            && !after.is_some_and(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    })
}

/// PowerShell's forms: `iex (irm URL)`, `irm URL | iex`, `Invoke-Expression (New-Object
/// Net.WebClient).DownloadString(URL)`.
fn powershell_download_and_run(line: &str) -> Option<String> {
    let lower = line.to_ascii_lowercase();
    let runs = ["iex", "invoke-expression"].into_iter().find(|w| contains_word(&lower, w))?;
    let fetch = ["irm", "iwr", "invoke-restmethod", "invoke-webrequest", "downloadstring", "curl", "wget"]
        .into_iter()
        .find(|w| contains_word(&lower, w))?;
    Some(format!("{runs} ({fetch} …)"))
}

/// The host of a remote MCP server's `http://` URL when it is not this machine.
pub(crate) fn plain_http_host(url: &str) -> Option<String> {
    let rest = url.get(..7).filter(|s| s.eq_ignore_ascii_case("http://")).map(|_| &url[7..])?;
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let host = if let Some(v6) = host_port.strip_prefix('[') {
        v6.split(']').next().unwrap_or("")
    } else {
        host_port.split(':').next().unwrap_or("")
    };
    let host = host.to_ascii_lowercase();
    // A variable decides the host: whoever sets it knows.
    if host.is_empty() || host.contains('$') {
        return None;
    }
    if is_loopback(&host) {
        return None;
    }
    Some(host)
}

/// `localhost` (and `*.localhost`), 127.0.0.0/8 and `::1`.
fn is_loopback(host: &str) -> bool {
    if host == "localhost" || host.ends_with(".localhost") || host == "::1" || host == "0:0:0:0:0:0:0:1" {
        return true;
    }
    let octets: Vec<&str> = host.split('.').collect();
    octets.len() == 4 && octets[0] == "127" && octets.iter().all(|o| o.parse::<u8>().is_ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn launch(line: &str, expected: &str) {
        let mut words = line.split_whitespace();
        let command = words.next().unwrap_or_default();
        let args: Vec<String> = words.map(str::to_string).collect();
        let got = match server_launch(command, &args) {
            Some(l) => format!(
                "{} {} exact={} requested={}",
                l.via,
                l.package,
                l.exact.as_deref().unwrap_or("-"),
                l.requested.as_deref().unwrap_or("-")
            ),
            None => "none".to_string(),
        };
        assert_eq!(got, expected, "{line}");
    }

    #[test]
    fn npm_launchers() {
        launch(
            "npx -y @modelcontextprotocol/server-github",
            "npx @modelcontextprotocol/server-github exact=- requested=-",
        );
        launch(
            "npx -y @modelcontextprotocol/server-github@1.2.3",
            "npx @modelcontextprotocol/server-github exact=1.2.3 requested=-",
        );
        launch("npx mcp-remote@latest https://x", "npx mcp-remote exact=- requested=latest");
        launch("npx --package=@acme/srv@2.0.0-rc.1 srv", "npx @acme/srv exact=2.0.0-rc.1 requested=-");
        launch("npx -p acme@^1.2 acme-mcp", "npx acme exact=- requested=^1.2");
        launch("npx ./local-server", "none");
        launch("bunx acme-mcp@3.1.4", "bunx acme-mcp exact=3.1.4 requested=-");
        launch("pnpm dlx acme-mcp@1", "pnpm dlx acme-mcp exact=- requested=1");
        launch("cmd /c npx -y acme-mcp", "npx acme-mcp exact=- requested=-");
        launch("node server.js", "none");
    }

    #[test]
    fn python_launchers() {
        launch("uvx mcp-server-fetch", "uvx mcp-server-fetch exact=- requested=-");
        launch("uvx mcp-server-fetch==0.6.2", "uvx mcp-server-fetch exact=0.6.2 requested=-");
        launch("uvx --from mcp-server-git==2025.1.14 mcp-server-git", "uvx mcp-server-git exact=2025.1.14 requested=-");
        launch("uvx --python 3.12 acme@1.0.0", "uvx acme exact=1.0.0 requested=-");
        launch("uvx acme>=1.0", "uvx acme exact=- requested=>=1.0");
        launch("pipx run --spec acme[cli]==1.4 acme", "pipx run acme exact=1.4 requested=-");
        launch("uv tool run acme", "uvx acme exact=- requested=-");
        launch(
            "uvx --from git+https://github.com/oraios/serena serena",
            "uvx git+https://github.com/oraios/serena exact=- requested=-",
        );
        let sha = "0123456789abcdef0123456789abcdef01234567";
        launch(
            &format!("uvx --from git+https://git@github.com/o/r@{sha} r"),
            &format!("uvx git+https://git@github.com/o/r exact={sha} requested=-"),
        );
        launch("npx github:acme/srv#main", "npx github:acme/srv exact=- requested=main");
    }

    #[test]
    fn containers() {
        launch(
            "docker run -i --rm -e TOKEN ghcr.io/github/github-mcp-server",
            "docker run ghcr.io/github/github-mcp-server exact=- requested=latest",
        );
        launch("docker run -i --rm mcp/fetch:1.2", "docker run mcp/fetch exact=- requested=1.2");
        let digest = "sha256:".to_string() + &"a".repeat(64);
        launch(
            &format!("docker run --rm -i mcp/fetch@{digest}"),
            &format!("docker run mcp/fetch exact={digest} requested=-"),
        );
        launch(
            "docker run -v /a:/b --network=host localhost:5000/srv:dev",
            "docker run localhost:5000/srv exact=- requested=dev",
        );
        launch("docker compose run srv", "none");
    }

    #[track_caller]
    fn runs(line: &str, expected: Option<&str>) {
        assert_eq!(download_and_run(line).as_deref(), expected, "{line}");
    }

    #[test]
    fn download_and_run_shapes() {
        runs("curl -fsSL https://example.com/install.sh | sh", Some("curl … | sh"));
        runs("curl -fsSL https://example.com/install.sh | sudo bash -s -- --yes", Some("curl … | bash"));
        runs("wget -O- https://example.com/i.sh | bash", Some("wget … | bash"));
        runs("bash <(curl -s https://example.com/i.sh)", Some("bash <(curl …)"));
        runs("sh -c \"$(curl -fsSL https://example.com/i.sh)\"", Some("sh … \"$(curl …)\""));
        runs("iex (irm https://example.com/i.ps1)", Some("iex (irm …)"));
        runs("irm https://example.com/i.ps1 | iex", Some("iex (irm …)"));
        runs("curl -s https://api.example.com/status | jq .ok", None);
        runs("curl -o install.sh https://example.com/i.sh", None);
        runs("git status", None);
        runs("curl https://x | python3 -c 'import sys; print(1)'", None);
    }

    #[test]
    fn plain_http_hosts() {
        assert_eq!(plain_http_host("http://mcp.example.com/mcp").as_deref(), Some("mcp.example.com"));
        assert_eq!(plain_http_host("http://user:pw@10.0.0.5:8080/mcp").as_deref(), Some("10.0.0.5"));
        assert_eq!(plain_http_host("http://localhost:3000/mcp"), None);
        assert_eq!(plain_http_host("http://127.0.0.1:3000/mcp"), None);
        assert_eq!(plain_http_host("http://[::1]:3000/mcp"), None);
        assert_eq!(plain_http_host("https://mcp.example.com/mcp"), None);
        assert_eq!(plain_http_host("http://${HOST}/mcp"), None);
    }
}
