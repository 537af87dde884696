"""A small repository for the completion and token-hover tests: roles, imports, handlers."""

from __future__ import annotations

from pathlib import Path

FILES = {
    "site.yml": """\
- hosts: web
  tags: [site]
  roles:
    - role: web
      tags: web
    - common
  tasks:
    - name: Set up
      import_tasks: tasks/setup.yml
    - name: Missing
      import_tasks: tasks/missing.yml
    - name: Dynamic
      include_tasks: tasks/dynamic.yml
    - name: Configure
      ansible.builtin.template:
        src: a.j2
        dest: /etc/a
      notify: restart web
      tags:
        - config
    - name: Ping
      ansible.builtin.import_role:
        name: common
  handlers:
    - name: local handler
      debug: msg=x
      listen: reload all
- import_playbook: other.yml
""",
    "other.yml": """\
- hosts: db
  tasks:
    - name: other task
      ping:
      tags: [config]
      notify: [reload all]
""",
    "tasks/setup.yml": """\
- name: setup step
  debug: msg=s
  tags: setup
""",
    "tasks/dynamic.yml": """\
- name: dyn step
  debug: msg=d
""",
    "roles/web/tasks/main.yml": """\
- name: install web
  ansible.builtin.package:
    name: nginx
  tags: [packages]
  notify: restart web
""",
    "roles/web/handlers/main.yml": """\
- name: restart web
  service:
    name: nginx
    state: restarted
""",
    "roles/web/meta/main.yml": """\
dependencies:
  - role: common
""",
    "roles/common/tasks/main.yml": """\
- name: common step
  debug: msg=c
""",
}


def make_workspace(root: Path) -> Path:
    for name, text in FILES.items():
        target = root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    return root
