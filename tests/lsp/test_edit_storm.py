"""An edit storm on a workspace of many roles: hovers are answered while it lasts, the final state
is the final text's, and memory settles. The hover latency is printed, not asserted: a busy
machine stretches it for reasons of its own (bench/lsp.py measures hovers and edits).

``PLAYBOOK_LS_STORM_EDITS`` and ``PLAYBOOK_LS_STORM_ROLES`` set its size for a long run (default 300 and 60)."""

from __future__ import annotations

import asyncio
import os
import statistics
import time
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient
from session import SERVE, start_session
from waiting import condition, doc, indexed_hover, until

ROLES = int(os.environ.get("PLAYBOOK_LS_STORM_ROLES", "60"))
EDITS = int(os.environ.get("PLAYBOOK_LS_STORM_EDITS", "300"))
TASK = "- name: task {n} of {role}\n  ansible.builtin.debug:\n    msg: {n}\n  tags: [t{n}]\n"


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("storm")
    for r in range(ROLES):
        tasks = root / "roles" / f"role{r}" / "tasks"
        tasks.mkdir(parents=True)
        (tasks / "main.yml").write_text("".join(TASK.format(n=n, role=r) for n in range(20)))
    (root / "site.yml").write_text("- hosts: all\n  roles:\n" + "".join(f"    - role{r}\n" for r in range(ROLES)))
    return root


@pytest_lsp.fixture(config=SERVE, scope="module")
async def client(lsp_client: LanguageClient, workspace: Path):
    await start_session(lsp_client, workspace, folder=False)
    yield
    await lsp_client.shutdown_session()


def rss_mb(client: LanguageClient) -> float:
    pid = client._server.pid  # type: ignore[attr-defined]
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads the server's RSS from /proc")
async def test_an_edit_storm_keeps_hovers_answered_and_ends_in_the_final_state(client: LanguageClient,
                                                                           workspace: Path) -> None:
    edited = workspace / "roles" / "role0" / "tasks" / "main.yml"
    other = workspace / "roles" / "role7" / "tasks" / "main.yml"
    hover_at = types.HoverParams(text_document=doc(other), position=types.Position(line=0, character=4))
    ready = await until(lambda: client.text_document_hover_async(hover_at), indexed_hover)
    assert ready is not None, "the index was never ready"
    base = edited.read_text()
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=edited.as_uri(), language_id="ansible", version=1, text=base)))
    await asyncio.sleep(1)
    before = rss_mb(client)
    latencies: list[float] = []
    for version in range(2, EDITS + 2):
        text = base + f'- name: storm {version}\n  ansible.builtin.debug:\n    msg: x\n  when: "{{{{ x{version} }}}}"\n'
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=edited.as_uri(), version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)]))
        if version % 10 == 0:  # a hover elsewhere while the refreshes run
            started = time.perf_counter()
            answer = await client.text_document_hover_async(hover_at)
            latencies.append(time.perf_counter() - started)
            assert answer is not None
    last_line = base.count("\n") + 3  # the when: line of the last task
    found = await condition(  # the final text's diagnostics: PLS105 on the last task's when, once
        lambda: [d for d in client.diagnostics.get(edited.as_uri(), []) if d.code == "PLS105"],
        lambda found: [d.range.start.line for d in found] == [last_line])
    assert [d.range.start.line for d in found] == [last_line]
    assert f"x{EDITS + 1}" in found[0].message or "{{" in found[0].message
    await asyncio.sleep(2)
    after = rss_mb(client)
    p95 = statistics.quantiles(latencies, n=20)[-1] if len(latencies) >= 2 else latencies[0]
    print(f"\nedit storm: {EDITS} edits on {ROLES} roles; hover p95 {p95 * 1e3:.1f} ms "
          f"(max {max(latencies) * 1e3:.1f} ms); RSS {before:.0f} MB before, {after:.0f} MB after")
    assert after < max(before * 2, before + 100), f"RSS grew from {before:.0f} MB to {after:.0f} MB"
