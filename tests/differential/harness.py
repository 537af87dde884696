"""Differential-test harness: run ansible-playbook or playbook-ls on a scenario and compare outputs."""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import shlex
import subprocess
import tempfile
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from ansible_tools import find_tool
from ruamel.yaml import YAML

HERE = Path(__file__).resolve().parent
SCENARIOS_DIR = HERE / "scenarios"
EXPECTED_DIR = HERE / "expected"
MODES = ("list-tasks", "list-tags")
WORKERS = 2

Result = tuple[str, int]  # (stdout, rc)
Case = tuple[str, str, list[str]]  # (case_id, mode, argv)
Fixture = dict[str, dict[str, str | int]]  # case_id -> {"stdout": ..., "rc": ...}

_PLAY_HEADER = re.compile(r"^(  play #\d+ \(.*\): .*\tTAGS: \[)(.*)(\])$", re.MULTILINE)


@dataclass(frozen=True)
class Scenario:
    name: str
    path: Path
    description: str
    playbooks: list[str]
    inventory: str
    env: dict[str, str] = field(default_factory=dict)
    selections: list[list[str]] = field(default_factory=list)

    @property
    def expected_file(self) -> Path:
        return EXPECTED_DIR / f"{self.name}.json"

    def load_expected(self) -> Fixture:
        return json.loads(self.expected_file.read_text()) if self.expected_file.exists() else {}


def load_scenarios(names: list[str] | None = None) -> list[Scenario]:
    """Every scenario directory with a cases.yml, sorted by name (optionally only the given names)."""
    yaml = YAML(typ="safe", pure=True)
    scenarios = []
    for cases_file in sorted(SCENARIOS_DIR.glob("*/cases.yml")):
        path = cases_file.parent
        if names and path.name not in names:
            continue
        data = yaml.load(cases_file.read_text())
        scenarios.append(
            Scenario(
                name=path.name,
                path=path,
                description=data["description"],
                playbooks=[str(p) for p in data["playbooks"]],
                inventory=str(data["inventory"]),
                env={str(k): str(v) for k, v in (data.get("env") or {}).items()},
                selections=[[str(a) for a in sel] for sel in data.get("selections") or [[]]],
            )
        )
    return scenarios


def case_id(mode: str, argv: list[str]) -> str:
    return f"{mode} {shlex.join(argv)}".rstrip()


def cases(scenario: Scenario) -> Iterator[Case]:
    for argv in scenario.selections:
        for mode in MODES:
            yield case_id(mode, argv), mode, argv


def normalise(stdout: str) -> str:
    """Sort the play-header tag list, whose order ansible takes from an unordered set."""
    return _PLAY_HEADER.sub(lambda m: m[1] + ",".join(sorted(m[2].split(","))) + m[3], stdout)


def _environment(scenario: Scenario, home: str) -> dict[str, str]:
    """The inherited environment without ANSIBLE_* variables, plus the fixed test settings."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANSIBLE_")}
    env.update(
        ANSIBLE_NOCOLOR="1",
        ANSIBLE_FORCE_COLOR="0",
        PYTHONHASHSEED="0",
        ANSIBLE_LOCALHOST_WARNING="False",
        ANSIBLE_INVENTORY_UNPARSED_WARNING="False",
        ANSIBLE_HOME=home,
        ANSIBLE_LOCAL_TEMP=os.path.join(home, "tmp"),
    )
    if (scenario.path / "ansible.cfg").is_file():
        env["ANSIBLE_CONFIG"] = str(scenario.path / "ansible.cfg")
    env.update(scenario.env)
    return env


def ansible_playbook() -> str | None:
    return find_tool("ansible-playbook")


def run_ansible(scenario: Scenario, mode: str, argv: list[str]) -> Result:
    exe = ansible_playbook()
    if exe is None:
        raise RuntimeError("ansible-playbook is not installed")
    cmd = [exe, "-i", scenario.inventory, *scenario.playbooks, f"--{mode}", *argv]
    with tempfile.TemporaryDirectory(prefix="pbls-diff-") as home:
        proc = subprocess.run(
            cmd, cwd=scenario.path, env=_environment(scenario, home), capture_output=True, encoding="utf-8"
        )
    return proc.stdout, proc.returncode


def run_ours(scenario: Scenario, mode: str, argv: list[str]) -> Result:
    from playbook_ls.cli.main import main

    saved_env, saved_cwd, out = dict(os.environ), os.getcwd(), io.StringIO()
    with tempfile.TemporaryDirectory(prefix="pbls-diff-") as home:
        try:
            os.environ.clear()
            os.environ.update(_environment(scenario, home))
            os.chdir(scenario.path)
            with contextlib.redirect_stdout(out):
                try:
                    code: object = main([mode, "-i", scenario.inventory, *scenario.playbooks, *argv])
                except SystemExit as exc:
                    code = exc.code
        finally:
            os.chdir(saved_cwd)
            os.environ.clear()
            os.environ.update(saved_env)
    return out.getvalue(), code if isinstance(code, int) else 0 if code is None else 1


def record_all(scenarios: list[Scenario]) -> dict[str, Fixture]:
    """Run ansible-playbook for every case of every scenario, WORKERS at a time."""
    jobs = [(s, cid, mode, argv) for s in scenarios for cid, mode, argv in cases(s)]
    with ThreadPoolExecutor(WORKERS) as pool:
        results = list(pool.map(lambda job: run_ansible(job[0], job[2], job[3]), jobs))
    recorded: dict[str, Fixture] = {s.name: {} for s in scenarios}
    for (scenario, cid, _, _), (stdout, rc) in zip(jobs, results, strict=True):
        recorded[scenario.name][cid] = {"stdout": stdout, "rc": rc}
    return recorded


def as_result(entry: dict[str, str | int]) -> Result:
    """A fixture entry as a (stdout, rc) pair."""
    return str(entry["stdout"]), int(entry["rc"])


def comparable(result: Result) -> Result:
    """(stdout, rc) in the form used for comparison: play-header tag order normalised."""
    return normalise(result[0]), result[1]


def stale_cases(scenarios: list[Scenario], recorded: dict[str, Fixture]) -> list[str]:
    """'scenario: case_id' for each fixture that is missing, extra or differs from the fresh recording."""
    stale = []
    for scenario in scenarios:
        expected, fresh = scenario.load_expected(), recorded[scenario.name]
        for cid in sorted(expected.keys() | fresh.keys()):
            old, new = expected.get(cid), fresh.get(cid)
            if old is None or new is None or comparable(as_result(old)) != comparable(as_result(new)):
                stale.append(f"{scenario.name}: {cid}")
    return stale
