"""The real-role harness turns a role's task file into a scenario that runs unprivileged inside
its own directory (role_scenarios.py); what it keeps, drops and rewrites."""

from __future__ import annotations

import sys
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))

import role_scenarios  # noqa: E402


def test_system_paths_move_into_the_scenario_everywhere_in_a_string() -> None:
    value = {"dest": "/etc/nginx/nginx.conf", "cmd": "cat /var/log/x > /dev/null", "url": "https://a/etc/b",
             "expr": "{{ '/opt/app' if x else '/srv/app' }}"}
    assert role_scenarios.rewrite_paths(value) == {
        "dest": "root/etc/nginx/nginx.conf", "cmd": "cat root/var/log/x > /dev/null", "url": "https://a/etc/b",
        "expr": "{{ 'root/opt/app' if x else 'root/srv/app' }}"}
    assert role_scenarios.rewrite_paths(["/swap", "/srv2/x.img", "/dev/null", "/proc/sys", "/", "a /swap"]) == [
        "root/swap", "root/srv2/x.img", "/dev/null", "/proc/sys", "/", "a /swap"]


def test_home_directories_move_into_the_scenario() -> None:
    """A module expands ``~`` on the host, this machine: a role's ``~`` paths would reach the home
    of whoever runs the comparison."""
    assert role_scenarios.rewrite_paths(["~", "~/Documents/dotfiles", "~root/.ssh", "~deploy/.netrc",
                                         "~{{ item }}/.forward", "{{ home ~ '/' ~ item }}", "a ~/x", "~x y"]) == [
        "root/root", "root/root/Documents/dotfiles", "root/root/.ssh", "root/home/deploy/.netrc",
        "root/home/{{ item }}/.forward", "{{ home ~ '/' ~ item }}", "a ~/x", "~x y"]


def test_covered_modules_are_kept_without_what_needs_root() -> None:
    task = {"name": "conf", "ansible.builtin.template": {"src": "a.j2", "dest": "b", "owner": "root", "mode": "0644"},
            "become": True, "notify": "restart"}
    kept, covered = role_scenarios.rewrite_task(task)
    assert kept == {"name": "conf", "ansible.builtin.template": {"src": "a.j2", "dest": "b", "mode": "0644"},
                    "notify": "restart"}
    assert covered == 1


def test_other_modules_become_a_debug_keeping_conditions_loops_and_register() -> None:
    task = {"name": "install", "apt": {"name": "{{ item }}"}, "loop": ["a"], "when": "x", "register": "out",
            "retries": 3, "until": "out is success"}
    kept, covered = role_scenarios.rewrite_task(task)
    assert kept == {"name": "install", "loop": ["a"], "when": "x", "register": "out",
                    "ansible.builtin.debug": {"msg": "not run here: apt"}}
    assert covered == 0


def test_a_command_is_kept_only_with_creates_or_removes() -> None:
    assert role_scenarios.rewrite_task({"command": "make install creates=/usr/bin/x"})[1] == 1
    assert role_scenarios.rewrite_task({"shell": {"cmd": "make", "removes": "x"}})[1] == 1
    assert role_scenarios.rewrite_task({"command": "make install"})[0] == {
        "ansible.builtin.debug": {"msg": "not run here: command"}}


def test_a_scenario_has_the_role_the_play_and_the_directories_of_its_paths(tmp_path: Path) -> None:
    role = tmp_path / "repo" / "roles" / "web"
    (role / "tasks").mkdir(parents=True)
    (role / "defaults").mkdir()
    (role / "tasks" / "main.yml").write_text("- copy: {dest: /etc/web/web.conf, content: x}\n- service: {name: web}\n")
    (role / "defaults" / "main.yml").write_text("web_log: /var/log/web/web.log\n")
    (item,) = role_scenarios.role_files("owner/repo", role)
    assert role_scenarios.write_scenario(item, tmp_path / "scenario")
    play = yaml.safe_load((tmp_path / "scenario" / "site.yml").read_text())[0]
    assert play["tasks"] == [{"name": "the role's tasks", "ansible.builtin.import_role": {"name": "web"}}]
    assert play["vars"]["ansible_os_family"] == "Debian"
    assert (tmp_path / "scenario" / "root" / "var" / "log" / "web").is_dir()
    assert yaml.safe_load((tmp_path / "scenario" / "roles" / "web" / "tasks" / "main.yml").read_text())[0] == {
        "copy": {"dest": "root/etc/web/web.conf", "content": "x"}}


def test_a_task_file_running_nothing_covered_is_no_scenario(tmp_path: Path) -> None:
    role = tmp_path / "r"
    (role / "tasks").mkdir(parents=True)
    (role / "tasks" / "main.yml").write_text("- apt: {name: x}\n- debug: {msg: y}\n")
    (item,) = role_scenarios.role_files("o/r", role)
    assert not role_scenarios.write_scenario(item, tmp_path / "s")
    assert not (tmp_path / "s").exists()


def _harness():  # realroles imports engine_cases from tests/run
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "run"))
    import realroles

    return realroles


def test_a_run_over_the_timeout_is_not_recorded_and_the_batch_goes_on(tmp_path: Path, monkeypatch) -> None:
    import subprocess

    realroles = _harness()
    (tmp_path / "site.yml").write_text("- hosts: all\n  tasks: []\n")
    (tmp_path / "case.json").write_text('{"description": "o/r: x", "modes": ["run", "check"]}')

    def slow(case, mode, tool):
        raise subprocess.TimeoutExpired(["ansible-playbook"], 1)

    monkeypatch.setattr(realroles.engine_cases, "run_case", slow)
    assert realroles.compare_scenario(tmp_path) == [
        ("run", "not recorded", ["ansible run timed out"]), ("check", "not recorded", ["ansible run timed out"])]
    case = realroles.engine_cases.load_case(tmp_path)
    assert realroles.record_scenario(case) == "run not recorded, check not recorded"
    assert realroles.measure_scenario(case)[0] == ("run", "not recorded", ["ansible's run not recorded"])


def test_a_measurement_keeps_each_result_and_resumes_after_them(tmp_path: Path, capsys, monkeypatch) -> None:
    import json

    realroles = _harness()
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "site.yml").write_text("- hosts: all\n  tasks: []\n")
        (tmp_path / name / "case.json").write_text('{"description": "o/r: x", "modes": ["run"]}')
    (tmp_path / "results.jsonl").write_text(json.dumps(
        {"scenario": "a", "group": "o/r", "mode": "run", "kind": "identical", "problems": []}) + "\n")
    measured = []
    monkeypatch.setattr(realroles, "measure_scenario",
                        lambda case: measured.append(case.name) or [("run", "declined", ["no"])])
    assert realroles.measure_directory(tmp_path, quiet=True) == 1
    assert measured == ["b"]  # a was measured before the stop
    out = capsys.readouterr().out
    assert "identical: 1" in out and "declined: 1" in out
    assert "identical among the runs the engine accepts: 100.0%" in out
    assert len((tmp_path / "results.jsonl").read_text().splitlines()) == 2


def test_a_path_after_a_variable_the_role_defines_empty_moves_into_the_scenario(tmp_path: Path) -> None:
    (tmp_path / "defaults").mkdir()
    (tmp_path / "defaults" / "main.yml").write_text("vault_path: ''\nprefix: /opt\nnothing:\n")
    empty = role_scenarios.empty_variables(tmp_path)
    assert empty == {"vault_path", "nothing"}
    value = ["{{ vault_path }}/etc/vault.d", "{{ nothing }}/usr/bin", "{{ prefix }}/etc/x", "{{ vault_path }}/data2",
             "{{ vault_path }}", "/{{ item }}"]
    assert role_scenarios.rewrite_paths(value, empty) == [
        "root{{ vault_path }}/etc/vault.d", "root{{ nothing }}/usr/bin", "{{ prefix }}/etc/x", "{{ vault_path }}/data2",
        "{{ vault_path }}", "root/{{ item }}"]


def test_a_scenario_whose_text_is_not_recorded_is_measured_without_it(tmp_path: Path, monkeypatch) -> None:
    import json

    realroles = _harness()
    (tmp_path / "site.yml").write_text("- hosts: all\n  tasks: []\n")
    (tmp_path / "case.json").write_text('{"description": "o/r: x", "modes": ["run"], "stdout": false, '
                                        '"stdout_reason": "hosts interleave"}')
    outcome = {"rc": 0, "recap": {}, "tasks": [], "files": {}}
    (tmp_path / "expected.json").write_text(json.dumps({"cases": {"run": outcome}}))
    engine = realroles.engine_cases.Run(dict(outcome), "", "", None, "PLAY [all] ****\nok: [h1]\n")
    monkeypatch.setattr(realroles.engine_cases, "run_case", lambda case, mode, tool: engine)
    case = realroles.engine_cases.load_case(tmp_path)
    assert realroles.measure_scenario(case) == [("run", "identical", [])]
    (tmp_path / "case.json").write_text('{"description": "o/r: x", "modes": ["run"]}')
    (tmp_path / "stdout.run.txt").write_text("PLAY [all] ****\nok: [h2]\n")
    case = realroles.engine_cases.load_case(tmp_path)
    assert realroles.measure_scenario(case)[0][1] == "same results"
