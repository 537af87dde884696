"""import-cycle

## What it does
Checks for files that import themselves, directly or through other files
(`import_playbook`, `import_tasks`, `include_tasks`), and roles that depend on themselves; and
for `import_tasks` chains deeper than ansible-playbook can follow (139 levels: it stops with a
RecursionError).

## Why is this bad?
ansible-playbook recurses until it gives up, or loops at run time; the playbook cannot run.

## Example
```yaml title="playbook.yml"
- hosts: all
  tasks:
    - ansible.builtin.import_tasks: a.yml
```
```yaml title="a.yml"
- ansible.builtin.import_tasks: b.yml
```
```yaml title="b.yml"
- ansible.builtin.import_tasks: a.yml
```

Use instead:
```yaml title="playbook.yml"
- hosts: all
  tasks:
    - ansible.builtin.import_tasks: a.yml
    - ansible.builtin.import_tasks: b.yml
```
```yaml title="a.yml"
- ansible.builtin.debug:
    msg: a
```
```yaml title="b.yml"
- ansible.builtin.debug:
    msg: b
```

## Claim
ansible-playbook never finishes loading the playbook: the imports named lead back to where
they start.
"""

from __future__ import annotations

from collections.abc import Iterator

from playbook_ls.rules.base import Finding, PlaybookContext, Severity, problem_findings

CODE = "PLS110"
NAME = "import-cycle"
SEVERITY = Severity.ERROR
SCOPE = "playbook"


def check(ctx: PlaybookContext) -> Iterator[Finding]:
    yield from problem_findings(ctx, "import-cycle", "import-depth")
