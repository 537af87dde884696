"""Differential cases for the bundled engine (`playbook-ls run`) against `ansible-playbook -c local`.

Every directory under ``scenarios/`` is one scenario: a ``site.yml`` (plus whatever it needs) and
an optional ``case.json``::

    {"description": "...", "args": ["--tags", "x"], "inventory": "hosts.ini",
     "modes": ["run", "check", "check_diff"], "check_writes": false,
     "stdout": false, "stdout_reason": "why the text cannot be compared", "deprecation_warnings": true,
     "clock": 1767225600}

``args`` are passed to both tools; ``inventory`` is a file of the scenario (default: the host list
``localhost,``); ``modes`` default to ``run`` and ``check``; ``check_writes`` says that a task
forces ``check_mode: false``, so that ``--check`` may change files; ``"stdout": false`` (with a
``stdout_reason``, required) leaves the scenario's text out of the recording and the comparison;
``deprecation_warnings`` turns ansible's deprecation warnings on for both tools (they are off
otherwise: ``ANSIBLE_DEPRECATION_WARNINGS=False``); every other warning is on for both, as by
default (an empty inventory's, an unparsed source's). ``clock`` (seconds since the epoch) puts a
``date`` first on both tools' PATH that shows that time unless it is told one (``-d``, ``-r``...):
a role's ``lookup('pipe', 'date +%Y%m%d%H%M%S')`` then names the same release in both runs.
Both tools run under ``PYTHONHASHSEED=0``, so that a list made from a set of strings has the one
order that seed gives; ``"hash_seeded": true`` says a scenario shows such an order, so that the
engine runs as a child process, never in the test's own process (whose seed is its own).

Each scenario/mode runs in a fresh scratch copy of the scenario. What is recorded and compared:
the exit code, the ``--json`` object of DESIGN.md (recap and task results) and the files of the
scratch directory afterwards, as changes to the fresh copy (paths, types, modes, small text
contents, symlink targets; removed paths as null; the scratch path is replaced by ``<SCRATCH>``).
ansible-playbook's side is produced by the test-only notification callback in
``callback_plugins/`` (it writes the JSON object to a file) and stored in
``scenarios/NAME/expected.json``.

The same ansible run also records the text of the default stdout callback in
``scenarios/NAME/stdout.MODE.txt``: stdout and stderr merged in the order they were written
(unbuffered, as a terminal shows them: warnings and some errors go to stderr), compared with
the text ``playbook-ls run --json`` writes to stderr. Before it is stored or compared the text is
normalised (see :mod:`stdout_text`): the scratch directory becomes ``<SCRATCH>`` and the
temporary directory around it ``<TMP>``, this Python ``<PYTHON>``; what differs from run to run
becomes a placeholder: command times (``"start"``, ``"end"``, ``"delta"`` -> ``<TIME>``,
``<DELTA>``), backup file names (``.BACKUP~``), async job ids (``<JOB>``), temporary names made
by tempfile (``<TMPNAME>``), temporary files and directories of downloads and diffs
(``<TMPFILE>``, ``<TMPDIR>``), elapsed seconds of pause/wait_for (``<ELAPSED>``), the times
the diff of a file touch shows (``<STAMP>``) and a stat result's inode, generation, access and
change times (``<STAT>``). Python's own
SyntaxWarnings (ansible compiles template results) are turned off for the recording. The texts are
compared with the result lines of a task grouped by host when the task prints only one-line
results: ansible shows a loop's item lines as its worker sends them and the host's own line
when the strategy reads the result, so another host's items may come in between.

Re-record (needs ansible-core 2.19 beside this Python or on PATH)::

    python tests/run/engine_cases.py [NAME...]          # rewrite expected.json and stdout.MODE.txt
    python tests/run/engine_cases.py --verify [NAME...] # re-run ansible, compare with the recordings
    python tests/run/engine_cases.py --engine [NAME...] # run playbook-ls run, compare with the recordings
    python tests/run/engine_cases.py --scenarios DIR ...  # the same with the scenarios of DIR (a held-out set)
"""

from __future__ import annotations

import argparse
import difflib
import hashlib
import json
import os
import re
import shlex
import shutil
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

if __name__ == "__main__":  # run as a script: make `import ansible_tools` work
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ansible_tools import find_tool  # noqa: E402
from stdout_text import harness_paths_replaced, normalise_text, text_diff  # noqa: E402

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
SCENARIOS_DIR = HERE / "scenarios"
CALLBACK_DIR = HERE / "callback_plugins"
MODE_ARGS: dict[str, list[str]] = {
    "run": [],
    "check": ["--check"],
    "check_diff": ["--check", "--diff"],
    "diff": ["--diff"],
}
DEFAULT_MODES = ("run", "check")
SCRATCH = "<SCRATCH>"
MAX_CONTENT = 4096  # text files up to this size are recorded verbatim, larger or binary ones by hash
TIMEOUT = 180
WORKERS = 2
UMASK = 0o022
# copy/lineinfile backups are named FILE.PID.YYYY-MM-DD@HH:MM:SS~
_BACKUP = re.compile(r"\.\d+\.\d{4}-\d{2}-\d{2}@\d{2}:\d{2}:\d{2}~$")

Outcome = dict[str, Any]  # {"argv", "rc", "recap", "tasks", "files"}
Files = dict[str, dict[str, str | int]]
Changes = dict[str, dict[str, str | int] | None]  # path -> new entry, or None when removed


@dataclass(frozen=True)
class Scenario:
    name: str
    path: Path
    description: str = ""
    args: list[str] = field(default_factory=list)
    inventory: str = "localhost,"
    modes: tuple[str, ...] = DEFAULT_MODES
    check_writes: bool = False
    stdout: bool = True  # whether the default callback's text is recorded and compared
    stdout_reason: str = ""
    deprecation_warnings: bool = False
    hash_seeded: bool = False  # shows a set of strings in its order: the engine must run as a child process
    clock: int | None = None  # the time `date` shows, seconds since the epoch

    @property
    def expected_file(self) -> Path:
        return self.path / "expected.json"

    def stdout_file(self, mode: str) -> Path:
        return self.path / f"stdout.{mode}.txt"

    def load_stdout(self, mode: str) -> str | None:
        file = self.stdout_file(mode)
        return file.read_text() if file.exists() else None

    def load_expected(self) -> dict[str, Any]:
        return json.loads(self.expected_file.read_text()) if self.expected_file.exists() else {}

    def argv(self, mode: str) -> list[str]:
        """The arguments both tools get after the command name: playbook, inventory, flags."""
        return ["site.yml", "-i", self.inventory, *MODE_ARGS[mode], *self.args]


def load_case(path: Path) -> Scenario:
    """The scenario of one directory (its ``site.yml`` and optional ``case.json``)."""
    case = json.loads((path / "case.json").read_text()) if (path / "case.json").exists() else {}
    unknown = set(case) - {"description", "args", "inventory", "modes", "check_writes", "stdout", "stdout_reason",
                           "deprecation_warnings", "hash_seeded", "clock"}
    if unknown:
        raise ValueError(f"{path / 'case.json'}: unknown keys {sorted(unknown)}")
    if case.get("stdout", True) is False and not case.get("stdout_reason"):
        raise ValueError(f"{path / 'case.json'}: \"stdout\": false needs a \"stdout_reason\"")
    modes = tuple(case.get("modes", DEFAULT_MODES))
    if bad := [m for m in modes if m not in MODE_ARGS]:
        raise ValueError(f"{path / 'case.json'}: unknown modes {bad}")
    return Scenario(
        name=path.name,
        path=path,
        description=case.get("description", ""),
        args=list(case.get("args", [])),
        inventory=case.get("inventory", "localhost,"),
        modes=modes,
        check_writes=bool(case.get("check_writes", False)),
        stdout=case.get("stdout", True) is not False,
        stdout_reason=case.get("stdout_reason", ""),
        deprecation_warnings=bool(case.get("deprecation_warnings", False)),
        hash_seeded=bool(case.get("hash_seeded", False)),
        clock=case.get("clock"),
    )


def load_scenarios(names: Iterable[str] | None = None, directory: Path | None = None) -> list[Scenario]:
    """The scenarios of ``directory`` (default: scenarios/), or those of them named."""
    wanted = set(names or ())
    return [load_case(site.parent) for site in sorted((directory or SCENARIOS_DIR).glob("*/site.yml"))
            if not wanted or site.parent.name in wanted]


def case_ids(scenarios: Iterable[Scenario]) -> list[tuple[Scenario, str]]:
    return [(s, m) for s in scenarios for m in s.modes]


# --------------------------------------------------------------------------- scratch and files


def prepare_scratch(scenario: Scenario, dest: Path) -> Path:
    """Copy the scenario (without the test's own files) to ``dest/work`` with fixed modes, its
    files all modified at one instant: a checkout writes them a few microseconds apart, and what
    compares modification times (``filecmp``, which a ``remote_src`` directory copy uses) must see
    the tree as it was when ansible-playbook ran on it."""
    work = dest / "work"
    ignore = shutil.ignore_patterns("expected.json", "case.json", "stdout.*.txt")
    shutil.copytree(scenario.path, work, ignore=ignore, symlinks=True)
    now = time.time()
    for dirpath, _dirnames, filenames in os.walk(work):
        os.chmod(dirpath, 0o755)
        for name in filenames:
            p = Path(dirpath) / name
            if not p.is_symlink():
                p.chmod(0o644)
                os.utime(p, (now, now))
    return work


def normalise(text: str, scratch: Path) -> str:
    for form in {str(scratch.resolve()), str(scratch)}:
        text = text.replace(form, SCRATCH)
    return text


def snapshot(root: Path) -> Files:
    """Every path below ``root``: type, mode and content (or hash) of files, link targets."""
    files: Files = {}
    backup_times: dict[str, int] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted(dirnames + filenames):
            p = Path(dirpath) / name
            rel = _BACKUP.sub(".BACKUP~", p.relative_to(root).as_posix())
            st = p.lstat()
            if rel != p.relative_to(root).as_posix():
                # several backups of one file share a name once normalised: the last one made is
                # kept (a backup keeps its file's time, so the latest); their names sort by process
                # id as text, which is not the order ansible's module processes made them in
                if backup_times.get(rel, -1) > st.st_mtime_ns:
                    continue
                backup_times[rel] = st.st_mtime_ns
            if stat.S_ISLNK(st.st_mode):
                files[rel] = {"type": "link", "target": normalise(os.readlink(p), root)}
            elif stat.S_ISDIR(st.st_mode):
                files[rel] = {"type": "dir", "mode": f"{stat.S_IMODE(st.st_mode):04o}"}
            elif not stat.S_ISREG(st.st_mode):  # a device or FIFO a command made (mknod): never read
                files[rel] = {"type": "special", "mode": f"{stat.S_IMODE(st.st_mode):04o}"}
            else:
                entry: dict[str, str | int] = {"type": "file", "mode": f"{stat.S_IMODE(st.st_mode):04o}"}
                data = p.read_bytes()
                try:
                    text = data.decode()
                except UnicodeDecodeError:
                    text = None
                if text is not None and len(data) <= MAX_CONTENT:
                    entry["content"] = normalise(text, root)
                else:
                    entry["size"] = len(data)
                    entry["sha256"] = hashlib.sha256(data).hexdigest()
                files[rel] = entry
        # a symlink to a directory is listed, not followed (os.walk does not follow links)
    return files


def changes(before: Files, after: Files) -> Changes:
    """What a run did to the scratch copy: new or modified entries, and None for removed ones.
    Both tools start from the same copy, so equal changes mean equal resulting trees."""
    out: Changes = {path: entry for path, entry in after.items() if before.get(path) != entry}
    out.update({path: None for path in before if path not in after})
    return out


# --------------------------------------------------------------------------- running the tools


HASH_SEED = "0"
"""The ``PYTHONHASHSEED`` both tools run under."""


def _clean_env(home: Path, deprecations: bool = False) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANSIBLE_", "PLAYBOOK_LS"))}
    # one string hash seed for both tools: a set of strings (union, difference...) then has one
    # order, ansible's, which the engine makes the same way (in-process runs keep this process's)
    env.update(HOME=str(home), LANG="C.UTF-8", LC_ALL="C.UTF-8", ANSIBLE_NOCOLOR="1", PYTHONDONTWRITEBYTECODE="1",
               ANSIBLE_DEPRECATION_WARNINGS=str(deprecations), PYTHONHASHSEED=HASH_SEED)
    env.pop("PYTHONPATH", None)
    return env


def ansible_env(tmp: Path, deprecations: bool = False) -> dict[str, str]:
    home = tmp / "home"
    env = _clean_env(home, deprecations)
    env.update(
        ANSIBLE_HOME=str(home / ".ansible"),
        ANSIBLE_LOCAL_TEMP=str(tmp / "ltmp"),
        ANSIBLE_REMOTE_TEMP=str(tmp / "rtmp"),
        ANSIBLE_CALLBACK_PLUGINS=str(CALLBACK_DIR),
        ANSIBLE_CALLBACKS_ENABLED="pls_json",
        ANSIBLE_STDOUT_CALLBACK="default",
        PLS_JSON_FILE=str(tmp / "pls_json.json"),
        PYTHONUNBUFFERED="1",  # stdout and stderr share one pipe: keep the order they were written in
        # Python's own "SyntaxWarning: invalid imaginary literal" from ansible compiling template
        # results is no text of the callback's
        PYTHONWARNINGS="ignore::SyntaxWarning",
        ANSIBLE_PYTHON_INTERPRETER=sys.executable,
        ANSIBLE_FORKS="1",
        ANSIBLE_RETRY_FILES_ENABLED="False",
        ANSIBLE_HOST_KEY_CHECKING="False",
    )
    return env


def engine_env(tmp: Path, deprecations: bool = False) -> dict[str, str]:
    """The engine's environment: the same local_tmp and remote_tmp as ansible's run (template's
    diff names a rendering there, a copy's invocation the file the action sent), the same
    python interpreter for the hosts (``ansible_facts.python`` names it) and the same forks
    (``ansible_forks`` shows them)."""
    ansible = ansible_env(tmp, deprecations)
    return {**_clean_env(tmp / "home", deprecations), "ANSIBLE_LOCAL_TEMP": str(tmp / "ltmp"),
            "ANSIBLE_REMOTE_TEMP": str(tmp / "rtmp"),
            **{key: ansible[key] for key in ("ANSIBLE_PYTHON_INTERPRETER", "ANSIBLE_FORKS")}}


def engine_command() -> tuple[list[str], dict[str, str]]:
    """How to start playbook-ls: $PLAYBOOK_LS, else this checkout's package with this Python."""
    if cmd := os.environ.get("PLAYBOOK_LS"):
        return shlex.split(cmd), {}
    return [sys.executable, "-m", "playbook_ls"], {"PYTHONPATH": str(ROOT)}


def ansible_argv(scenario: Scenario, mode: str) -> list[str]:
    """ansible-playbook started by this Python, as the engine is (engine_command): its script's
    own ``#!`` line may name the same interpreter otherwise (``python3`` for ``python``), and
    ``ansible_playbook_python`` is the name the tool was started by."""
    tool = find_tool("ansible-playbook")
    if tool is None:
        raise RuntimeError("ansible-playbook not found beside this Python nor on PATH")
    return [sys.executable, tool, "-c", "local", *scenario.argv(mode)]


def engine_argv(scenario: Scenario, mode: str, command: list[str] | None = None) -> list[str]:
    return [*(command or engine_command()[0]), "run", *scenario.argv(mode), "--json"]


def _set_umask() -> None:
    os.umask(UMASK)


def _execute(argv: list[str], cwd: Path, env: dict[str, str], merge: bool = False) -> subprocess.CompletedProcess[str]:
    """Run a tool; ``merge`` sends its stderr into its stdout (``proc.stderr`` is then None)."""
    return subprocess.run(
        argv,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT if merge else subprocess.PIPE,
        text=True,
        timeout=TIMEOUT,
        preexec_fn=_set_umask,  # noqa: PLW1509 - single-threaded child setup, as the modes are recorded
    )


# the default callback's recap header: written by v2_playbook_on_stats, where pls_json writes its object
RECAP = "PLAY RECAP *"


def _parse_ansible_json(file: Path) -> dict[str, Any] | None:
    return json.loads(file.read_text()) if file.exists() else None


@dataclass
class Run:
    outcome: Outcome
    stdout: str
    stderr: str
    error: str | None = None  # why the output could not be read
    text: str = ""  # the default callback's text, normalised (ansible: stdout and stderr merged)


def _in_process(argv: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """``playbook-ls ARGV`` in this process, as :func:`_execute` runs it in a child: in ``cwd``,
    with ``env`` as the whole environment and the recording's umask, stdout and stderr captured.
    No subprocess: a test that runs many cases pays no interpreter start and import per case."""
    import contextlib
    import io

    from playbook_ls.cli.main import main

    saved_env, saved_cwd, saved_umask = dict(os.environ), os.getcwd(), os.umask(UMASK)
    out, err = io.StringIO(), io.StringIO()
    try:
        os.environ.clear()
        os.environ.update(env)
        os.chdir(cwd)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(argv)
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else 1
    finally:
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
        os.umask(saved_umask)
    return subprocess.CompletedProcess(argv, code, out.getvalue(), err.getvalue())


_DATE = """#!/bin/sh
# date at the scenario's clock, unless told which time to show
for arg in "$@"; do
  case "$arg" in -d*|--date*|-r*|--reference*|-s*|--set*|-f*|--file*) exec {date} "$@";; esac
done
exec {date} --date=@{clock} "$@"
"""


def fixed_clock(directory: Path, clock: int) -> Path:
    """``directory`` with a ``date`` that shows ``clock`` (seconds since the epoch) unless its
    arguments name a time: the directory to put first on PATH."""
    date = shutil.which("date")
    if date is None:
        raise RuntimeError("no date command on PATH")
    directory.mkdir(parents=True, exist_ok=True)
    script = directory / "date"
    script.write_text(_DATE.format(date=shlex.quote(date), clock=int(clock)))
    script.chmod(0o755)
    return directory


def run_case(scenario: Scenario, mode: str, tool: str,
             wrap: Callable[[list[str], Path], list[str]] | None = None) -> Run:
    """Run ``tool`` ("ansible", "engine", or "in-process": the engine in this process) on a fresh
    scratch copy of the scenario; ``wrap`` (a command line and the scratch directory) gives the
    command line that starts the tool, in a sandbox for instance."""
    with tempfile.TemporaryDirectory(prefix=f"pls-run-{scenario.name}-") as tmpdir:
        tmp = Path(tmpdir)
        work = prepare_scratch(scenario, tmp)
        before = snapshot(work)
        if tool == "ansible":
            argv = ansible_argv(scenario, mode)
            env = ansible_env(tmp, scenario.deprecation_warnings)
        else:
            command, extra = engine_command()
            argv = engine_argv(scenario, mode, command)
            env = {**engine_env(tmp, scenario.deprecation_warnings), **extra}
        (tmp / "home").mkdir(exist_ok=True)
        if scenario.clock is not None:
            env["PATH"] = f"{fixed_clock(tmp / 'clock', scenario.clock)}{os.pathsep}{env.get('PATH', os.defpath)}"
        if wrap is not None and tool != "in-process":
            argv = wrap(argv, tmp)
        proc = _in_process(argv[argv.index("run"):], work, env) if tool == "in-process" else \
            _execute(argv, work, env, merge=tool == "ansible")
        error = None
        data: dict[str, Any] | None
        text = proc.stdout if tool == "ansible" else proc.stderr
        if tool == "ansible":
            data = _parse_ansible_json(tmp / "pls_json.json")
            if data is None and RECAP not in text:
                data = {}  # a playbook that stopped before its recap: pls_json writes there, so no results
            elif data is None:
                error = "no JSON object from the pls_json callback"
        else:
            try:
                data = json.loads(proc.stdout)
            except json.JSONDecodeError as e:
                data, error = None, f"stdout is not one JSON object: {e}"
                if not proc.stdout.strip() and RECAP not in text and "playbook-ls: error: " not in text:
                    data, error = {}, None  # stopped as ansible does, in its words, before any play: no object
            if data is not None and RECAP not in text:
                data = {}  # stopped before its recap too: as ansible's side, its results are in the text alone
        data = data or {}
        outcome: Outcome = {
            "argv": scenario.argv(mode),
            "rc": proc.returncode,
            "recap": data.get("recap"),
            "tasks": data.get("tasks"),
            "files": changes(before, snapshot(work)),
        }
        stderr = normalise(proc.stderr or "", work)
        return Run(outcome, normalise(proc.stdout, work), stderr or normalise(proc.stdout, work), error,
                   normalise_text(text, work, tmp))


# --------------------------------------------------------------------------- comparing


def per_host(tasks: list[dict[str, str]] | None) -> dict[str, list[str]]:
    """Task results per host in order: the order between hosts of one task is not compared. A
    name templated from the scratch copy's path names it as ``<SCRATCH>`` (each run has its own)."""
    out: dict[str, list[str]] = {}
    for t in tasks or []:
        name = harness_paths_replaced(str(t.get("task")))
        out.setdefault(t.get("host", "?"), []).append(f"{name} => {t.get('status')}")
    return out


def _dump(value: Any) -> list[str]:
    return json.dumps(value, indent=1, sort_keys=True).splitlines()


def _diff(what: str, expected: Any, actual: Any) -> str:
    lines = difflib.unified_diff(_dump(expected), _dump(actual), "ansible-playbook", "playbook-ls", n=2, lineterm="")
    return f"{what} differ:\n" + "\n".join(f"    {line}" for line in lines)


def compare(expected: Outcome, actual: Outcome) -> list[str]:
    """Human-readable differences between two outcomes (empty: they match)."""
    problems = []
    if expected["rc"] != actual["rc"]:
        problems.append(f"exit code: ansible-playbook {expected['rc']}, playbook-ls {actual['rc']}")
    if expected["recap"] != actual["recap"]:
        problems.append(_diff("recap", expected["recap"], actual["recap"]))
    if per_host(expected["tasks"]) != per_host(actual["tasks"]):
        problems.append(_diff("task results", per_host(expected["tasks"]), per_host(actual["tasks"])))
    if expected["files"] != actual["files"]:
        problems.append(_diff("files", expected["files"], actual["files"]))
    return problems


def text_problems(scenario: Scenario, mode: str, run: Run) -> list[str]:
    """The default callback's text against the recorded one, as a unified diff (none when the
    scenario opts out of the comparison)."""
    if not scenario.stdout:
        return []
    expected = scenario.load_stdout(mode)
    if expected is None:
        return [f"stdout not recorded: python tests/run/engine_cases.py {scenario.name}"]
    diff = text_diff(expected, run.text)
    return [f"stdout differs:\n{diff}"] if diff else []


def check_mode_problems(scenario: Scenario, mode: str, run: Run) -> list[str]:
    """In check mode nothing on disk may change (unless the scenario forces check_mode: false)."""
    if not mode.startswith("check") or scenario.check_writes or not run.outcome["files"]:
        return []
    return [_diff("check mode changed files", {}, run.outcome["files"])]


def describe(scenario: Scenario, mode: str, run: Run, problems: list[str]) -> str:
    tail = "\n".join(run.stderr.strip().splitlines()[-15:])
    head = f"{scenario.name} [{mode}]: {' '.join(run.outcome['argv'])}"
    return "\n".join([head, *(f"  {p}" for p in problems), f"  {run.error or ''}", "  stderr (end):", tail])


# --------------------------------------------------------------------------- recording


def record(scenario: Scenario) -> tuple[dict[str, Any], dict[str, str]]:
    """The outcome of every mode (expected.json) and each mode's text (none when it opts out)."""
    cases: dict[str, Outcome] = {}
    texts: dict[str, str] = {}
    for mode in scenario.modes:
        run = run_case(scenario, mode, "ansible")
        if run.error:
            raise RuntimeError(describe(scenario, mode, run, [run.error]) + "\nstdout:\n" + run.stdout[-2000:])
        if problems := check_mode_problems(scenario, mode, run):
            raise RuntimeError(describe(scenario, mode, run, problems))
        cases[mode] = run.outcome
        if scenario.stdout:
            texts[mode] = run.text
    return {"description": scenario.description, "cases": cases}, texts


def parallel(fn: Callable[[Any], Any], items: list[Any], workers: int = WORKERS) -> list[Any]:
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(fn, items))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--verify", action="store_true", help="re-run ansible and compare with the recordings")
    group.add_argument("--engine", action="store_true", help="run playbook-ls and compare with the recordings")
    parser.add_argument("--scenarios", type=Path, help="another directory of scenarios (a held-out set)")
    parser.add_argument("names", nargs="*", metavar="NAME", help="scenario directory names (default: all)")
    args = parser.parse_args(argv)
    scenarios = load_scenarios(args.names, args.scenarios)
    if unknown := set(args.names) - {s.name for s in scenarios}:
        parser.error(f"unknown scenario(s): {', '.join(sorted(unknown))}")
    start = time.monotonic()
    if not (args.verify or args.engine):
        recorded = parallel(record, scenarios)
        for scenario, (data, texts) in zip(scenarios, recorded, strict=True):
            scenario.expected_file.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
            for old in scenario.path.glob("stdout.*.txt"):
                old.unlink()
            for mode, text in texts.items():
                scenario.stdout_file(mode).write_text(text)
            rcs = ", ".join(f"{m} rc={c['rc']}" for m, c in data["cases"].items())
            print(f"recorded {scenario.name}: {rcs}")
        print(f"{len(scenarios)} scenarios in {time.monotonic() - start:.1f}s")
        return 0
    tool = "ansible" if args.verify else "engine"
    cases = case_ids(scenarios)
    runs = parallel(lambda c: run_case(c[0], c[1], tool), cases)
    failed = 0
    for (scenario, mode), run in zip(cases, runs, strict=True):
        expected = scenario.load_expected().get("cases", {}).get(mode)
        problems = ["not recorded"] if expected is None else compare(expected, run.outcome)
        problems += check_mode_problems(scenario, mode, run) + ([run.error] if run.error else [])
        problems += text_problems(scenario, mode, run)
        failed += bool(problems)
        print(f"{'MATCH ' if not problems else 'DIFFER'} {scenario.name} [{mode}]")
        if problems:
            print(describe(scenario, mode, run, problems))
    print(f"{len(cases) - failed}/{len(cases)} cases match ({time.monotonic() - start:.1f}s)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
