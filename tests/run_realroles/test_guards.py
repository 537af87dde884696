"""What the real-role harness leaves out of a comparison, and what it checks around a recording
(guards.py): clock reads no fixed ``date`` repeats, paths a kept task writes that may leave the
scenario, writes on the machine outside it; and the fixed ``date`` both tools run with."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "run"))

import engine_cases  # noqa: E402
import guards  # noqa: E402
import realroles  # noqa: E402
import role_scenarios  # noqa: E402


def _role(root: Path, tasks: list[dict], defaults: dict | None = None, templates: dict | None = None) -> Path:
    role = root / "owner+role"
    (role / "tasks").mkdir(parents=True)
    (role / "tasks" / "main.yml").write_text(yaml.safe_dump(tasks))
    if defaults is not None:
        (role / "defaults").mkdir()
        (role / "defaults" / "main.yml").write_text(yaml.safe_dump(defaults))
    for name, text in (templates or {}).items():
        (role / "templates").mkdir(exist_ok=True)
        (role / "templates" / name).write_text(text)
    return role


def test_a_written_path_whose_variable_may_be_outside_leaves_the_scenario_out(tmp_path: Path) -> None:
    """A ``{% if %}`` branch, a conditional's else, a default's fallback: a path the cutting
    cannot see as a path at the start of a value, so it stays absolute."""
    role = _role(tmp_path / "src", [
        {"name": "plugins", "file": {"path": "{{ app_root }}/plugins", "state": "directory"}},
        {"name": "conf", "copy": {"content": "x", "dest": "{{ conf_dir.path }}/app.conf"}},
        {"name": "fine", "template": {"src": "a.j2", "dest": "{{ sub }}/b"}},
        {"name": "only read", "stat": {"path": "{{ app_root }}"}},
    ], defaults={"app_root": "{% if x %}/app/{{ name }}{% else %}~/.app{% endif %}",
                 "conf_dir": {"path": "{{ '/srv2' if y else 'conf' }}"}, "sub": "{{ base ~ '/sub' }}", "base": "data"})
    item = role_scenarios.RoleFile("owner/role", role, "main")
    assert role_scenarios.write_scenario(item, tmp_path / "s")
    reasons = guards.escaping_paths(tmp_path / "s", role.name)
    assert [r.split(":")[1].strip() for r in reasons] == ["'plugins'", "'conf'"]
    assert "may be '/app/{{ name }}'" in reasons[0] and "may be '/srv2'" in reasons[1]


def test_moved_or_relative_paths_are_no_reason(tmp_path: Path) -> None:
    role = _role(tmp_path / "src", [
        {"name": "a", "file": {"path": "{{ app_root }}/plugins", "state": "directory"}},
        {"name": "b", "lineinfile": {"path": "/etc/x.conf", "line": "y"}},
        {"name": "c", "command": "mktemp creates={{ item.dest }} chdir=/dev/shm", "loop": [{"dest": "z"}]},
        {"name": "d", "apt": {"name": "{{ '/app' }}"}},
    ], defaults={"app_root": "{% if x %}/usr/local/app{% else %}~/.app{% endif %}"})
    item = role_scenarios.RoleFile("owner/role", role, "main")
    assert role_scenarios.write_scenario(item, tmp_path / "s")
    assert guards.escaping_paths(tmp_path / "s", role.name) == []


def test_clock_reads_are_found_in_jinja_only(tmp_path: Path) -> None:
    role = _role(tmp_path, [{"set_fact": {"stamp": "{{ '%Y' | strftime }}", "epoch": "{{ '%Y' | strftime(0) }}"}}],
                 templates={"backup.groovy.j2": "x = LocalDateTime.now().format(f)\n",
                            "motd.j2": "{# {{ now() }} #}\nbuilt {{ now(utc=true) }}\n{{ template_run_date }}\n"})
    assert guards.clock_reasons(role) == [
        "reads the clock: strftime of the current time in tasks/main.yml",
        "reads the clock: Jinja's now() in templates/motd.j2",
        "reads the clock: the template module's template_run_date in templates/motd.j2"]


def test_an_unseeded_random_leaves_its_scenario_out_as_a_clock_read_does(tmp_path: Path) -> None:
    """``OnCalendar={{ days | random }}``: each run of either tool writes another file."""
    role = _role(tmp_path, [{"template": {"src": "timer.j2", "dest": "t"}}],
                 templates={"timer.j2": "{{ ['Mon', 'Tue'] | random() }} {{ 59 | random(seed=inventory_hostname) }}\n"})
    assert guards.clock_reasons(role, "main") == [
        "draws at random: the random filter without a seed in templates/timer.j2"]
    (role / "templates" / "timer.j2").write_text("{{ 59 | random(seed=inventory_hostname) }}\n")
    assert guards.clock_reasons(role, "main") == []


def test_only_the_clock_reads_a_task_file_may_run_leave_its_scenario_out(tmp_path: Path) -> None:
    """A role whose backup task file stamps its archive with ``now()`` still gives scenarios of its
    other task files: the files a task file includes by name and the templates they name count,
    the rest of the role does not, and a templated include name makes every file count."""
    role = _role(tmp_path, [{"include_tasks": "configure.yml"}, {"copy": {"content": "x", "dest": "y"}}],
                 templates={"motd.j2": "{% include 'footer.j2' %}\n", "footer.j2": "{{ now() }}\n",
                            "backup.sh.j2": "# {{ '%F' | strftime }}\n", "plain.j2": "x\n"})
    (role / "tasks" / "configure.yml").write_text(yaml.safe_dump([{"template": {"src": "plain.j2", "dest": "p"}},
                                                                   {"include": "backup.yml tags=backup"}]))
    (role / "tasks" / "plain.yml").write_text(yaml.safe_dump([{"template": {"src": "plain.j2", "dest": "p"}}]))
    (role / "tasks" / "backup.yml").write_text(yaml.safe_dump([
        {"ansible.builtin.import_tasks": {"file": "tasks/motd.yml"}},
        {"template": {"src": "backup.sh.j2", "dest": "b"}}]))
    (role / "tasks" / "motd.yml").write_text(yaml.safe_dump([{"template": {"src": "motd.j2", "dest": "m"}}]))
    assert guards.clock_reasons(role, "plain") == []
    assert guards.clock_reasons(role, "main") == guards.clock_reasons(role, "configure") == [
        "reads the clock: strftime of the current time in templates/backup.sh.j2",
        "reads the clock: Jinja's now() in templates/footer.j2"]  # through an include with parameters
    assert guards.clock_reasons(role, "backup") == [
        "reads the clock: strftime of the current time in templates/backup.sh.j2",
        "reads the clock: Jinja's now() in templates/footer.j2"]
    assert guards.clock_reasons(role, "motd") == ["reads the clock: Jinja's now() in templates/footer.j2"]
    (role / "tasks" / "main.yml").write_text(yaml.safe_dump([{"include_tasks": "{{ ansible_os_family }}.yml"}]))
    assert len(guards.clock_reasons(role, "main")) == 2
    assert guards.clock_reasons(role) == guards.clock_reasons(role, "main")
    (role / "handlers").mkdir()
    (role / "handlers" / "main.yml").write_text(yaml.safe_dump([{"name": "h", "debug": {"msg": "{{ now() }}"}}]))
    assert guards.clock_reasons(role, "plain") == ["reads the clock: Jinja's now() in handlers/main.yml"]


def test_the_cutting_names_what_it_leaves_out_and_why(tmp_path: Path) -> None:
    checkout = tmp_path / "checkouts" / "owner+repo"
    _role(checkout / "roles", [{"name": "conf", "copy": {"content": "x", "dest": "{{ d }}/x"}}],
          defaults={"d": "{{ '/app' if x else 'a' }}"})
    other = checkout / "roles" / "clean"
    (other / "tasks").mkdir(parents=True)
    (other / "tasks" / "main.yml").write_text(yaml.safe_dump([{"copy": {"content": "x", "dest": "/etc/x"}}]))
    repos = tmp_path / "repos.txt"
    repos.write_text("owner/repo 0123 held-out\n")
    out = tmp_path / "out"
    made = realroles.write_scenarios(tmp_path / "checkouts", True, 8, [], out, repos)
    assert [d.name for d in made] == ["owner_repo__clean__main"]
    assert (out / "excluded.txt").read_text() == (
        "owner_repo__owner_role__main: tasks/main.yml: 'conf': dest '{{ d }}/x' may be '/app', outside the scenario\n")
    assert not (out / "owner_repo__owner_role__main").exists()
    assert engine_cases.load_case(made[0]).clock == role_scenarios.CLOCK


def test_the_fixed_date_shows_the_scenario_clock_unless_told_a_time(tmp_path: Path) -> None:
    directory = engine_cases.fixed_clock(tmp_path / "clock", role_scenarios.CLOCK)
    env = {**os.environ, "PATH": f"{directory}{os.pathsep}{os.environ['PATH']}"}

    def date(*args: str) -> str:
        return subprocess.run(["sh", "-c", 'date "$@"', "sh", *args], env=env, capture_output=True, text=True,
                              check=True).stdout.strip()

    assert date("-u", "+%Y%m%d%H%M%SZ") == "20260101000000Z"
    assert date("-u", "-d", "@0", "+%Y") == "1970"
    assert date("-u", "--date=@86400", "+%d") == "02"


def test_a_change_outside_the_scenario_is_found(tmp_path: Path, monkeypatch) -> None:
    watched = tmp_path / "etc"
    (watched / "old").mkdir(parents=True)
    (watched / "old" / "kept.conf").write_text("x")
    (watched / "old" / "other.conf").write_text("x")
    time.sleep(0.05)
    since = time.time()
    assert guards.outside_changes(since, (str(watched),)) == []
    time.sleep(0.05)
    (watched / "new").mkdir()
    (watched / "old" / "kept.conf").write_text("y")
    assert sorted(guards.outside_changes(since, (str(watched),))) == [
        str(watched), str(watched / "new"), str(watched / "old" / "kept.conf")]
    monkeypatch.setattr(guards, "UNWATCHED", (str(watched / "old"),))  # another program's temporary files
    assert sorted(guards.outside_changes(since, (str(watched),))) == [str(watched), str(watched / "new")]


def test_a_recording_that_writes_outside_its_scenario_says_so(tmp_path: Path, monkeypatch) -> None:
    system = tmp_path / "system"
    system.mkdir()
    time.sleep(0.05)
    scenario = tmp_path / "out" / "a"
    scenario.mkdir(parents=True)
    (scenario / "site.yml").write_text("- hosts: all\n  tasks: []\n")
    (scenario / "case.json").write_text('{"description": "o/r: x", "modes": ["run"]}')

    def writes_outside(case, mode, tool, wrap=None):
        (system / "rbenv").mkdir()
        return engine_cases.Run({"rc": 0, "recap": {}, "tasks": [], "files": {}}, "", "", None, "")

    monkeypatch.setattr(engine_cases, "run_case", writes_outside)
    monkeypatch.setattr(guards, "WATCHED", (str(system),))
    assert realroles.record_directory(tmp_path / "out") == 1
    assert engine_cases.load_case(scenario).load_expected()["outside_changes"] == [str(system), str(system / "rbenv")]
