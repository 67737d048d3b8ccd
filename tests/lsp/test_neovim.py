"""A headless Neovim (the Debian package) opens a real file with `capc lsp` attached and
receives capc's diagnostics, the same `capc check --format json` reports."""

import os
import pathlib
import shutil
import subprocess

from conftest import CAPC, REPO, check_json


def test_neovim_receives_capc_diagnostics(tmp_path):
    nvim = shutil.which("nvim")
    assert nvim, "nvim is not on PATH (apt-get install neovim)"
    root = tmp_path / "repo"
    shutil.copytree(REPO / "tests" / "fix" / "unknown-field" / "before", root)
    skill = next(root.rglob("SKILL.md"))
    out = tmp_path / "diagnostics.txt"
    env = dict(os.environ, CAPC_BIN=CAPC, ROOT=str(root), FILE=str(skill), OUT=str(out), HOME=str(tmp_path))
    script = pathlib.Path(__file__).with_name("neovim.lua")
    run = subprocess.run(
        [nvim, "--headless", "--clean", "-u", "NONE", "-c", f"luafile {script}"],
        env=env, capture_output=True, text=True, timeout=60,
    )
    assert out.is_file(), run.stderr
    got = out.read_text().splitlines()
    expected = sorted(
        f"{d['rule']} {d['line'] - 1}:{d['column'] - 1} {d['message']}"
        for d in check_json(root)["diagnostics"]
        if root / d["path"] == skill
    )
    assert got == expected and got, (got, expected)
