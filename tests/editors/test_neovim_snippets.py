"""docs/editors.md's Neovim configurations, as written there, run in a real headless Neovim on
the bundled example: the server starts, the buffer is attached and PLS101 arrives."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "tag-inheritance"
WAIT = """lua
local ok = vim.wait(60000, function() return #vim.diagnostic.get(0) > 0 end, 100)
local codes = {}
for _, d in ipairs(vim.diagnostic.get(0)) do table.insert(codes, d.code) end
local f = io.open(os.getenv('SNIPPET_OUT'), 'w')
f:write(vim.json.encode({ ok = ok, codes = codes, version = vim.version().minor }))
f:close()
vim.cmd('qa!')
"""


def _snippet(heading: str) -> str:
    docs = (ROOT / "docs" / "editors.md").read_text()
    section = docs.split(f"### {heading}\n", 1)[1].split("\n### ", 1)[0]
    return section.split("```lua\n", 1)[1].split("```", 1)[0]


def _minor(nvim: str) -> int:
    version = subprocess.run([nvim, "--version"], capture_output=True, text=True, timeout=30).stdout
    match = re.search(r"NVIM v0\.(\d+)", version)
    return int(match[1]) if match else 0


@pytest.mark.parametrize("git", [False, True], ids=["started-in-the-project", "found-by-its-git"])
@pytest.mark.parametrize(("heading", "lowest", "highest"), [("Neovim 0.7", 7, 7), ("Neovim 0.8 to 0.10", 8, 99)])
def test_the_documented_configuration_runs(tmp_path: Path, nvim: str, playbook_ls: str, heading: str,
                                           lowest: int, highest: int, git: bool) -> None:
    if not lowest <= _minor(nvim) <= highest:
        pytest.skip(f"the configuration is for {heading}; this Neovim is 0.{_minor(nvim)}")
    workspace = tmp_path / "ws"
    shutil.copytree(EXAMPLE, workspace)
    cwd = workspace
    if git:  # started elsewhere: the project is found by its .git
        (workspace / ".git").mkdir()
        cwd = workspace / "roles"
    init = tmp_path / "init.lua"
    init.write_text(_snippet(heading))
    out = tmp_path / "out.json"
    env = {**os.environ, "SNIPPET_OUT": str(out),
           "PATH": f"{Path(playbook_ls).parent}{os.pathsep}{os.environ.get('PATH', '')}",
           **{f"XDG_{kind}_HOME": str(tmp_path / kind.lower()) for kind in ("CONFIG", "DATA", "STATE", "CACHE")}}
    command = [nvim, "--headless", "-n", "-i", "NONE", "-u", str(init), str(workspace / "roles/sample/tasks/main.yml"),
               "-c", WAIT.replace("\n", " ")]
    proc = subprocess.Popen(command, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        stdout, stderr = proc.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        stdout, stderr = proc.communicate()
        pytest.fail(f"nvim did not finish\nstdout: {stdout}\nstderr: {stderr}")
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # the server, if nvim left it behind
        except ProcessLookupError:
            pass
    assert out.is_file(), f"nvim wrote nothing\nstdout: {stdout}\nstderr: {stderr}"
    result = json.loads(out.read_text())
    assert result["ok"] and "PLS101" in result["codes"], (result, stderr)
