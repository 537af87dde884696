"""Random repositories from generator.py: playbook-ls must print what ansible-playbook prints.

What ansible-playbook printed for each seed is recorded in ``recorded.json`` (with a digest of the
repository the seed writes), so the comparison runs offline and in seconds; the ``ansible``-marked
test re-runs ansible-playbook on a fixed share of the seeds (every one with ``PLAYBOOK_LS_LIVE=all``)
and on any seed that is not recorded. Re-record after changing the generator with
``python tests/random_playbooks/record.py`` (``--verify`` only compares).

PLAYBOOK_LS_RANDOM_CASES sets the number of seeds (default 100; seeds past the recorded ones are
compared live). Reproduce one case with ``python -m tests.random_playbooks.generator SEED DIR``
(it prints the selection arguments).
"""

from __future__ import annotations

import contextlib
import difflib
import hashlib
import io
import json
import os
import re
import shlex
import subprocess
import traceback
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from ansible_tools import find_tool, live_sample
from generator import PLAYBOOK, Case, generate

MODES = ("list-tasks", "list-tags")
INVENTORY = "localhost,"
N_CASES = int(os.environ.get("PLAYBOOK_LS_RANDOM_CASES", "100"))
RECORDED = Path(__file__).with_name("recorded.json")
PLAY_HEADER = re.compile(r"^(  play #\d+ \(.*\): .*\tTAGS: \[)(.*)(\])$", re.MULTILINE)

Result = tuple[str, int, str]  # (stdout, rc, stderr)


def find_ansible() -> str | None:
    return find_tool("ansible-playbook")


def normalise(stdout: str) -> str:
    """Sort the play-header tag list: ansible prints ','.join(set(play.tags))."""
    return PLAY_HEADER.sub(lambda m: m[1] + ",".join(sorted(m[2].split(","))) + m[3], stdout)


def digest(case: Case) -> str:
    """What a recording was made from: the files the seed writes and its selection."""
    text = json.dumps({"files": case.files, "selection": case.selection}, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def load_recorded() -> dict[str, dict]:
    return json.loads(RECORDED.read_text()) if RECORDED.is_file() else {}


def environment(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANSIBLE_")}
    env.update(ANSIBLE_NOCOLOR="1", ANSIBLE_FORCE_COLOR="0", PYTHONHASHSEED="0", ANSIBLE_LOCALHOST_WARNING="False",
               ANSIBLE_INVENTORY_UNPARSED_WARNING="False", ANSIBLE_HOME=str(home),
               ANSIBLE_LOCAL_TEMP=str(home / "tmp"))
    return env


def run_ansible(exe: str, repo: Path, mode: str, selection: list[str], env: dict[str, str]) -> Result:
    cmd = [exe, "-i", INVENTORY, PLAYBOOK, f"--{mode}", *selection]
    proc = subprocess.run(cmd, cwd=repo, env=env, capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL)
    return proc.stdout, proc.returncode, proc.stderr


def record_seeds(cases: list[Case], scratch: Path) -> dict[str, dict]:
    """Run ansible-playbook on each case in both modes: the recordings, keyed by seed."""
    exe = find_ansible()
    assert exe is not None, "ansible-playbook is not installed"
    env = environment(scratch / "ansible-home")
    for case in cases:
        case.write(scratch / str(case.seed))
    jobs = [(case, mode) for case in cases for mode in MODES]
    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(lambda job: run_ansible(exe, scratch / str(job[0].seed), job[1], job[0].selection,
                                                        env), jobs))
    recorded: dict[str, dict] = {}
    for (case, mode), (stdout, rc, stderr) in zip(jobs, results, strict=True):
        entry = recorded.setdefault(str(case.seed), {"digest": digest(case)})
        entry[mode] = {"stdout": normalise(stdout), "rc": rc, **({"stderr": stderr[-2000:]} if rc else {})}
    return recorded


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


def as_result(entry: dict) -> Result:
    return entry["stdout"], entry["rc"], entry.get("stderr", "")


def test_random_playbooks_print_what_ansible_printed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every recorded seed, offline: the recording must still be of what the generator writes."""
    for key in [k for k in os.environ if k.startswith("ANSIBLE_")]:
        monkeypatch.delenv(key)
    recorded = load_recorded()
    assert len(recorded) >= min(N_CASES, 100), "recorded.json is missing: python tests/random_playbooks/record.py"
    failures: list[str] = []
    for seed in range(N_CASES):
        entry = recorded.get(str(seed))
        if entry is None:
            continue  # past the recordings: the ansible-marked test compares it live
        case = generate(seed)
        if entry["digest"] != digest(case):
            failures.append(f"seed {seed}: the generator writes another repository than the one recorded; "
                            "re-record with python tests/random_playbooks/record.py")
            continue
        case.write(tmp_path / str(seed))
        for mode in MODES:
            problem = report(seed, mode, case.selection, as_result(entry[mode]),
                             run_ours(tmp_path / str(seed), mode, case.selection))
            failures += [problem] if problem else []
    if failures:
        pytest.fail(f"{len(failures)} random cases differ:\n\n" + "\n".join(failures), pytrace=False)


def test_a_changed_recording_is_noticed(tmp_path: Path) -> None:
    case = generate(0)
    case.write(tmp_path)
    ours = run_ours(tmp_path, "list-tasks", case.selection)
    assert report(0, "list-tasks", case.selection, ours, ours) is None
    changed = (ours[0].replace("TAGS: [", "TAGS: [extra, ", 1), ours[1], ours[2])
    assert changed[0] != ours[0] and report(0, "list-tasks", case.selection, changed, ours)


@pytest.mark.ansible
@pytest.mark.skipif(find_ansible() is None, reason="ansible-playbook is not installed")
def test_random_playbooks_as_ansible_prints_them(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A fixed share of the recordings re-run (all with PLAYBOOK_LS_LIVE=all) and every unrecorded seed:
    ansible must print what was recorded, and playbook-ls what ansible prints."""
    for key in [k for k in os.environ if k.startswith("ANSIBLE_")]:
        monkeypatch.delenv(key)
    recorded = load_recorded()
    seeds = [str(seed) for seed in range(N_CASES)]
    sampled = set(live_sample(seeds))
    live = [seed for seed in seeds if seed not in recorded or seed in sampled]
    cases = [generate(int(seed)) for seed in live]
    again = record_seeds(cases, tmp_path)
    failures: list[str] = []
    for case in cases:
        seed, now = str(case.seed), again[str(case.seed)]
        if seed in recorded and recorded[seed] != now:
            failures.append(f"seed {seed}: ansible-playbook no longer prints what was recorded; "
                            "re-record with python tests/random_playbooks/record.py " + seed)
        for mode in MODES:
            problem = report(case.seed, mode, case.selection, as_result(now[mode]),
                             run_ours(tmp_path / seed, mode, case.selection))
            failures += [problem] if problem else []
    if failures:
        pytest.fail(f"{len(failures)} of {2 * len(cases)} random cases differ:\n\n" + "\n".join(failures),
                    pytrace=False)
