"""What the server keeps per message or per document stays bounded however many edits come:
each guard here is one thing that grew with every edit (issue 42, memory after edits)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from playbook_ls.lsp.server import PlaybookServer


def _server(root: Path) -> tuple[PlaybookServer, list[Any]]:
    """A server fed messages in-process; what it sends is collected, not written."""
    from playbook_ls.lsp.setup import create_server

    server = create_server()
    sent: list[Any] = []
    server.protocol._send_data = sent.append  # type: ignore[method-assign]
    _message(server, {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                      "params": {"processId": None, "rootUri": root.as_uri(), "capabilities": {}}})
    return server, sent


def _message(server: PlaybookServer, data: dict[str, Any]) -> None:
    protocol = server.protocol
    protocol.handle_message(protocol.structure_message(data))


def test_no_future_is_kept_per_document_notification(tmp_path: Path) -> None:
    """pygls keeps a future per didOpen/didChange/didClose under an id that only a request's answer
    removes: one per edit, with the exception and frames of any that failed."""
    uri = (tmp_path / "site.yml").as_uri()
    server, _ = _server(tmp_path)
    for turn in range(20):
        _message(server, {"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
            "uri": uri, "languageId": "ansible", "version": 1, "text": "- hosts: all\n"}}})
        for version in range(2, 7):
            _message(server, {"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
                "textDocument": {"uri": uri, "version": version},
                "contentChanges": [{"text": f"- hosts: all\n  vars: {{v: {turn * 10 + version}}}\n"}]}})
        _message(server, {"jsonrpc": "2.0", "method": "textDocument/didClose",
                          "params": {"textDocument": {"uri": uri}}})
    # a change of a closed document fails in pygls: its future and traceback go too
    _message(server, {"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
        "textDocument": {"uri": uri, "version": 9}, "contentChanges": [{"text": "x\n"}]}})
    assert len(server.protocol._request_futures) == 0
