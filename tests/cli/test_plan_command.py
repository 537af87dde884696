"""``playbook-ls plan`` on the command line: the documented JSON, the text, and errors that
name what to do, never a traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from ansible_tools import find_tool

SCENARIO = Path(__file__).resolve().parents[1] / "plan" / "scenarios" / "tag_selection"


def plan(*args: str, cwd: Path = SCENARIO) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "playbook_ls", "plan", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=60, stdin=subprocess.DEVNULL)


def per_host(task: dict) -> dict:  # type: ignore[type-arg]
    """A task's outcomes in the JSON (told once per group of hosts), by host."""
    return {host: {"outcome": group["outcome"], "reason": group["reason"]}
            for group in task["outcomes"] for host in group["hosts"]}


def test_json_has_every_task_and_host_with_an_outcome_and_a_reason() -> None:
    done = plan("site.yml", "-i", "inventory.ini", "--tags", "deploy", "--format", "json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["version"] == 2
    [play] = data["plays"]
    assert play["hosts"] == ["t1", "t2"]
    outcomes = {task["task"]: {h: o["outcome"] for h, o in per_host(task).items()} for task in play["tasks"]}
    assert outcomes["deploy"] == {"t1": "runs", "t2": "runs"}
    assert outcomes["other"] == {"t1": "skipped", "t2": "skipped"}
    assert outcomes["always"] == {"t1": "runs", "t2": "skipped"}
    assert outcomes["never but deploy"] == {"t1": "runs", "t2": "runs"}
    first = play["tasks"][0]
    assert (first["path"], first["line"], first["handler"]) == ("site.yml", 5, False)
    assert "not selected by the tags" in per_host(play["tasks"][1])["t1"]["reason"]
    assert [group["hosts"] for group in play["tasks"][1]["outcomes"]] == [["t1", "t2"]]  # one reason, told once


def test_text_groups_hosts_by_outcome() -> None:
    done = plan("site.yml", "-i", "inventory.ini", "--tags", "deploy")
    assert done.returncode == 0, done.stderr
    assert "  TASK [always]  site.yml:11\n    runs     t1\n    skipped  t2: `inventory_hostname == 't1'` is false" \
        in done.stdout


def test_a_missing_playbook_is_an_error_naming_it(tmp_path: Path) -> None:
    done = plan("nowhere.yml", "-i", "localhost,", cwd=tmp_path)
    assert done.returncode == 1
    assert "nowhere.yml could not be found" in done.stderr and "Traceback" not in done.stderr


def test_bad_extra_vars_are_a_usage_error() -> None:
    done = plan("site.yml", "-i", "inventory.ini", "-e", "@missing.yml")
    assert done.returncode == 2
    assert "--extra-vars" in done.stderr and "Traceback" not in done.stderr


def test_the_json_written_piece_by_piece_is_the_documented_document(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from engine.flow.host_plan import plan_hosts
    from engine.flow.plan import RunOptions, make_plan
    from playbook_ls.cli.plan import as_json, json_text

    scenario = SCENARIO.parent / "includes_handlers"
    monkeypatch.chdir(scenario)
    plays = plan_hosts(make_plan(RunOptions(playbook="site.yml", inventory=["inventory.ini"]), dynamic_inventory=False))
    assert json.loads(json_text(plays)) == as_json(plays)
    assert len(json_text(plays).splitlines()) == 2 + sum(len(p.tasks) + 2 for p in plays)
    # each outcome told once for its hosts: every host of the task once, with its own outcome
    for play, shown in zip(plays, as_json(plays)["plays"], strict=True):
        for task, told in zip(play.tasks, shown["tasks"], strict=True):
            assert per_host(told) == {host: {"outcome": o.outcome, "reason": o.reason}
                                      for host, o in task.hosts.items()}
            told_hosts = [host for group in told["outcomes"] for host in group["hosts"]]
            assert sorted(told_hosts) == sorted(task.hosts) and len(told_hosts) == len(task.hosts)
            assert len({(group["outcome"], group["reason"]) for group in told["outcomes"]}) == len(told["outcomes"])


def test_facts_from_a_setup_tree_decide_conditions(tmp_path: Path) -> None:
    scenario = SCENARIO.parent / "cached_facts"
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "nofacts").write_text(json.dumps({"ansible_facts": {"ansible_os_family": "Debian"}, "changed": False}))
    done = plan("site.yml", "-i", "inventory.ini", "--facts", str(tree), "--format", "json", cwd=scenario)
    assert done.returncode == 0, done.stderr
    first = per_host(json.loads(done.stdout)["plays"][0]["tasks"][0])
    assert {host: o["outcome"] for host, o in first.items()} == {"deb1": "runs", "rh1": "skipped", "nofacts": "runs"}
    assert "(cached fact)" in first["rh1"]["reason"]


def test_facts_must_be_a_directory(tmp_path: Path) -> None:
    done = plan("site.yml", "-i", "inventory.ini", "--facts", str(tmp_path / "none"))
    assert done.returncode == 2 and "--facts" in done.stderr and "Traceback" not in done.stderr


@pytest.mark.ansible
@pytest.mark.skipif(find_tool("ansible") is None, reason="needs ansible-core 2.19")
def test_gather_fills_the_facts_of_the_plans_hosts_only(tmp_path: Path) -> None:
    local = f"ansible_connection=local ansible_python_interpreter={sys.executable}"
    (tmp_path / "inv.ini").write_text(f"target {local}\nbystander {local}\n")
    (tmp_path / "site.yml").write_text("- hosts: target\n  gather_facts: false\n  tasks:\n    - name: on linux\n"
                                       "      ansible.builtin.debug: msg=x\n"
                                       "      when: ansible_facts['system'] == 'Linux'\n")
    done = subprocess.run([sys.executable, "-m", "playbook_ls", "plan", "site.yml", "-i", "inv.ini", "--gather",
                           "--facts", "facts", "--format", "json"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=300, stdin=subprocess.DEVNULL,
                          env={**os.environ, "PATH": f"{Path(str(find_tool('ansible'))).parent}:{os.environ['PATH']}"})
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in (tmp_path / "facts").iterdir()) == ["target"]
    [task] = json.loads(done.stdout)["plays"][0]["tasks"]
    assert per_host(task)["target"]["outcome"] == ("runs" if sys.platform.startswith("linux") else "skipped")


def test_gather_needs_somewhere_to_keep_the_facts(tmp_path: Path) -> None:
    done = plan("site.yml", "-i", "inventory.ini", "--gather")
    assert done.returncode == 2 and "give --facts DIR" in done.stderr


def _plugin_inventory(tmp_path: Path) -> Path:
    (tmp_path / "site.yml").write_text("- hosts: all\n  gather_facts: false\n  tasks:\n    - debug: msg=hi\n")
    (tmp_path / "static.ini").write_text("[web]\nw1\n")
    (tmp_path / "built.yml").write_text("plugin: constructed\nstrict: false\n"
                                        "groups:\n  every: lookup('env', 'HOME') != ''\n")
    return tmp_path


def test_a_plugin_inventory_not_run_says_why_its_hosts_are_missing(tmp_path: Path) -> None:
    where = _plugin_inventory(tmp_path)
    done = plan("site.yml", "-i", "static.ini", "-i", "built.yml", cwd=where)
    assert done.returncode == 0, done.stderr
    assert "hosts: w1" in done.stdout
    assert f"playbook-ls: note: dynamic inventory: {where / 'built.yml'} not run" in done.stderr
    assert "pass --run-inventory-code" in done.stderr
    alone = plan("site.yml", "-i", "built.yml", "--format", "json", cwd=where)
    assert json.loads(alone.stdout)["plays"][0]["hosts"] == []
    assert "not run" in alone.stderr
    ran = plan("site.yml", "-i", "static.ini", "-i", "built.yml", "--run-inventory-code", cwd=where)
    assert ran.returncode == 0 and "note:" not in ran.stderr, ran.stderr


def test_listings_say_the_hosts_are_not_checked_when_a_plugin_is_not_run(tmp_path: Path) -> None:
    where = _plugin_inventory(tmp_path)
    done = subprocess.run([sys.executable, "-m", "playbook_ls", "list-tasks", "site.yml", "-i", "built.yml"],
                          cwd=where, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr
    assert "which only the run runs; the plays' hosts and --limit are not checked" in done.stderr



def test_a_plan_ends_without_teardown_yet_prints_all_of_it(tmp_path: Path) -> None:
    """``plan`` as a process of its own ends without the interpreter's teardown (after the exit
    handlers, its output flushed): every task of a plan larger than a pipe's buffer is printed."""
    (tmp_path / "inventory.ini").write_text("".join(f"h{n} rack=r{n % 3}\n" for n in range(30)))
    tasks = "".join(f"    - name: task {n}\n      ansible.builtin.debug: msg={n}\n"
                    f"      when: rack | regex_replace('r', '') | int == {n % 3}\n" for n in range(400))
    (tmp_path / "site.yml").write_text(f"- hosts: all\n  gather_facts: false\n  tasks:\n{tasks}")
    done = plan("site.yml", "-i", "inventory.ini", "--format", "json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    [play] = json.loads(done.stdout)["plays"]
    assert len(play["tasks"]) == 400 and len(done.stdout) > 65536
    assert per_host(play["tasks"][4])["h1"]["outcome"] == "runs"
    assert per_host(play["tasks"][4])["h2"]["outcome"] == "skipped"


def test_only_a_thread_the_exit_would_wait_for_keeps_the_teardown() -> None:
    import threading

    from playbook_ls.cli.main import _alone

    release = threading.Event()
    for daemon, alone in ((True, True), (False, False)):
        thread = threading.Thread(target=release.wait, daemon=daemon)
        thread.start()
        try:
            assert _alone() is alone
        finally:
            release.set()
            thread.join()
            release.clear()


def test_a_profiled_plan_keeps_the_teardown(tmp_path: Path) -> None:
    """``python -m cProfile`` writes its figures once the command returns: a profiled plan is not
    ended before that."""
    out = tmp_path / "plan.prof"
    done = subprocess.run([sys.executable, "-m", "cProfile", "-o", str(out), "-m", "playbook_ls", "plan", "site.yml",
                           "-i", "inventory.ini", "--format", "json"], cwd=SCENARIO, capture_output=True, text=True,
                          timeout=60, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr
    assert out.stat().st_size > 0
