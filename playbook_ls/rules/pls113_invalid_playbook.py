"""invalid-playbook

## What it does
Checks for structure that ansible-playbook refuses to load: a task that is not a mapping or
has no module (or two), `apply` on an import, a loop on `import_tasks` / `import_role`, a
play without `hosts`, a role entry without a name, tags that are not a list or string,
`vars` that are not a mapping or name an invalid variable, a block inside a handler block,
a keyword that `include_tasks` / `include_role` do not take (`become`, `delegate_to`,
`environment`, ...: put them in `apply:` or on the included tasks), and the removed
`include:` action. A module of a collection that a requirements file declares and nobody
installed is PLS123's instead, once per requirement; without ansible-core, module names are not
checked at all, and `check` says so.

## Why is this bad?
ansible-playbook stops before running anything (or, inside an include, fails the play when
it gets there).

## Example
```yaml title="playbook.yml"
- hosts: all
  tasks:
    - ansible.builtin.import_tasks: setup.yml
      loop: [1, 2]
```
```yaml title="setup.yml"
- ansible.builtin.debug:
    msg: "{{ item }}"
```

Use instead:
```yaml title="playbook.yml"
- hosts: all
  tasks:
    - ansible.builtin.include_tasks: setup.yml
      loop: [1, 2]
```
```yaml title="setup.yml"
- ansible.builtin.debug:
    msg: "{{ item }}"
```

## Claim
ansible-playbook stops loading here (or, inside an include, fails when it gets there) with the
message given. A module name is looked up as ansible does: the playbook's and the roles'
`library/`, the configured paths, the collections installed where ansible would find them. A
role no playbook reaches statically (only through an include whose name is templated) is
checked with the `library/` and collections of every playbook whose role search finds it, so a
module one of them provides is no error. Without ansible-core installed, a short module name
playbook-ls has no word on is not reported. Confirmed with `ansible-playbook --syntax-check` on
the playbook, or on a playbook that imports the file through its role (`bench/claims.py`).
"""

from __future__ import annotations

from collections.abc import Iterator

from playbook_ls.rules.base import Finding, PlaybookContext, Severity, problem_findings

CODE = "PLS113"
NAME = "invalid-playbook"
SEVERITY = Severity.ERROR
SCOPE = "playbook"


def check(ctx: PlaybookContext) -> Iterator[Finding]:
    yield from problem_findings(ctx, "invalid-structure", "invalid-task", "invalid-role")
