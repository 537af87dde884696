"""role-vars-override

## What it does
Checks for a variable set in a play's `vars` or `vars_files` that a role of the same play also
sets in its `vars/main.yml`.

## Why is this bad?
Role vars take precedence over play vars and vars files (and over inventory and `group_vars`):
inside the role's tasks the role's value always wins, and for a role listed under `roles:` it
also wins in the play's later tasks, since role vars are not private by default. The value
written in the play never applies there, which is one of the most reported precedence
surprises. Only the role's `vars/` file counts: `defaults/` is meant to be overridden.

## Example
```yaml title="playbook.yml"
- hosts: web
  vars:
    app_port: 8080
  roles:
    - app
```
```yaml title="roles/app/vars/main.yml"
app_port: 80
```
```yaml title="roles/app/tasks/main.yml"
- ansible.builtin.debug:
    msg: "{{ app_port }}"
```

Use instead:
```yaml title="roles/app/defaults/main.yml"
app_port: 80
```

## Fix
None: moving the role's value to `defaults/` and renaming one of the two variables are both
corrections, and only the author knows which. The editor offers `# noqa: PLS119`.

## Claim
In the role's tasks the variable has the value of the role's `vars/`, not the play's, as
ansible-core's variable precedence orders them; `playbook-ls vars` at such a task shows both
levels, and the variable model is compared with ansible-core's variable manager on public
repositories (`bench/vars_realworld.py`).
"""

from __future__ import annotations

from collections.abc import Iterator

from playbook_ls.rules.base import Finding, PlaybookContext, Related, Severity, where
from playbook_ls.rules.role_var_files import named_spans_of, play_definitions, role_files, roles_of

CODE = "PLS119"
NAME = "role-vars-override"
SEVERITY = Severity.WARNING
SCOPE = "playbook"


def check(ctx: PlaybookContext) -> Iterator[Finding]:
    for play in ctx.playbook.plays:
        overriding: dict[str, tuple[str, object]] = {}
        for role in roles_of(play):
            for name, (_value, span) in named_spans_of(role_files(role, "vars")).items():
                overriding.setdefault(name, (role.name, span))
        if not overriding:
            continue
        for name, kind, span in play_definitions(play):
            if name not in overriding or span is None:
                continue
            role_name, role_span = overriding[name]
            yield Finding(f"'{name}' set in {kind} here is overridden by the vars of role '{role_name}' "
                          f"({where(role_span)}) in that role's tasks: role vars take precedence over play vars, "
                          "vars_files and inventory; move the role's value to its defaults/main.yml or rename one "
                          "of them", span, [Related(role_span, f"role '{role_name}' vars")] if role_span else [])
