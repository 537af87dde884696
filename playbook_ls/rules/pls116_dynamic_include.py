"""dynamic-include

## What it does
Reports `include_tasks` / `include_role` whose file or role name depends on values only
known on a host or at run time (facts, registered results, inventory variables, a loop whose
items only the run knows).

A name built from values every host has before the run (another role's defaults, the play's
vars, extra vars) is followed as ansible follows it when the task runs, and its tasks are
analysed. When that name finds nothing here, this rule says so, as information: the inventory
or extra vars may give another name where the playbook runs, so a missing file is not claimed
(a name written without a template that is missing is PLS109's).

## Why is this bad?
It is not wrong, but nobody can tell before the run which tasks it loads or which tags and
conditions they get: playbook-ls leaves those tasks out of every other check and of hovers.
This is informational, so it does not fail `check` at the default fail level.

## Example
```yaml title="playbook.yml"
- hosts: all
  tasks:
    - ansible.builtin.include_tasks: "setup-{{ ansible_facts.os_family }}.yml"
```

Use instead:
```yaml title="playbook.yml"
- hosts: all
  tasks:
    - ansible.builtin.include_tasks: setup-Debian.yml
      when: ansible_facts.os_family == "Debian"
```
```yaml title="setup-Debian.yml"
- ansible.builtin.debug:
    msg: apt
```

## Claim
No claim about what ansible does: this is information about what playbook-ls cannot see
before the run. The name given is not known from the values a static analysis has (no host,
no facts, no registered results); the tasks the include loads are then not analysed.
"""

from __future__ import annotations

from collections.abc import Iterator

from playbook_ls.rules.base import Finding, PlaybookContext, Severity, problem_findings

CODE = "PLS116"
NAME = "dynamic-include"
SEVERITY = Severity.INFO
SCOPE = "playbook"


def check(ctx: PlaybookContext) -> Iterator[Finding]:
    yield from problem_findings(ctx, "dynamic-include")
