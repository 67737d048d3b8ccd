"""Hover, completion, go-to-definition and symbols on real corpus files (../shared/corpora)
and on the fixtures."""

import pathlib

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from conftest import CORPORA, REPO, open_file, pull, replace_all, start, uri_path

OFFICIAL = CORPORA / "anthropics__claude-plugins-official"
EXPLORER = OFFICIAL / "plugins" / "feature-dev" / "agents" / "code-explorer.md"
MARKETPLACE = OFFICIAL / ".claude-plugin" / "marketplace.json"


def at(text: str, needle: str, delta: int = 0) -> types.Position:
    """The position of `needle` (plus `delta` characters) in `text`."""
    offset = text.index(needle) + delta
    line = text.count("\n", 0, offset)
    column = offset - (text.rfind("\n", 0, offset) + 1)
    return types.Position(line=line, character=len(text[offset - column : offset].encode("utf-16-le")) // 2)


def doc(path: pathlib.Path) -> types.TextDocumentIdentifier:
    return types.TextDocumentIdentifier(uri=path.as_uri())


async def hover(client, path, position):
    return await client.text_document_hover_async(types.HoverParams(text_document=doc(path), position=position))


async def complete(client, path, position):
    result = await client.text_document_completion_async(types.CompletionParams(text_document=doc(path), position=position))
    return [item.label for item in (result.items if hasattr(result, "items") else result or [])]


async def definition(client, path, position):
    result = await client.text_document_definition_async(types.DefinitionParams(text_document=doc(path), position=position))
    return [uri_path(loc.uri) for loc in result or []]


@pytest.fixture
def corpus():
    if not OFFICIAL.is_dir():
        pytest.skip("the shared corpora are absent")
    return OFFICIAL


async def test_hover_on_agent_frontmatter_keys(client: LanguageClient, corpus):
    await start(client, corpus)
    text = open_file(client, EXPLORER)
    tools = await hover(client, EXPLORER, at(text, "tools:", 1))
    assert "tools the agent has" in tools.contents.value
    model = await hover(client, EXPLORER, at(text, "model:", 2))
    assert "`inherit`" in model.contents.value
    # The body is not frontmatter: nothing to say.
    assert await hover(client, EXPLORER, at(text, "You are an expert")) is None


async def test_hover_on_a_name_says_what_it_reaches(client: LanguageClient, corpus):
    await start(client, corpus)
    text = open_file(client, EXPLORER)
    said = await hover(client, EXPLORER, at(text, "name: code-explorer", 8))
    assert said is not None and "code-explorer" in said.contents.value, said


async def test_completion_of_agent_keys_and_tools(client: LanguageClient, corpus):
    await start(client, corpus)
    text = open_file(client, EXPLORER)
    # A new line in the frontmatter: the agent keys it does not have yet.
    typed = text.replace("color: yellow\n", "color: yellow\nperm\n")
    replace_all(client, EXPLORER, 2, text, typed)
    keys = await complete(client, EXPLORER, at(typed, "perm\n", 4))
    assert "permissionMode" in keys and "maxTurns" in keys
    assert "tools" not in keys and "color" not in keys
    # In `tools:`, the built-in tool names.
    tools = await complete(client, EXPLORER, at(typed, "Glob, Grep", 6))
    assert {"Bash", "Read", "WebFetch"} <= set(tools)
    modes = await complete(client, EXPLORER, at(typed, "model: sonnet", 7))
    assert {"sonnet", "opus", "haiku", "inherit"} <= set(modes)


async def test_completion_of_mcp_tools_from_declared_servers(client: LanguageClient):
    root = REPO / "tests" / "fixtures" / "unknown-mcp-server-in-rule" / "in"
    await start(client, root)
    settings = root / ".claude" / "settings.json"
    text = open_file(client, settings, language="json")
    items = await complete(client, settings, at(text, "mcp__github__get_issue", 5))
    assert "mcp__github__" in items and "Bash" in items


async def test_definition_from_a_rule_to_its_server(client: LanguageClient):
    root = REPO / "tests" / "fixtures" / "unknown-mcp-server-in-rule" / "in"
    await start(client, root)
    settings = root / ".claude" / "settings.json"
    text = open_file(client, settings, language="json")
    assert await definition(client, settings, at(text, "mcp__github__get_issue", 8)) == [str(root / ".mcp.json")]
    # A server nobody declares has no definition.
    assert await definition(client, settings, at(text, "mcp__jira", 6)) == []


async def test_definition_from_a_marketplace_source_to_the_plugin(client: LanguageClient, corpus):
    await start(client, corpus)
    text = open_file(client, MARKETPLACE, language="json")
    target = await definition(client, MARKETPLACE, at(text, '"./plugins/agent-sdk-dev"', 4))
    assert target == [str(OFFICIAL / "plugins" / "agent-sdk-dev" / ".claude-plugin" / "plugin.json")]


async def test_document_and_workspace_symbols(client: LanguageClient, corpus):
    await start(client, corpus)
    open_file(client, EXPLORER)
    symbols = await client.text_document_document_symbol_async(types.DocumentSymbolParams(text_document=doc(EXPLORER)))
    assert len(symbols) == 1
    assert [c.name for c in symbols[0].children][:3] == ["name", "description", "tools"]
    found = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="code-explorer"))
    assert any(uri_path(s.location.uri) == str(EXPLORER) for s in found), found
    manifest = await client.text_document_document_symbol_async(types.DocumentSymbolParams(text_document=doc(MARKETPLACE)))
    assert "plugins" in [s.name for s in manifest]


async def test_instruction_files_imports_and_load_conditions(client: LanguageClient, tmp_path):
    root = tmp_path / "repo"
    (root / "docs").mkdir(parents=True)
    (root / ".claude" / "rules").mkdir(parents=True)
    (root / "CLAUDE.md").write_text("# Project\nSee @docs/style.md and @docs/gone.md\n")
    (root / "docs" / "style.md").write_text("Style: short lines.\n")
    (root / ".claude" / "rules" / "rust.md").write_text("---\npaths: srcs/**/*.rs\n---\nRust: no unwrap.\n")
    await start(client, root)
    claude = root / "CLAUDE.md"
    text = open_file(client, claude)
    # Go to the file an import names.
    assert await definition(client, claude, at(text, "@docs/style.md", 3)) == [str(root / "docs" / "style.md")]
    assert await definition(client, claude, at(text, "@docs/gone.md", 3)) == []
    # Hover on an import: when the file it names is sent, and through which imports.
    said = await hover(client, claude, at(text, "@docs/style.md", 3))
    assert "docs/style.md: an instruction file (project), sent at the start of every session" in said.contents.value
    assert "imported through: CLAUDE.md → docs/style.md" in said.contents.value
    # Hover elsewhere in a rule: its own load condition.
    rule = root / ".claude" / "rules" / "rust.md"
    rule_text = open_file(client, rule)
    said = await hover(client, rule, at(rule_text, "Rust:", 1))
    assert "a rule (project), sent once the session reads a file matching srcs/**/*.rs" in said.contents.value
    # Diagnostics in these files: the import that names no file, the glob that matches none.
    missing = await pull(client, claude.as_uri())
    assert any(d.code == "missing-import" for d in missing), missing
    unmatched = await pull(client, rule.as_uri())
    assert any(d.code == "unmatched-rule-paths" for d in unmatched), unmatched
