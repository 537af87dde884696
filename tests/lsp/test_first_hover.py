"""The editor's first seconds on a large workspace: a file opened at once is hovered before the
whole workspace is indexed, with the answer the whole index gives, and the index's progress goes
begin, a report that the open files are ready, the playbooks, end. The parses are stored for the
next start once the server is idle."""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import os
import re
import shutil
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient
from session import SERVE, start_session
from waiting import INDEXING

from engine.parsing.parse_store import DATABASE

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from gen_repo import generate  # noqa: E402
from lsp_workload import Target, make_plan  # noqa: E402

TOKEN = "playbook-ls-index"


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("large")
    generate(root, 150, 1, extras=True)  # about 1,800 YAML files
    return root


# the server's parse store of its own: the other tests' commands, which pytest -n runs beside this
# module, share the session's cache directory (and some plant broken stores in it on purpose)
PARSES = tempfile.mkdtemp(prefix="playbook-ls-first-hover-")
atexit.register(shutil.rmtree, PARSES, True)  # made when the module is collected, by every worker
OWN_STORE = ClientServerConfig(server_command=SERVE.server_command,
                               server_env={**os.environ, "PLAYBOOK_LS_CACHE_DIR": PARSES})


@pytest_lsp.fixture(scope="module", config=OWN_STORE)
async def client(lsp_client: LanguageClient):
    yield
    await lsp_client.shutdown_session()


async def hover(client: LanguageClient, target: Target) -> str | None:
    result = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=target.path.as_uri()),
        position=types.Position(line=target.line, character=target.character)))
    return result.contents.value if result is not None else None  # type: ignore[union-attr]


def ended(client: LanguageClient) -> bool:
    return any(isinstance(value, types.WorkDoneProgressEnd) for value in client.progress_reports.get(TOKEN, []))


@pytest.mark.asyncio(loop_scope="module")
async def test_an_open_file_is_hovered_before_the_whole_index(client: LanguageClient, workspace: Path) -> None:
    plan = make_plan(workspace, 5, 1)
    target = plan.deep  # a task of a role file imported from another imported file
    await start_session(client, workspace)
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=target.path.as_uri(), language_id="ansible", version=1, text=target.path.read_text())))
    deadline = time.monotonic() + 60
    first, notices = None, []
    while first is None and time.monotonic() < deadline:
        text = await hover(client, target)
        answered_before_the_end = not ended(client)
        if text is None or INDEXING in text:
            notices.append(text)
        else:
            first = text
        await asyncio.sleep(0.02)
    assert first is not None and "**via**" in first
    assert answered_before_the_end
    assert None not in notices, "a hover waiting for the index answered nothing instead of saying so"
    # a file not open waits for the whole index, and its hover says how far the index is
    closed = next(t for t in plan.hovers if t.path != target.path)
    progress: list[str | None] = []
    while not ended(client) and time.monotonic() < deadline:
        progress.append(await hover(client, closed))
        await asyncio.sleep(0.02)
    counted = [t for t in progress if t and re.search(r"\((reading files|resolving playbooks), [\d,]+ of [\d,]+\)", t)]
    assert counted and all(INDEXING in t for t in counted), progress[:5]
    while not ended(client) and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    assert ended(client)
    assert await hover(client, target) == first  # the whole index says the same

    values = client.progress_reports[TOKEN]
    assert isinstance(values[0], types.WorkDoneProgressBegin)
    assert isinstance(values[-1], types.WorkDoneProgressEnd)
    reports = values[1:-1]
    assert reports and all(isinstance(value, types.WorkDoneProgressReport) for value in reports)
    assert reports[0].message == "open files ready (1); indexing the rest"
    assert reports[-1].percentage == 100


@pytest.mark.asyncio(loop_scope="module")
async def test_the_parses_are_stored_once_the_server_is_idle(client: LanguageClient, workspace: Path) -> None:
    if TOKEN not in client.progress_reports:  # alone on its worker (pytest -n): no earlier test opened a session
        await start_session(client, workspace)
        target = make_plan(workspace, 5, 1).deep
        client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
            uri=target.path.as_uri(), language_id="ansible", version=1, text=target.path.read_text())))
    files = sum(1 for _ in workspace.rglob("*.yml")) - 1  # the open file's parse is its buffer's: never stored
    database = Path(PARSES) / "parsed" / DATABASE

    def stored() -> int:
        if not database.is_file():
            return 0
        with contextlib.closing(sqlite3.connect(database)) as connection:
            try:
                return int(connection.execute("SELECT count(value) FROM parsed").fetchone()[0])
            except sqlite3.OperationalError:  # the file made, its table not yet: nothing stored so far
                return 0

    deadline = time.monotonic() + 240  # "idle" comes late on a loaded machine: a bound, not a target
    while time.monotonic() < deadline and stored() < files:
        await asyncio.sleep(0.2)
    assert stored() >= files
