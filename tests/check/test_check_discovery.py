"""What ``playbook-ls check`` looks at: playbooks by content, roles, lone roles, skipped directories."""

from __future__ import annotations

import json

from playbook_ls.check.runner import run_check
from playbook_ls.config import load_settings

TAGGED_TASK = "- name: t\n  ansible.builtin.debug:\n    msg: x\n  tags: all\n"  # PLS114 at line 4


def findings(cli, *argv: str) -> list[tuple[str, str, int]]:
    _rc, out, _ = cli("check", "--format", "json", *argv)
    return [(f["path"], f["code"], f["line"]) for f in json.loads(out)["findings"]]


def test_counts_and_what_is_a_playbook(write) -> None:
    root = write({
        "site.yml": "- hosts: all\n  roles: [web]\n",
        "all.yml": "- import_playbook: site.yml\n",
        "vars.yml": "a: 1\n",
        "tasks.yaml": TAGGED_TASK,
        "roles/web/tasks/main.yml": TAGGED_TASK,
        "roles/web/templates/x.yml": "{{ not yaml: [\n",
        "roles/lone/tasks/main.yml": TAGGED_TASK,
        ".hidden/x.yml": "{{ not yaml: [\n",
        "venv/x.yml": "{{ not yaml: [\n",
        "notes.txt": "not yaml: [\n",
    })
    result = run_check(["."], load_settings(None, "."), use_cache=False)
    assert (result.files, result.roles) == (6, 2)
    assert sorted({(f.code, str(f.span.file).removeprefix(str(root) + "/")) for f in result.findings}) == [
        ("PLS114", "roles/lone/tasks/main.yml"), ("PLS114", "roles/web/tasks/main.yml")]


def test_playbook_count_includes_plainly_imported_playbooks(write, cli) -> None:
    write({"site.yml": "- hosts: all\n  tasks: []\n", "all.yml": "- import_playbook: site.yml\n"})
    assert run_check(["."], load_settings(None, "."), use_cache=False).playbooks == 2
    assert cli("check")[1] == "All checks passed (2 playbooks, 2 files).\n"


def test_a_role_used_by_a_playbook_is_reported_once(write, cli) -> None:
    write({"site.yml": "- hosts: all\n  roles: [web]\n", "other.yml": "- hosts: all\n  roles: [web]\n",
           "roles/web/tasks/main.yml": TAGGED_TASK})
    assert findings(cli) == [("roles/web/tasks/main.yml", "PLS114", 4)]


def test_a_plainly_imported_playbook_is_reported_once(write, cli) -> None:
    write({"site.yml": "- import_playbook: web.yml\n- import_playbook: web.yml\n  tags: extra\n",
           "web.yml": "- hosts: all\n  tasks:\n" + "".join(f"    {line}\n" for line in TAGGED_TASK.splitlines())})
    assert findings(cli) == [("web.yml", "PLS114", 6)]


def test_checking_one_file_or_one_directory(write, cli) -> None:
    write({"a/site.yml": "- hosts: all\n  tasks:\n    - ansible.builtin.import_tasks: ../tasks.yml\n",
           "tasks.yml": TAGGED_TASK, "b/site.yml": "- hosts: all\n  tasks:\n    - ansible.builtin.debug:\n"
                                                   "        msg: x\n      tag: x\n"})
    assert findings(cli, "a/site.yml") == [("tasks.yml", "PLS114", 4)]
    assert findings(cli, "b") == [("b/site.yml", "PLS112", 5)]
    assert findings(cli, "a", "b/site.yml") == [("b/site.yml", "PLS112", 5), ("tasks.yml", "PLS114", 4)]


def test_lone_roles_are_named_by_their_name(write, cli) -> None:
    write({
        "roles/lone/tasks/main.yml": "- block:\n    - name: Reset\n      ansible.builtin.debug:\n          msg: x\n"
                                     "      tags: never\n  tags: maint\n"
                                     "- ansible.builtin.import_role:\n    name: dep\n",
        "roles/dep/tasks/main.yml": "- name: d\n  ansible.builtin.debug:\n    msg: d\n  tags: [never, always]\n",
    })
    _rc, out, _ = cli("check", "--format", "json")
    data = json.loads(out)["findings"]
    assert [(f["path"], f["code"]) for f in data] == [
        ("roles/dep/tasks/main.yml", "PLS102"), ("roles/lone/tasks/main.yml", "PLS101")]
    assert data[1]["message"].startswith("'lone : Reset' is tagged 'never'")


FOREIGN_AND_BROKEN = {
    # not Ansible's: no finding however broken
    "k8s/app.yaml": "apiVersion: v1\nkind: Service\nmetadata:\n  name: a\n---\napiVersion: v1\nkind: Pod\n",
    "k8s/ingress.yaml": "apiVersion: v1\nkind: Ingress\nspec:\n  tls:\n    - hosts: [a]\n---\nkind: x\n",
    "chart/templates/deploy.yaml": "{{- if .Values.enabled }}\nkind: Deployment\n{{- end }}\n",
    "compose.yml": "services:\n  web:\n    image: [\n",
    "inventory/hosts.yml": "# an INI inventory, read by ansible's ini plugin whatever its name\n[web]\n"
                           "w1 ansible_host=10.0.0.1\n\n[web:vars]\nhttp_port=80\n",
    "roles/web/files/example.yml": "kind: ConfigMap\n---\nkind: Secret\n",
    "roles/web/templates/config.yml": "{% for x in items %}\n- {{ x }}: [\n{% endfor %}\n",
    # a tool's configuration with a hosts: key, templated with ERB (test-kitchen)
    ".kitchen.yml": "provisioner:\n  name: ansible_playbook\n  hosts: localhost\n  <% if ENV['V'] %>\n  a: b\n",
    # a documentation example of several YAML documents below roles/, in no role
    "docs/roles/metrics/examples/deploy.yml": "---\n# an example\n---\nmetrics__config:\n  - name: out\n"
                                              "    output:\n      hosts:\n        - es1\n",
    # Ansible's, by what the text says, where the file is, or its name
    "deploy.yml": "- hosts: all\n  tasks:\n    - debug:\n        msg: \"oops\n",
    "group_vars/all.yml": "a: [\n",
    "site.yml": "{{ not yaml: [\n",
    "roles/web/tasks/main.yml": "- name: t\n  debug: [\n",
}
REPORTED = ["deploy.yml", "group_vars/all.yml", "roles/web/tasks/main.yml", "site.yml"]


def test_yaml_errors_are_reported_only_in_ansible_files(write) -> None:
    root = write(FOREIGN_AND_BROKEN)
    result = run_check(["."], load_settings(None, "."), use_cache=False)
    assert sorted(str(f.span.file).removeprefix(str(root) + "/") for f in result.findings
                  if f.code == "PLS111") == REPORTED


def test_the_editor_reports_the_same_yaml_errors(write) -> None:
    from playbook_ls.features.workspace import WorkspaceIndex

    root = write(FOREIGN_AND_BROKEN)
    index = WorkspaceIndex(str(root))
    index.index()
    assert sorted(str(f.span.file).removeprefix(str(root) + "/") for findings in index.findings.values()
                  for f in findings if f.code == "PLS111") == REPORTED


def test_a_playbook_that_imports_itself_is_checked_and_the_cycle_reported(write, cli) -> None:
    write({"site.yml": "- import_playbook: site.yml\n- hosts: all\n  tasks:\n"
                       + "".join(f"    {line}\n" for line in TAGGED_TASK.splitlines())})
    rc, _, _ = cli("check")
    assert rc == 1
    assert findings(cli) == [("site.yml", "PLS110", 1), ("site.yml", "PLS114", 7)]


def test_playbooks_that_import_each_other_are_checked_and_the_cycle_reported(write, cli) -> None:
    write({"a.yml": "- import_playbook: b.yml\n- hosts: all\n  tasks:\n"
                    + "".join(f"    {line}\n" for line in TAGGED_TASK.splitlines()),
           "b.yml": "- import_playbook: a.yml\n- hosts: all\n  tasks: []\n",
           "c.yml": "- import_playbook: c2.yml\n", "c2.yml": "- import_playbook: c.yml\n"})
    assert findings(cli) == [("a.yml", "PLS114", 7), ("b.yml", "PLS110", 1), ("c2.yml", "PLS110", 1)]


MOLECULE_SCENARIO = {
    "site.yml": "- hosts: all\n  roles: [web]\n",
    "roles/web/tasks/main.yml": "- name: w\n  ansible.builtin.debug:\n    msg: w\n",
    # molecule runs these with its own roles path (provisioner.env, the project's parent)
    "molecule/default/converge.yml": "- hosts: all\n  roles: [from_molecule_path]\n",
    "molecule/default/molecule.yml": "driver:\n  name: docker\n",
}


def test_molecule_scenarios_are_left_out_and_said_so(write, cli) -> None:
    write(MOLECULE_SCENARIO)
    _rc, out, _ = cli("check", "--format", "json")
    data = json.loads(out)
    assert data["findings"] == []
    assert any(notice.startswith("molecule scenarios were not checked (molecule)") for notice in data["notices"])


def test_molecule_scenarios_are_checked_when_asked(write, cli) -> None:
    write({**MOLECULE_SCENARIO, ".playbook-ls.yml": "molecule: true\n"})
    data = json.loads(cli("check", "--format", "json")[1])
    assert [(f["path"], f["code"]) for f in data["findings"]] == [("molecule/default/converge.yml", "PLS109")]
    assert data["notices"] == []
    # and a scenario named on the command line is checked whatever the setting
    write({".playbook-ls.yml": "molecule: false\n"})
    data = json.loads(cli("check", "--format", "json", "molecule/default")[1])
    assert [f["code"] for f in data["findings"]] == ["PLS109"]


def test_a_role_whose_callers_are_unknown_gets_no_claim_about_their_tags(write, cli) -> None:
    # fedora-infra: the only playbook applying the role gives it `tags: distgit`, but finds it on a
    # roles path configured outside the repository; checked alone, the role's include looked untagged
    write({
        "roles/distgit/tasks/main.yml": "- ansible.builtin.include_tasks: setup.yml\n  tags: distgit\n",
        "roles/distgit/tasks/setup.yml": "- name: s\n  ansible.builtin.debug:\n    msg: s\n",
        "playbooks/groups/pkgs.yml": "- hosts: pkgs\n  roles:\n    - {role: base}\n"
                                     "    - {role: distgit, tags: distgit}\n",
    })
    data = json.loads(cli("check", "--format", "json")[1])
    assert "PLS103" not in {f["code"] for f in data["findings"]}
