"""docs/editors.md's Neovim configurations, as written there, run in a real headless Neovim on
the bundled example: the server starts, the buffer is attached, PLS101 arrives, the hover shows
a task's inherited tags and a lens's result is shown to the user."""

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
# What a user does once the buffer is open: wait for the diagnostics, hover task2, click its
# "List tasks" lens (picked from the lenses of its line as vim.ui.select would offer them), and see
# the listing: as a message where the client cannot open documents (0.7), as a document otherwise.
SESSION = """
local out = {}
local shown = {}
local show_message = vim.lsp.handlers['window/showMessage']
vim.lsp.handlers['window/showMessage'] = function(err, result, ctx, config)
  table.insert(shown, result.message)
  return show_message(err, result, ctx, config)
end
out.ok = vim.wait(60000, function() return #vim.diagnostic.get(0) > 0 end, 100)
out.codes = {}
for _, d in ipairs(vim.diagnostic.get(0)) do table.insert(out.codes, d.code) end
out.version = vim.version().minor
local source = vim.api.nvim_get_current_buf()
vim.api.nvim_win_set_cursor(0, { 7, 10 })
local answers = vim.lsp.buf_request_sync(0, 'textDocument/hover', vim.lsp.util.make_position_params(), 20000) or {}
for _, answer in pairs(answers) do
  if answer.result then out.hover = answer.result.contents.value or answer.result.contents end
end
vim.lsp.codelens.refresh()
vim.wait(20000, function() return #vim.lsp.codelens.get(source) > 0 end, 100)
vim.ui.select = function(items, opts, on_choice)
  for i, item in ipairs(items) do
    if opts.format_item(item):find('^List tasks') then return on_choice(item, i) end
  end
end
vim.lsp.codelens.run()
vim.wait(20000, function()
  for _, message in ipairs(shown) do
    if message:find('tasks of') then out.lens = message return true end
  end
  if vim.api.nvim_get_current_buf() ~= source then
    out.lens = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), string.char(10))
    out.document = vim.api.nvim_buf_get_name(0)
    return true
  end
  return false
end, 100)
local f = io.open(os.getenv('SNIPPET_OUT'), 'w')
f:write(vim.json.encode(out))
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
    session = tmp_path / "session.lua"
    session.write_text(SESSION)
    out = tmp_path / "out.json"
    env = {**os.environ, "SNIPPET_OUT": str(out),
           "PATH": f"{Path(playbook_ls).parent}{os.pathsep}{os.environ.get('PATH', '')}",
           **{f"XDG_{kind}_HOME": str(tmp_path / kind.lower()) for kind in ("CONFIG", "DATA", "STATE", "CACHE")}}
    command = [nvim, "--headless", "-n", "-i", "NONE", "-u", str(init), str(workspace / "roles/sample/tasks/main.yml"),
               "-c", f"luafile {session}"]
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
    assert "__role1" in result.get("hover", ""), (result, stderr)  # task2's inherited tag, on hover
    lens = result.get("lens", "")
    assert "--list-tasks --tags __play,__role1,__tag2" in lens and "sample : task2" in lens, (result, stderr)
    if result["version"] >= 8:  # Neovim 0.8+ opens documents: the listing is one, outside the project
        assert result["document"].endswith("list-tasks-main.yml.txt") and str(workspace) not in result["document"]
