"""Requests over a whole large document hold no other request: inlay hints over every line of a
generated playbook are answered, and hovers sent meanwhile are answered quickly.

``PLAYBOOK_LS_BIG_LINES`` sets the playbook's size (6,000 lines by default; the target is met on
50,000) and ``PLAYBOOK_LS_BIG_WAIT_MS`` the longest a hover may wait (default 1,000 ms; the target is
200 ms). On a machine loaded enough that the hints take longer than twice that, a hover may wait up
to half their time: one held behind them would wait all of it.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from raw_client import RawClient
from waiting import indexed_hover

LINES = int(os.environ.get("PLAYBOOK_LS_BIG_LINES", "6000"))
WAIT_MS = int(os.environ.get("PLAYBOOK_LS_BIG_WAIT_MS", "1000"))


def _playbook(path: Path, size: int) -> int:
    lines = ["- hosts: localhost", "  gather_facts: false", "  tags: [outer]", "  vars:", "    app_dir: /opt/app",
             "  tasks:"]
    number = 0
    while len(lines) < size:
        lines += [f"    - name: task {number}", "      copy:", f'        dest: "{{{{ app_dir }}}}/f{number}.conf"',
                  f'        content: "{{{{ app_dir | upper }}}} {number}"', f"      tags: [t{number % 50}]"]
        number += 1
    path.write_text("\n".join(lines) + "\n")
    return len(lines)


def test_whole_document_inlay_hints_hold_no_hover(tmp_path: Path) -> None:
    size = _playbook(tmp_path / "site.yml", LINES)
    client = RawClient(tmp_path)
    document = {"uri": (tmp_path / "site.yml").as_uri()}
    hover = {"textDocument": document, "position": {"line": size - 3, "character": 8}}
    try:
        client.initialize(tmp_path)
        deadline = time.monotonic() + 120
        while not indexed_hover(client.response(client.send("textDocument/hover", hover), 60).get("result")):
            assert time.monotonic() < deadline, "never indexed"
            time.sleep(0.2)
        whole = {"start": {"line": 0, "character": 0}, "end": {"line": size, "character": 0}}
        hints_sent = time.monotonic()
        hints = client.send("textDocument/inlayHint", {"textDocument": document, "range": whole})
        waits = []
        while hints not in client.answers:
            sent = time.monotonic()
            answer = client.response(client.send("textDocument/hover", hover), 60)
            waits.append((time.monotonic() - sent) * 1000)
            assert answer.get("result") is not None
        hints_ms = (time.monotonic() - hints_sent) * 1000
        found = client.response(hints)["result"]
        assert any("inherited: outer" in hint["label"] for hint in found)
        # A hover held behind the hints would wait about as long as the hints took. On a loaded machine
        # both slow down alike, so the bound is the larger of the fixed one and half the hints' time.
        bound = max(WAIT_MS, hints_ms / 2)
        assert max(waits) < bound, (f"a hover waited {max(waits):.0f} ms behind whole-document inlay hints "
                                    f"that took {hints_ms:.0f} ms: {waits}")
    finally:
        client.process.kill()
        client.process.wait()
    assert "Traceback" not in client.stderr.read_text()
