"""unresolved-template

## What it does
Checks for templated values that decide what a playbook contains (import paths, role names,
tags, play names and hosts) and cannot be resolved from the variables playbook-ls can see
without running anything: play `vars`, `vars_files`, `-e` values and role defaults.

## Why is this bad?
If the variable is undefined, ansible-playbook fails. If it is defined somewhere only a run
knows (inventory variables, facts), playbook-ls cannot show what the playbook imports or
which tags the tasks get, so the other checks see less.

The advice names where the value comes from: a template on `groups`, `hostvars`, `group_names`
or `inventory_hostname` needs the inventory (the group it names must be in it), not play vars.
When more than 20 templates fail on the same undefined variable, `check` makes them one finding
that says where the checkout sets it, if it does.

## Example
```yaml title="playbook.yml"
- hosts: all
  tasks:
    - ansible.builtin.import_tasks: "{{ setup_file }}"
```

Use instead:
```yaml title="playbook.yml"
- hosts: all
  vars:
    setup_file: setup.yml
  tasks:
    - ansible.builtin.import_tasks: "{{ setup_file }}"
```
```yaml title="setup.yml"
- ansible.builtin.debug:
    msg: setting up
```

## Claim
ansible-playbook stops loading at this import: its name cannot be templated with the variables
known when the playbook is loaded. Confirmed with `ansible-playbook --syntax-check`
(`bench/claims.py`).
"""

from __future__ import annotations

from collections.abc import Iterator

from playbook_ls.rules.base import Finding, PlaybookContext, Severity, problem_findings

CODE = "PLS115"
NAME = "unresolved-template"
SEVERITY = Severity.WARNING
SCOPE = "playbook"


def check(ctx: PlaybookContext) -> Iterator[Finding]:
    yield from problem_findings(ctx, "unresolved-template")
    seen: set[int] = set()
    for _play, task in ctx.tasks():
        for frame in task.chain:
            if frame.tag_error is not None and id(frame) not in seen:
                seen.add(id(frame))
                yield Finding(str(frame.tag_error.message), frame.tag_error.span)
