"""A play with a ``rescue`` somewhere keeps each host's walk of the setters before a task as a
growing prefix (engine.variables.earlier_walk.own_play) for the readers outside every block with a
rescue: whether a setter in such a block ran is then what a reader past the blocks sees, the same at
each of them. A host whose setters read its own name is its own class (engine.variables.walk_classes),
so without the prefix it walked every setter again at every task reading what they set: hosts x
readers x setters steps. A reader inside a block with a rescue still walks on its own. The plan is
the one walking every setter from the start at each reader."""

from __future__ import annotations

from pathlib import Path

import pytest
from plan_cases import hosts_asked, planned_rows

from engine.variables import host_runtime

HOSTS = 6
SETTERS = 5


def _playbook(readers: int) -> str:
    setters = "".join(f"    - {{name: set {n}, ansible.builtin.set_fact: "
                      f"{{v{n}: \"{{{{ inventory_hostname }}}}-{n}\"}}}}\n" for n in range(SETTERS))
    reading = "".join(f"    - {{name: read {n}, ansible.builtin.debug: {{msg: r}}, "
                      f"when: v{n % SETTERS} == inventory_hostname ~ '-{n % SETTERS}' and n | int > {n % 3}}}\n"
                      for n in range(readers))
    return f"""
- name: a rescue early, then setters and readers on each host's name
  hosts: all
  gather_facts: false
  tasks:
    - block:
        - {{name: first, ansible.builtin.set_fact: {{x: "{{{{ n }}}}"}}}}
        - {{name: may fail, ansible.builtin.fail: {{msg: broken}}, when: broken | bool}}
        - {{name: after the failure, ansible.builtin.set_fact: {{y: "{{{{ n | int + 1 }}}}"}}}}
        - {{name: inside, ansible.builtin.debug: {{msg: i}}, when: x | int > 1}}
      rescue:
        - {{name: rescued, ansible.builtin.set_fact: {{y: 0}}}}
{setters}    - {{name: on y, ansible.builtin.debug: {{msg: y}}, when: y | int > 2}}
{reading}"""


def _write(root: Path, readers: int) -> None:
    lines = ["[web]"] + [f"web{n:02d} n={n % 4}" + (" broken=true" if n % 3 == 1 else "") for n in range(HOSTS)]
    (root / "inventory.ini").write_text("\n".join(lines) + "\n")
    (root / "group_vars").mkdir(exist_ok=True)
    (root / "group_vars" / "all.yml").write_text("broken: false\n")
    (root / "site.yml").write_text(_playbook(readers))


def _steps(root: Path, monkeypatch: pytest.MonkeyPatch, readers: int) -> tuple[list[str], list]:  # type: ignore[type-arg]
    _write(root, readers)
    with monkeypatch.context() as patch:
        steps = hosts_asked(patch, host_runtime.Follower, "_runs_on", 2)
        rows = planned_rows(root)
    return steps, rows


def test_setters_walked_once_per_host_whatever_the_readers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    few, rows = _steps(tmp_path, monkeypatch, 4)
    many, more_rows = _steps(tmp_path, monkeypatch, 16)
    assert {outcome for _, _, outcome, _ in more_rows} >= {"runs", "skipped"}
    # each reader added costs less than one step per host (each host walked every setter again at each reader:
    # 44 more steps per reader here); the setters' steps are once per host
    assert len(many) - len(few) < (16 - 4) * HOSTS
    assert len(few) < 4 * HOSTS * SETTERS


def test_the_plan_is_the_one_walking_from_the_start(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    _write(tmp_path, 10)
    shared = planned_rows(tmp_path)
    monkeypatch.setattr(host_runtime, "own_play", lambda *args, **kwargs: None)
    assert planned_rows(tmp_path) == shared
    rescued = {host for task, host, outcome, _ in shared if task == "on y" and outcome == "skipped"}
    assert rescued  # the rescue's y=0 skips it where the block failed
