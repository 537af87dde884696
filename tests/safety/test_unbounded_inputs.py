"""Inputs that make a repository unbounded work: include cycles and huge loops. Every command
that plans (``plan``, ``run --dry``) and every one that reads the same model (``check``, ``vars``,
``why``) answers quickly, in a child process with a deadline so that a hang fails fast, and says
where the problem is; never a traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DEADLINE = 60  # seconds a command may take here; they take one or two

PLAY = """\
- hosts: localhost
  gather_facts: false
  vars:
    next: self
  tasks:
{tasks}
"""
CYCLES = {
    "two task files": ({"a.yml": "- debug: msg=a\n- include_tasks: b.yml\n",
                        "b.yml": "- debug: msg=b\n- include_tasks: a.yml\n"},
                       "    - include_tasks: a.yml", "a.yml -> b.yml -> a.yml", "b.yml:2"),
    "a file including itself": ({"self.yml": "- debug: msg=s\n- include_tasks: self.yml\n"},
                                "    - include_tasks: self.yml", "self.yml -> self.yml", "self.yml:2"),
    "a templated name": ({"self.yml": "- debug: msg=s\n- include_tasks: '{{ next }}.yml'\n"},
                         "    - include_tasks: '{{ next }}.yml'", "{{ next }}.yml -> {{ next }}.yml", "self.yml:2"),
    "two roles": ({"roles/ra/tasks/main.yml": "- debug: msg=a\n- include_role: {name: rb}\n",
                   "roles/rb/tasks/main.yml": "- debug: msg=b\n- include_role:\n    name: ra\n"},
                  "    - include_role: {name: ra}", "ra -> rb -> ra", "main.yml:2"),
}


def _run(cwd: Path, *args: str, memory: int | None = None,
         cache: Path | None = None) -> subprocess.CompletedProcess[str]:
    """The command in a child process with :data:`DEADLINE`, and at most ``memory`` bytes of address
    space: a list being made fails at once instead of filling the machine's memory."""
    import resource

    def limit() -> None:
        if memory is not None:
            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"}
    if cache is not None:
        env["PLAYBOOK_LS_CACHE_DIR"] = str(cache)
    return subprocess.run([sys.executable, "-m", "playbook_ls", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=DEADLINE, stdin=subprocess.DEVNULL, preexec_fn=limit)


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


@pytest.mark.parametrize(("files", "task", "cycle", "where"), CYCLES.values(), ids=CYCLES.keys())
@pytest.mark.parametrize("command", [["plan"], ["run", "--dry"]], ids=["plan", "run --dry"])
def test_an_include_cycle_is_planned_to_its_crash(tmp_path: Path, files: dict[str, str], task: str, cycle: str,
                                                  where: str, command: list[str]) -> None:
    _write(tmp_path, {**files, "site.yml": PLAY.format(tasks=task)})
    result = _run(tmp_path, *command, "site.yml", "-i", "localhost,")
    assert "Traceback" not in result.stderr and result.returncode == 0, result.stderr[-2000:]
    failing = result.stdout.rstrip().splitlines()[-2:]
    assert failing[0].strip().startswith("TASK [include_") and failing[0].endswith(where), result.stdout[-1000:]
    assert f"fails    localhost: includes nested 51 levels deep (a cycle: {cycle})" in failing[1]
    assert "RecursionError, exit 250" in failing[1]


def test_a_recursion_a_condition_ends_is_planned_as_it_runs(tmp_path: Path) -> None:
    _write(tmp_path, {"site.yml": PLAY.format(tasks="    - include_tasks: a.yml"),
                      "a.yml": "- debug: msg=a\n- include_tasks: b.yml\n  vars: {stop: true}\n",
                      "b.yml": "- debug: msg=b\n- include_tasks: a.yml\n  when: not (stop | default(false))\n"})
    result = _run(tmp_path, "plan", "site.yml", "-i", "localhost,")
    assert result.returncode == 0 and "fails" not in result.stdout, result.stdout + result.stderr
    assert result.stdout.count("TASK [debug]") == 2 and "skipped  localhost" in result.stdout


@pytest.mark.parametrize("command", [["check", "."], ["vars", "site.yml", "-i", "localhost,", "--host", "localhost"],
                                     ["why", "b.yml:2"]], ids=["check", "vars", "why"])
def test_the_other_commands_read_an_include_cycle_quickly(tmp_path: Path, command: list[str]) -> None:
    files, task, _cycle, _where = CYCLES["two task files"]
    _write(tmp_path, {**files, "site.yml": PLAY.format(tasks=task)})
    result = _run(tmp_path, *command)
    assert "Traceback" not in result.stderr and result.returncode == 0, result.stderr[-2000:]


LOOPS = {
    "with_sequence count": ("with_sequence: count=100000000", "the sequence lookup would make 100,000,000"),
    "with_sequence end": ("with_sequence: start=0 end=100000000", "the sequence lookup would make 100,000,001"),
    "with_nested": ('with_nested: ["{{ range(1000) | list }}", "{{ range(1000) | list }}"]',
                    "the nested lookup would make 1,000,000"),
    "query sequence": ("loop: \"{{ query('sequence', 'count=100000000') }}\"",
                       "the sequence lookup would make 100,000,000"),
    "lookup sequence": ("loop: \"{{ lookup('sequence', 'count=100000000', wantlist=True) }}\"",
                        "the sequence lookup would make 100,000,000"),
    "range": ('loop: "{{ range(100000000) | list }}"', "range() of more than 1000 items"),
    "a huge templated list": ('with_items: "{{ range(300) | product(range(400)) | list }}"',
                              "a value of 120,000 items or characters"),
}


@pytest.mark.parametrize(("loop", "reason"), LOOPS.values(), ids=LOOPS.keys())
@pytest.mark.parametrize("command", [["plan"], ["run", "--dry"]], ids=["plan", "run --dry"])
def test_a_huge_loop_is_refused_without_being_made(tmp_path: Path, loop: str, reason: str,
                                                   command: list[str]) -> None:
    _write(tmp_path, {"site.yml": PLAY.format(tasks=f"    - debug: msg={{{{ item }}}}\n      {loop}")})
    result = _run(tmp_path, *command, "site.yml", "-i", "localhost,", memory=2 << 30)
    assert "Traceback" not in result.stderr and result.returncode == 0, result.stderr[-2000:]
    task, outcome = result.stdout.rstrip().splitlines()[-2:]
    assert task.endswith("site.yml:6")
    assert outcome.strip().startswith("depends  localhost: its loop (") and reason in outcome, outcome


def test_blocks_nested_deeper_than_json_goes_are_planned(tmp_path: Path) -> None:
    """240 nested blocks parse (under the parser's 1000 levels) but are deeper than json.dumps
    goes: the parse store, which keeps a parse met a second time, leaves such a parse out."""
    lines = ["- hosts: localhost", "  gather_facts: false", "  tasks:"]
    lines += ["    " * (depth + 1) + "- block:" for depth in range(240)] + ["    " * 241 + "- debug: msg=deep"]
    _write(tmp_path, {"site.yml": "\n".join(lines) + "\n"})
    for command in (["plan"], ["run", "--dry"], ["plan"]):
        result = _run(tmp_path, *command, "site.yml", "-i", "localhost,", cache=tmp_path / "cache")
        assert "Traceback" not in result.stderr and result.returncode == 0, result.stderr[-2000:]
        assert result.stdout.rstrip().endswith("runs     localhost")


HOVER = """\
import sys
from playbook_ls.features.host_hover import hosts_section
from playbook_ls.features.workspace import WorkspaceIndex
index = WorkspaceIndex(sys.argv[1])
index.index()
print(hosts_section(index, sys.argv[1] + "/site.yml", 5, [sys.argv[1] + "/hosts.ini"]))
"""


def _limit_memory() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))


def test_the_hover_refuses_a_huge_loop_without_making_it(tmp_path: Path) -> None:
    task = "    - debug: msg={{ item }}\n      with_sequence: count=100000000"
    _write(tmp_path, {"site.yml": PLAY.format(tasks=task), "hosts.ini": "localhost\n"})
    result = subprocess.run([sys.executable, "-c", HOVER, str(tmp_path)], env={**os.environ, "PYTHONPATH": str(ROOT)},
                            capture_output=True, text=True, timeout=DEADLINE, preexec_fn=_limit_memory)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "its loop (with_sequence) is known only at run time: the template is too large to evaluate statically " \
           "(the sequence lookup would make 100,000,000" in result.stdout
