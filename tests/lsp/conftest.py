"""One language-server client per test module, on a copy of the seed example."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import pytest_lsp
from pytest_lsp import LanguageClient
from session import SERVE, start_session

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "tag-inheritance"


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("ws")
    shutil.copytree(EXAMPLE, root, dirs_exist_ok=True)
    return root


@pytest_lsp.fixture(scope="module", config=SERVE)
async def client(lsp_client: LanguageClient, workspace: Path):
    await start_session(lsp_client, workspace)
    yield
    await lsp_client.shutdown_session()
