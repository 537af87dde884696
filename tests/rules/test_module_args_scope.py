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


DSC_DOC = '''
DOCUMENTATION = r"""
module: win_dsc_like
short_description: Invokes a resource
options:
  resource_name:
    type: str
    required: yes
  free_form:
    description:
    - The module takes in multiple free form options based on the resource being invoked.
    - There is no option actually named C(free_form) so see the examples.
    type: str
    required: true
"""
'''
DSC_CODE = """#AnsibleRequires -CSharpUtil Ansible.Basic
$spec = Get-OptionSpec -ClassName $resource.ResourceType
$spec.options."$($property_name)_password" = $option_spec_pass
$module = [Ansible.Basic.AnsibleModule]::Create($args, $spec)
"""


def test_a_module_whose_options_are_built_at_run_time_is_not_judged(repo: Path) -> None:
    # win_dsc: the DSC resource's properties are its options, and free_form is a pseudo-option
    # (10 PLS124 and 5 PLS125, all false, in one Windows repository)
    tree(repo, "    - acme.tools.win_dsc_like: {resource_name: File, DestinationPath: C:\\\\x, Ensure: Present}\n",
         {f"{COLLECTION}/plugins/modules/win_dsc_like.ps1": DSC_CODE,
          f"{COLLECTION}/plugins/modules/win_dsc_like.py": DSC_DOC})
    assert codes(repo) == []


def test_the_free_form_pseudo_option_alone_makes_the_options_open(repo: Path) -> None:
    code = "#AnsibleRequires -CSharpUtil Ansible.Basic\n$module = [Ansible.Basic.AnsibleModule]::Create($args, @{})\n"
    tree(repo, "    - acme.tools.win_dsc_like: {resource_name: File, Ensure: Present}\n",
         {f"{COLLECTION}/plugins/modules/win_dsc_like.ps1": code,
          f"{COLLECTION}/plugins/modules/win_dsc_like.py": DSC_DOC})
    assert codes(repo) == []


def test_open_modules_are_derived_from_their_documentation_and_code() -> None:
    from playbook_ls.rules.open_options import known_open_modules, open_reason

    assert "ansible.windows.win_dsc" in known_open_modules()  # written by scripts/gen_open_option_modules.py
    command_doc = {"options": {"free_form": {}, "chdir": {}}}
    assert open_reason(command_doc, "module = AnsibleModule(argument_spec=dict(_raw_params=dict()))") is None
    assert open_reason(command_doc, "") is None  # a documentation stub: its action plugin takes the words
    assert open_reason(command_doc, "module = AnsibleModule(argument_spec=dict())") is not None
    assert open_reason({"options": {}}, "for name in found:\n    argument_spec[name] = dict(type='raw')") is not None
    assert open_reason({"options": {}}, "argument_spec['name'] = dict(type='str')") is None


TAGGER = '''
DOCUMENTATION = r"""
module: tagger
short_description: Tags a resource
options:
  state:
    description:
      - The use of O(state=list) to interrogate the tags was removed in release 4.0.0.
        The 'list' functionality has been moved to a dedicated module M(acme.tools.tagger_info).
    type: str
    choices: [present, absent]
    default: present
  tags:
    type: dict
    required: true
"""
from ansible.module_utils.basic import AnsibleModule
SPEC = dict(state=dict(choices=['present', 'absent'], default='present'), tags=dict(type='dict', required=True))
'''


def test_a_removed_choice_is_one_finding_that_names_where_it_went(repo: Path) -> None:
    # ec2_tag with state: list gave PLS125 (tags) and PLS126 (state), neither naming ec2_tag_info
    tree(repo, "    - acme.tools.tagger: {state: list}\n", {f"{COLLECTION}/plugins/modules/tagger.py": TAGGER})
    found = [f for f in check(repo, {}) if f.code in ("PLS124", "PLS125", "PLS126")]
    assert [f.code for f in found] == ["PLS126"]
    assert "moved to acme.tools.tagger_info" in found[0].message


AUDIT = '''
DOCUMENTATION = r"""
module: win_audit
short_description: Sets an audit policy
options:
  audit_type:
    type: list
    elements: str
    choices: [failure, none, success]
    required: true
"""
'''


def test_a_powershell_module_trims_list_items_and_ignores_case(repo: Path) -> None:
    # Windows-2016-CIS: `audit_type: success, failure` is fine for Ansible.Basic, which trims the
    # items of a comma-separated list (Python's list conversion does not)
    ps1 = "#AnsibleRequires -CSharpUtil Ansible.Basic\n$spec = @{ options = @{ audit_type = @{ " \
          "type = 'list'; elements = 'str'; choices = 'failure', 'none', 'success' } } }\n"
    tree(repo, "    - acme.tools.win_audit: {audit_type: 'success, failure'}\n"
               "    - acme.tools.win_audit: {audit_type: 'Success'}\n"
               "    - acme.tools.win_audit: {audit_type: 'success, sometimes'}\n",
         {f"{COLLECTION}/plugins/modules/win_audit.ps1": ps1, f"{COLLECTION}/plugins/modules/win_audit.py": AUDIT})
    assert codes(repo) == [("PLS126", 5)]


def test_a_task_expected_to_fail_is_not_judged(repo: Path) -> None:
    # community.zabbix's integration tests call modules without what they require, ignore the
    # error and assert that the task failed
    tree(repo, "    - thing: {state: present}\n      ignore_errors: true\n"
               "    - thing: {state: present}\n      failed_when: false\n"
               "    - block:\n        - thing: {state: present}\n      ignore_errors: yes\n"
               "    - thing: {state: present}\n      ignore_errors: false\n")
    assert codes(repo) == [("PLS125", 10)]
