"""Random repositories from generator.py: playbook-ls must print what ansible-playbook prints.

PLAYBOOK_LS_RANDOM_CASES sets the number of seeds (default 100). Reproduce one failing case with
``python -m tests.random_playbooks.generator SEED DIR`` (it prints the selection arguments).
"""

from __future__ import annotations

import contextlib
import difflib
import io
import os
import re
import shlex
import subprocess
import traceback
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import pytest
from ansible_tools import find_tool
from generator import PLAYBOOK, generate

MODES = ("list-tasks", "list-tags")
INVENTORY = "localhost,"
N_CASES = int(os.environ.get("PLAYBOOK_LS_RANDOM_CASES", "100"))
PLAY_HEADER = re.compile(r"^(  play #\d+ \(.*\): .*\tTAGS: \[)(.*)(\])$", re.MULTILINE)

Result = tuple[str, int, str]  # (stdout, rc, stderr)


def find_ansible() -> str | None:
    return find_tool("ansible-playbook")


def normalise(stdout: str) -> str:
    """Sort the play-header tag list: ansible prints ','.join(set(play.tags))."""
    return PLAY_HEADER.sub(lambda m: m[1] + ",".join(sorted(m[2].split(","))) + m[3], stdout)


def environment(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANSIBLE_")}
    env.update(ANSIBLE_NOCOLOR="1", ANSIBLE_FORCE_COLOR="0", PYTHONHASHSEED="0", ANSIBLE_LOCALHOST_WARNING="False",
               ANSIBLE_INVENTORY_UNPARSED_WARNING="False", ANSIBLE_HOME=str(home),
               ANSIBLE_LOCAL_TEMP=str(home / "tmp"))
    return env


def run_ansible(exe: str, repo: Path, mode: str, selection: list[str], env: dict[str, str]) -> Result:
    cmd = [exe, "-i", INVENTORY, PLAYBOOK, f"--{mode}", *selection]
    proc = subprocess.run(cmd, cwd=repo, env=env, capture_output=True, text=True, timeout=120)
    return proc.stdout, proc.returncode, proc.stderr


def run_ours(repo: Path, mode: str, selection: list[str]) -> Result:
    from playbook_ls.cli.main import main

    out, err, cwd = io.StringIO(), io.StringIO(), os.getcwd()
    try:
        os.chdir(repo)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                rc = main([mode, "-i", INVENTORY, PLAYBOOK, *selection])
            except SystemExit as exc:
                rc = exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 1
            except Exception:  # a crash is a mismatch, not an error of the whole test
                rc = -1
                err.write(traceback.format_exc())
    finally:
        os.chdir(cwd)
    return out.getvalue(), int(rc or 0), err.getvalue()


def report(seed: int, mode: str, selection: list[str], theirs: Result, ours: Result) -> str | None:
    (a_out, a_rc, a_err), (o_out, o_rc, o_err) = theirs, ours
    if a_rc:  # the generator must only write repositories that ansible accepts
        return f"seed {seed} {mode}: ansible-playbook failed (a generator bug), rc={a_rc}:\n{a_err}"
    if normalise(a_out) == normalise(o_out) and a_rc == o_rc:
        return None
    args = "".join(f" {shlex.quote(arg)}" for arg in selection)
    diff = "".join(difflib.unified_diff(normalise(a_out).splitlines(True), normalise(o_out).splitlines(True),
                                        "ansible-playbook", "playbook-ls"))
    repro = (f"python -m tests.random_playbooks.generator {seed} /tmp/case{seed} && cd /tmp/case{seed} && "
             f"ansible-playbook -i {INVENTORY} {PLAYBOOK} --{mode}{args}; "
             f"playbook-ls {mode} -i {INVENTORY} {PLAYBOOK}{args}")
    stderr = f"playbook-ls stderr:\n{o_err}" if o_rc else ""
    return f"seed {seed} {mode}{args}: rc ansible={a_rc} playbook-ls={o_rc}\n  reproduce: {repro}\n{diff}{stderr}"


@pytest.mark.ansible
@pytest.mark.skipif(find_ansible() is None, reason="ansible-playbook is not installed")
def test_random_playbooks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    exe, env = find_ansible(), environment(tmp_path / "ansible-home")
    assert exe is not None
    for key in [k for k in os.environ if k.startswith("ANSIBLE_")]:
        monkeypatch.delenv(key)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    cases = [generate(seed) for seed in range(N_CASES)]
    for case in cases:
        case.write(tmp_path / str(case.seed))
    failures: list[str] = []
    with ThreadPoolExecutor(2) as pool:
        theirs: dict[tuple[int, str], Future[Result]] = {
            (case.seed, mode): pool.submit(run_ansible, exe, tmp_path / str(case.seed), mode, case.selection, env)
            for case in cases for mode in MODES}
        for case in cases:
            for mode in MODES:
                ours = run_ours(tmp_path / str(case.seed), mode, case.selection)
                problem = report(case.seed, mode, case.selection, theirs[case.seed, mode].result(), ours)
                failures += [problem] if problem else []
    if failures:
        pytest.fail(f"{len(failures)} of {2 * N_CASES} random cases differ:\n\n" + "\n".join(failures), pytrace=False)
