"""Which engine a run uses, the ansible-playbook command line it becomes, what that command line
cannot say, and `playbook-ls run --engine auto` handing a run to ansible-playbook."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from engine.flow.plan import RunOptions, make_plan
from playbook_ls.features.ansible_runs import (
    CALLBACK,
    CALLBACK_DIR,
    ansible_command,
    ansible_environment,
    choose_engine,
    differences,
    find_ansible_playbook,
    remote_hosts,
)

PLAYBOOK = """\
- hosts: all
  gather_facts: false
  tasks:
    - name: look root up
      ansible.builtin.getent:
        database: passwd
        key: root
    - name: say
      debug:
        msg: "{{ ansible_facts.getent_passwd.root is defined }}"
"""


def test_auto_takes_the_bundled_engine_only_when_it_can_do_everything() -> None:
    assert choose_engine("auto", [], [])[0] == "bundled"
    engine, why = choose_engine("auto", ["site.yml:3:7: no module 'apt'", "another"], [])
    assert engine == "ansible" and why == "site.yml:3:7: no module 'apt' (and 1 more)"
    assert choose_engine("auto", [], ["web1"]) == ("ansible", "web1 is not on this machine")
    assert choose_engine("auto", [], ["a", "b", "c", "d"])[1] == "a, b, c and 1 more are not on this machine"
    assert choose_engine("bundled", ["x"], ["web1"])[0] == "bundled"
    assert choose_engine("ansible", [], [])[0] == "ansible"


def test_hosts_on_the_local_connection_are_local(tmp_path: Path) -> None:
    (tmp_path / "site.yml").write_text("- hosts: all\n  gather_facts: false\n  tasks: [{debug: {msg: x}}]\n"
                                       "- hosts: all\n  connection: local\n  gather_facts: false\n  tasks: []\n")
    inventory = "localhost\nbox ansible_connection=local\nweb1\n[db]\ndb1 ansible_host=10.0.0.1\n"
    (tmp_path / "hosts.ini").write_text(inventory)
    plan = make_plan(RunOptions(playbook=str(tmp_path / "site.yml"), inventory=[str(tmp_path / "hosts.ini")]))
    assert remote_hosts(plan) == ["web1", "db1"]  # the second play is on the local connection


def test_the_command_line_says_the_whole_selection() -> None:
    options = SimpleNamespace(playbook="site.yml", inventory=["hosts.ini", "more/"], check=True, diff=True,
                              tags=["a", "b"], skip_tags=["never"], limit="web*", extra_vars={"x": 1}, verbosity=2)
    assert ansible_command(options, "ansible-playbook") == [
        "ansible-playbook", "site.yml", "-i", "hosts.ini", "-i", "more/", "--check", "--diff", "--tags", "a,b",
        "--skip-tags", "never", "--limit", "web*", "-e", '{"x": 1}', "-vv"]


def test_one_play_of_several_is_a_difference() -> None:
    assert differences(1, "only", "site.yml") == []
    assert differences(3, None, "site.yml") == []
    [said] = differences(3, "web", "deploy/site.yml")
    assert "the other 2 plays of site.yml run too" in said and "'web'" in said


def test_the_callback_is_added_to_the_users_own() -> None:
    env = ansible_environment({"ANSIBLE_CALLBACKS_ENABLED": "timer", "ANSIBLE_CALLBACK_PLUGINS": "/mine"})
    assert env["ANSIBLE_CALLBACKS_ENABLED"] == f"timer,{CALLBACK}"
    assert env["ANSIBLE_CALLBACK_PLUGINS"].split(":") == ["/mine", str(CALLBACK_DIR)]
    assert (CALLBACK_DIR / f"{CALLBACK}.py").is_file()


def test_run_engine_auto_hands_a_module_the_engine_lacks_to_ansible(tmp_path: Path) -> None:
    if find_ansible_playbook() is None:
        pytest.skip("ansible-playbook is not installed")
    (tmp_path / "site.yml").write_text(PLAYBOOK)
    local = f"localhost ansible_connection=local ansible_python_interpreter={sys.executable}\n"
    (tmp_path / "hosts.ini").write_text(local)
    done = subprocess.run([sys.executable, "-m", "playbook_ls", "run", "site.yml", "-i", "hosts.ini", "--check",
                           "--engine", "auto"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "running with ansible-playbook: " in done.stderr and "no module 'ansible.builtin.getent'" in done.stderr
    assert "TASK [look root up]" in done.stdout and '"msg": true' in done.stdout
    bundled = subprocess.run([sys.executable, "-m", "playbook_ls", "run", "site.yml", "-i", "hosts.ini", "--check"],
                             cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert bundled.returncode == 1 and "no module 'ansible.builtin.getent'" in bundled.stderr


def test_a_task_delegated_to_a_remote_host_needs_ansible(tmp_path: Path) -> None:
    (tmp_path / "site.yml").write_text(
        "- hosts: localhost\n  gather_facts: false\n  tasks:\n"
        "    - {name: here, debug: {msg: x}, delegate_to: box}\n"
        "    - {name: there, debug: {msg: x}, delegate_to: db1}\n"
        "    - {name: templated, debug: {msg: x}, delegate_to: '{{ target }}'}\n"
        "    - {name: loopback, debug: {msg: x}, delegate_to: 127.0.0.1}\n")
    (tmp_path / "hosts.ini").write_text("localhost ansible_connection=local\nbox ansible_connection=local\ndb1\n")
    plan = make_plan(RunOptions(playbook=str(tmp_path / "site.yml"), inventory=[str(tmp_path / "hosts.ini")]))
    assert remote_hosts(plan) == ["db1", "{{ target }}"]


def test_start_at_task_matching_gathering_facts_is_handed_to_ansible_playbook(tmp_path: Path) -> None:
    """The bundled engine starts at a task as ansible does (tests/run/scenarios_in_process/start_at_*),
    but not at a pattern that matches the implicit "Gathering Facts" task: it refuses before running
    anything, and ``--engine auto`` hands the run to ansible-playbook, which starts there."""
    (tmp_path / "site.yml").write_text("- hosts: localhost\n  gather_facts: false\n  tasks:\n"
                                       "    - {name: first, debug: {msg: one}}\n"
                                       "    - {name: second, debug: {msg: two}}\n")
    (tmp_path / "hosts.ini").write_text("localhost ansible_connection=local\n")
    argv = [sys.executable, "-m", "playbook_ls", "run", "site.yml", "-i", "hosts.ini", "--start-at-task", "*s*"]
    bundled = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert bundled.returncode == 1 and "matches the implicit \"Gathering Facts\" task" in bundled.stderr
    assert "TASK [" not in bundled.stdout
    options = SimpleNamespace(playbook="site.yml", inventory=[], check=False, diff=False, tags=[], skip_tags=[],
                              limit=None, extra_vars={}, verbosity=0, start_at_task="*s*")
    assert ansible_command(options, "ansible-playbook")[-2:] == ["--start-at-task", "*s*"]
    started = subprocess.run([*argv[:-1], "second"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert started.returncode == 0 and "TASK [second]" in started.stdout and "TASK [first]" not in started.stdout
    if find_ansible_playbook() is None:
        return
    auto = subprocess.run([*argv, "--engine", "auto"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert auto.returncode == 0 and "running with ansible-playbook: " in auto.stderr
    assert "TASK [Gathering Facts]" in auto.stdout and "TASK [first]" in auto.stdout


ENCRYPTED_VARS = """$ANSIBLE_VAULT;1.1;AES256
37303863613839386638396230376532633739626535333564643533326234363930623363623562
6230346461393662386639386464356464663930393231320a663938313837313661356165656363
65653565393135343765366166383234633465376233666364643034363061326665353133353462
3565333437633538360a323037653933353931623237656437313132323031386538646562613134
37346665663361316530616234356133306262313165653865366361376163363833
"""  # db_password: hunter2, encrypted with the password "pw"


def test_run_takes_the_vault_options_declines_them_bundled_and_gives_them_to_ansible_playbook(
        tmp_path: Path) -> None:
    """``run`` takes ansible-playbook's vault options: the bundled engine never decrypts, so it
    declines before the run and names the option; ``--engine auto`` hands the run over with them."""
    from engine.vault import given_on_command_line

    (tmp_path / "secrets.yml").write_text(ENCRYPTED_VARS)
    (tmp_path / "pw.txt").write_text("pw\n")
    (tmp_path / "site.yml").write_text("- hosts: localhost\n  gather_facts: false\n  vars_files: [secrets.yml]\n"
                                       "  tasks:\n    - debug: {msg: '{{ db_password | length }}'}\n")
    (tmp_path / "hosts.ini").write_text("localhost ansible_connection=local\n")
    argv = [sys.executable, "-m", "playbook_ls", "run", "site.yml", "-i", "hosts.ini",
            "--vault-password-file", "pw.txt"]
    bundled = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert bundled.returncode == 1 and "TASK [" not in bundled.stdout
    assert "the command line's --vault-password-file pw.txt, which gives ansible vault secrets" in bundled.stderr
    options = SimpleNamespace(playbook="site.yml", inventory=[], check=False, diff=False, tags=[], skip_tags=[],
                              limit=None, extra_vars={}, verbosity=0)
    given_on_command_line(["dev@prompt"], ["pw.txt"], ask=True)
    try:
        assert ansible_command(options, "ansible-playbook")[2:] == [
            "--vault-id", "dev@prompt", "--vault-password-file", "pw.txt", "--ask-vault-pass"]
    finally:
        given_on_command_line()
    assert ansible_command(options, "ansible-playbook") == ["ansible-playbook", "site.yml"]
    if find_ansible_playbook() is None:
        return
    auto = subprocess.run([*argv, "--engine", "auto"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert auto.returncode == 0 and "running with ansible-playbook: " in auto.stderr
    assert '"msg": 7' in auto.stdout  # decrypted by ansible-playbook: hunter2 has 7 characters
