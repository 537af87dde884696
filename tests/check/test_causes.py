"""One finding per cause: many findings with one cause outside the code (a roles path set on the
control host, Galaxy roles, the directory the repository is deployed to, an undefined variable)
become one finding that names the cause and the setting that resolves it. Each case is a false
positive of real repositories made small (fedora-infra: 2,043 PLS109 from one roles path)."""

from __future__ import annotations

import json

from playbook_ls.check.causes import MANY

ROLE_TASK = "- name: r\n  ansible.builtin.debug:\n    msg: r\n"


def findings(cli, *args: str) -> list[dict]:
    return json.loads(cli("check", "--format", "json", *args)[1])["findings"]


def roles_elsewhere(count: int) -> dict[str, str]:
    """Playbooks in playbooks/ naming roles the checkout keeps in roles/, as a repository whose
    roles path is set in the control host's ansible.cfg."""
    files = {f"roles/r{i}/tasks/main.yml": ROLE_TASK for i in range(count)}
    files |= {f"playbooks/p{i}.yml": f"- hosts: all\n  roles: [r{i}]\n" for i in range(count)}
    return files


def test_roles_on_a_path_set_outside_the_repository_are_one_finding(write, cli) -> None:
    write(roles_elsewhere(MANY + 1))
    found = findings(cli)
    assert [f["code"] for f in found] == ["PLS109"]
    message = found[0]["message"]
    assert message.startswith(f"{MANY + 1} findings, one cause: {MANY + 1} roles (r0, ")
    assert "the checkout has them in roles:" in message and "roles_path in .playbook-ls.yml" in message
    assert len(found[0]["related"]) == 10


def test_a_few_findings_of_one_cause_stay_apart(write, cli) -> None:
    write(roles_elsewhere(3))
    assert [f["code"] for f in findings(cli)] == ["PLS109"] * 3


def test_the_setting_named_resolves_them(write, cli) -> None:
    write({**roles_elsewhere(MANY + 1), ".playbook-ls.yml": "roles_path: [roles]\n"})
    assert findings(cli) == []


def test_galaxy_roles_are_one_finding_that_says_to_install_them(write, cli) -> None:
    write({f"p{i}.yml": f"- hosts: all\n  roles: [acme.role{i}]\n" for i in range(MANY + 1)})
    found = findings(cli)
    assert len(found) == 1 and "ansible-galaxy install -r requirements.yml" in found[0]["message"]


def test_a_missing_role_is_the_cause_of_the_modules_it_would_bring(write, cli) -> None:
    # a Galaxy role's library/ holds the module: PLS109 only, not also PLS113
    write({"site.yml": "- hosts: all\n  roles: [acme.tools]\n  tasks:\n    - acme_thing: {name: x}\n"})
    assert [f["code"] for f in findings(cli)] == ["PLS109"]


def test_a_module_alone_missing_is_still_reported(write, cli) -> None:
    write({"site.yml": "- hosts: all\n  tasks:\n    - acme_thing: {name: x}\n"})
    codes = [f["code"] for f in findings(cli)]
    assert codes in (["PLS113"], [])  # [] where module names cannot be checked (no ansible-core)


def test_one_undefined_variable_is_one_finding_that_says_where_it_is_set(write, cli) -> None:
    write({
        "vars/global.yml": "tasks_path: /srv/ansible/tasks\n",
        **{f"playbooks/p{i}.yml": f"- hosts: all\n  tasks:\n    - import_tasks: \"{{{{ tasks_path }}}}/t{i}.yml\"\n"
           for i in range(MANY + 1)},
    })
    found = findings(cli)
    assert [f["code"] for f in found] == ["PLS115"]
    assert "'tasks_path' is undefined" in found[0]["message"] and "vars/global.yml" in found[0]["message"]


def test_imports_by_the_path_the_repository_is_deployed_at_are_one_finding(write, cli) -> None:
    files = {f"playbooks/p{i}.yml": "- hosts: all\n  tasks: []\n" for i in range(MANY + 1)}
    files["main.yml"] = "".join(f"- import_playbook: /srv/infra/ansible/playbooks/p{i}.yml\n" for i in range(MANY + 1))
    write(files)
    found = [f for f in findings(cli) if f["code"] == "PLS109"]
    assert len(found) == 1 and "deployed at /srv/infra/ansible" in found[0]["message"]


def test_a_role_kept_in_two_places_gives_its_findings_once(write, cli) -> None:
    task = "- name: Reset\n  ansible.builtin.debug:\n    msg: x\n  tags: [never, always]\n"
    write({"roles/web/tasks/main.yml": task, "vendor/roles/web/tasks/main.yml": task})
    found = findings(cli)
    assert [(f["path"], f["code"]) for f in found] == [("roles/web/tasks/main.yml", "PLS102")]
    assert any(r["path"] == "vendor/roles/web/tasks/main.yml" for r in found[0]["related"])


def test_advice_for_a_template_on_the_inventory_names_the_inventory(write, cli) -> None:
    # cp-ansible: PLS115 on groups['kafka_broker'] advised play vars or -e
    write({"site.yml": "- hosts: all\n  tasks:\n    - import_tasks: \"{{ groups['kafka_broker'][0] }}.yml\"\n"})
    found = findings(cli)
    assert [f["code"] for f in found] == ["PLS115"]
    assert "'groups' comes from the inventory" in found[0]["message"]
    assert "play vars" not in found[0]["message"]


def test_modules_of_collections_not_installed_are_one_finding(write, cli) -> None:
    # a configuration-as-code collection calling certified collections (ansible.hub, ansible.eda)
    write({f"roles/r{i}/tasks/main.yml": f"- acme.gone.thing{i}: {{name: x}}\n" for i in range(MANY + 1)})
    found = findings(cli)
    if not found:
        return  # module names cannot be checked here (no ansible-core)
    assert [f["code"] for f in found] == ["PLS113"]
    assert "collections that are not installed (acme.gone)" in found[0]["message"]


def test_a_collection_sources_role_modules_are_the_collections(write, cli) -> None:
    # ansible-freeipa: its build gathers roles/*/library/ into plugins/modules, and its tests run the
    # roles as legacy roles; the checkout's role resolved as the collection's must find them too
    write({
        "galaxy.yml": "namespace: acme\nname: idm\nversion: 1.0.0\n",
        "roles/client/library/client_join.py": "DOCUMENTATION = ''\n",
        "roles/client/tasks/main.yml": "- name: Join\n  client_join: {realm: x}\n",
        "playbooks/install.yml": "- hosts: all\n  roles: [client]\n",
    })
    assert findings(cli) == []


def test_requirements_not_installed_are_one_finding_per_requirements_file(write, cli) -> None:
    # an infrastructure repository declaring 93 roles in requirements-ci.yml: one PLS123 each
    write({"requirements.yml": "".join(f"- name: role{i}\n  src: https://example.org/role{i}.git\n"
                                       for i in range(MANY + 1)),
           "site.yml": "- hosts: all\n  roles: [" + ", ".join(f"role{i}" for i in range(MANY + 1)) + "]\n"})
    found = findings(cli)
    assert [f["code"] for f in found] == ["PLS123"]
    assert f"{MANY + 1} roles declared in requirements.yml" in found[0]["message"]
    assert "ansible-galaxy role install -r requirements.yml" in found[0]["message"]
