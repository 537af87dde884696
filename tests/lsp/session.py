"""How the tests' LSP clients start a session with playbook-ls: one place for it, whatever
initialization options or client features a test module adds."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

SERVE = ClientServerConfig(server_command=[sys.executable, "-m", "playbook_ls", "serve"])


async def start_session(client: LanguageClient, workspace: Path, *, initialization_options: Any = None,
                        folder: bool = True) -> None:
    """Initialize as VS Code does, on ``workspace`` (also as its one workspace folder unless
    ``folder`` is false); the capabilities the server registers are kept in
    ``client.registrations``."""
    client.registrations = []  # type: ignore[attr-defined]

    @client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register_capability(params: types.RegistrationParams) -> None:
        client.registrations = [r.method for r in params.registrations]  # type: ignore[attr-defined]

    folders = [types.WorkspaceFolder(uri=workspace.as_uri(), name="ws")] if folder else None
    await client.initialize_session(types.InitializeParams(
        capabilities=client_capabilities("visual-studio-code"), root_uri=workspace.as_uri(),
        initialization_options=initialization_options, workspace_folders=folders))
