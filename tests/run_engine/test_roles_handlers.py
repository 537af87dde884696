"""Handlers and roles where no recorded scenario can say it: ansible-playbook ends such runs
before its JSON callback writes anything (a notification nothing answers), or the behaviour is
the engine's own (a filter it lacks found before the run)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import run_playbook

MISSING = """
- hosts: localhost
  gather_facts: false
  tasks:
    - name: change
      command: "true"
      notify: nobody listens
    - name: never reached
      debug: {msg: after}
"""
MISSING_TEXT = ("[ERROR]: The requested handler 'nobody listens' was not found in either the main handlers list "
                "nor in the listening handlers list\n")


def test_a_notification_no_handler_answers_ends_the_playbook(tmp_path: Path) -> None:
    code, out, data = run_playbook(tmp_path, MISSING)
    assert code == 1
    assert out.endswith("TASK [change] " + "*" * 66 + "\n" + MISSING_TEXT)  # before the result, no recap
    assert data["tasks"] == []


def test_error_on_missing_handler_false_only_warns(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANSIBLE_ERROR_ON_MISSING_HANDLER", "false")
    code, out, _ = run_playbook(tmp_path, MISSING)
    assert code == 0
    assert "[WARNING]: The requested handler 'nobody listens' was not found" in out
    assert "PLAY RECAP" in out


FORCED = """
- hosts: localhost
  gather_facts: false
  tasks:
    - name: change
      command: "true"
      notify: handler
    - name: fail
      fail: {msg: boom}
  post_tasks:
    - name: not after a failure
      debug: {msg: post}
  handlers:
    - name: handler
      debug: {msg: handler ran}
"""


@pytest.mark.parametrize("forced", [False, True])
def test_force_handlers_option(tmp_path: Path, forced: bool) -> None:
    code, out, data = run_playbook(tmp_path, FORCED, force_handlers=forced)
    assert code == 2
    statuses = [(t["task"], t["status"]) for t in data["tasks"]]
    assert statuses == [("change", "changed"), ("fail", "failed")] + ([("handler", "ok")] if forced else [])
    assert "not after a failure" not in out


@pytest.fixture
def installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The collections the filters of these playbooks come from, installed where ansible looks
    (and nothing else: no Python path is scanned)."""
    root = tmp_path / "installed"
    for name in ("community/general", "ansible/utils", "ansible/netcommon"):
        (root / "ansible_collections" / name).mkdir(parents=True)
    monkeypatch.setenv("ANSIBLE_COLLECTIONS_PATH", str(root))
    monkeypatch.setenv("ANSIBLE_COLLECTIONS_SCAN_SYS_PATH", "false")
    return root


@pytest.mark.usefixtures("installed")
def test_a_filter_the_engine_lacks_is_found_before_the_run(tmp_path: Path) -> None:
    from engine.flow.plan import RunOptions
    from engine.run.modules import get_module
    from engine.run.preflight import make_run_plan, unknown_module_problems

    (tmp_path / "site.yml").write_text("""
- hosts: localhost
  gather_facts: false
  tasks:
    - debug: {msg: "{{ '52:54' | community.general.random_mac }} {{ 'a|b' | upper }}"}
      when: "'x' | ansible.utils.ipaddr"
""")
    plan = make_run_plan(RunOptions(playbook=str(tmp_path / "site.yml"), inventory=["localhost,"]),
                         has_module=lambda action: get_module(action) is not None)
    messages = [str(problem) for problem in unknown_module_problems(plan)]
    assert len(messages) == 2
    assert "no filter 'community.general.random_mac'" in messages[0]
    assert "no filter 'ansible.utils.ipaddr'" in messages[1]


def _filter_problems(playbook: Path) -> list[str]:
    from engine.flow.plan import RunOptions
    from engine.run.modules import get_module
    from engine.run.preflight import make_run_plan, unknown_module_problems

    plan = make_run_plan(RunOptions(playbook=str(playbook), inventory=["localhost,"]),
                         has_module=lambda action: get_module(action) is not None)
    return [str(problem) for problem in unknown_module_problems(plan)]


@pytest.mark.usefixtures("installed")
def test_a_filter_in_role_defaults_vars_or_a_template_is_found_before_the_run(tmp_path: Path) -> None:
    role = tmp_path / "roles" / "web"
    for sub in ("tasks", "defaults", "vars", "templates", "meta"):
        (role / sub).mkdir(parents=True)
    (role / "tasks" / "main.yml").write_text("- template: {src: conf.j2, dest: /tmp/never}\n")
    (role / "defaults" / "main.yml").write_text(
        "hashed: \"{{ 'x' | password_hash('sha512') }}\"\nfine: \"{{ 1 | int }}\"\n")
    (role / "vars" / "main.yml").write_text("other: 1\n")
    (role / "vars" / "extra.yml").write_text("keys:\n  - \"{{ 'x' | community.general.hashids_encode }}\"\n")
    (role / "templates" / "conf.j2").write_text("a\n{{ '52:54' | community.general.random_mac }}\n{{ 'b' | upper }}\n")
    (role / "meta" / "main.yml").write_text("dependencies: [{role: base}]\n")
    base = tmp_path / "roles" / "base" / "defaults"
    base.mkdir(parents=True)
    (base / "main.yml").write_text("mac: \"{{ 'x' | ansible.utils.hwaddr }}\"\n")
    unused = tmp_path / "roles" / "unused" / "defaults"
    unused.mkdir(parents=True)
    (unused / "main.yml").write_text("never: \"{{ '52:54' | community.general.random_mac }}\"\n")
    (tmp_path / "site.yml").write_text("""
- hosts: localhost
  gather_facts: false
  tasks:
    - import_role: {name: web, vars_from: extra}
""")
    messages = _filter_problems(tmp_path / "site.yml")
    found = {message.split("no filter ")[1].split("'")[1]: message for message in messages}
    assert set(found) == {"password_hash", "community.general.hashids_encode", "community.general.random_mac",
                          "ansible.utils.hwaddr"}
    assert found["password_hash"].startswith(f"{role / 'defaults' / 'main.yml'}:1:")
    assert found["community.general.hashids_encode"].startswith(f"{role / 'vars' / 'extra.yml'}:2:")
    assert found["community.general.random_mac"].startswith(f"{role / 'templates' / 'conf.j2'}:2:")
    assert found["ansible.utils.hwaddr"].startswith(f"{base / 'main.yml'}:1:")


@pytest.mark.usefixtures("installed")
@pytest.mark.parametrize("plugins", [None, "filter_plugins", "roles/web/filter_plugins", "configured"])
def test_a_short_filter_name_ansible_lacks_too_fails_alike_unless_a_plugin_directory_may_hold_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, plugins: str | None) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))  # no user plugin directory
    monkeypatch.delenv("ANSIBLE_FILTER_PLUGINS", raising=False)
    (tmp_path / "roles" / "web" / "tasks").mkdir(parents=True)
    (tmp_path / "roles" / "web" / "tasks" / "main.yml").write_text("- debug: {msg: \"{{ [1] | to_csv }}\"}\n")
    (tmp_path / "site.yml").write_text("""
- hosts: localhost
  gather_facts: false
  roles: [web]
  tasks:
    - debug: {msg: "{{ '52:54' | random_mac }} {{ 'x' | password_hash('sha512') }}"}
""")
    if plugins == "configured":
        monkeypatch.setenv("ANSIBLE_FILTER_PLUGINS", str(tmp_path / "elsewhere"))
    elif plugins is not None:
        (tmp_path / plugins).mkdir(parents=True)
    found = {message.split("no filter ")[1].split("'")[1] for message in _filter_problems(tmp_path / "site.yml")}
    # ansible-core's own and the names it redirects to a collection are always the engine's to decline
    assert found == ({"random_mac", "password_hash"} if plugins is None else {"random_mac", "password_hash", "to_csv"})


@pytest.mark.parametrize("plugins", [False, True])
def test_a_filter_of_a_collection_not_installed_fails_alike(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                           plugins: bool) -> None:
    """ansible-core redirects ``json_query`` and ``ipaddr`` to collections; where they are not
    installed, ansible-playbook fails a template that names one (or its ``NS.COLL.NAME``) with "No
    filter named ...", as the engine does: the run is the engine's. A filter plugin directory may
    hold a short name, not a collection's."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("ANSIBLE_FILTER_PLUGINS", raising=False)
    monkeypatch.setenv("ANSIBLE_COLLECTIONS_PATH", str(tmp_path / "none"))
    monkeypatch.setenv("ANSIBLE_COLLECTIONS_SCAN_SYS_PATH", "false")
    if plugins:
        (tmp_path / "filter_plugins").mkdir()
    (tmp_path / "site.yml").write_text("""
- hosts: localhost
  gather_facts: false
  vars:
    net: "{{ '10.0.0.1/24' | ipaddr('net') }} {{ [1] | community.general.json_query('[0]') }}"
  tasks:
    - debug: {msg: "{{ 'x' | ansible.utils.ipaddr }} {{ 'y' | json_query('a') }}"}
""")
    found = {message.split("no filter ")[1].split("'")[1] for message in _filter_problems(tmp_path / "site.yml")}
    assert found == ({"ipaddr", "json_query"} if plugins else set())


@pytest.mark.usefixtures("installed")
def test_a_template_named_by_a_variable_is_not_looked_into(tmp_path: Path) -> None:
    (tmp_path / "templates").mkdir()
    (tmp_path / "templates" / "conf.j2").write_text("{{ '52:54' | community.general.random_mac }}\n")
    (tmp_path / "site.yml").write_text("""
- hosts: localhost
  gather_facts: false
  vars: {name: conf.j2}
  tasks:
    - template: {src: "{{ name }}", dest: /tmp/never}
    - template: {src: missing.j2, dest: /tmp/never}
""")
    assert _filter_problems(tmp_path / "site.yml") == []
    (tmp_path / "site.yml").write_text(
        "- hosts: localhost\n  gather_facts: false\n  tasks:\n    - template: {src: conf.j2, dest: /tmp/never}\n")
    assert ["community.general.random_mac" in message for message in _filter_problems(tmp_path / "site.yml")] == [True]


def test_engine_auto_hands_a_role_default_filter_to_ansible(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    import playbook_ls.cli.run as cli_run
    from playbook_ls.cli.main import main

    defaults = tmp_path / "roles" / "r" / "defaults"
    defaults.mkdir(parents=True)
    (defaults / "main.yml").write_text("hashed: \"{{ 'x' | password_hash('sha512') }}\"\n")
    (tmp_path / "site.yml").write_text("- hosts: localhost\n  gather_facts: false\n  roles: [r]\n")
    handed: list[str] = []
    monkeypatch.setattr(cli_run, "_hand_to_ansible", lambda options: handed.append(options.playbook) or 0)
    monkeypatch.chdir(tmp_path)
    assert main(["run", "site.yml", "-i", "localhost,", "--engine", "auto"]) == 0
    assert handed == ["site.yml"]
    assert ("running with ansible-playbook: " + str(defaults / "main.yml") + ":1:") in capsys.readouterr().err
