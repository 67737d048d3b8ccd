"""References, hover on permission rules, and unsaved files (new declarations, capc.toml) that
change what the whole workspace reports."""

import pathlib

from lsprotocol import types
from pytest_lsp import LanguageClient

from conftest import as_tuples, check_json, expected_lsp, open_file, pull, replace_all, start, uri_path, wait_until

FILES = {
    ".claude/commands/deploy.md": "---\ndescription: Deploy the service\n---\nDeploy it.\n",
    ".claude/skills/release/SKILL.md": (
        "---\nname: release\ndescription: Releases the service\nallowed-tools: Skill(deploy), Bash(git push:*)\n---\n"
        "First run /deploy, then tag the release.\n"
    ),
    ".claude/agents/shipper.md": "---\nname: shipper\ndescription: Ships releases\nskills:\n  - deploy\n---\nShip it.\n",
    ".claude/settings.json": (
        '{\n  "permissions": {\n    "allow": ["Skill(deploy)", "mcp__db__query", "Bash(git push:*)"],\n'
        '    "ask": ["Agent(shipper)"]\n  },\n  "enabledMcpjsonServers": ["db"]\n}\n'
    ),
    ".claude/settings.local.json": '{\n  "permissions": {\n    "deny": ["Bash(git:*)"]\n  }\n}\n',
    ".mcp.json": '{\n  "mcpServers": {\n    "db": {"command": "db-server"}\n  }\n}\n',
}


def tree(root: pathlib.Path) -> pathlib.Path:
    for rel, text in FILES.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def at(text: str, needle: str, delta: int = 0) -> types.Position:
    offset = text.index(needle) + delta
    line = text.count("\n", 0, offset)
    return types.Position(line=line, character=offset - (text.rfind("\n", 0, offset) + 1))


async def references(client, path, position, declaration=True):
    found = await client.text_document_references_async(
        types.ReferenceParams(
            text_document=types.TextDocumentIdentifier(uri=path.as_uri()),
            position=position,
            context=types.ReferenceContext(include_declaration=declaration),
        )
    )
    return sorted((uri_path(l.uri), l.range.start.line, l.range.start.character) for l in found or [])


def place(root, rel, needle, delta=0):
    """Where `needle` is in the file `rel` of FILES, as a reference's (path, line, column)."""
    position = at(FILES[rel], needle, delta)
    return (str(root / rel), position.line, position.character)


async def test_references_of_a_skill_name_from_a_rule(client: LanguageClient, tmp_path):
    root = tree(tmp_path)
    result = await start(client, root)
    assert result.capabilities.references_provider
    skill = root / ".claude/skills/release/SKILL.md"
    text = open_file(client, skill)
    found = await references(client, skill, at(text, "Skill(deploy)", 7))
    expected = sorted(
        [
            (str(root / ".claude/commands/deploy.md"), 0, 0),  # declared (named by its file)
            place(root, ".claude/skills/release/SKILL.md", "deploy)"),
            place(root, ".claude/skills/release/SKILL.md", "deploy,"),
            place(root, ".claude/agents/shipper.md", "deploy"),
            place(root, ".claude/settings.json", "deploy)"),
        ]
    )
    assert found == expected
    # Without the declaration.
    assert await references(client, skill, at(text, "/deploy", 2), declaration=False) == [
        f for f in expected if not f[0].endswith("deploy.md")
    ]


async def test_references_of_a_server_from_its_declaration(client: LanguageClient, tmp_path):
    root = tree(tmp_path)
    await start(client, root)
    mcp = root / ".mcp.json"
    text = open_file(client, mcp, language="json")
    found = await references(client, mcp, at(text, '"db"', 2))
    assert found == sorted(
        [
            place(root, ".mcp.json", '"db"'),
            place(root, ".claude/settings.json", "mcp__db__query"),
            place(root, ".claude/settings.json", '"db"]', 1),
        ]
    )


async def test_references_of_an_agent(client: LanguageClient, tmp_path):
    root = tree(tmp_path)
    await start(client, root)
    agent = root / ".claude/agents/shipper.md"
    text = open_file(client, agent)
    found = await references(client, agent, at(text, "name: shipper", 7))
    assert found == sorted(
        [place(root, ".claude/agents/shipper.md", "shipper"), place(root, ".claude/settings.json", "shipper)")]
    )


async def test_hover_on_an_allow_rule_a_deny_rule_overrides(client: LanguageClient, tmp_path):
    root = tree(tmp_path)
    await start(client, root)
    settings = root / ".claude/settings.json"
    text = open_file(client, settings, language="json")
    said = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=settings.as_uri()), position=at(text, "Bash(git push", 6)
        )
    )
    value = said.contents.value
    assert "allow rule `Bash(git push:*)`" in value, value
    assert "Never decides" in value and "deny Bash(git:*) (.claude/settings.local.json)" in value, value
    assert "`git push` is denied by deny rule `Bash(git:*)` (.claude/settings.local.json" in value, value
    # The deny rule says what it decides first.
    local = root / ".claude/settings.local.json"
    local_text = open_file(client, local, language="json")
    said = await client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=local.as_uri()), position=at(local_text, "git:*", 1))
    )
    value = said.contents.value
    assert "Deny rules are checked first" in value and "allow `Bash(git push:*)` (.claude/settings.json)" in value, value
    # A rule naming a declared server names its declaration.
    said = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=settings.as_uri()), position=at(text, "mcp__db__query", 3)
        )
    )
    assert "the tool `query` of MCP server `db`: declared as `db` (.mcp.json)" in said.contents.value, said.contents.value


async def test_a_new_unsaved_file_is_checked_as_if_saved(client: LanguageClient, tmp_path):
    root = tree(tmp_path)
    await start(client, root)
    new = root / ".claude/skills/deploy/SKILL.md"
    text = "---\nname: deploy\ndescripton: Deploys\n---\nDeploy.\n"
    open_file(client, new, text=text)
    unsaved = as_tuples(await pull(client, new.as_uri()))
    command = root / ".claude/commands/deploy.md"
    # Saved, `capc check` reports the same, here and in the command it now hides.
    new.parent.mkdir(parents=True)
    new.write_text(text)
    expected = expected_lsp(root, check_json(root))
    assert unsaved == expected[str(new)]
    assert expected.get(str(command)), "the skill should hide the command"
    await wait_until(lambda: as_tuples(client.diagnostics.get(command.as_uri(), [])) == expected[str(command)])


async def test_an_unsaved_capc_toml_changes_the_whole_workspace(client: LanguageClient, tmp_path):
    root = tree(tmp_path)
    skill = root / ".claude/skills/release/SKILL.md"
    skill.write_text(FILES[".claude/skills/release/SKILL.md"].replace("description:", "colour: red\ndescription:"))
    await start(client, root)
    open_file(client, skill)
    before = as_tuples(await pull(client, skill.as_uri()))
    assert "unknown-field" in [d[0] for d in before], before
    # A capc.toml not on disk yet, typed in the editor: the finding goes, in every file.
    config = root / "capc.toml"
    open_file(client, config, text='ignore = ["unknown-field"]\n', language="toml")
    assert "unknown-field" not in [d[0] for d in as_tuples(await pull(client, skill.as_uri()))]
    # Edited to a severity instead.
    replace_all(client, config, 2, 'ignore = ["unknown-field"]\n', '[rules]\nunknown-field = "error"\n')
    after = as_tuples(await pull(client, skill.as_uri()))
    config.write_text('[rules]\nunknown-field = "error"\n')
    assert after == expected_lsp(root, check_json(root))[str(skill)]
    assert "error" in [d[1] for d in after if d[0] == "unknown-field"]
    await wait_until(lambda: as_tuples(client.diagnostics.get(skill.as_uri(), [])) == after)
