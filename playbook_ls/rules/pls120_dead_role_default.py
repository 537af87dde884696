"""dead-role-default

## What it does
Checks for a variable a role sets both in `defaults/main.yml` and in its own `vars/main.yml`.

## Why is this bad?
Role defaults have the lowest precedence of all and role vars one of the highest: wherever the
role runs, its vars value replaces the default, so the default is never used. Readers (and
users who override the "default" in their inventory) expect it to apply, but inventory and
play values lose to the role's vars as well.

## Example
```yaml title="playbook.yml"
- hosts: web
  roles:
    - app
```
```yaml title="roles/app/defaults/main.yml"
app_port: 8080
```
```yaml title="roles/app/vars/main.yml"
app_port: 80
```
```yaml title="roles/app/tasks/main.yml"
- ansible.builtin.debug:
    msg: "{{ app_port }}"
```

Use instead:
```yaml title="playbook.yml"
- hosts: web
  roles:
    - app
```
```yaml title="roles/app/defaults/main.yml"
app_port: 8080
```

## Fix
None: which of the two values is the intended one is the author's decision. The editor
offers `# noqa: PLS120`.

## Claim
Wherever the role's defaults are visible, its `vars/` are too and take precedence, so the
default's value is never the one a task sees (ansible-core's variable precedence, compared as
for PLS119).
"""

from __future__ import annotations

from collections.abc import Iterator

from playbook_ls.rules.base import Finding, PlaybookContext, Related, Severity, where
from playbook_ls.rules.role_var_files import named_spans_of, role_files, roles_of

CODE = "PLS120"
NAME = "dead-role-default"
SEVERITY = Severity.WARNING
SCOPE = "playbook"


def check(ctx: PlaybookContext) -> Iterator[Finding]:
    seen: set[tuple[tuple[str, ...], tuple[str, ...]]] = set()
    for play in ctx.playbook.plays:
        for role in roles_of(play):
            files = (tuple(role_files(role, "defaults")), tuple(role_files(role, "vars")))
            if not all(files) or files in seen:
                continue
            seen.add(files)
            overriding = named_spans_of(list(files[1]))
            for name, (_value, span) in named_spans_of(list(files[0])).items():
                if name in overriding and span is not None:
                    var_span = overriding[name][1]
                    yield Finding(f"the default of '{name}' is never used: the role's vars/main.yml sets it too "
                                  f"({where(var_span)}), and role vars take precedence over defaults wherever "
                                  "the role runs; keep one of the two", span,
                                  [Related(var_span, "role vars")] if var_span else [])
