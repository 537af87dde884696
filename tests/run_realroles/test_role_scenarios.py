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

    def slow(case, mode, tool, wrap=None):
        raise subprocess.TimeoutExpired(["ansible-playbook"], 1)

    monkeypatch.setattr(realroles.engine_cases, "run_case", slow)
    monkeypatch.setattr(realroles.guards, "WATCHED", (str(tmp_path / "system"),))  # what others write is theirs
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


def test_a_scenario_whose_text_is_not_compared_is_measured_on_its_results_only(tmp_path: Path, monkeypatch) -> None:
    """``"stdout": false`` (a free strategy's interleaving, a timing-dependent retry count): the
    recording keeps no text and the measurement compares the results alone."""
    realroles = _harness()
    engine_cases = realroles.engine_cases
    (tmp_path / "site.yml").write_text("- hosts: all\n  tasks: []\n")
    (tmp_path / "case.json").write_text('{"description": "o/r: x", "modes": ["run"], "stdout": false,'
                                        ' "stdout_reason": "order of the workers"}')
    outcome = {"rc": 0, "recap": {}, "tasks": [], "files": {}}
    runs = {"ansible": engine_cases.Run(outcome, "", "", None, "TASK [a]\nTASK [b]\n"),
            "engine": engine_cases.Run(outcome, "", "", None, "TASK [b]\nTASK [a]\n")}
    monkeypatch.setattr(engine_cases, "run_case", lambda case, mode, tool, wrap=None: runs[tool])
    monkeypatch.setattr(engine_cases, "compare", lambda expected, actual: [])
    monkeypatch.setattr(realroles.guards, "WATCHED", (str(tmp_path / "system"),))
    case = engine_cases.load_case(tmp_path)
    realroles.record_scenario(case)
    assert not list(tmp_path.glob("stdout.*.txt"))
    assert realroles.measure_scenario(case) == [("run", "identical", [])]
    assert realroles.compare_scenario(tmp_path) == [("run", "identical", [])]
    (tmp_path / "case.json").write_text('{"description": "o/r: x", "modes": ["run"]}')
    assert realroles.compare_scenario(tmp_path)[0][1] == "same results"


def test_a_home_inside_a_kept_command_line_moves_into_the_scenario() -> None:
    """The shell (and the command module, argument by argument) expands ``~`` wherever a word
    starts with it: a kept command would read or write the home of whoever runs the comparison."""
    kept, covered = role_scenarios.rewrite_task(
        {"shell": "cp a ~/b && chmod 600 '~deploy/.netrc' creates=~/b", "args": {"chdir": "x ~/y"}})
    assert covered == 1
    assert kept == {"shell": "cp a root/root/b && chmod 600 'root/home/deploy/.netrc' creates=root/root/b",
                    "args": {"chdir": "x root/root/y"}}
    kept, _ = role_scenarios.rewrite_task(
        {"command": {"cmd": "install {{ home ~ '/x' }} ~root/z a~b", "removes": "{{ a ~ b }}"}})
    assert kept == {"command": {"cmd": "install {{ home ~ '/x' }} root/root/z a~b", "removes": "{{ a ~ b }}"}}
    assert role_scenarios.rewrite_task({"debug": {"msg": "cp a ~/b"}})[0] == {"debug": {"msg": "cp a ~/b"}}


def test_a_top_path_given_as_a_free_form_argument_moves_into_the_scenario() -> None:
    """``file: state=directory path=/encrypted`` (sovereign) made /encrypted on the machine
    running the comparison: a free-form ``key=/path`` moves as a whole value at the top does."""
    assert role_scenarios.rewrite_paths(["state=directory path=/encrypted", "src=/x/y.conf dest=/dev/null mode=0644",
                                         "msg=http://a/b", "a=/ b"]) == [
        "state=directory path=root/encrypted", "src=root/x/y.conf dest=/dev/null mode=0644", "msg=http://a/b", "a=/ b"]


def test_what_needs_root_is_left_out_of_free_form_arguments_too() -> None:
    """``copy: src=a dest=b group=git owner=git`` (sovereign): an owner this machine lacks."""
    kept, covered = role_scenarios.rewrite_task(
        {"copy": "src=a dest=b group=git owner={{ user }} mode=0644 seuser='system_u'"})
    assert (kept, covered) == ({"copy": "src=a dest=b mode=0644"}, 1)
    assert role_scenarios.rewrite_task({"file": "owner=x path=p state=directory"})[0] == {
        "file": "path=p state=directory"}


def test_each_repository_is_listed_once() -> None:
    """A repository listed twice would be cut and measured twice, counting its runs twice."""
    import realroles

    listed = [repo for held_out in (False, True) for repo, _ in realroles.load_repos(held_out)]
    assert sorted({repo for repo in listed if listed.count(repo) > 1}) == []


def test_a_command_that_only_reads_is_kept_without_creates_or_removes() -> None:
    """``grep``/``test``/``systemctl is-enabled`` registered and read by later conditions are what
    real roles are made of; a line that may write, start another program, or read what changes
    from run to run stays a placeholder."""
    kept = ["grep -c '^PermitRootLogin' root/etc/ssh/sshd_config", "test -f root/etc/x && echo yes",
            "set -o pipefail && awk -F: '{print $1}' root/etc/passwd | sort | uniq -d",
            "systemctl is-enabled ssh", "grep x y 2>/dev/null || true", "id -u \"{{ user }}\"", "command -v git"]
    for line in kept:
        assert role_scenarios.rewrite_task({"shell": line, "register": "r"})[1] == 1, line
    placeholders = ["rm -rf root/etc/x", "find root/etc -name '*.bak' -delete", "sed -i 's/a/b/' f",
                    "systemctl restart ssh", "echo x > root/etc/y", "{{ binary }} --version", "echo $(id -u)",
                    "cat /proc/sys/kernel/random/uuid", "date +%s", "X=1 grep a b", "sleep 100 &",
                    "awk '{system(\"rm \" $1)}' f", "sort -o out in", "sudo cat f",
                    "find / -xdev -name .shosts", "grep x /home/u/.bashrc", "find {{ homes }} -type f"]
    for line in placeholders:
        assert "ansible.builtin.debug" in role_scenarios.rewrite_task({"shell": line})[0], line
    assert role_scenarios.rewrite_task({"command": {"argv": ["grep", "-q", "x", "f"]}})[1] == 1
    assert role_scenarios.rewrite_task({"command": None, "args": {"cmd": "cat f"}})[1] == 1


def test_action_and_local_action_forms_are_kept_as_written() -> None:
    """``action: template src=a dest=b`` and ``local_action: {module: copy, ...}`` were turned into
    placeholders whatever their module; they run on this machine like any other form."""
    assert role_scenarios.rewrite_task({"name": "t", "action": "template src=a dest=b owner=root"}) == (
        {"name": "t", "action": "template src=a dest=b"}, 1)
    assert role_scenarios.rewrite_task({"local_action": {"module": "copy", "content": "x", "dest": "y",
                                                         "group": "g"}}) == (
        {"local_action": {"module": "copy", "content": "x", "dest": "y"}}, 1)
    assert role_scenarios.rewrite_task({"local_action": "apt name=x", "when": "c"})[0] == {
        "when": "c", "ansible.builtin.debug": {"msg": "not run here: apt"}}


def test_a_delegation_to_this_machine_is_kept_another_one_dropped() -> None:
    copy = {"ansible.builtin.copy": {"content": "x", "dest": "y"}}
    assert role_scenarios.rewrite_task({**copy, "delegate_to": "localhost"})[0] == {**copy, "delegate_to": "localhost"}
    assert role_scenarios.rewrite_task({**copy, "delegate_to": "{{ groups.db[0] }}"})[0] == copy


def test_modules_kept_only_with_some_arguments() -> None:
    """A pause of a few seconds and an unarchive of a file are kept; a longer wait and a download
    are not (the engine refuses a URL source before the run)."""
    assert role_scenarios.rewrite_task({"pause": {"seconds": 2}})[1] == 1
    assert role_scenarios.rewrite_task({"pause": {"prompt": "go on?"}})[1] == 1
    assert role_scenarios.rewrite_task({"pause": "minutes=1"})[1] == 0
    assert role_scenarios.rewrite_task({"pause": {"seconds": "{{ wait }}"}})[1] == 0
    assert role_scenarios.rewrite_task({"unarchive": {"src": "app.tgz", "dest": "d"}})[1] == 1
    assert role_scenarios.rewrite_task({"unarchive": "src=https://x/app.tgz dest=d remote_src=yes"})[1] == 0
    meta = {"meta": "clear_facts", "when": "x"}
    assert role_scenarios.rewrite_task(meta) == (meta, 0)
    assert "ansible.builtin.debug" in role_scenarios.rewrite_task({"meta": "reset_something"})[0]


def test_the_reach_counts_each_task_kept_or_why_not(tmp_path: Path) -> None:
    import reach

    tasks = tmp_path / "o+r" / "tasks"
    tasks.mkdir(parents=True)
    (tasks / "main.yml").write_text(yaml.safe_dump([
        {"copy": {"content": "x", "dest": "/etc/x"}}, {"apt": {"name": "x"}},
        {"block": [{"include_role": {"name": "other"}}, {"community.mysql.mysql_db": {"name": "d"}}]},
        {"get_url": {"url": "https://x", "dest": "/tmp/x"}}, {"shell": "make install"},
        {"shell": "grep -c x /etc/y", "register": "r"}, {"debug": {"msg": "x"}}]))
    reasons, modules = reach.count([tmp_path])
    assert dict(reasons) == {"kept": 3, "system module": 1, "another role": 1, "module the engine lacks": 1,
                             "module left out": 1, "command that may write": 1}
    assert modules["module the engine lacks", "community.mysql.mysql_db"] == 1
    assert reach.report([tmp_path])[0] == "8 tasks"


def test_a_system_path_inside_a_jinja_statement_moves_too() -> None:
    """``rbenv_root: '{% if rbenv.env == 'system' %}/usr/local/rbenv{% else %}~/.rbenv{% endif %}'``
    (zzet/ansible-rbenv-role) made /usr/local/rbenv on the machine that recorded it; a path after a
    variable (``{{ prefix }}/etc``) stays the variable's."""
    assert role_scenarios.rewrite_paths(["{% if a %}/usr/local/rbenv{% else %}x{% endif %}", "{{ prefix }}/etc/x"]) == [
        "{% if a %}root/usr/local/rbenv{% else %}x{% endif %}", "{{ prefix }}/etc/x"]


def test_an_interpreter_is_not_moved() -> None:
    """A role's ``ansible_python_interpreter: /usr/bin/python3`` names the program modules run with:
    moved under root/ it would not start, and the run would differ for that alone."""
    assert role_scenarios.rewrite_paths({"ansible_python_interpreter": "/usr/bin/python3", "conf": "/etc/x"}) == {
        "ansible_python_interpreter": "/usr/bin/python3", "conf": "root/etc/x"}
