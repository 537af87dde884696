"""unresolved-import

## What it does
Checks for imports and roles that cannot be found: `import_playbook`, `import_tasks`,
`import_role`, `roles:` entries, meta dependencies, `tasks_from` files, and statically named
`include_tasks` / `include_role` targets. The message lists where playbook-ls looked, which
is where ansible-playbook looks. A role or collection that a requirements file declares is
PLS123's instead, once per requirement. When more than 20 of them have one cause outside the
code (a roles path set on the control host, roles installed from Galaxy, imports by the path
the repository is deployed to), `check` makes them one finding that names the cause and the
setting that resolves it (see "One finding per cause" in the `check` documentation).

## Why is this bad?
ansible-playbook refuses to start when an import or role is missing; a missing include fails
the play when it is reached.

## Example
```yaml title="playbook.yml"
- hosts: all
  roles:
    - webserver
```

Use instead:
```yaml title="playbook.yml"
- hosts: all
  tasks:
    - ansible.builtin.import_tasks: web.yml
```
```yaml title="web.yml"
- name: Install nginx
  ansible.builtin.package:
    name: nginx
```
"""

from __future__ import annotations

from collections.abc import Iterator

from playbook_ls.rules.base import Finding, PlaybookContext, Severity, problem_findings

CODE = "PLS109"
NAME = "unresolved-import"
SEVERITY = Severity.ERROR
SCOPE = "playbook"


def check(ctx: PlaybookContext) -> Iterator[Finding]:
    yield from problem_findings(ctx, "unresolved-import", "unresolved-role", "unresolved-include")
