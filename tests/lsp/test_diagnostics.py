"""Diagnostics: equal to `capc check --format json` on every fixture, pushed and pulled, with
open buffers counted as their unsaved text and cross-file findings following every edit."""

import pathlib
import subprocess
import shutil

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from conftest import (
    CAPC,
    REPO,
    as_tuples,
    check_json,
    expected_lsp,
    open_file,
    pull,
    replace_all,
    start,
    uri_path,
    wait_until,
)

FIXTURES = sorted(p.parent.name for p in (REPO / "tests" / "fixtures").glob("*/in"))
EXAMPLES = sorted(p.name for p in (REPO / "examples").iterdir() if p.is_dir())


async def assert_matches_check(client: LanguageClient, root: pathlib.Path):
    expected = expected_lsp(root, check_json(root))
    # Pull every file with findings (a pull waits for the newest check), then compare what
    # was pushed too.
    for path, findings in expected.items():
        uri = pathlib.Path(path).as_uri()
        assert as_tuples(await pull(client, uri)) == findings, path
    pushed = {uri_path(uri): as_tuples(d) for uri, d in client.diagnostics.items() if d}
    assert pushed == expected
    for path in expected:
        # Every finding links its rule's documentation.
        for d in client.diagnostics[pathlib.Path(path).as_uri()]:
            assert d.code_description.href.endswith(f"docs/rules.md#{d.code}"), d


@pytest.mark.parametrize("name", FIXTURES)
async def test_fixture_diagnostics_equal_check(client: LanguageClient, name):
    root = REPO / "tests" / "fixtures" / name / "in"
    await start(client, root)
    await assert_matches_check(client, root)


@pytest.mark.parametrize("name", EXAMPLES)
async def test_example_diagnostics_equal_check(client: LanguageClient, name):
    root = REPO / "examples" / name
    await start(client, root)
    await assert_matches_check(client, root)


SKILL = "---\nname: triage\ndescription: Sorts new issues by area\n---\nRead the issue.\n"


async def test_unsaved_text_is_checked(client: LanguageClient, tmp_path):
    skill = tmp_path / ".claude" / "skills" / "triage" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text(SKILL)
    await start(client, tmp_path)
    open_file(client, skill)
    assert not await pull(client, skill.as_uri())
    typo = SKILL.replace("description:", "descripton:")
    replace_all(client, skill, 2, SKILL, typo)
    codes = [d.code for d in await pull(client, skill.as_uri())]
    assert "unknown-field" in codes, codes
    # The push for the new version says the same.
    await wait_until(lambda: any(d.code == "unknown-field" for d in client.diagnostics.get(skill.as_uri(), [])))
    # Saved to disk as it is, the same finding comes from `capc check`.
    skill.write_text(typo)
    assert "unknown-field" in [d["rule"] for d in check_json(tmp_path)["diagnostics"]]
    replace_all(client, skill, 3, typo, SKILL)
    assert not await pull(client, skill.as_uri())


async def test_cross_file_findings_follow_edits(client: LanguageClient, tmp_path):
    shutil.copytree(REPO / "tests" / "fixtures" / "unknown-mcp-server-in-rule" / "in", tmp_path / "repo")
    root = tmp_path / "repo"
    settings, mcp = root / ".claude" / "settings.json", root / ".mcp.json"
    await start(client, root)
    open_file(client, settings, language="json")
    before = [d.message.split("\n")[0] for d in await pull(client, settings.as_uri())]
    assert "no MCP server `jira` is declared here" in before
    # Declaring `jira` in another (open, unsaved) file clears the finding in settings.json.
    text = open_file(client, mcp, language="json")
    declared = text.replace('"github": {', '"jira": { "type": "http", "url": "https://jira.example.com/mcp" },\n    "github": {')
    replace_all(client, mcp, 2, text, declared)
    after = [d.message.split("\n")[0] for d in await pull(client, settings.as_uri())]
    assert "no MCP server `jira` is declared here" not in after
    await wait_until(
        lambda: all("jira" not in d.message for d in client.diagnostics.get(settings.as_uri(), []))
    )
    # Closing the unsaved buffer brings the disk's text back.
    client.text_document_did_close(types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=mcp.as_uri())))
    again = [d.message.split("\n")[0] for d in await pull(client, settings.as_uri())]
    assert "no MCP server `jira` is declared here" in again


async def test_a_finding_whose_message_changes_in_place_is_sent_again(client: LanguageClient, tmp_path):
    settings, mcp = tmp_path / ".claude" / "settings.json", tmp_path / ".mcp.json"
    settings.parent.mkdir()
    settings.write_text('{\n  "permissions": { "allow": ["mcp__gihtub__create_issue"] }\n}\n')
    server = '{\n  "mcpServers": {\n    "github": { "type": "http", "url": "https://example.com/mcp" }\n  }\n}\n'
    mcp.write_text(server)
    await start(client, tmp_path)
    open_file(client, settings, language="json")
    pushed = lambda: [(d.range.start.line, d.message) for d in client.diagnostics.get(settings.as_uri(), [])]
    await wait_until(lambda: [m for _, m in pushed() if "did you mean `github`?" in m])
    (line, _), = pushed()
    # Another server's name changes the help of the one finding, which stays where it was.
    text = open_file(client, mcp, language="json")
    replace_all(client, mcp, 2, text, text.replace('"github"', '"gihtubs"'))
    await wait_until(lambda: [m for _, m in pushed() if "did you mean `gihtubs`?" in m])
    assert [l for l, _ in pushed()] == [line]


async def test_a_cross_file_finding_in_a_clean_buffer_is_placed_on_its_unsaved_text(client: LanguageClient, tmp_path):
    # A command hidden by a skill of its name: clean itself, it gets the skill's finding on its
    # description, placed on the text the check read, the buffer's (not kept by the check).
    skill = tmp_path / ".claude" / "skills" / "deploy" / "SKILL.md"
    command = tmp_path / ".claude" / "commands" / "deploy.md"
    skill.parent.mkdir(parents=True)
    command.parent.mkdir(parents=True)
    skill.write_text("---\ndescription: Deploy it\n---\nDeploy.\n")
    text = "---\ndescription: Old deploy\n---\nDeploy the old way.\n"
    command.write_text(text)
    await start(client, tmp_path)
    open_file(client, command)
    ranges = lambda found: [(d.code, d.range.start.line, d.range.start.character) for d in found]
    assert ranges(await pull(client, command.as_uri())) == [("shadowed-declaration", 1, 13)]
    moved = text.replace("---\n", "---\nargument-hint: <env>\n", 1)
    replace_all(client, command, 2, text, moved)
    assert ranges(await pull(client, command.as_uri())) == [("shadowed-declaration", 2, 13)]
    await wait_until(lambda: ranges(client.diagnostics.get(command.as_uri(), [])) == [("shadowed-declaration", 2, 13)])


async def test_files_changed_on_disk_are_read_again(client: LanguageClient, tmp_path):
    skill = tmp_path / ".claude" / "skills" / "triage" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text(SKILL)
    await start(client, tmp_path)
    assert not await pull(client, skill.as_uri())
    skill.write_text(SKILL.replace("description:", "descripton:"))
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=skill.as_uri(), type=types.FileChangeType.Changed)]
        )
    )
    assert "unknown-field" in [d.code for d in await pull(client, skill.as_uri())]


async def test_the_baseline_ci_uses_hides_what_it_accepts(client: LanguageClient, tmp_path):
    """With `capc-baseline.toml` at the workspace's top (the file the README has CI pass to
    `capc check --baseline`), the editor shows what `capc check --baseline capc-baseline.toml`
    reports: the recorded findings hidden, a new one shown as it is typed."""
    shutil.copytree(REPO / "tests" / "fixtures" / "unknown-mcp-server-in-rule" / "in", tmp_path / "repo")
    root = tmp_path / "repo"
    every = expected_lsp(root, check_json(root))
    assert every, "the fixture has findings to record"
    written = subprocess.run(
        [CAPC, "check", "--write-baseline", "capc-baseline.toml"], cwd=root, capture_output=True, text=True
    )
    assert written.returncode == 0, written.stderr
    # A finding the baseline does not hold: a skill added since, with a misspelt key.
    skill = root / ".claude" / "skills" / "triage" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text(SKILL.replace("description:", "descripton:"))
    await start(client, root)
    for path in every:
        assert not await pull(client, pathlib.Path(path).as_uri()), path
    assert [d.code for d in await pull(client, skill.as_uri())] == ["unknown-field"]
    # Fixed in an unsaved buffer, it goes; the recorded ones stay hidden.
    open_file(client, skill)
    replace_all(client, skill, 2, SKILL.replace("description:", "descripton:"), SKILL)
    assert not await pull(client, skill.as_uri())


async def test_a_baseline_named_or_turned_off_in_initialization_options(client: LanguageClient, tmp_path):
    """`initializationOptions.baseline` names the file (relative to the workspace), or turns the
    default off with `""`; one that cannot be read is an error shown on it, and every finding is
    shown meanwhile."""
    shutil.copytree(REPO / "tests" / "fixtures" / "unknown-mcp-server-in-rule" / "in", tmp_path / "repo")
    root = tmp_path / "repo"
    every = expected_lsp(root, check_json(root))
    (root / "ci").mkdir()
    written = subprocess.run(
        [CAPC, "check", "--write-baseline", "ci/accepted.toml"], cwd=root, capture_output=True, text=True
    )
    assert written.returncode == 0, written.stderr
    await start(client, root, {"baseline": "ci/accepted.toml"})
    for path in every:
        assert not await pull(client, pathlib.Path(path).as_uri()), path
    (root / "ci" / "accepted.toml").write_text("version = 9\n")
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=(root / "ci" / "accepted.toml").as_uri(), type=types.FileChangeType.Changed)]
        )
    )
    broken = (root / "ci" / "accepted.toml").as_uri()
    await wait_until(lambda: any(d.source == "capc" for d in client.diagnostics.get(broken, [])))
    for path, findings in every.items():
        assert as_tuples(await pull(client, pathlib.Path(path).as_uri())) == findings, path


async def test_an_empty_baseline_option_shows_every_finding(client: LanguageClient, tmp_path):
    shutil.copytree(REPO / "tests" / "fixtures" / "unknown-mcp-server-in-rule" / "in", tmp_path / "repo")
    root = tmp_path / "repo"
    every = expected_lsp(root, check_json(root))
    written = subprocess.run(
        [CAPC, "check", "--write-baseline", "capc-baseline.toml"], cwd=root, capture_output=True, text=True
    )
    assert written.returncode == 0, written.stderr
    await start(client, root, {"baseline": ""})
    for path, findings in every.items():
        assert as_tuples(await pull(client, pathlib.Path(path).as_uri())) == findings, path
