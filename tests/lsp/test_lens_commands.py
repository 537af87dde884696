"""The tag and listing lenses, executed the way a client executes them: the lens's own command
and arguments sent back with workspace/executeCommand (seed example)."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient
from waiting import doc, until

from playbook_ls.cli.main import main

TASK2_LINE = 6  # 0-based: the file starts with ---


async def lens_commands(client: LanguageClient, path: Path, line: int) -> dict[str, types.Command]:
    found = await until(lambda: client.text_document_code_lens_async(types.CodeLensParams(text_document=doc(path))),
                        lambda lenses: bool(lenses))
    return {lens.command.title: lens.command for lens in found or []
            if lens.command is not None and lens.range.start.line == line}


async def execute(client: LanguageClient, command: types.Command) -> object:
    return await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=command.command, arguments=command.arguments))


@pytest.mark.asyncio(loop_scope="module")
async def test_the_tags_lens_shows_each_tag_with_its_origin(client: LanguageClient, workspace: Path) -> None:
    commands = await lens_commands(client, workspace / "roles/sample/tasks/main.yml", TASK2_LINE)
    tags_lens = commands["tags: __tag2, never · inherited: __play, __role1"]
    assert tags_lens.command == "playbook-ls.showEffectiveTags" and len(tags_lens.arguments or []) == 2
    [context] = await execute(client, tags_lens)  # type: ignore[misc]
    assert context["task"] == "sample : task2"
    assert [(t["tag"], t["from"]) for t in context["tags"]] == [
        ("__play", 'play "localhost"'), ("__role1", 'roles: entry "sample"'),
        ("__tag2", 'task "task2"'), ("never", 'task "task2"')]


@pytest.mark.asyncio(loop_scope="module")
async def test_the_listing_lens_prints_what_list_tasks_prints(client: LanguageClient, workspace: Path,
                                                             capsys: pytest.CaptureFixture[str],
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    commands = await lens_commands(client, workspace / "roles/sample/tasks/main.yml", TASK2_LINE)
    listing = commands["List tasks for --tags __play,__role1,__tag2"]
    result = await execute(client, listing)
    assert isinstance(result, dict) and result["tags"] == ["__play,__role1,__tag2"]
    [one] = result["listings"]
    monkeypatch.chdir(workspace)
    main(["list-tasks", "playbook.yml", "--tags", "__play,__role1,__tag2"])
    expected = capsys.readouterr().out
    assert one["text"].strip().splitlines()[1:] == expected.strip().splitlines()[1:]  # the playbook line aside


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.parametrize(("command", "arguments"), [
    ("playbook-ls.showEffectiveTags", [{"path": "x.yml", "line": "seven"}]),
    ("playbook-ls.showEffectiveTags", [["nested"], 3, 4]),
    ("playbook-ls.listTasks", [{"uri": 42}]),
    ("playbook-ls.listTasks", [{"path": "x.yml", "line": -1}]),
    ("playbook-ls.runTasks", [5]),
    ("playbook-ls.checkTasks", [["not", "an", "object"]]),
])
async def test_malformed_command_arguments_are_invalid_params(client: LanguageClient, command: str,
                                                              arguments: list[object]) -> None:
    with pytest.raises(Exception, match="must be|expected") as raised:
        await client.workspace_execute_command_async(types.ExecuteCommandParams(command=command, arguments=arguments))
    assert getattr(raised.value, "code", -32602) == -32602  # InvalidParams


@pytest.mark.asyncio(loop_scope="module")
async def test_the_plan_lens_shows_what_runs_where(client: LanguageClient, workspace: Path) -> None:
    playbook = workspace / "playbook.yml"
    commands = await lens_commands(client, playbook, next(
        n for n, text in enumerate(playbook.read_text().splitlines()) if text.startswith("- ")))
    plan = commands["Plan per host"]
    assert plan.command == "playbook-ls.showPlan"
    result = await execute(client, types.Command(title=plan.title, command=plan.command,
                                                 arguments=[{**plan.arguments[0], "inventory": "localhost,"}]))
    assert isinstance(result, dict)
    lines = result["text"].splitlines()
    assert lines[0] == "playbook-ls plan playbook.yml -i localhost,"
    assert any(line.startswith("  sample : task1") and "✓" in line for line in lines)
    assert any(line.startswith("  sample : task2") and "–" in line for line in lines)  # never: not selected
