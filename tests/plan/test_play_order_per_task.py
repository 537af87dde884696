"""What the walk of the setters before a task asks of each setter at every step, on every host,
that depends on the setter and the play's order only (the looping includes around it, the copy of
its file it is in, the rescuing blocks it fails into item by item, which names it builds from run
to run) is worked out once per setter and order (engine.variables.play_order.PlayOrder.per_task):
a looping include of setters on a fleet asked it about a million times for fifty hosts. The plan
is the same as when it is worked out at every asking."""

from __future__ import annotations

from pathlib import Path

import pytest
from plan_cases import planned_by_play

from engine.variables import host_failures, play_order
from engine.variables.loop_vars import copy_items

PLAYBOOK = """
- name: keys
  hosts: all
  gather_facts: false
  tasks:
    - name: each key
      ansible.builtin.include_tasks: key.yml
      loop: "{{ keys | dict2items }}"
    - {name: last, ansible.builtin.debug: {msg: "{{ key_name }}"}, when: key_imported | bool}
"""

KEY = """
- {name: set key, ansible.builtin.set_fact: {key_name: "{{ item.key }}", key_url: "{{ item.value }}"}}
- name: current or not
  block:
    - {name: imported, ansible.builtin.set_fact: {key_imported: "{{ key_name == current }}"}}
    - {name: check, ansible.builtin.assert: {that: [key_url is string]}}
  rescue:
    - {name: not imported, ansible.builtin.set_fact: {key_imported: false}}
- {name: seen, ansible.builtin.set_fact: {seen: "{{ (seen | default([])) + [key_name] }}"}}
"""


def _fleet(root: Path) -> None:
    lines = ["[web]", *(f"w{n:02d} weight={n % 3}" for n in range(12)), "", "[db]",
             *(f"d{n:02d}" for n in range(6)), ""]
    (root / "inventory.ini").write_text("\n".join(lines))
    (root / "group_vars").mkdir()
    (root / "group_vars" / "all.yml").write_text("keys: {A1: 'https://k/a', B2: 'https://k/b', C3: 'https://k/c'}\n"
                                                 "current: B2\n")
    (root / "group_vars" / "db.yml").write_text("current: C3\n")
    (root / "key.yml").write_text(KEY)
    (root / "site.yml").write_text(PLAYBOOK)


def test_kept_until_an_include_adds_tasks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from engine.flow.plan import RunOptions, make_plan

    _fleet(tmp_path)
    monkeypatch.chdir(tmp_path)
    plan = make_plan(RunOptions(playbook=str(tmp_path / "site.yml"), inventory=[str(tmp_path / "inventory.ini")]))
    play = plan.plays[0].play
    order = play_order.play_order(play)
    task = order.tasks[0]
    worked: list[int] = []
    assert order.per_task("probe", task, lambda: worked.append(1) or "x") == "x"
    assert order.per_task("probe", task, lambda: worked.append(1) or "y") == "x"
    assert worked == [1]
    play_order.add_loaded_tasks(play, task, [(task, [])])  # loaded again: nothing new, kept
    assert order.per_task("probe", task, lambda: "z") == "x"
    assert order.looping(task) == []


def test_once_per_setter_and_same_plan(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _fleet(tmp_path)
    monkeypatch.chdir(tmp_path)
    asked: list[str] = []

    def counting(task, loops):  # type: ignore[no-untyped-def]
        asked.append(task.name)
        return copy_items(task, loops)

    monkeypatch.setattr(host_failures, "copy_items", counting)
    kept = planned_by_play(tmp_path)
    outcomes = {(task, host): outcome for _, _, rows in kept for task, host, outcome, _ in rows}
    assert (outcomes[("last", "w00")], outcomes[("last", "d00")]) == ("skipped", "runs")  # the last key decides
    once = len(asked)
    assert 0 < once == len(set(asked))  # once per task of the file
    asked.clear()
    with monkeypatch.context() as each_time:
        each_time.setattr(play_order.PlayOrder, "per_task", lambda self, what, task, compute: compute())
        assert planned_by_play(tmp_path) == kept
    assert len(asked) > 100 * once  # at every step of every walk on every host


ROLES_PLAYBOOK = """
- name: roles
  hosts: all
  gather_facts: false
  tasks:
    - name: base
      ansible.builtin.include_role: {name: base, public: true}
      when: weight | int > 0
    - name: each app
      ansible.builtin.include_role: {name: app, public: true}
      loop: [a, b]
    - {name: after, ansible.builtin.debug: {msg: "{{ base_port }}"}, when: app_name is defined and base_port > 80}
"""


def test_roles_included_before_kept_per_task(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The roles include_role tasks brought in before a task (``PlayOrder.included_before``: their
    defaults and vars, whether a ``when`` or a loop brought them) are kept per task and run until an
    include adds tasks: the plan is the one with them worked out at every scope."""
    _fleet(tmp_path)
    for role, defaults, tasks in (("base", "base_port: 8080\n", "- {name: base task, ansible.builtin.debug: {}}\n"),
                                  ("app", "app_name: x\n",
                                   "- {name: app task, ansible.builtin.set_fact: {seen_app: '{{ item }}'}}\n")):
        (tmp_path / "roles" / role / "defaults").mkdir(parents=True)
        (tmp_path / "roles" / role / "defaults" / "main.yml").write_text(defaults)
        (tmp_path / "roles" / role / "tasks").mkdir()
        (tmp_path / "roles" / role / "tasks" / "main.yml").write_text(tasks)
    (tmp_path / "site.yml").write_text(ROLES_PLAYBOOK)
    monkeypatch.chdir(tmp_path)
    kept = planned_by_play(tmp_path)
    # (as ansible-playbook: the web hosts read base's default, the db hosts stop at base's `when`)
    assert {host[0]: outcome for _, _, rows in kept for task, host, outcome, _ in rows if task == "after"} == \
        {"w": "runs", "d": "skipped"}
    with monkeypatch.context() as each_time:
        each_time.setattr(play_order.PlayOrder, "per_task", lambda self, what, task, compute: compute())
        assert planned_by_play(tmp_path) == kept
