"""Callback plugins ansible-playbook loads without being asked decline the run before it starts
(engine.run.callback_declines): a plugin beside the playbook or a role, or in the configured
callback path, that is no stdout callback and does not need enabling, or that replaces the stdout
callback by its name."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from helpers import write

from engine.flow.plan import RunOptions
from engine.run.preflight import make_run_plan, unknown_module_problems

RUNS = "from ansible.plugins.callback import CallbackBase\n\nclass CallbackModule(CallbackBase):\n" \
       "    CALLBACK_VERSION = 2.0\n    CALLBACK_NAME = 'notify'\n"
NEEDS_ENABLING = RUNS + "    CALLBACK_NEEDS_ENABLED = True\n"
STDOUT = RUNS + "    CALLBACK_TYPE = 'stdout'\n"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("ANSIBLE_CALLBACK_PLUGINS", "ANSIBLE_STDOUT_CALLBACK", "ANSIBLE_CALLBACKS_ENABLED", "ANSIBLE_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("ANSIBLE_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("ANSIBLE_CONFIG", str(tmp_path / "ansible.cfg"))
    (tmp_path / "ansible.cfg").write_text("")
    write(tmp_path, {"site.yml": "- hosts: all\n  gather_facts: false\n  roles: [web]\n",
                     "roles/web/tasks/main.yml": "- debug: {msg: x}\n"})
    return tmp_path


def _declined(root: Path) -> list[str]:
    plan = make_run_plan(RunOptions(playbook=str(root / "site.yml"), inventory=["localhost,"]),
                         has_module=lambda action: True)
    return [str(problem) for problem in unknown_module_problems(plan) if "callback plugin" in str(problem)]


def test_a_plugin_beside_the_playbook_that_needs_no_enabling_declines(project: Path) -> None:
    write(project, {"callback_plugins/notify.py": RUNS, "callback_plugins/__init__.py": "",
                    "callback_plugins/README.md": "x"})
    declined = _declined(project)
    assert len(declined) == 1 and "callback_plugins/notify.py" in declined[0]


def test_plugins_that_need_enabling_or_are_stdout_callbacks_run(project: Path) -> None:
    write(project, {"callback_plugins/quiet.py": NEEDS_ENABLING, "callback_plugins/other_stdout.py": STDOUT,
                    "callback_plugins/legacy.py": RUNS + "    CALLBACK_NEEDS_WHITELIST = True\n"})
    assert _declined(project) == []


def test_needs_enabled_false_wins_over_the_old_whitelist_name(project: Path) -> None:
    write(project, {"callback_plugins/loud.py": RUNS + "    CALLBACK_NEEDS_ENABLED = False\n"
                                                       "    CALLBACK_NEEDS_WHITELIST = True\n"})
    assert len(_declined(project)) == 1


def test_a_plugin_named_as_the_stdout_callback_replaces_it(project: Path) -> None:
    write(project, {"callback_plugins/default.py": STDOUT})
    assert len(_declined(project)) == 1


def test_a_role_plugin_and_the_configured_path_count(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(project, {"roles/web/callback_plugins/audit.py": RUNS, "configured/mail.py": "class Broken(:\n"})
    monkeypatch.setenv("ANSIBLE_CALLBACK_PLUGINS", str(project / "configured"))
    declined = _declined(project)
    assert [("mail.py" in problem, "audit.py" in problem) for problem in declined] == [(True, False), (False, True)]


def test_no_callback_directory_declines_nothing(project: Path) -> None:
    assert _declined(project) == []


def test_a_plugin_too_deep_or_too_large_to_read_declines_without_a_traceback(project: Path) -> None:
    write(project, {"callback_plugins/deep.py": NEEDS_ENABLING + "X = " + "-" * 200_000 + "1\n"})
    (project / "callback_plugins" / "fifo.py").unlink(missing_ok=True)
    os.mkfifo(project / "callback_plugins" / "fifo.py")  # not a regular file: skipped, never waited on
    declined = _declined(project)
    assert len(declined) == 1 and "callback_plugins/deep.py" in declined[0]
