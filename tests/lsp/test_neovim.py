"""A headless Neovim (the Debian package) opens a real file with `capc lsp` attached and
receives capc's diagnostics, the same `capc check --format json` reports."""

import os
import pathlib
import shutil
import subprocess

from conftest import CAPC, REPO, check_json


def documented_setup() -> str:
    """The Lua block of docs/lsp.md's Neovim section, as a user pastes it into init.lua."""
    text = (REPO / "docs" / "lsp.md").read_text()
    section = text[text.index("### Neovim"):]
    block = section[section.index("```lua\n") + len("```lua\n"):]
    return block[: block.index("```")]


def test_neovim_receives_capc_diagnostics(tmp_path):
    run_neovim(tmp_path, setup=None)


def test_the_documented_neovim_setup_receives_capc_diagnostics(tmp_path):
    setup = documented_setup()
    assert "{ 'capc', 'lsp' }" in setup, setup
    # The `capc` under test, where the user's is on PATH.
    run_neovim(tmp_path, setup=setup.replace("{ 'capc', 'lsp' }", "{ %r, 'lsp' }" % CAPC))


def run_neovim(tmp_path, setup):
    nvim = shutil.which("nvim")
    assert nvim, "nvim is not on PATH (apt-get install neovim)"
    root = tmp_path / "repo"
    shutil.copytree(REPO / "tests" / "fix" / "unknown-field" / "before", root)
    skill = next(root.rglob("SKILL.md"))
    out = tmp_path / "diagnostics.txt"
    env = dict(os.environ, CAPC_BIN=CAPC, ROOT=str(root), FILE=str(skill), OUT=str(out), HOME=str(tmp_path))
    env.pop("SETUP", None)
    script = pathlib.Path(__file__).with_name("neovim.lua")
    if setup is None:
        command = [nvim, "--headless", "--clean", "-u", "NONE", "-c", f"luafile {script}"]
    else:
        init = tmp_path / "init.lua"
        init.write_text(setup)
        env["SETUP"] = "1"
        command = [nvim, "--headless", "-u", str(init), "-c", f"luafile {script}"]
    run = subprocess.run(command, env=env, cwd=root, capture_output=True, text=True, timeout=60)
    assert out.is_file(), run.stderr
    got = out.read_text().splitlines()
    expected = sorted(
        f"{d['rule']} {d['line'] - 1}:{d['column'] - 1} {d['message']}"
        for d in check_json(root)["diagnostics"]
        if root / d["path"] == skill
    )
    assert got == expected and got, (got, expected)
