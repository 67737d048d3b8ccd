"""A real LSP client (pytest-lsp, on pygls) driving `capc lsp` end to end.

`CAPC_BIN` names the capc binary (tests/trials/lsp.rs sets it); the default is target/debug/capc.
"""

import asyncio
import json
import os
import pathlib
import subprocess
import sys
import urllib.parse

import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

REPO = pathlib.Path(__file__).resolve().parents[2]
CAPC = os.environ.get("CAPC_BIN", str(REPO / "target" / "debug" / "capc"))
CORPORA = REPO.parent / "shared" / "corpora"


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[CAPC, "lsp"]))
async def client(lsp_client: LanguageClient):
    # The server asks to watch files, as editors let it.
    @lsp_client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register(params: types.RegistrationParams):
        lsp_client.registrations.extend(params.registrations)

    lsp_client.registrations = []
    # Every publishDiagnostics, in order, with its version: a stale one would show here.
    lsp_client.published = []
    features = lsp_client.protocol.fm.features
    keep = features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS]

    def record(params: types.PublishDiagnosticsParams):
        lsp_client.published.append((params.uri, params.version, as_tuples(params.diagnostics)))
        return keep(params)

    features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = record
    # Each test initializes the session itself, with the folder it opens (see `start`).
    yield
    await lsp_client.shutdown_session()


async def start(client: LanguageClient, root: pathlib.Path, options=None, spec="visual-studio-code"):
    """Initializes a session on `root` as the given editor's capabilities describe it."""
    params = types.InitializeParams(
        capabilities=client_capabilities(spec),
        root_uri=root.as_uri(),
        workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name=root.name)],
        initialization_options=options,
    )
    return await client.initialize_session(params)


def uri_path(uri: str) -> str:
    return urllib.parse.unquote(urllib.parse.urlparse(uri).path).rstrip("/")


def check_json(root: pathlib.Path) -> dict:
    """`capc check --format json .` in `root`, the report the server must match."""
    out = subprocess.run([CAPC, "check", "--format", "json", "."], cwd=root, capture_output=True, text=True)
    assert out.returncode in (0, 1), out.stderr
    return json.loads(out.stdout)


def utf16_column(text: str, line: int, column: int) -> int:
    """A report's 1-based character column as LSP's 0-based UTF-16 offset."""
    lines = text.split("\n")
    if line - 1 >= len(lines):
        return 0
    prefix = lines[line - 1][: column - 1]
    return len(prefix.encode("utf-16-le")) // 2


def expected_lsp(root: pathlib.Path, report: dict) -> dict:
    """The report's findings as the LSP diagnostics they must be, by file path."""
    out = {}
    for d in report["diagnostics"]:
        path = root / d["path"] if d["path"] else root
        text = path.read_text(encoding="utf-8", errors="replace") if path.is_file() else ""
        start = (d["line"] - 1, utf16_column(text, d["line"], d["column"]))
        end = (d["end_line"] - 1, utf16_column(text, d["end_line"], d["end_column"]))
        message = d["message"] + (f"\nhelp: {d['help']}" if d.get("help") else "")
        out.setdefault(str(path).rstrip("/"), []).append((d["rule"], d["severity"], start, end, message))
    return out


SEVERITY = {
    types.DiagnosticSeverity.Error: "error",
    types.DiagnosticSeverity.Warning: "warning",
    types.DiagnosticSeverity.Information: "info",
}


def as_tuples(diagnostics) -> list:
    return [
        (
            d.code,
            SEVERITY[d.severity],
            (d.range.start.line, d.range.start.character),
            (d.range.end.line, d.range.end.character),
            d.message,
        )
        for d in diagnostics
    ]


async def pull(client: LanguageClient, uri: str):
    report = await client.text_document_diagnostic_async(
        types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    return report.items


def open_file(client: LanguageClient, path: pathlib.Path, text=None, language="markdown"):
    text = path.read_text(encoding="utf-8") if text is None else text
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=path.as_uri(), language_id=language, version=1, text=text)
        )
    )
    return text


def replace_all(client: LanguageClient, path: pathlib.Path, version: int, old: str, new: str):
    """A didChange replacing the whole buffer `old` by `new`, as a range edit."""
    lines = old.split("\n")
    end = types.Position(line=len(lines) - 1, character=len(lines[-1].encode("utf-16-le")) // 2)
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=path.as_uri(), version=version),
            content_changes=[
                types.TextDocumentContentChangePartial(
                    range=types.Range(start=types.Position(line=0, character=0), end=end), text=new
                )
            ],
        )
    )


def apply_edits(text: str, edits) -> str:
    """`edits` (LSP TextEdits of one document) applied to `text`, last first."""
    lines = text.split("\n")

    def offset(position):
        if position.line >= len(lines):
            return len(text)
        start = sum(len(l) + 1 for l in lines[: position.line])
        line = lines[position.line]
        units = 0
        for i, ch in enumerate(line):
            if units >= position.character:
                return start + i
            units += len(ch.encode("utf-16-le")) // 2
        return start + len(line)

    spans = sorted(((offset(e.range.start), offset(e.range.end), e.new_text) for e in edits), reverse=True)
    for start, end, new in spans:
        text = text[:start] + new + text[end:]
    return text


async def wait_until(predicate, timeout=30.0):
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError("timed out waiting")
        await asyncio.sleep(0.01)


def note(*args):
    print(*args, file=sys.stderr)
