"""``run`` reads ``group_vars``/``host_vars`` beside the playbook, as ansible-playbook does (the
playbook's directory is its playbook directory), above those beside the inventory."""

from __future__ import annotations

from pathlib import Path

from helpers import run_playbook, write

PLAYBOOK = """
- hosts: all
  gather_facts: false
  tasks:
    - debug: {msg: "{{ from_inventory }} {{ shared }} {{ host_file }}"}
"""


def test_playbook_directory_vars_apply_above_the_inventory_s(tmp_path: Path) -> None:
    write(tmp_path, {
        "inventory/hosts": "[web]\nlocalhost ansible_connection=local\n",
        "inventory/group_vars/web.yml": "from_inventory: inv\nshared: inventory\n",
        "inventory/host_vars/localhost.yml": "host_file: inventory\n",
        "group_vars/web.yml": "shared: playbook\n",
        "host_vars/localhost.yml": "host_file: playbook\n",
    })
    code, out, _ = run_playbook(tmp_path, PLAYBOOK, inventory=[str(tmp_path / "inventory/hosts")])
    assert code == 0, out
    assert '"msg": "inv playbook playbook"' in out
