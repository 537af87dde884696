"""unknown-keyword

## What it does
Checks for keys that are not keywords of the play, block, task or handler they are on, and
suggests the keyword that was probably meant (`tag` for `tags`, `whne` for `when`).

## Why is this bad?
On a play or block, ansible-playbook refuses an unknown key. On a task, it takes a misspelt
keyword for a second module and stops with "conflicting action statements"; the intent
(a tag, a condition) is lost either way.

## Example
```yaml title="playbook.yml"
- hosts: all
  tasks:
    - name: Deploy
      ansible.builtin.debug:
        msg: deploying
      tag: deploy
```

Use instead:
```yaml title="playbook.yml"
- hosts: all
  tasks:
    - name: Deploy
      ansible.builtin.debug:
        msg: deploying
      tags: deploy
```

## Fix
`check --fix` and the editor rename the key to the keyword suggested, when there is one and
the mapping does not have that keyword already.

## Claim
ansible-playbook stops loading at this keyword ("'x' is not a valid attribute for a Play").
Confirmed with `ansible-playbook --syntax-check` on public repositories (`bench/claims.py`).
"""

from __future__ import annotations

from collections.abc import Iterator

from playbook_ls.rules.base import Finding, PlaybookContext, Severity, problem_findings

CODE = "PLS112"
NAME = "unknown-keyword"
SEVERITY = Severity.ERROR
SCOPE = "playbook"


def check(ctx: PlaybookContext) -> Iterator[Finding]:
    yield from problem_findings(ctx, "unknown-keyword")
