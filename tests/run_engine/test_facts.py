"""Fact gathering: the implicit "Gathering Facts" task, the setup module, and real ansible's values."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from ansible_tools import find_tool
from helpers import run_playbook

from engine.run.facts import subset_names
from engine.run.modules import ModuleError, get_module
from engine.variables.play_context import namespace_facts

PLAY = """\
- hosts: localhost
  {extra}
  tasks:
    - name: show
      debug:
        msg: "{{{{ ansible_facts['system'] }}}}"
"""
STABLE = ("hostname", "nodename", "fqdn", "domain", "system", "kernel", "machine", "architecture", "os_family",
          "distribution", "distribution_version", "distribution_major_version", "distribution_release", "python",
          "distribution_file_parsed", "distribution_file_path", "distribution_file_variety",
          "python_version", "user_id", "user_uid", "user_gid", "user_dir", "user_shell", "processor_vcpus",
          "processor_count", "processor_cores", "processor_nproc", "memtotal_mb", "local", "pkg_mgr", "service_mgr",
          "bios_date", "bios_vendor", "board_name", "form_factor", "product_name", "product_uuid", "system_vendor",
          "ssh_host_key_rsa_public", "ssh_host_key_ed25519_public_keytype")


def _tasks(data: dict) -> list[tuple[str, str]]:
    return [(t["task"], t["status"]) for t in data["tasks"]]


def test_default_play_gathers_and_counts(tmp_path: Path) -> None:
    code, out, data = run_playbook(tmp_path, PLAY.format(extra=""))
    assert code == 0 and "TASK [Gathering Facts]" in out
    assert _tasks(data) == [("Gathering Facts", "ok"), ("show", "ok")]
    assert data["recap"]["localhost"]["ok"] == 2


def test_gather_facts_false_gathers_nothing(tmp_path: Path) -> None:
    code, out, data = run_playbook(tmp_path, PLAY.format(extra="gather_facts: false"))
    assert code == 2 and "Gathering Facts" not in out  # ansible_facts['system'] is undefined
    assert _tasks(data) == [("show", "failed")]


def test_skip_tags_always_skips_gathering(tmp_path: Path) -> None:
    _, _, data = run_playbook(tmp_path, PLAY.format(extra=""), skip_tags=["always"])
    assert _tasks(data)[0] == ("show", "failed")


def test_check_mode_gathers_too(tmp_path: Path) -> None:
    _, _, data = run_playbook(tmp_path, PLAY.format(extra=""), check=True)
    assert _tasks(data) == [("Gathering Facts", "ok"), ("show", "ok")]


@pytest.mark.parametrize(("policy", "setting", "expected"), [
    ("explicit", "", 0), ("explicit", "gather_facts: true", 2), ("smart", "", 1), ("implicit", "", 2)])
def test_gathering_policy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, policy: str, setting: str,
                          expected: int) -> None:
    monkeypatch.setenv("ANSIBLE_GATHERING", policy)
    two_plays = PLAY.format(extra=setting) + PLAY.format(extra=setting)
    _, _, data = run_playbook(tmp_path, two_plays)
    assert [t for t, _ in _tasks(data)].count("Gathering Facts") == expected  # smart gathers once a run


def test_verbose_does_not_dump_gathered_facts(tmp_path: Path) -> None:
    _, out, _ = run_playbook(tmp_path, PLAY.format(extra=""), verbosity=1)
    assert "ok: [localhost]\n" in out and "ansible_kernel" not in out


def test_subsets_and_filter() -> None:
    assert "hardware" not in subset_names(["!all"]) and "platform" in subset_names(["!all"])
    assert "platform" not in subset_names(["!all", "!min"])
    assert "platform" in subset_names(["!all", "!min", "platform"])
    with pytest.raises(ValueError, match="Bad subset 'nope'"):
        subset_names(["nope"])
    setup = get_module("ansible.builtin.setup")
    host = SimpleNamespace(task_vars={})  # the module reads the host's python interpreter there
    facts = setup({"filter": "system,ansible_kernel"}, host)["ansible_facts"]  # type: ignore[arg-type]
    assert sorted(facts) == ["ansible_kernel", "ansible_system"]
    with pytest.raises(ModuleError):
        setup({"gather_subset": "nope"}, host)  # type: ignore[arg-type]


def test_namespace_facts_strips_the_prefix_but_of_ansible_local() -> None:
    assert namespace_facts({"ansible_system": "Linux", "ansible_local": {}, "mine": 1}) == \
        {"system": "Linux", "ansible_local": {}, "mine": 1}


@pytest.mark.ansible
def test_facts_equal_real_ansible(tmp_path: Path) -> None:
    tool = find_tool("ansible")
    if tool is None:
        pytest.skip("ansible not installed")
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANSIBLE_")}
    env.update(ANSIBLE_PYTHON_INTERPRETER=sys.executable, ANSIBLE_HOME=str(tmp_path / "home"),
               ANSIBLE_LOCAL_TEMP=str(tmp_path / "tmp"), ANSIBLE_LOCALHOST_WARNING="False")
    proc = subprocess.run([tool, "localhost", "-i", "localhost,", "-c", "local", "-m", "setup"], env=env,
                          capture_output=True, text=True, timeout=120, check=False)
    theirs = json.loads(proc.stdout[proc.stdout.index("{"):])["ansible_facts"]
    ours = get_module("setup")({}, SimpleNamespace(task_vars={}))["ansible_facts"]  # type: ignore[arg-type]
    for key in STABLE:
        assert ours.get(f"ansible_{key}") == theirs.get(f"ansible_{key}"), key
    assert set(ours["ansible_date_time"]) == set(theirs["ansible_date_time"])
    assert ours["gather_subset"] == theirs["gather_subset"] and ours["module_setup"] is True


@pytest.mark.parametrize(("present", "family", "expected"), [
    ({"/usr/bin/apt-get"}, "Debian", "apt"),
    ({"/usr/bin/apt-get", "/usr/bin/zypper"}, "Debian", "apt"),  # a distribution's own manager, not the last found
    ({"/usr/bin/yum", "/usr/bin/dnf"}, "RedHat", "dnf"),
    ({"/usr/bin/zypper"}, "Suse", "zypper"),
    ({"/sbin/apk"}, "Alpine", "apk"),
    (set(), "Archlinux", "unknown"),
])
def test_pkg_mgr_as_ansible_picks_it(monkeypatch: pytest.MonkeyPatch, present: set[str], family: str,
                                     expected: str) -> None:
    from engine.run import facts_managers

    monkeypatch.setattr(facts_managers.os.path, "exists", lambda path: path in present)
    monkeypatch.setattr(facts_managers.os.path, "realpath", lambda path: path)
    assert facts_managers.pkg_mgr_facts({"os_family": family, "system": "Linux"}) == {"pkg_mgr": expected}


@pytest.mark.parametrize(("comm", "expected"), [("systemd\n", "systemd"), ("runit-init\n", "runit"),
                                                ("bash\n", "service"), ("init\n", "service")])
def test_service_mgr_from_pid_1(monkeypatch: pytest.MonkeyPatch, comm: str, expected: str) -> None:
    from engine.run import facts_managers

    monkeypatch.setattr(facts_managers, "open", lambda *_args, **_kwargs: io.StringIO(comm), raising=False)
    monkeypatch.setattr(facts_managers, "_linux_service_mgr", lambda: None)
    assert facts_managers.service_mgr_facts({"system": "Linux"}) == {"service_mgr": expected}


def test_debian_distribution_file_facts(monkeypatch: pytest.MonkeyPatch) -> None:
    """ansible's Debian file parser says which file it parsed, its variety and that it parsed it."""
    from engine.run import facts

    monkeypatch.setattr(facts.platform, "system", lambda: "Linux")
    release = {"ID": "debian", "VERSION_ID": "12", "VERSION_CODENAME": "bookworm"}
    monkeypatch.setattr(facts, "os_release", lambda: release)
    monkeypatch.setattr(facts, "_read", lambda path: "12.11\n" if path == "/etc/debian_version" else None)
    found = facts.distribution_facts()
    assert {k: v for k, v in found.items() if k.startswith("distribution_file")} == {
        "distribution_file_path": "/etc/os-release", "distribution_file_variety": "Debian",
        "distribution_file_parsed": True}
    assert found["distribution_version"] == "12.11"


def test_python_facts_name_the_hosts_interpreter(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """ansible runs the setup module with the host's python: its facts name that interpreter as
    it was started (another name of this Python), or what another interpreter says of itself."""
    from engine.run.facts import python_facts
    from engine.run.modules.setup import host_interpreter

    alias = tmp_path / "python-alias"
    alias.symlink_to(sys.executable)
    assert python_facts(str(alias))["python"]["executable"] == str(alias)
    assert python_facts(str(alias))["python"]["version_info"] == list(sys.version_info)
    other = tmp_path / "other-python"
    other.write_text('#!/bin/sh\necho \'["/opt/py/bin/python3.9", [3, 9, 1, "final", 0], "cpython"]\'\n')
    other.chmod(0o755)
    facts = python_facts(str(other))["python"]
    assert facts["executable"] == "/opt/py/bin/python3.9" and facts["version"]["minor"] == 9
    assert python_facts()["python"]["executable"] == sys.executable
    monkeypatch.setenv("ANSIBLE_PYTHON_INTERPRETER", "auto_silent")
    assert host_interpreter({}) is None
    monkeypatch.setenv("ANSIBLE_PYTHON_INTERPRETER", str(alias))
    assert host_interpreter({}) == str(alias)
    assert host_interpreter({"ansible_python_interpreter": "/usr/bin/python9"}) == "/usr/bin/python9"
