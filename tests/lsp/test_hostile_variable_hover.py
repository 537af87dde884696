"""Over LSP, hostile variable values and a group_vars file that does not parse: the hover says why a
value is unknown, completion answers without variables, and the server keeps answering."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient
from waiting import doc, indexed_hover, until

SITE = """\
- hosts: localhost
  gather_facts: false
  vars:
    ok: "{{ 'abc' | regex_replace('b', 'X') }}"
    big: "{{ 'x' | center(1000000000) }}"
    rec: &a [*a]
  tasks:
    - name: show
      debug:
        msg: "{{ ok }} {{ big }} {{ rec }}"
"""


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("hostile") / "ws"
    for name in ("values", "broken"):
        (root / name).mkdir(parents=True)
        (root / name / "site.yml").write_text(SITE)
    (root / "broken" / "group_vars").mkdir()
    (root / "broken" / "group_vars" / "all.yml").write_text("a: [1\n")
    return root




async def hover(client: LanguageClient, path: Path, word: str) -> str:
    line = SITE.splitlines().index('        msg: "{{ ok }} {{ big }} {{ rec }}"')
    character = SITE.splitlines()[line].index("{{ " + word) + 4
    found = await until(lambda: client.text_document_hover_async(types.HoverParams(
        text_document=doc(path), position=types.Position(line=line, character=character))),
        indexed_hover)
    assert found is not None
    return found.contents.value  # type: ignore[union-attr]


@pytest.mark.asyncio(loop_scope="module")
async def test_hover_says_why_a_hostile_value_is_unknown(client: LanguageClient, workspace: Path) -> None:
    site = workspace / "values" / "site.yml"
    assert "too large to evaluate statically (the center filter would make 1,000,000,000" in await hover(
        client, site, "big")
    assert "Recursive loop detected in template" in await hover(client, site, "rec")
    assert '`"aXc"` on localhost' in await hover(client, site, "ok")


@pytest.mark.asyncio(loop_scope="module")
async def test_a_group_vars_file_that_does_not_parse_leaves_the_server_answering(client: LanguageClient,
                                                                                 workspace: Path) -> None:
    site = workspace / "broken" / "site.yml"
    text = await hover(client, site, "ok")
    assert "the inventory's variables cannot be read" in text and "group_vars/all.yml:2:1:" in text
    line = SITE.splitlines().index('        msg: "{{ ok }} {{ big }} {{ rec }}"')
    found = await client.text_document_completion_async(types.CompletionParams(
        text_document=doc(site), position=types.Position(line=line, character=len('        msg: "{{ o'))))
    items = found.items if isinstance(found, types.CompletionList) else (found or [])
    assert all(item.kind != types.CompletionItemKind.Variable for item in items)
    assert '`"aXc"` on localhost' in await hover(client, workspace / "values" / "site.yml", "ok")
