"""Differential cases for ``playbook-ls inventory``: each directory under ``fixtures/`` holds
inventory files, a ``case.json`` (``sources``, ``hosts`` for ``--host``, ``graph_groups``) and
``expected/``: what ansible-inventory printed, run from the case directory with relative paths.

Optional ``case.json`` keys: ``args`` (added to every ansible-inventory call, e.g.
``--playbook-dir``), ``env`` (``ANSIBLE_*`` variables set for the call), ``cwd`` (a sub-directory
to run from), ``calls`` (more outputs: name -> arguments after the sources), ``list_hosts``
(name -> ``[PATTERN, ...]``: ``ansible PATTERN --list-hosts ...`` against ``playbook-ls inventory
--list-hosts PATTERN ...``) and ``list_tasks`` (name -> ``[PLAYBOOK, ...]``: ``ansible-playbook
PLAYBOOK ... --list-tasks`` against ``playbook-ls list-tasks PLAYBOOK ...``) and
``needs_ansible_core`` (a plugin playbook-ls has ansible-core run: skipped without it). An ``ansible.cfg``
in the directory run from is read by both tools.

``--toml`` needs the tomli-w library, which the test extra installs. A case whose ``--toml`` outputs
show both tools refusing without it says ``without_tomli_w``: both are run with the library hidden.
Other ``--toml`` calls are skipped where it is not installed.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

FIXTURES = Path(__file__).resolve().parent / "fixtures"
PLACEHOLDER = "<case>"
_TARGET_LINES = (r"^\[WARNING\]: (No hosts matched, nothing to do|provided hosts list is empty.*|"
                 r"Could not match supplied host pattern.*)"
                 r"|^\[ERROR\]: (No hosts matched the subscripted pattern .*|Specified inventory, host pattern.*|"
                 r"Could not match supplied host pattern.*|Invalid value .*)")
"""What choosing the hosts to target prints (ansible, ansible-playbook, ansible-inventory)."""
_KEPT_WARNINGS = re.compile(r"^\[WARNING\]: (Unable to parse .*|No inventory was parsed.*|"
                            r"Failed to parse inventory with '[\w.]+' plugin|Failed to load inventory plugin.*|"
                            r"Could not match supplied host pattern.*|Ignoring invalid path provided to plugin path.*|"
                            r"Error loading plugin .*|Invalid characters were found in group names.*)"
                            r"|^\[ERROR\]: (Completely failed to parse inventory source .*|No inventory was parsed.*|"
                            r"No inventory plugins available.*|Could not match supplied host pattern.*|"
                            r"The Python library \"tomli-w\" is required.*|"
                            r"Attempting to decrypt but no vault secrets found\.)"
                            rf"|{_TARGET_LINES}")
_KEPT_FOR_LISTINGS = re.compile(_TARGET_LINES)
"""list-tasks prints no inventory warnings (ansible-playbook does): only the host checks are compared."""


LISTING_PREFIXES = (("playbook-ls: warning: ", "[WARNING]: "), ("playbook-ls: error: ", "[ERROR]: "),
                    ("ERROR: ", "[ERROR]: "))
"""The same line from either tool: playbook-ls list-tasks' prefixes, and ansible's start-up
``ERROR:`` (printed before its display exists), read as ansible's display prefixes."""


class Call(NamedTuple):
    """One compared output: ``tool`` is ``inventory`` (ansible-inventory), ``list-hosts``
    (ansible PATTERN --list-hosts) or ``list-tasks`` (ansible-playbook --list-tasks)."""

    tool: str
    args: tuple[str, ...]


@dataclass(frozen=True)
class Case:
    name: str
    path: Path
    sources: list[str]
    hosts: list[str]
    graph_groups: list[str]
    args: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    cwd: str = ""
    calls: tuple[tuple[str, tuple[str, ...]], ...] = ()
    list_hosts: tuple[tuple[str, tuple[str, ...]], ...] = ()
    list_tasks: tuple[tuple[str, tuple[str, ...]], ...] = ()
    needs_ansible_core: bool = False
    without_tomli_w: bool = False

    @property
    def run_dir(self) -> Path:
        return self.path / self.cwd

    def invocations(self) -> dict[str, Call]:
        """Output name -> the call: the tool and its arguments after the ``-i`` sources."""
        calls = {"list": ["--list"], "graph": ["--graph"], "graph-vars": ["--graph", "--vars"]}
        calls.update({f"graph-{group}": ["--graph", "--vars", group] for group in self.graph_groups})
        calls.update({f"host-{host}": ["--host", host] for host in self.hosts})
        calls.update({name: list(args) for name, args in self.calls})
        result = {name: Call("inventory", (*args, *self.args)) for name, args in calls.items()}
        result.update({name: Call("list-hosts", args) for name, args in self.list_hosts})
        result.update({name: Call("list-tasks", args) for name, args in self.list_tasks})
        return result

    def source_args(self) -> list[str]:
        return [arg for source in self.sources for arg in ("-i", source)]

    def ansible_command(self, call: Call) -> list[str]:
        """The real tool's arguments for ``call`` (the executable first)."""
        if call.tool == "list-hosts":
            return [_tool("ansible"), call.args[0], *self.source_args(), "--list-hosts", *call.args[1:]]
        if call.tool == "list-tasks":
            return [_tool("ansible-playbook"), *self.source_args(), *call.args, "--list-tasks"]
        return [_tool("ansible-inventory"), *self.source_args(), *call.args]

    def our_command(self, call: Call) -> list[str]:
        """``playbook-ls`` arguments for ``call``."""
        if call.tool == "list-hosts":
            return ["inventory", *self.source_args(), "--list-hosts", *call.args]
        if call.tool == "list-tasks":
            return ["list-tasks", *self.source_args(), *call.args]
        return ["inventory", *self.source_args(), *call.args]


def _named_calls(data: dict[str, list[str]]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    return tuple((name, tuple(args)) for name, args in data.items())


def load_cases() -> list[Case]:
    cases = []
    for path in sorted(p for p in FIXTURES.iterdir() if (p / "case.json").is_file()):
        data = json.loads((path / "case.json").read_text())
        cases.append(Case(path.name, path, data["sources"], data["hosts"], data["graph_groups"],
                          tuple(data.get("args", ())), tuple(sorted(data.get("env", {}).items())),
                          data.get("cwd", ""), _named_calls(data.get("calls", {})),
                          _named_calls(data.get("list_hosts", {})), _named_calls(data.get("list_tasks", {})),
                          data.get("needs_ansible_core", False), data.get("without_tomli_w", False)))
    return cases


def normalise(text: str, case: Case) -> str:
    """No machine paths in fixtures: the case directory becomes ``<case>``."""
    return text.replace(str(case.path.resolve()), PLACEHOLDER).replace(str(case.path), PLACEHOLDER)


def kept_warnings(stderr: str, tool: str = "inventory") -> list[str]:
    """The warnings compared: which plugins failed, which sources were not parsed, what choosing
    the hosts warned about (for list-tasks, only the latter)."""
    kept = _KEPT_FOR_LISTINGS if tool == "list-tasks" else _KEPT_WARNINGS
    lines = []
    for line in stderr.splitlines():
        for prefix, displayed in LISTING_PREFIXES:
            if line.startswith(prefix):
                line = displayed + line[len(prefix):]
        if match := kept.match(line):
            lines.append(match.group(0))
    return lines


@dataclass(frozen=True)
class Outcome:
    stdout: str
    exit_code: int
    warnings: list[str]


def ansible_inventory() -> str | None:
    from ansible_tools import find_tool  # tests/ is on sys.path under pytest and when run as a script

    return find_tool("ansible-inventory")


def _tool(name: str) -> str:
    from ansible_tools import find_tool

    return find_tool(name) or name


def _clean_environment_of(environment: dict[str, str]) -> dict[str, str]:
    """No ``ANSIBLE_*`` setting of the machine's leaks into a case: only the case's own."""
    return {k: v for k, v in environment.items() if not k.startswith("ANSIBLE_")}


def _clean_environment() -> dict[str, str]:
    return _clean_environment_of(dict(os.environ))


def hides_tomli_w(case: Case, call: Call) -> bool:
    """Whether ``call`` is run as if tomli-w were not installed (the case's ``without_tomli_w``)."""
    return case.without_tomli_w and "--toml" in call.args


def needs_tomli_w(case: Case, call: Call) -> bool:
    """A ``--toml`` call recorded with tomli-w installed."""
    return "--toml" in call.args and not case.without_tomli_w


def tomli_w_installed() -> bool:
    import importlib.util

    return importlib.util.find_spec("tomli_w") is not None


def _without_tomli_w_path() -> str:
    """A directory whose ``tomli_w`` fails to import, put first on ansible's PYTHONPATH."""
    import tempfile

    directory = Path(tempfile.gettempdir()) / f"no-tomli-w-{os.getuid()}"
    directory.mkdir(exist_ok=True)
    (directory / "tomli_w.py").write_text('raise ImportError("hidden: the recording was made without tomli-w")\n')
    return str(directory)


def run_ansible(case: Case, call: Call) -> Outcome:
    env = _clean_environment() | {"ANSIBLE_NOCOLOR": "1"} | dict(case.env)
    if hides_tomli_w(case, call):
        env["PYTHONPATH"] = os.pathsep.join(filter(None, (_without_tomli_w_path(), env.get("PYTHONPATH"))))
    done = subprocess.run(case.ansible_command(call), cwd=case.run_dir, capture_output=True, text=True,
                          env=env, timeout=120, check=False)
    return Outcome(normalise(done.stdout, case), done.returncode,
                   kept_warnings(normalise(done.stderr, case), call.tool))


def run_ours(case: Case, call: Call) -> Outcome:
    from playbook_ls.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    previous, previous_env = os.getcwd(), dict(os.environ)
    os.chdir(case.run_dir)
    os.environ.clear()
    os.environ.update(_clean_environment_of(previous_env) | dict(case.env))
    hidden = contextlib.ExitStack()
    if hides_tomli_w(case, call):  # None in sys.modules: an import of it fails
        hidden.enter_context(_module_hidden("tomli_w"))
    try:
        with hidden, contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(case.our_command(call))
    finally:
        os.chdir(previous)
        os.environ.clear()
        os.environ.update(previous_env)
    return Outcome(normalise(out.getvalue(), case), code, kept_warnings(normalise(err.getvalue(), case), call.tool))


@contextlib.contextmanager
def _module_hidden(name: str):
    before = sys.modules.get(name, _ABSENT)
    sys.modules[name] = None  # type: ignore[assignment]
    try:
        yield
    finally:
        if before is _ABSENT:
            del sys.modules[name]
        else:
            sys.modules[name] = before  # type: ignore[assignment]


_ABSENT = object()


def read_expected(case: Case) -> dict[str, Outcome]:
    expected = case.path / "expected"
    meta = json.loads((expected / "outcomes.json").read_text())
    return {name: Outcome((expected / f"{name}.out").read_text(), meta[name]["exit_code"], meta[name]["warnings"])
            for name in case.invocations()}


def write_expected(case: Case, outcomes: dict[str, Outcome]) -> None:
    expected = case.path / "expected"
    expected.mkdir(exist_ok=True)
    for name, outcome in outcomes.items():
        (expected / f"{name}.out").write_text(outcome.stdout)
    meta = {name: {"exit_code": o.exit_code, "warnings": o.warnings} for name, o in outcomes.items()}
    (expected / "outcomes.json").write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n")


if __name__ == "__main__":  # record: python tests/inventory/inventory_cases.py [CASE ...] (all by default)
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    chosen = set(sys.argv[1:])
    for found in load_cases():
        if chosen and found.name not in chosen:
            continue
        write_expected(found, {name: run_ansible(found, call) for name, call in found.invocations().items()})
        print("recorded", found.name)
