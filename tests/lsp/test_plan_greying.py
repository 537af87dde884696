"""With the ``inventory`` setting, a task of an open file that no host runs is greyed like the
selection preview's (an Unnecessary hint, source "playbook-ls plan"), on a recorded plan scenario:
the task ansible-playbook skipped on every host, and no other."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient
from session import SERVE, start_session
from waiting import until

SCENARIO = Path(__file__).resolve().parents[1] / "plan" / "scenarios" / "loops"


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("plan") / "ws"
    shutil.copytree(SCENARIO, root)
    return root


@pytest_lsp.fixture(scope="module", config=SERVE)
async def client(lsp_client: LanguageClient, workspace: Path):
    await start_session(lsp_client, workspace, initialization_options={"inventory": "inventory.ini"})
    yield
    await lsp_client.shutdown_session()


@pytest.mark.asyncio(loop_scope="module")
async def test_the_task_no_host_runs_is_greyed(client: LanguageClient, workspace: Path) -> None:
    site = workspace / "site.yml"
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=site.as_uri(), language_id="ansible", version=1, text=site.read_text())))
    found = await until(lambda: asyncio.sleep(0, [d for d in client.diagnostics.get(site.as_uri(), [])
                                                  if d.source == "playbook-ls plan"]))
    assert [d.range.start.line for d in found] == [16]  # "loop_var renamed": skipped on l1, l2, l3
    (hint,) = found
    assert hint.message.startswith("runs on no host of inventory.ini: ") and "user == 'carol'" in hint.message
    assert list(hint.tags or []) == [types.DiagnosticTag.Unnecessary] and hint.severity == types.DiagnosticSeverity.Hint
