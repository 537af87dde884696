"""Lens commands in clients that discard a command's result (Neovim, Helix, Emacs): the server
shows the result itself, as a document (window/showDocument) when the client can open one,
else as a message; a client that shows results itself (the VS Code extension) says so with
``commandResults: "return"`` and gets nothing shown twice."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from waiting import doc, until

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "tag-inheritance"
TASK2_LINE = 6


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("ws")
    shutil.copytree(EXAMPLE, root, dirs_exist_ok=True)
    return root


def _config() -> ClientServerConfig:
    return ClientServerConfig(server_command=[sys.executable, "-m", "playbook_ls", "serve"])


async def _start(lsp_client: LanguageClient, workspace: Path, capabilities: str,
                 options: dict[str, Any] | None = None) -> dict[str, list[Any]]:
    """Start the session; what the server shows is what pytest-lsp's client records."""
    @lsp_client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register_capability(params: types.RegistrationParams) -> None:
        pass

    await lsp_client.initialize_session(types.InitializeParams(
        capabilities=client_capabilities(capabilities), root_uri=workspace.as_uri(),
        initialization_options=options, workspace_folders=[types.WorkspaceFolder(uri=workspace.as_uri(), name="ws")]))
    return {"documents": lsp_client.shown_documents, "messages": lsp_client.messages}


async def _lens(client: LanguageClient, path: Path, title_start: str) -> types.Command:
    found = await until(lambda: client.text_document_code_lens_async(types.CodeLensParams(text_document=doc(path))),
                        lambda lenses: bool(lenses))
    return next(lens.command for lens in found or [] if lens.command is not None
                and lens.range.start.line == TASK2_LINE and lens.command.title.startswith(title_start))


async def _click(client: LanguageClient, command: types.Command) -> Any:
    return await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=command.command, arguments=command.arguments))


@pytest_lsp.fixture(scope="module", config=_config())
async def neovim07(lsp_client: LanguageClient, workspace: Path):
    lsp_client.seen = await _start(lsp_client, workspace, "neovim@v0.7.0")  # type: ignore[attr-defined]
    yield
    await lsp_client.shutdown_session()


@pytest.mark.asyncio(loop_scope="module")
async def test_without_show_document_the_listing_is_a_message(neovim07: LanguageClient, workspace: Path) -> None:
    command = await _lens(neovim07, workspace / "roles/sample/tasks/main.yml", "List tasks")
    await _click(neovim07, command)
    seen = neovim07.seen  # type: ignore[attr-defined]
    message = await until(lambda: _async([m for m in seen["messages"] if "tasks of" in m.message]), bool)
    text = message[-1].message
    assert "--list-tasks --tags __play,__role1,__tag2" in text and "sample : task2" in text, text
    assert seen["documents"] == []


@pytest.mark.asyncio(loop_scope="module")
async def test_without_show_document_the_tags_are_a_message(neovim07: LanguageClient, workspace: Path) -> None:
    command = await _lens(neovim07, workspace / "roles/sample/tasks/main.yml", "tags:")
    await _click(neovim07, command)
    seen = neovim07.seen  # type: ignore[attr-defined]
    message = await until(lambda: _async([m for m in seen["messages"] if "effective tags" in m.message]), bool)
    text = message[-1].message
    assert "task sample : task2" in text and "__role1  (from roles: entry \"sample\"" in text, text


async def _async(value: Any) -> Any:
    return value


@pytest_lsp.fixture(scope="module", config=_config())
async def neovim010(lsp_client: LanguageClient, workspace: Path):
    lsp_client.seen = await _start(lsp_client, workspace, "neovim@v0.10.0")  # type: ignore[attr-defined]
    yield
    await lsp_client.shutdown_session()


@pytest.mark.asyncio(loop_scope="module")
async def test_with_show_document_the_listing_opens_as_a_document(neovim010: LanguageClient, workspace: Path) -> None:
    command = await _lens(neovim010, workspace / "roles/sample/tasks/main.yml", "List tasks")
    result = await _click(neovim010, command)
    seen = neovim010.seen  # type: ignore[attr-defined]
    documents = await until(lambda: _async(list(seen["documents"])), bool)
    [shown] = documents
    path = Path(shown.uri.removeprefix("file://"))
    assert shown.take_focus and workspace not in path.parents  # never written into the project
    assert path.read_text().split("\n\n", 1)[1].strip() == result["listings"][0]["text"].strip()


@pytest_lsp.fixture(scope="module", config=_config())
async def extension(lsp_client: LanguageClient, workspace: Path):
    lsp_client.seen = await _start(lsp_client, workspace, "visual-studio-code",  # type: ignore[attr-defined]
                                   {"commandResults": "return"})
    yield
    await lsp_client.shutdown_session()


@pytest.mark.asyncio(loop_scope="module")
async def test_a_client_that_shows_results_itself_only_gets_them_back(extension: LanguageClient,
                                                                      workspace: Path) -> None:
    command = await _lens(extension, workspace / "roles/sample/tasks/main.yml", "tags:")
    [context] = await _click(extension, command)
    assert context["task"] == "sample : task2"
    await _async(None)
    seen = extension.seen  # type: ignore[attr-defined]
    assert seen["documents"] == [] and not [m for m in seen["messages"] if "effective tags" in m.message]
