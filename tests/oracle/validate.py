#!/usr/bin/env python3
"""Record what the real Claude Code says about every plugin and marketplace in the corpora.

Usage: CLAUDE_BIN=/path/to/claude tests/oracle/validate.py [CORPORA_DIR] [--only CORPUS ...]

CORPORA_DIR defaults to ../shared/corpora relative to the repository root. For every corpus
(a folder of CORPORA_DIR) it finds

  * every marketplace: a folder holding .claude-plugin/marketplace.json;
  * every plugin folder: a folder holding .claude-plugin/plugin.json, and every local-folder
    plugin a marketplace lists (a string `source`), even one without plugin.json;

and runs, each with a throwaway HOME and cwd, offline (`unshare -n` where allowed):

  * `claude plugin validate --json <arg>` on every target. The validator, given a folder,
    reads .claude-plugin/marketplace.json if there is one and only otherwise plugin.json, so a
    plugin folder that also holds a marketplace is validated as `<folder>/.claude-plugin/plugin.json`
    (form "plugin.json"); every other target is validated as its folder (form "folder").
  * `claude --plugin-dir <folder> plugin list --json` on every plugin: the session ("@inline")
    entries, whether it loaded, its errors. Claude Code's own built-in plugins are left out.
  * `claude --plugin-dir <folder> plugin details <name>@inline` on every plugin that loaded:
    the component inventory it prints (its names are that command's, see the report).
  * For a marketplace: `claude plugin marketplace add <folder>` in a fresh HOME; if that works,
    `claude plugin install <name>@<marketplace>` for every local plugin it lists, then
    `claude plugin list --json` and `claude plugin details <id>`: how the plugin loads when it
    is installed through the marketplace (the entry's `strict`, `skills`, `lspServers` ... apply).

It writes tests/oracle/validate/<corpus>.json: sorted keys, 1-space indent, paths relative to
the corpus root ("." for the root), the throwaway HOME written as "$HOME", and nothing that
varies between runs (times are dropped). Python 3.11 standard library only.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
OUT_DIR = Path(__file__).resolve().parent / "validate"
ENV_FIXED = {
    "DISABLE_AUTOUPDATER": "1",
    "DISABLE_TELEMETRY": "1",
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    "NO_COLOR": "1",
    "FORCE_COLOR": "0",
    "CI": "1",
}
TIMEOUT = 120
# Fields of `plugin list --json` entries that change from run to run.
VOLATILE_LIST_FIELDS = ("installedAt", "lastUpdated")
DETAILS_KINDS = ("Skills", "Agents", "Hooks", "MCP servers", "LSP servers", "Commands")


def die(msg: str) -> None:
    print(f"validate.py: {msg}", file=sys.stderr)
    sys.exit(2)


def claude_bin() -> str:
    b = os.environ.get("CLAUDE_BIN")
    if not b:
        die("CLAUDE_BIN is not set; point it at the Claude Code binary "
            "(see ../shared/oracle/README.md)")
    if not (os.path.isfile(b) and os.access(b, os.X_OK)):
        die(f"CLAUDE_BIN={b!r} is not an executable file")
    return b


def can_unshare() -> bool:
    if os.environ.get("ORACLE_NO_UNSHARE"):
        return False
    try:
        return subprocess.run(["unshare", "-n", "true"], capture_output=True).returncode == 0
    except OSError:
        return False


class Runner:
    """Runs the binary with a throwaway HOME and cwd, and normalizes what it prints."""

    def __init__(self, binary: str, root: Path, unshare: bool):
        self.bin = binary
        self.root = str(root)
        self.unshare = unshare

    def run(self, args: list[str], home: str | None = None) -> tuple[int, str, str, dict]:
        own_home = home is None
        if own_home:
            home = tempfile.mkdtemp(prefix="capc-oracle-home-")
        cwd = tempfile.mkdtemp(prefix="capc-oracle-cwd-")
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("ANTHROPIC_", "CLAUDE_CODE_", "CLAUDE_CONFIG"))}
        env.update(ENV_FIXED)
        env["HOME"] = home
        env["TMPDIR"] = cwd
        cmd = [self.bin, *args]
        if self.unshare:
            cmd = ["unshare", "-n", *cmd]
        try:
            p = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True,
                               timeout=TIMEOUT, stdin=subprocess.DEVNULL)
            rc, out, err = p.returncode, p.stdout, p.stderr
        except subprocess.TimeoutExpired:
            rc, out, err = -1, "", f"timed out after {TIMEOUT}s"
        finally:
            shutil.rmtree(cwd, ignore_errors=True)
            if own_home:
                shutil.rmtree(home, ignore_errors=True)
        subs = {"home": home, "cwd": cwd}
        return rc, out, err, subs

    def norm_str(self, s: str, subs: dict) -> str:
        for real, name in ((subs["home"], "$HOME"), (subs["cwd"], "$CWD")):
            s = s.replace(real, name)
        # a failed install names its scratch copy after the time and a random suffix
        s = re.sub(r"\btemp_(local|git)_\d+_[0-9a-z]+", r"temp_\1_<TIME>_<RANDOM>", s)
        s = s.replace(self.root + "/", "")
        s = re.sub(re.escape(self.root) + r"(?![\w.-])", ".", s)
        return s

    def norm(self, v, subs: dict):
        if isinstance(v, str):
            return self.norm_str(v, subs)
        if isinstance(v, list):
            return [self.norm(x, subs) for x in v]
        if isinstance(v, dict):
            return {self.norm_str(k, subs): self.norm(x, subs) for k, x in v.items()}
        return v


def rel(root: Path, p: Path) -> str:
    r = os.path.relpath(p, root)
    return "." if r == "." else r.replace(os.sep, "/")


def clean_text(s: str) -> list[str]:
    """Lines of human output, without ANSI codes, spinners or trailing blanks."""
    s = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", s)
    lines = []
    for line in s.replace("\r", "\n").split("\n"):
        line = line.rstrip()
        if line:
            lines.append(line)
    return lines


# ---------------------------------------------------------------- discovery

def discover(root: Path) -> tuple[dict, dict]:
    """Marketplaces and plugin folders of one corpus, keyed by path relative to root."""
    markets: dict[str, dict] = {}
    plugins: dict[str, dict] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in (".git", "node_modules"))
        d = Path(dirpath)
        if d.name == ".claude-plugin":
            continue
        cp = d / ".claude-plugin"
        if (cp / "marketplace.json").is_file():
            markets[rel(root, d)] = {"dir": d}
        if (cp / "plugin.json").is_file():
            plugins.setdefault(rel(root, d), {"dir": d, "found_by": set(), "entries": []})
            plugins[rel(root, d)]["found_by"].add("plugin.json")
    for mrel, m in sorted(markets.items()):
        listing = []
        try:
            data = json.loads((m["dir"] / ".claude-plugin" / "marketplace.json").read_text())
        except (OSError, ValueError) as e:
            m["read_error"] = str(e)
            data = {}
        mname = data.get("name") if isinstance(data, dict) else None
        m["name"] = mname
        entries = data.get("plugins", []) if isinstance(data, dict) else []
        for i, ent in enumerate(entries if isinstance(entries, list) else []):
            if not isinstance(ent, dict):
                listing.append({"index": i, "kind": "invalid"})
                continue
            src = ent.get("source")
            item = {"index": i, "name": ent.get("name")}
            if "strict" in ent:
                item["strict"] = ent["strict"]
            if isinstance(src, str):
                # the corpus spelling (no symlink resolution) is the key
                target = Path(os.path.normpath(m["dir"] / src))
                item["kind"] = "local"
                item["source"] = src
                inside = str(target).startswith(str(root))
                item["path"] = rel(root, target) if inside else None
                item["exists"] = target.is_dir()
                item["has_plugin_json"] = (target / ".claude-plugin" / "plugin.json").is_file()
                if inside and target.is_dir():
                    p = plugins.setdefault(rel(root, target),
                                           {"dir": target, "found_by": set(), "entries": []})
                    p["found_by"].add("marketplace")
                    p["entries"].append({"marketplace": mname, "marketplace_path": mrel,
                                         "name": ent.get("name"), "index": i,
                                         "source": src,
                                         **({"strict": ent["strict"]} if "strict" in ent else {})})
            else:
                item["kind"] = "remote"
                item["source"] = src
            listing.append(item)
        m["listing"] = listing
    return markets, plugins


# ---------------------------------------------------------------- commands

def do_validate(r: Runner, root: Path, folder: Path, kind: str) -> dict:
    has_market = (folder / ".claude-plugin" / "marketplace.json").is_file()
    has_plugin = (folder / ".claude-plugin" / "plugin.json").is_file()
    if kind == "plugin" and has_market and has_plugin:
        arg, form = folder / ".claude-plugin" / "plugin.json", "plugin.json"
    else:
        arg, form = folder, "folder"
    rc, out, err, subs = r.run(["plugin", "validate", "--json", str(arg)])
    res = {"arg": rel(root, arg), "form": form, "exit_code": rc}
    try:
        rep = r.norm(json.loads(out), subs)
    except ValueError:
        res["unparsed_stdout"] = clean_text(r.norm_str(out, subs))
        res["stderr"] = clean_text(r.norm_str(err, subs))
        return res
    if isinstance(rep.get("contents"), list):
        rep["contents"].sort(key=lambda c: (str(c.get("file")), str(c.get("type"))))
    prov = rep.get("provides")
    if isinstance(prov, dict):
        for k, v in prov.items():
            if isinstance(v, list) and all(isinstance(x, str) for x in v):
                prov[k] = sorted(v)
    errors, warnings = [], []
    for part in ([rep.get("manifest")] if rep.get("manifest") else []) + list(rep.get("contents") or []):
        for sev, acc in (("errors", errors), ("warnings", warnings)):
            for e in part.get(sev) or []:
                acc.append({"file": part.get("file"), "type": part.get("type"),
                            "path": e.get("path"), "message": e.get("message"),
                            "code": e.get("code")})
    res.update(rep)
    res["all_errors"] = errors
    res["all_warnings"] = warnings
    if err.strip():
        res["stderr"] = clean_text(r.norm_str(err, subs))
    return res


def parse_details(lines: list[str]) -> dict:
    out: dict = {}
    if lines:
        out["header"] = lines[0]
    inv = {}
    for line in lines:
        m = re.match(r"^  Source: (.*)$", line)
        if m:
            out["source"] = m.group(1)
        m = re.match(r"^  (%s) \((\d+)\)(?:  (.*))?$" % "|".join(map(re.escape, DETAILS_KINDS)), line)
        if m:
            kind, count, rest = m.group(1), int(m.group(2)), m.group(3) or ""
            rest = re.sub(r"  \([^()]*\)$", "", rest)
            names = rest.split(", ") if rest else []
            ent = {"count": count, "names": sorted(names)}
            if len(names) != count:
                ent["raw"] = rest
            inv[kind] = ent
    out["inventory"] = inv
    return out


def do_details(r: Runner, ident: str, pre: list[str], home: str | None = None) -> dict:
    rc, out, err, subs = r.run([*pre, "plugin", "details", ident], home=home)
    lines = clean_text(r.norm_str(out, subs))
    res = {"exit_code": rc, "id": ident}
    if rc == 0:
        res.update(parse_details(lines))
    else:
        res["stdout"] = lines
    e = clean_text(r.norm_str(err, subs))
    if e:
        res["stderr"] = e
    return res


def norm_list_entries(r: Runner, data, subs) -> list:
    ents = [x for x in (data if isinstance(data, list) else data.get("installed", []))
            if not str(x.get("id", "")).endswith("@builtin")]
    ents = [{k: v for k, v in x.items() if k not in VOLATILE_LIST_FIELDS} for x in ents]
    return sorted(r.norm(ents, subs), key=lambda x: json.dumps(x, sort_keys=True))


def do_plugin_list(r: Runner, root: Path, folder: Path) -> dict:
    pre = ["--plugin-dir", str(folder)]
    rc, out, err, subs = r.run([*pre, "plugin", "list", "--json"])
    res = {"exit_code": rc}
    try:
        ents = norm_list_entries(r, json.loads(out), subs)
    except ValueError:
        res["unparsed_stdout"] = clean_text(r.norm_str(out, subs))
        res["stderr"] = clean_text(r.norm_str(err, subs))
        res["loaded"] = False
        return res
    res["entries"] = ents
    inline = [e for e in ents if str(e.get("id", "")).endswith("@inline")]
    res["loaded"] = any(e.get("enabled") for e in inline)
    res["name"] = inline[0]["id"][: -len("@inline")] if inline else None
    res["errors"] = sorted({m for e in ents for m in e.get("errors") or []})
    if not ents:
        res["outcome"] = "no entry (folder not taken as a plugin)"
    elif res["loaded"] and res["errors"]:
        res["outcome"] = "loaded with errors"
    elif res["loaded"]:
        res["outcome"] = "loaded"
    else:
        res["outcome"] = "failed"
    if err.strip():
        res["stderr"] = clean_text(r.norm_str(err, subs))
    if inline:
        res["details"] = do_details(r, inline[0]["id"], pre)
    return res


def do_marketplace_install(r: Runner, root: Path, mrel: str, m: dict) -> tuple[dict, dict]:
    """Add the marketplace in a fresh HOME, install each local plugin it lists.

    Returns the marketplace's outcome and {plugin path: install outcome}."""
    home = tempfile.mkdtemp(prefix="capc-oracle-home-")
    per_plugin: dict[str, dict] = {}
    try:
        rc, out, err, subs = r.run(["plugin", "marketplace", "add", str(m["dir"])], home=home)
        madd = {"exit_code": rc, "output": clean_text(r.norm_str(out + err, subs))}
        if rc != 0 or not m.get("name"):
            return madd, per_plugin
        installs = []
        for item in m["listing"]:
            if item.get("kind") != "local" or item.get("path") is None or not item.get("name"):
                continue
            ident = f"{item['name']}@{m['name']}"
            rc, out, err, subs = r.run(["plugin", "install", ident], home=home)
            installs.append((item, ident, {"id": ident, "exit_code": rc,
                                           "output": clean_text(r.norm_str(out + err, subs))}))
        rc, out, err, subs = r.run(["plugin", "list", "--json"], home=home)
        try:
            ents = norm_list_entries(r, json.loads(out), subs)
        except ValueError:
            ents = []
            madd["list_unparsed"] = clean_text(r.norm_str(out + err, subs))
        by_id = {}
        for e in ents:
            by_id.setdefault(e.get("id"), []).append(e)
        for item, ident, res in installs:
            res["entries"] = by_id.get(ident, [])
            res["loaded"] = any(e.get("enabled") for e in res["entries"])
            res["errors"] = sorted({x for e in res["entries"] for x in e.get("errors") or []})
            if res["entries"]:
                res["details"] = do_details(r, ident, [], home=home)
            per_plugin.setdefault(item["path"], []).append(res)
        return madd, per_plugin
    finally:
        shutil.rmtree(home, ignore_errors=True)


# ---------------------------------------------------------------- driver

def corpus_report(r: Runner, root: Path, jobs: int) -> dict:
    markets, plugins = discover(root)
    targets: list[dict] = []

    def plugin_target(prel: str) -> dict:
        p = plugins[prel]
        t = {"path": prel, "kind": "plugin", "found_by": sorted(p["found_by"]),
             "has_plugin_json": (p["dir"] / ".claude-plugin" / "plugin.json").is_file(),
             "marketplace_entries": sorted(p["entries"], key=lambda e: (str(e["marketplace_path"]), e["index"]))}
        t["validate"] = do_validate(r, root, p["dir"], "plugin")
        t["plugin_list"] = do_plugin_list(r, root, p["dir"])
        return t

    def market_target(mrel: str) -> dict:
        m = markets[mrel]
        t = {"path": mrel, "kind": "marketplace", "name": m.get("name"),
             "entries": m.get("listing", [])}
        if "read_error" in m:
            t["read_error"] = m["read_error"]
        t["validate"] = do_validate(r, root, m["dir"], "marketplace")
        add, per_plugin = do_marketplace_install(r, root, mrel, m)
        t["marketplace_add"] = add
        t["_installs"] = per_plugin
        return t

    with ThreadPoolExecutor(max_workers=jobs) as ex:
        mts = list(ex.map(market_target, sorted(markets)))
        pts = list(ex.map(plugin_target, sorted(plugins)))
    installs: dict[str, list] = {}
    for t in mts:
        for prel, lst in t.pop("_installs").items():
            installs.setdefault(prel, []).extend(lst)
    for t in pts:
        if t["marketplace_entries"]:
            t["marketplace_install"] = sorted(installs.get(t["path"], []), key=lambda x: x["id"])
    targets = sorted(mts + pts, key=lambda t: (t["path"], t["kind"]))
    return {"corpus": root.name, "targets": targets}


def summarize(rep: dict) -> str:
    ts = rep["targets"]
    n_pl = sum(t["kind"] == "plugin" for t in ts)
    n_mk = len(ts) - n_pl
    acc = sum(t["validate"].get("success") is True for t in ts)
    loaded = sum(t["plugin_list"]["loaded"] for t in ts if t["kind"] == "plugin")
    noentry = sum(not t["plugin_list"].get("entries") for t in ts if t["kind"] == "plugin")
    return (f"{rep['corpus']}: {len(ts)} targets ({n_mk} marketplace, {n_pl} plugin); "
            f"validate accepted {acc}, rejected {len(ts) - acc}; "
            f"--plugin-dir loaded {loaded}/{n_pl} ({noentry} not taken as a plugin)")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("corpora", nargs="?", default=str(REPO.parent / "shared" / "corpora"),
                    help="folder of corpora (default: ../shared/corpora from the repo root)")
    ap.add_argument("--only", action="append", default=[], help="only this corpus (repeatable)")
    ap.add_argument("--out", default=str(OUT_DIR), help="output folder")
    ap.add_argument("--jobs", type=int, default=1, help="parallel targets (default 1)")
    a = ap.parse_args()
    binary = claude_bin()
    base = Path(a.corpora).resolve()
    if not base.is_dir():
        die(f"corpora folder {base} does not exist")
    unshare = can_unshare()
    rc, ver, _, _ = Runner(binary, base, unshare).run(["--version"])
    ver = ver.strip()
    out_dir = Path(a.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    corpora = sorted(d for d in base.iterdir() if d.is_dir() and not d.name.startswith("."))
    if a.only:
        corpora = [d for d in corpora if d.name in a.only]
    for root in corpora:
        r = Runner(binary, root, unshare)
        rep = corpus_report(r, root, max(1, a.jobs))
        rep["claude_code_version"] = ver
        rep["commands"] = {
            "validate": "claude plugin validate --json <arg>",
            "plugin_list": "claude --plugin-dir <folder> plugin list --json",
            "details": "claude --plugin-dir <folder> plugin details <name>@inline",
            "marketplace_add": "claude plugin marketplace add <marketplace folder>",
            "marketplace_install": "claude plugin install <name>@<marketplace>; claude plugin list --json; claude plugin details <name>@<marketplace>",
            "environment": "HOME and cwd fresh temporary folders; " + " ".join(f"{k}={v}" for k, v in sorted(ENV_FIXED.items())),
        }
        text = json.dumps(rep, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
        (out_dir / f"{root.name}.json").write_text(text, encoding="utf-8")
        print(summarize(rep), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
