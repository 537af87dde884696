"""undefined-variable

## What it does
For each launch profile of the playbook, checks every task the profile runs: a variable its
module arguments, `loop` / `with_*`, `delegate_to` or conditions read (unguarded: no
`default` filter, no `is defined` test on it in the task or the conditions it inherits) that is
defined nowhere on the way to the task, on any host of the play: not in the profile's inventory
(with its `group_vars` / `host_vars` and those beside the playbook), the play and its roles,
blocks, includes and the task's own `vars`, the profile's extra variables and survey, a
`set_fact` / `register` / `include_vars` anywhere in the playbook, facts (`ansible_*`) or
ansible's magic variables.

## Why is this bad?
ansible-playbook fails the task on every host with "'name' is undefined" when the profile
launches the playbook: a misspelt name, or a variable the profile forgot to pass.

Only certain cases are reported: the rule needs a profile (the launch's inventory and extra
variables are then known) and says nothing about a playbook whose variables could come from
anywhere else: a dynamic inventory, a fact cache, vars plugins, `*_facts` modules,
`include_vars` of a file or directory it cannot name, `set_fact` of a templated name,
`add_host` / `group_by` / `refresh_inventory` (for the plays after them), an include it cannot
follow, or a profile that asks for variables on launch.

## Example
```yaml title="site.yml"
- hosts: localhost
  vars:
    app_port: 8080
  tasks:
    - ansible.builtin.debug:
        msg: "listening on {{ app_prot }}"
```
```yaml title=".playbook-ls.yml"
profiles:
  deploy:
    playbook: site.yml
    inventory: localhost,
```

Use instead:
```yaml title="site.yml"
- hosts: localhost
  vars:
    app_port: 8080
  tasks:
    - ansible.builtin.debug:
        msg: "listening on {{ app_port }}"
```

## Fix
None: the name may be misspelt, or the variable missing from the inventory or the profile.
The editor offers `# noqa: PLS122`.

## Claim
Launched as the profile says, ansible-playbook fails the task with "'NAME' is undefined". The
variable model behind it is compared with ansible-core's variable manager on public
repositories (`bench/vars_realworld.py`, `bench/undefined_vars.py`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from playbook_ls.rules.base import Finding, PlaybookContext, Related, Severity

if TYPE_CHECKING:
    from engine.launch.profiles import LaunchProfile

CODE = "PLS122"
NAME = "undefined-variable"
SEVERITY = Severity.WARNING
SCOPE = "playbook"


def check(ctx: PlaybookContext) -> Iterator[Finding]:
    wanted = {task.span for _play, task in ctx.tasks() if task.span is not None}
    if not wanted:  # the problems outside any play: no task to report on, no launch to analyse
        return
    profiles = [p for p in ctx.launching() if p.playbook and not p.ask.get("ask_variables_on_launch")]
    if not profiles:
        return
    from playbook_ls.rules.undefined_names import undefined_in_launch

    reported: set[tuple[Any, str]] = set()
    for profile in profiles:
        for undefined in undefined_in_launch(ctx.playbook.path, profile):
            if undefined.task.span not in wanted or (undefined.span, undefined.name) in reported:
                continue
            reported.add((undefined.span, undefined.name))
            yield Finding(_message(undefined.name, profile, undefined.hosts), undefined.span or undefined.task.span,
                          _related(profile))


def _message(name: str, profile: LaunchProfile, hosts: int) -> str:
    on = "its host" if hosts == 1 else f"any of its {hosts} hosts"
    return (f"'{name}' is defined nowhere on the way to this task on {on} when launched with profile "
            f"'{profile.name}': ansible-playbook fails it with \"'{name}' is undefined\". Check the name, "
            "or define it (play vars, the inventory, the profile's extra_vars), or guard it with "
            f"'{name} | default(...)'")


def _related(profile: LaunchProfile) -> list[Related]:
    return [Related(profile.span, f"profile '{profile.name}'")] if profile.span is not None else []
