"""A real Neovim client against `playbook-ls serve`: diagnostics and hover, end to end.

Neovim runs headless without any user configuration (``--clean -u NONE -i NONE -n``) and
drives the server with ``nvim_hover.lua`` on a copy of the seed example. It needs ``nvim``
0.7 or newer (CI installs Debian's 0.7.2 with ``apt-get install neovim``): without it the
test is skipped, except when ``CI`` is set, where it fails so that CI really runs it.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
EXAMPLE = HERE.parents[1] / "examples" / "tag-inheritance"
SCRIPT = HERE / "nvim_hover.lua"
# A script that does not even load must end nvim too (the script handles its own errors).
LOAD_SCRIPT = ("lua local ok, err = pcall(dofile, os.getenv('PLAYBOOK_LS_NVIM_SCRIPT'))"
               " if not ok then io.stderr:write(tostring(err) .. '\\n') vim.cmd('cq') end")
TIMEOUT_S = 120  # the whole nvim session; the script bounds each of its own waits at 60 s


def _line_of(text: str, needle: str, start: int = 0) -> int:
    """The 0-based number of the first line at or after ``start`` that contains ``needle``."""
    for number, line in enumerate(text.splitlines()):
        if number >= start and needle in line:
            return number
    raise AssertionError(f"{needle!r} not found in\n{text}")


def _tail(path: str | None, lines: int = 40) -> str:
    if not path or not Path(path).is_file():
        return "(no LSP log)"
    return "\n".join(Path(path).read_text(errors="replace").splitlines()[-lines:])


def _run_nvim(nvim: str, server: str, workspace: Path, home: Path, **extra: str) -> tuple[dict[str, Any], str]:
    out = home / "result.json"
    env = {
        **os.environ,
        "PLAYBOOK_LS_NVIM_SCRIPT": str(SCRIPT),
        "PLAYBOOK_LS_NVIM_CMD": server,
        "PLAYBOOK_LS_NVIM_ROOT": str(workspace),
        "PLAYBOOK_LS_NVIM_OUT": str(out),
        # Neovim's LSP log and the server's rule pages stay in the test's directory.
        **{f"XDG_{kind}_HOME": str(home / kind.lower()) for kind in ("CONFIG", "DATA", "STATE", "CACHE")},
        **extra,
    }
    command = [nvim, "--headless", "--clean", "-n", "-u", "NONE", "-i", "NONE",
               "-c", LOAD_SCRIPT]
    proc = subprocess.Popen(command, cwd=workspace, env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)  # one process group: nvim and the server
    try:
        stdout, stderr = proc.communicate(timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        stdout, stderr = proc.communicate()
        log = home / "state" / "nvim" / "lsp.log"
        if not log.is_file():
            log = home / "cache" / "nvim" / "lsp.log"  # Neovim < 0.8
        pytest.fail(f"nvim did not finish within {TIMEOUT_S} s\nstdout: {stdout}\nstderr: {stderr}\n"
                    f"LSP log:\n{_tail(str(log))}")
    output = f"exit code {proc.returncode}\nstdout: {stdout}\nstderr: {stderr}"
    if not out.is_file():
        pytest.fail(f"nvim wrote no result\n{output}")
    result: dict[str, Any] = json.loads(out.read_text())
    details = f"{output}\nresult: {json.dumps(result, indent=1)}\nLSP log:\n{_tail(result.get('log_path'))}"
    if proc.returncode != 0 or "error" in result:
        pytest.fail(f"the Neovim script failed: {result.get('error')}\n{details}")
    return result, details


def _workspace(tmp_path: Path) -> tuple[Path, Path]:
    workspace = tmp_path / "ws"
    shutil.copytree(EXAMPLE, workspace)
    home = tmp_path / "nvim"
    home.mkdir()
    return workspace, home


def test_neovim_shows_inherited_tags_and_the_never_finding(tmp_path: Path, nvim: str, playbook_ls: str) -> None:
    workspace, home = _workspace(tmp_path)

    started = time.monotonic()
    result, details = _run_nvim(nvim, playbook_ls, workspace, home)
    print(f"nvim {result.get('nvim_version')}: diagnostics after {result.get('diagnostics_ms')} ms, "
          f"hover after {result.get('hover_ms')} ms, {time.monotonic() - started:.1f} s in all")

    playbook = (workspace / "playbook.yml").read_text()
    tasks = (workspace / "roles/sample/tasks/main.yml").read_text()
    task2 = _line_of(tasks, "task2")
    task3 = _line_of(tasks, "- name:", task2 + 1)
    play_tag = _line_of(playbook, "tags: __play") + 1  # origins are shown 1-based
    role_tag = _line_of(playbook, "tags: __role1") + 1

    # The hover lists task2's effective tags, each inherited one with where it is written.
    hover = result["hover"]
    assert result["hover_line"] == task2, details
    assert "**sample : task2**" in hover, details
    assert 'play "localhost"' in hover and 'roles: entry "sample"' in hover, details  # the "via" chain
    assert "`__tag2` (this task)" in hover, details
    assert "`never` (this task)" in hover, details
    assert f'`__play` ← play "localhost" (playbook.yml:{play_tag})' in hover, details
    assert f'`__role1` ← roles: entry "sample" (playbook.yml:{role_tag})' in hover, details
    assert "default run: skipped (`never`)" in hover, details

    # PLS101 (never reachable through an inherited tag) on task2, as Neovim stores it.
    pls101 = [d for d in result["diagnostics"] if d["code"] == "PLS101" and task2 <= d["line"] < task3]
    assert pls101, details
    assert pls101[0]["source"] == "playbook-ls", details
    assert "'sample : task2'" in pls101[0]["message"] and "__role1" in pls101[0]["message"], details

    # The session ended cleanly: no protocol errors, no error message, shutdown + exit honoured.
    assert result["client_errors"] == [], details
    assert not [m for m in result["messages"] if m["kind"] == "show" and m.get("type") == 1], details
    assert "no handler found" not in _tail(result.get("log_path"), 10_000), details  # a request Neovim rejects
    assert result.get("server_exit", {}).get("code") == 0, details


@pytest.mark.parametrize("how", [
    # docs/editors.md: `init_options` carry the keys themselves, `settings` nest them under
    # "playbook-ls" (pushed by Neovim with workspace/didChangeConfiguration).
    pytest.param({"PLAYBOOK_LS_NVIM_INIT_OPTIONS": json.dumps({"ignore": ["PLS101"]})}, id="init_options"),
    pytest.param({"PLAYBOOK_LS_NVIM_SETTINGS": json.dumps({"playbook-ls": {"ignore": ["PLS101"]}})}, id="settings"),
    # settings without a "playbook-ls" section (another server's, or eglot's empty default)
    # leave the initialization options alone
    pytest.param({"PLAYBOOK_LS_NVIM_INIT_OPTIONS": json.dumps({"ignore": ["PLS101"]}),
                  "PLAYBOOK_LS_NVIM_SETTINGS": json.dumps({"yaml": {"validate": False}})}, id="both"),
])
def test_neovim_passes_the_client_settings_to_the_server(tmp_path: Path, how: dict[str, str], nvim: str,
                                                         playbook_ls: str) -> None:
    workspace, home = _workspace(tmp_path)
    tasks = workspace / "roles/sample/tasks/main.yml"
    # A second finding that the settings leave alone: a condition written with {{ }} (PLS105).
    tasks.write_text(tasks.read_text().replace("  tags: __tag1\n", '  tags: __tag1\n  when: "{{ run_task1 }}"\n', 1))

    # The script waits until the file's findings are exactly PLS105 (PLS101 is gone).
    result, details = _run_nvim(nvim, playbook_ls, workspace, home, PLAYBOOK_LS_NVIM_EXPECT_CODES="PLS105", **how)
    assert {d["code"] for d in result["diagnostics"]} == {"PLS105"}, details
    assert "`__role1` ← roles: entry" in result["hover"], details
