"""yaml-syntax

## What it does
Checks that every playbook, task file, role file and other Ansible YAML file under the checked
paths parses, and reports where it stops parsing. A file that does not parse counts as Ansible's
when it belongs to a role, sits in an Ansible directory (`roles/`, `tasks/`, `handlers/`,
`playbooks/`, `group_vars/`, `host_vars/`, `vars/`, `defaults/`, `meta/`, `inventory/`), has a
playbook's name (`site.yml`, `main.yml`, `playbook*.yml`), matches the `include` setting, or has
a line that starts with a play, task or role keyword (`hosts:`, `tasks:`, `import_playbook:`,
`block:`, ...). Other YAML of the repository (Kubernetes manifests with several documents, Helm
templates, Compose files) is not Ansible's and is left alone, and so are a role's `files/` and
`templates/` (copied or templated as they are, unless the text reads like tasks) and INI
inventories whose name ends in `.yml` (ansible's ini plugin reads them whatever their name).
A file named on the command line is always reported when it cannot be read or parsed (a binary
or non-UTF-8 file: where the first byte that is not UTF-8 is).

A file that does not load is reported whatever rules are selected, as ruff reports syntax errors:
`select = ["PLS101"]` does not make a broken file pass; only ignoring PLS111 by name does.

## Why is this bad?
ansible-playbook cannot load a file that does not parse, and nothing in it can be analysed.

## Example
```yaml title="playbook.yml"
- hosts: all
  tasks:
    - name: Greet
      ansible.builtin.debug:
        msg: "hello
```

Use instead:
```yaml title="playbook.yml"
- hosts: all
  tasks:
    - name: Greet
      ansible.builtin.debug:
        msg: "hello"
```

## Claim
ansible-playbook stops with a YAML error when it loads this file. Reported only for files
ansible would load: playbooks, a role's files, the usual Ansible directories, and files that
read like a play or a task list (a top-level list with play or task keywords); not for a tool's
configuration or a documentation example that happens to have a `hosts:` key. Confirmed with
`ansible-playbook --syntax-check` on public repositories (`bench/claims.py`).
"""

from __future__ import annotations

from collections.abc import Iterator

from playbook_ls.rules.base import Finding, PlaybookContext, Severity, problem_findings

CODE = "PLS111"
NAME = "yaml-syntax"
SEVERITY = Severity.ERROR
SCOPE = "playbook"


def check(ctx: PlaybookContext) -> Iterator[Finding]:
    yield from problem_findings(ctx, "yaml-syntax")
