"""duplicate-role-skipped

## What it does
Checks for a role listed again in the same play (in `roles:` or with `import_role`) with the
same parameters, tags, `when` and vars as an earlier use.

## Why is this bad?
ansible runs a role once per play unless its parameters differ or its `meta/main.yml` sets
`allow_duplicates: true`: the second listing is silently skipped at run time, although
`--list-tasks` still shows its tasks. Shared meta dependencies that run once are the
intended behaviour and are not reported.

## Example
```yaml title="playbook.yml"
- hosts: all
  roles:
    - common
    - common
```
```yaml title="roles/common/tasks/main.yml"
- ansible.builtin.debug:
    msg: common
```

Use instead:
```yaml title="playbook.yml"
- hosts: all
  roles:
    - role: common
      vars:
        pass: first
    - role: common
      vars:
        pass: second
```
```yaml title="roles/common/tasks/main.yml"
- ansible.builtin.debug:
    msg: common
```

## Fix
None: passing other parameters (to run the role twice) and removing the second listing (it
never ran) are opposite corrections. The editor offers `# noqa: PLS117`.

## Claim
ansible runs the role once per play for equal parameters: `--list-tasks` lists its tasks once,
and a run prints them once (ansible-core's role de-duplication by parameters and
`allow_duplicates`).
"""

from __future__ import annotations

from collections.abc import Iterator

from playbook_ls.rules.base import Finding, PlaybookContext, Related, Severity, where

CODE = "PLS117"
NAME = "duplicate-role-skipped"
SEVERITY = Severity.WARNING
SCOPE = "playbook"


def check(ctx: PlaybookContext) -> Iterator[Finding]:
    seen: set[int] = set()
    for _play, task in ctx.tasks():
        role = task.role
        if role is None or id(role) in seen:
            continue
        seen.add(id(role))
        first = role.duplicate_of
        if first is None or role.via not in ("roles", "import_role"):
            continue
        yield Finding(f"role '{role.name}' is used again with the same parameters as at {where(first.span)}: "
                      "ansible runs it only once per play and skips this use; pass different parameters or vars, "
                      "or set 'allow_duplicates: true' in the role's meta/main.yml",
                      role.span, [Related(first.span, "first use")] if first.span else [])
