"""Builds the language server: the state in :mod:`playbook_ls.lsp.server`, then every handler
group registered on it. Nothing imports this module back, so each arrow points one way.
"""

from __future__ import annotations

import logging
import os

from playbook_ls.lsp import actions, documents, editing, lenses, navigation, running, selection
from playbook_ls.lsp.server import PlaybookServer

HANDLER_GROUPS = (documents, navigation, lenses, editing, running, actions, selection)


def create_server() -> PlaybookServer:
    server = PlaybookServer()
    for group in HANDLER_GROUPS:
        group.register(server)
    return server


def serve(tcp: tuple[str, int] | None = None) -> int:
    """Serve over stdio, or over TCP at ``(host, port)`` (see :func:`.tcp.tcp_address`)."""
    logging.basicConfig(level=os.environ.get("PLAYBOOK_LS_LOG", "WARNING").upper(),
                        format="playbook-ls %(levelname)s %(message)s")  # stderr: stdout is the protocol
    server = create_server()
    if tcp:
        from playbook_ls.lsp.tcp import serve_tcp

        return serve_tcp(server, *tcp)
    server.start_io()
    return 0
