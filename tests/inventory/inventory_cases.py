"""Differential cases for ``playbook-ls inventory``: each directory under ``fixtures/`` holds
inventory files, a ``case.json`` (``sources``, ``hosts`` for ``--host``, ``graph_groups``) and
``expected/``: what ansible-inventory printed, run from the case directory with relative paths.

Optional ``case.json`` keys: ``args`` (added to every call, e.g. ``--playbook-dir``), ``env``
(``ANSIBLE_*`` variables set for the call), ``cwd`` (a sub-directory to run from) and ``calls``
(more outputs: name -> arguments after the sources). An ``ansible.cfg`` in the directory run
from is read by both tools.
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

FIXTURES = Path(__file__).resolve().parent / "fixtures"
PLACEHOLDER = "<case>"
_KEPT_WARNINGS = re.compile(r"^\[WARNING\]: (Unable to parse .*|No inventory was parsed.*|"
                            r"Failed to parse inventory with '[\w.]+' plugin|Failed to load inventory plugin.*|"
                            r"Could not match supplied host pattern.*|Ignoring invalid path provided to plugin path.*|"
                            r"Error loading plugin .*)"
                            r"|^\[ERROR\]: (Completely failed to parse inventory source .*|No inventory was parsed.*|"
                            r"No inventory plugins available.*|Could not match supplied host pattern.*|"
                            r"The Python library \"tomli-w\" is required.*|"
                            r"Attempting to decrypt but no vault secrets found\.)")


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

    @property
    def run_dir(self) -> Path:
        return self.path / self.cwd

    def invocations(self) -> dict[str, list[str]]:
        """Output name -> ansible-inventory arguments after the ``-i`` sources."""
        calls = {"list": ["--list"], "graph": ["--graph"], "graph-vars": ["--graph", "--vars"]}
        calls.update({f"graph-{group}": ["--graph", "--vars", group] for group in self.graph_groups})
        calls.update({f"host-{host}": ["--host", host] for host in self.hosts})
        calls.update({name: list(args) for name, args in self.calls})
        return {name: [*args, *self.args] for name, args in calls.items()}

    def command_line(self, args: list[str]) -> list[str]:
        return [*(arg for source in self.sources for arg in ("-i", source)), *args]


def load_cases() -> list[Case]:
    cases = []
    for path in sorted(p for p in FIXTURES.iterdir() if (p / "case.json").is_file()):
        data = json.loads((path / "case.json").read_text())
        cases.append(Case(path.name, path, data["sources"], data["hosts"], data["graph_groups"],
                          tuple(data.get("args", ())), tuple(sorted(data.get("env", {}).items())),
                          data.get("cwd", ""), tuple((k, tuple(v)) for k, v in data.get("calls", {}).items())))
    return cases


def normalise(text: str, case: Case) -> str:
    """No machine paths in fixtures: the case directory becomes ``<case>``."""
    return text.replace(str(case.path.resolve()), PLACEHOLDER).replace(str(case.path), PLACEHOLDER)


def kept_warnings(stderr: str) -> list[str]:
    """The warnings compared: which plugins failed and which sources were not parsed."""
    return [m.group(0) for line in stderr.splitlines() if (m := _KEPT_WARNINGS.match(line))]


@dataclass(frozen=True)
class Outcome:
    stdout: str
    exit_code: int
    warnings: list[str]


def ansible_inventory() -> str | None:
    from ansible_tools import find_tool  # tests/ is on sys.path under pytest and when run as a script

    return find_tool("ansible-inventory")


def _clean_environment_of(environment: dict[str, str]) -> dict[str, str]:
    """No ``ANSIBLE_*`` setting of the machine's leaks into a case: only the case's own."""
    return {k: v for k, v in environment.items() if not k.startswith("ANSIBLE_")}


def _clean_environment() -> dict[str, str]:
    return _clean_environment_of(dict(os.environ))


def run_ansible(case: Case, args: list[str]) -> Outcome:
    exe = ansible_inventory() or "ansible-inventory"
    env = _clean_environment() | {"ANSIBLE_NOCOLOR": "1"} | dict(case.env)
    done = subprocess.run([exe, *case.command_line(args)], cwd=case.run_dir, capture_output=True, text=True,
                          env=env, timeout=120, check=False)
    return Outcome(normalise(done.stdout, case), done.returncode, kept_warnings(normalise(done.stderr, case)))


def run_ours(case: Case, args: list[str]) -> Outcome:
    from playbook_ls.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    previous, previous_env = os.getcwd(), dict(os.environ)
    os.chdir(case.run_dir)
    os.environ.clear()
    os.environ.update(_clean_environment_of(previous_env) | dict(case.env))
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(["inventory", *case.command_line(args)])
    finally:
        os.chdir(previous)
        os.environ.clear()
        os.environ.update(previous_env)
    return Outcome(normalise(out.getvalue(), case), code, kept_warnings(normalise(err.getvalue(), case)))


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
        write_expected(found, {name: run_ansible(found, args) for name, args in found.invocations().items()})
        print("recorded", found.name)
