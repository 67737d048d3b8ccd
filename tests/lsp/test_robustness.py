"""Bad input gets an error or is ignored, and the server goes on; 1,000 edits interleaved with
requests never leave stale diagnostics."""

import asyncio
import json

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient

from conftest import check_json, expected_lsp, as_tuples, open_file, pull, replace_all, start, wait_until

SKILL = "---\nname: triage\ndescription: Sorts new issues by area\n---\nRead the issue.\n"


def skill_in(tmp_path):
    skill = tmp_path / ".claude" / "skills" / "triage" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text(SKILL)
    return skill


async def alive(client: LanguageClient):
    """The server still answers."""
    result = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="triage"))
    assert result is not None


def raw(client: LanguageClient, body: bytes, length=None):
    """Writes one frame to the server as it is, bypassing the client's encoder."""
    length = len(body) if length is None else length
    client._server.stdin.write(b"Content-Length: %d\r\n\r\n" % length + body)


async def test_malformed_frames_are_answered_and_ignored(client: LanguageClient, tmp_path):
    skill_in(tmp_path)
    await start(client, tmp_path)
    raw(client, b"{this is not json")
    raw(client, b'{"jsonrpc": "2.0", "id": 77}')
    raw(client, b"[1, 2, 3]")
    client._server.stdin.write(b"X-Nothing: here\r\n\r\n")
    await client._server.stdin.drain()
    await alive(client)


async def test_unknown_methods_get_method_not_found(client: LanguageClient, tmp_path):
    skill_in(tmp_path)
    await start(client, tmp_path)
    with pytest.raises(JsonRpcException) as error:
        await client.protocol.send_request_async("capc/noSuchMethod", {})
    assert "unknown method" in str(error.value)
    # Unknown notifications are ignored.
    client.protocol.notify("capc/noSuchNotification", {"x": 1})
    # Bad parameters get an error, not an exit.
    raw(client, json.dumps({"jsonrpc": "2.0", "id": 99, "method": "textDocument/hover", "params": {"textDocument": 5}}).encode())
    await alive(client)


async def test_positions_past_the_end_and_files_outside(client: LanguageClient, tmp_path):
    skill = skill_in(tmp_path / "repo")
    await start(client, tmp_path / "repo")
    open_file(client, skill)
    far = types.Position(line=10_000, character=10_000)
    await client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=skill.as_uri()), position=far)
    )
    await client.text_document_completion_async(
        types.CompletionParams(text_document=types.TextDocumentIdentifier(uri=skill.as_uri()), position=far)
    )
    # An edit whose range lies past the end is clamped to the end.
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=skill.as_uri(), version=2),
            content_changes=[
                types.TextDocumentContentChangePartial(range=types.Range(start=far, end=far), text="more\n")
            ],
        )
    )
    assert not await pull(client, skill.as_uri())
    outside = tmp_path / "elsewhere" / "SKILL.md"
    outside.parent.mkdir()
    outside.write_text("---\nnope: 1\n---\n")
    open_file(client, outside)
    assert not await pull(client, outside.as_uri())
    hovered = await client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=outside.as_uri()), position=types.Position(line=1, character=1))
    )
    assert hovered is None
    await alive(client)


async def test_huge_buffers_are_reported_not_read(client: LanguageClient, tmp_path):
    skill = skill_in(tmp_path)
    await start(client, tmp_path)
    huge = SKILL + "x" * (11 * 1024 * 1024)
    open_file(client, skill, text=huge)
    codes = [d.code for d in await pull(client, skill.as_uri())]
    assert codes == ["file-too-large"], codes
    await alive(client)


async def test_a_thousand_edits_never_leave_stale_diagnostics(client: LanguageClient, tmp_path):
    skill = skill_in(tmp_path)
    await start(client, tmp_path)
    text = open_file(client, skill)

    good, bad = SKILL, SKILL.replace("description:", "descripton:")
    requests = []
    for version in range(2, 1002):
        new = bad if version % 2 else good
        replace_all(client, skill, version, text, new)
        text = new
        if version % 10 == 0:
            position = types.Position(line=1, character=1)
            doc = types.TextDocumentIdentifier(uri=skill.as_uri())
            requests.append(client.text_document_hover_async(types.HoverParams(text_document=doc, position=position)))
            requests.append(client.text_document_diagnostic_async(types.DocumentDiagnosticParams(text_document=doc)))
    await asyncio.gather(*requests)
    # The last text (version 1001, odd) has the typo; what is finally pushed and pulled says so.
    final = as_tuples(await pull(client, skill.as_uri()))
    skill.write_text(text)
    expected = expected_lsp(tmp_path, check_json(tmp_path))[str(skill)]
    assert final == expected
    await wait_until(lambda: as_tuples(client.diagnostics.get(skill.as_uri(), [])) == expected)
    # No push was ever stale: every one carries the findings of the version it names (odd
    # versions after the first have the typo), and versions only grow.
    skill.write_text(good)
    clean = expected_lsp(tmp_path, check_json(tmp_path)).get(str(skill), [])
    pushes = [(v, d) for uri, v, d in client.published if uri == skill.as_uri()]
    assert pushes and pushes[-1][0] == 1001
    for version, diagnostics in pushes:
        assert diagnostics == (expected if version % 2 and version > 1 else clean), (version, diagnostics)
    versions = [v for v, _ in pushes]
    assert versions == sorted(versions)
