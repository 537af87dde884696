"""What the module-argument rules (PLS124-PLS128) judge and what they leave alone: a
collection module is judged like an ansible-core one, through the play's ``collections:`` too;
an action plugin, a ``library/`` module, ``module_defaults``, ``args:`` from a variable and an
option that falls back to an environment variable are not."""

from __future__ import annotations

from pathlib import Path

import pytest
from ruletest import check, write_files

from engine.plugins.names import find_ansible_core

pytestmark = pytest.mark.skipif(find_ansible_core() is None, reason="needs ansible-core's modules")

COLLECTION = "collections/ansible_collections/acme/tools"
MODULE = '''
DOCUMENTATION = r"""
module: {name}
short_description: A module
options:
  name:
    type: str
    required: true
  state:
    type: str
    choices: [present, absent]
  token:
    description: The API token; taken from E(ACME_TOKEN) when not given.
    type: str
    required: true
"""
from ansible.module_utils.basic import AnsibleModule
SPEC = dict(name=dict(type='str', required=True), state=dict(type='str', choices=['present', 'absent']),
            token=dict(type='str', required=True, fallback=(env_fallback, ['ACME_TOKEN'])))
'''
RUNTIME = """
plugin_routing:
  modules:
    old_thing:
      redirect: acme.tools.thing
      deprecation:
        removal_version: 3.0.0
        warning_text: Use acme.tools.thing instead.
"""


def tree(repo: Path, tasks: str, extra: dict[str, str] | None = None) -> None:
    write_files(repo, {
        f"{COLLECTION}/plugins/modules/thing.py": MODULE.format(name="thing"),
        f"{COLLECTION}/plugins/modules/acted.py": MODULE.format(name="acted"),
        f"{COLLECTION}/plugins/action/acted.py": "",
        f"{COLLECTION}/plugins/modules/netos_config.py": MODULE.format(name="netos_config"),
        f"{COLLECTION}/plugins/action/netos.py": "",
        f"{COLLECTION}/meta/runtime.yml": RUNTIME,
        f"{COLLECTION}/plugins/modules/win_old.ps1": "$params = Parse-Args $args\n",
        f"{COLLECTION}/plugins/modules/win_old.py": MODULE.format(name="win_old"),
        f"{COLLECTION}/plugins/modules/win_new.ps1": "#AnsibleRequires -CSharpUtil Ansible.Basic\n",
        f"{COLLECTION}/plugins/modules/win_new.py": MODULE.format(name="win_new"),
        "library/mine.py": MODULE.format(name="mine"),
        "action_plugins/copy.py": "",
        "site.yml": "- hosts: all\n  collections: [acme.tools]\n  tasks:\n" + tasks,
        **(extra or {}),
    })


def codes(repo: Path) -> list[tuple[str, int]]:
    return sorted((f.code, f.span.line) for f in check(repo, {}) if f.code in
            ("PLS124", "PLS125", "PLS126", "PLS127", "PLS128") and f.span)


def test_a_collection_module_by_its_short_name(repo: Path) -> None:
    tree(repo, "    - thing: {name: x, state: gone, colour: red}\n")
    assert codes(repo) == [("PLS124", 3), ("PLS126", 3)]


def test_a_powershell_module_is_judged_when_it_checks_its_arguments(repo: Path) -> None:
    # a legacy module (Parse-Args, Get-AnsibleParam) ignores what it does not read
    tree(repo, "    - acme.tools.win_new: {name: x, colour: red}\n    - acme.tools.win_old: {name: x, colour: red}\n")
    assert codes(repo) == [("PLS124", 3)]


def test_a_deprecated_module_names_its_replacement(repo: Path) -> None:
    tree(repo, "    - acme.tools.old_thing: {name: x}\n")
    found = [f for f in check(repo, {}) if f.code == "PLS128"]
    assert [f.message for f in found] == [
        "acme.tools.old_thing is deprecated (removal in version 3.0.0): Use acme.tools.thing instead. "
        "It now redirects to acme.tools.thing."]


@pytest.mark.parametrize("task", [
    "    - acme.tools.acted: {colour: red}\n",  # its own action plugin
    "    - acme.tools.netos_config: {colour: red}\n",  # the platform's action plugin
    "    - mine: {colour: red}\n",  # a library/ module
    "    - copy: {colour: red}\n",  # the project's action plugin
    "    - thing: '{{ thing_args }}'\n",  # its arguments from a variable
    "    - thing: {name: x}\n      args: '{{ more }}'\n",
    "    - thing: {name: x, state: '{{ wanted }}', colour: '{{ omit }}'}\n",  # templates
])
def test_not_judged(repo: Path, task: str) -> None:
    tree(repo, task)
    assert codes(repo) == []


def test_module_defaults_may_give_a_required_option(repo: Path) -> None:
    tree(repo, "    - thing: {state: present}\n      module_defaults: {acme.tools.thing: {name: x}}\n"
               "    - thing: {state: present}\n")
    assert codes(repo) == [("PLS125", 5)]
    message = next(f.message for f in check(repo, {}) if f.code == "PLS125")
    assert message.startswith("acme.tools.thing requires 'name' and this task does not give it")


def test_the_editor_reports_them_too(repo: Path) -> None:
    from playbook_ls.features.workspace import WorkspaceIndex

    tree(repo, "    - thing: {name: x, colour: red}\n")
    workspace = WorkspaceIndex(str(repo))
    workspace.index()
    found = [(f.code, f.span.line) for f in workspace.findings_for(str(repo / "site.yml")) if f.code == "PLS124"]
    assert found == [("PLS124", 3)]
