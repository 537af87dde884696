"""fact-overridden-by-extra-vars

## What it does
Checks every launch profile's `extra_vars` against the `set_fact` and `register` of the tasks
its playbook runs: a task that sets a variable the profile passes as an extra variable.

## Why is this bad?
Extra variables (`-e`) have the highest precedence of all: when the playbook is launched with
that profile, the value `set_fact` or `register` stores is never seen, later tasks read the
profile's value instead. The task looks as if it changes the variable and does not.

## Example
```yaml title="playbook.yml"
- hosts: all
  tasks:
    - name: Pick the release
      ansible.builtin.set_fact:
        release: "2.1"
    - ansible.builtin.debug:
        msg: "{{ release }}"
```
```yaml title=".playbook-ls.yml"
profiles:
  deploy:
    playbook: playbook.yml
    extra_vars:
      release: "2.0"
```

Use instead:
```yaml title="playbook.yml"
- hosts: all
  tasks:
    - name: Pick the release
      ansible.builtin.set_fact:
        picked_release: "{{ release | default('2.1') }}"
    - ansible.builtin.debug:
        msg: "{{ picked_release }}"
```
```yaml title=".playbook-ls.yml"
profiles:
  deploy:
    playbook: playbook.yml
    extra_vars:
      release: "2.0"
```

## Fix
None: renaming the fact and dropping the extra variable are both corrections. The editor offers
`# noqa: PLS121`.

## Claim
With the extra variable given, ansible uses it instead of the fact or registered value:
extra vars take precedence over facts and `set_fact` (ansible-core's variable precedence).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from playbook_ls.rules.base import Finding, PlaybookContext, Related, Severity, where

CODE = "PLS121"
NAME = "fact-overridden-by-extra-vars"
SEVERITY = Severity.WARNING
SCOPE = "playbook"


def check(ctx: PlaybookContext) -> Iterator[Finding]:
    from engine.variables.sources import SET_FACT  # the variable model and the run's templating: not at start-up

    profiles = [p for p in ctx.launching() if isinstance(p.extra_vars, Mapping) and p.extra_vars]
    if not profiles:
        return
    for _play, task in ctx.tasks():
        if task.span is None:
            continue
        args = task.args if isinstance(task.args, Mapping) else {}
        data = task.data if isinstance(task.data, Mapping) else {}
        names = [(str(name), "set_fact") for name in args if name != "cacheable"] if task.action in SET_FACT else []
        if isinstance(data.get("register"), str):
            names.append((data["register"], "register"))
        for name, how in names:
            for profile in profiles:
                if name not in profile.extra_vars:
                    continue
                span = profile.field_span("extra_vars")
                yield Finding(f"'{name}' set here by {how} is never seen when launched with profile '{profile.name}' "
                              f"({where(span)}): its extra_vars set '{name}', and extra variables take precedence "
                              "over everything; rename one of them", task.span,
                              [Related(span, f"profile '{profile.name}' extra_vars")] if span else [])
