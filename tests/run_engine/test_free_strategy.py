"""The free strategy (engine.run.free): each host on its own, ansible's warnings, banners that
come back when hosts interleave, and the strategies the engine refuses."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import run_playbook, write

from engine.flow.plan import RunOptions
from engine.run.free import order_notes
from engine.run.preflight import make_run_plan, unknown_module_problems

HOSTS = "h1\nh2\n[all:vars]\nansible_connection=local\n"

FREE = """
- hosts: all
  strategy: free
  gather_facts: false
  max_fail_percentage: 0
  tasks:
    - {name: once, debug: {msg: "{{ inventory_hostname }}"}, run_once: true}
    - {name: h1 fails, fail: {msg: no}, when: inventory_hostname == 'h1', any_errors_fatal: true}
    - {name: h2 goes on, debug: {msg: on}}
"""


def test_free_strategy_runs_hosts_independently_with_ansibles_warnings(tmp_path: Path) -> None:
    (tmp_path / "hosts").write_text(HOSTS)
    code, out, data = run_playbook(tmp_path, FREE, inventory=[str(tmp_path / "hosts")])
    assert code == 2
    assert "[WARNING]: Using max_fail_percentage with the free strategy is not supported" in out
    assert out.count("[WARNING]: Using run_once with the free strategy") == 1
    assert "[WARNING]: Using any_errors_fatal with the free strategy is not supported" in out
    assert [(t["task"], t["host"], t["status"]) for t in data["tasks"]] == [
        ("once", "h1", "ok"), ("once", "h2", "ok"), ("h1 fails", "h1", "failed"), ("h1 fails", "h2", "skipped"),
        ("h2 goes on", "h2", "ok")]
    assert data["recap"]["h2"]["ok"] == 2


INTERLEAVED = """
- hosts: all
  strategy: free
  gather_facts: false
  tasks:
    - {name: only h1, debug: {msg: one}, when: inventory_hostname == 'h1'}
    - name: h2 includes
      include_tasks: more.yml
      when: inventory_hostname == 'h2'
    - {name: last, debug: {msg: last}}
"""


def test_free_banners_come_with_results(tmp_path: Path) -> None:
    (tmp_path / "hosts").write_text(HOSTS)
    code, out, _ = run_playbook(tmp_path, INTERLEAVED, {"more.yml": "- {name: more, debug: {msg: more}}\n"},
                                inventory=[str(tmp_path / "hosts")])
    assert code == 0
    banners = [line.split(" *")[0] for line in out.splitlines() if line.startswith("TASK")]
    # round 1: both hosts at "only h1"; round 2: h1 skips the include, h2 includes; round 3: h1
    # is done with "last" while h2 is at "more", then h2's "last" shows its banner again
    assert banners == ["TASK [only h1]", "TASK [h2 includes]", "TASK [last]", "TASK [more]", "TASK [last]"]


def test_a_host_loop_bypassing_action_stops_the_playbook(tmp_path: Path) -> None:
    (tmp_path / "hosts").write_text(HOSTS)
    playbook = "- hosts: all\n  strategy: free\n  gather_facts: false\n  tasks:\n    - pause: {seconds: 1}\n"
    code, out, _ = run_playbook(tmp_path, playbook, inventory=[str(tmp_path / "hosts")])
    assert code == 1
    assert ("[ERROR]: The 'pause' module bypasses the host loop, which is currently not supported in the free "
            "strategy") in out
    assert "PLAY RECAP" not in out


@pytest.mark.parametrize("strategy", ["host_pinned", "debug", "ansible.builtin.host_pinned"])
def test_other_strategies_are_refused_by_name(tmp_path: Path, strategy: str) -> None:
    write(tmp_path, {"site.yml": f"- hosts: all\n  strategy: {strategy}\n  tasks: []\n"})
    plan = make_run_plan(RunOptions(playbook=str(tmp_path / "site.yml"), inventory=["localhost,"]),
                         has_module=lambda action: True)
    (problem,) = unknown_module_problems(plan)
    assert f"does not implement 'strategy: {strategy}'" in str(problem)


def test_default_strategy_from_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path, {"site.yml": "- hosts: all\n  tasks: []\n- hosts: all\n  strategy: free\n  tasks: []\n"})
    monkeypatch.setenv("ANSIBLE_STRATEGY", "host_pinned")
    plan = make_run_plan(RunOptions(playbook=str(tmp_path / "site.yml"), inventory=["localhost,"]),
                         has_module=lambda action: True)
    assert [keyword for keyword, _ in plan.unsupported] == ["strategy: host_pinned (DEFAULT_STRATEGY)"]
    monkeypatch.setenv("ANSIBLE_STRATEGY", "free")
    plan = make_run_plan(RunOptions(playbook=str(tmp_path / "site.yml"), inventory=["localhost,"]),
                         has_module=lambda action: True)
    assert plan.unsupported == []



def test_a_plan_says_the_order_between_hosts_of_a_free_play_is_the_engines(tmp_path: Path) -> None:
    """ansible prints a free play's results as its workers deliver them (an order that varies from
    run to run): the plan says so for a free play of several hosts, and the run is not declined."""
    (tmp_path / "hosts").write_text(HOSTS)
    write(tmp_path, {"site.yml": "- {name: one, hosts: h1, strategy: free, tasks: []}\n"
                                 "- {name: both, hosts: all, strategy: free, tasks: []}\n"
                                 "- {name: linear, hosts: all, tasks: []}\n"})
    plan = make_run_plan(RunOptions(playbook=str(tmp_path / "site.yml"), inventory=[str(tmp_path / "hosts")]),
                         has_module=lambda action: True)
    (note,) = order_notes(plan.plays)
    assert note.startswith("play 'both' (strategy: free, 2 hosts): the engine prints the hosts' results in turn")
    assert unknown_module_problems(plan) == []
