"""Hover and go to definition on a variable, over LSP: its value on the play's hosts (from the
``inventory`` setting), where it is set and what it overrides; every definition, winner first."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient
from session import SERVE, start_session
from waiting import doc, indexed_hover, until

SCENARIO = Path(__file__).resolve().parents[1] / "variables" / "scenarios" / "play_roles_tasks"


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("vars") / "ws"
    shutil.copytree(SCENARIO, root)
    return root


@pytest_lsp.fixture(scope="module", config=SERVE)
async def client(lsp_client: LanguageClient, workspace: Path):
    await start_session(lsp_client, workspace, initialization_options={"inventory": "hosts.ini"})
    yield
    await lsp_client.shutdown_session()


async def hover(client: LanguageClient, path: Path, line: int, character: int) -> str:
    found = await until(lambda: client.text_document_hover_async(types.HoverParams(
        text_document=doc(path), position=types.Position(line=line, character=character))),
        indexed_hover)
    assert found is not None
    return found.contents.value  # type: ignore[union-attr]


async def references(client: LanguageClient, path: Path, line: int, character: int) -> list[types.Location]:
    """Find references once the server answers with some (a test may run before the index is
    ready, when pytest-xdist gives it a worker of its own)."""
    found = await until(lambda: client.text_document_references_async(types.ReferenceParams(
        text_document=doc(path), position=types.Position(line=line, character=character),
        context=types.ReferenceContext(include_declaration=True))), bool)
    return found or []


@pytest.mark.asyncio(loop_scope="module")
async def test_hover_shows_the_value_and_what_it_overrides(client: LanguageClient, workspace: Path) -> None:
    text = await hover(client, workspace / "roles/app/tasks/main.yml", 9, 20)  # param: "{{ param }}"
    assert text.startswith("**`param`**")
    assert '`"role params"` on web1, web2' in text
    assert "set by role params: role 'app' params" in text and "site.yml:11" in text
    assert "overrides role defaults: role 'app' defaults" in text and "roles/app/defaults/main.yml:4" in text


@pytest.mark.asyncio(loop_scope="module")
async def test_hover_says_what_only_the_run_knows(client: LanguageClient, workspace: Path) -> None:
    site = workspace / "site.yml"
    lines = site.read_text().splitlines()
    line = next(i for i, text in enumerate(lines) if "fact_var: " in text and "{{" in text)
    text = await hover(client, site, line, lines[line].index("{{ fact_var") + 4)
    assert '`"set_fact"` on web1, web2' in text and "(at run time, if reached)" in text


@pytest.mark.asyncio(loop_scope="module")
async def test_definition_lists_every_definition_winner_first(client: LanguageClient, workspace: Path) -> None:
    # run alone (pytest -k, or a worker of its own), the request may come before the index is ready
    found = await until(lambda: client.text_document_definition_async(types.DefinitionParams(
        text_document=doc(workspace / "roles/app/tasks/main.yml"), position=types.Position(line=9, character=20))),
        bool)
    assert [(Path(loc.uri.removeprefix("file://")).relative_to(workspace).as_posix(), loc.range.start.line)
            for loc in found or []] == [("site.yml", 10), ("roles/app/defaults/main.yml", 3)]


@pytest.mark.asyncio(loop_scope="module")
async def test_completion_offers_the_variables_with_their_values(client: LanguageClient, workspace: Path) -> None:
    path = workspace / "roles/app/tasks/main.yml"
    text = path.read_text().replace('param: "{{ param }}"', 'param: "{{ pa }}"')
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=path.as_uri(), language_id="ansible", version=1, text=text)))
    line = text.splitlines().index('      param: "{{ pa }}"')
    found = await client.text_document_completion_async(types.CompletionParams(
        text_document=doc(path), position=types.Position(line=line, character=len('      param: "{{ pa'))))
    assert found is not None
    items = {item.label: item for item in (found.items if isinstance(found, types.CompletionList) else found)}
    assert items["param"].kind == types.CompletionItemKind.Variable
    assert items["param"].detail == '"role params" · role params'
    assert items["d_shared"].detail == '"role app defaults" · role defaults'
    assert items["param"].text_edit.range.start.character == len('      param: "{{ ')  # type: ignore[union-attr]
    assert items["inventory_hostname"].sort_text > items["param"].sort_text  # magic ones last


@pytest.mark.asyncio(loop_scope="module")
async def test_inlay_hints_show_static_values_of_templated_arguments(client: LanguageClient, workspace: Path) -> None:
    path = workspace / "roles/base/tasks/main.yml"
    await hover(client, path, 3, 20)  # the index has this file: an empty answer is the answer, not "not yet"
    found = await client.text_document_inlay_hint_async(types.InlayHintParams(
        text_document=doc(path), range=types.Range(start=types.Position(line=0, character=0),
                                                   end=types.Position(line=20, character=0))))
    labels = {hint.position.line: hint.label for hint in found or []}
    assert labels == {}, labels  # msg is a mapping of templates, not a template: nothing to show


@pytest.mark.asyncio(loop_scope="module")
async def test_inlay_hint_for_a_templated_argument(client: LanguageClient, workspace: Path) -> None:
    path = workspace / "roles/other/tasks/main.yml"
    text = "- name: other says hello\n  ansible.builtin.debug:\n    msg: \"{{ o_default }} and {{ o_var }}\"\n"
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=path.as_uri(), language_id="ansible", version=1, text=text)))
    found = await until(lambda: client.text_document_inlay_hint_async(types.InlayHintParams(
        text_document=doc(path), range=types.Range(start=types.Position(line=0, character=0),
                                                   end=types.Position(line=3, character=0)))),
        lambda hints: bool(hints) and any(h.position.line == 2 for h in hints))
    [hint] = [h for h in found or [] if h.position.line == 2]
    assert hint.label == '  = "role other defaults and role other vars"'


@pytest.mark.asyncio(loop_scope="module")
async def test_references_are_every_use_and_every_setting(client: LanguageClient, workspace: Path) -> None:
    found = await references(client, workspace / "roles/app/tasks/main.yml", 4, 20)
    assert sorted((Path(loc.uri.removeprefix("file://")).relative_to(workspace).as_posix(), loc.range.start.line)
                  for loc in found or []) == [
        ("roles/app/defaults/main.yml", 1), ("roles/app/tasks/main.yml", 4), ("roles/base/defaults/main.yml", 1),
        ("roles/base/tasks/main.yml", 4)]


@pytest.mark.asyncio(loop_scope="module")
async def test_references_include_a_role_entrys_parameters(client: LanguageClient, workspace: Path) -> None:
    found = await references(client, workspace / "roles/base/tasks/main.yml", 6, 19)
    places = sorted((Path(loc.uri.removeprefix("file://")).relative_to(workspace).as_posix(), loc.range.start.line)
                    for loc in found or [])
    assert ("site.yml", 11) in places  # `- role: app` / `param: role params`
    assert ("roles/app/defaults/main.yml", 3) in places and ("roles/base/tasks/main.yml", 6) in places
