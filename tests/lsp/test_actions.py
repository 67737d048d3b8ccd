"""Quick fixes: every fix `capc check --fix` makes, as code actions whose edits give the very
text `--fix` writes (tests/fix/<rule>/after)."""

import pathlib
import shutil

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from conftest import REPO, apply_edits, open_file, pull, replace_all, start

FIXES = sorted(p.name for p in (REPO / "tests" / "fix").iterdir() if (p / "before").is_dir())


def changed_files(rule: str):
    """The files `--fix` changes in a fixture, relative to its tree."""
    before, after = REPO / "tests" / "fix" / rule / "before", REPO / "tests" / "fix" / rule / "after"
    for path in sorted(p for p in before.rglob("*") if p.is_file()):
        rel = path.relative_to(before)
        if (after / rel).read_bytes() != path.read_bytes():
            yield rel


def whole(text: str) -> types.Range:
    lines = text.split("\n")
    return types.Range(
        start=types.Position(line=0, character=0),
        end=types.Position(line=len(lines), character=0),
    )


async def actions(client: LanguageClient, path: pathlib.Path, text: str, only=None):
    return await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=path.as_uri()),
            range=whole(text),
            context=types.CodeActionContext(diagnostics=[], only=only),
        )
    )


def edited(action, path: pathlib.Path, text: str) -> str:
    return apply_edits(text, action.edit.changes[path.as_uri()])


def copy(rule: str, tmp_path: pathlib.Path) -> pathlib.Path:
    root = tmp_path / "repo"
    shutil.copytree(REPO / "tests" / "fix" / rule / "before", root, symlinks=True)
    return root


@pytest.mark.parametrize("rule", FIXES)
async def test_fix_all_writes_what_fix_writes(client: LanguageClient, tmp_path, rule):
    root = copy(rule, tmp_path)
    await start(client, root)
    files = list(changed_files(rule))
    assert files, f"tests/fix/{rule} changes nothing"
    for rel in files:
        path = root / rel
        text = open_file(client, path)
        found = await actions(client, path, text, only=[types.CodeActionKind.SourceFixAll])
        assert [a.kind for a in found] == [types.CodeActionKind.SourceFixAll], found
        after = (REPO / "tests" / "fix" / rule / "after" / rel).read_text()
        assert edited(found[0], path, text) == after, rel


@pytest.mark.parametrize("rule", FIXES)
async def test_quick_fixes_one_by_one_reach_what_fix_writes(client: LanguageClient, tmp_path, rule):
    root = copy(rule, tmp_path)
    await start(client, root)
    for rel in changed_files(rule):
        path = root / rel
        text = open_file(client, path)
        version = 1
        for _ in range(50):
            quick = [a for a in await actions(client, path, text) if a.kind == types.CodeActionKind.QuickFix]
            if not quick:
                break
            # Each quick fix names the finding it fixes, with its rule.
            assert quick[0].diagnostics and quick[0].diagnostics[0].code in quick[0].title
            new = edited(quick[0], path, text)
            assert new != text
            version += 1
            replace_all(client, path, version, text, new)
            text = new
        after = (REPO / "tests" / "fix" / rule / "after" / rel).read_text()
        assert text == after, rel


async def test_quick_fix_is_offered_only_on_its_finding(client: LanguageClient, tmp_path):
    root = copy("unknown-field", tmp_path)
    await start(client, root)
    path = next(p for p in root.rglob("SKILL.md"))
    text = open_file(client, path)
    fixable = [d for d in await pull(client, path.as_uri()) if d.code == "unknown-field"]
    assert fixable
    at = fixable[0].range
    on = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=path.as_uri()),
            range=at,
            context=types.CodeActionContext(diagnostics=[fixable[0]], only=[types.CodeActionKind.QuickFix]),
        )
    )
    assert on and all(a.kind == types.CodeActionKind.QuickFix for a in on)
    body = len(text.split("\n")) - 2
    off = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=path.as_uri()),
            range=types.Range(start=types.Position(line=body, character=0), end=types.Position(line=body, character=0)),
            context=types.CodeActionContext(diagnostics=[], only=[types.CodeActionKind.QuickFix]),
        )
    )
    assert not off
