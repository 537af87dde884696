"""missing-required-option

## What it does
Checks for tasks that do not give an option their module's documentation marks `required`,
under its name or an alias. The module is found and judged as for PLS124: documented modules of
ansible-core and the collections, not those an action plugin may complete, not `args:` from a
variable nor a templated argument string.

Also not judged: a module whose options are built at run time (see PLS124), the pseudo-option
`free_form` (the words of a free-form task, never an option of that name), a task one of whose
values is not among its option's choices (PLS126 reports that cause once: `ec2_tag` with
`state: list` requires nothing, it no longer lists), a task under `module_defaults` (on the
task, its block, role or play: the defaults may give the option), a free-form task (`command:
ls` gives its words to an option of its own), and an option whose documentation names an
environment variable (modules often fall back to one when the option is not given).

## Why is this bad?
The module refuses the task when it runs ("missing required arguments: path").

## Example
```yaml title="playbook.yml"
- hosts: all
  tasks:
    - name: Allow the deploy user
      ansible.builtin.lineinfile:
        line: "deploy ALL=(ALL) NOPASSWD: ALL"
```

Use instead:
```yaml title="playbook.yml"
- hosts: all
  tasks:
    - name: Allow the deploy user
      ansible.builtin.lineinfile:
        path: /etc/sudoers.d/deploy
        line: "deploy ALL=(ALL) NOPASSWD: ALL"
```

## Claim
ansible-playbook fails the task with "missing required arguments: NAME". Confirmed by running
ansible-playbook on the recorded corpus of accepted and refused tasks
(`tests/rules/data/module_args.yml`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from playbook_ls.rules.base import Finding, PlaybookContext, Severity
from playbook_ls.rules.module_args import module_calls
from playbook_ls.rules.pls126_value_not_in_choices import refused_choice

CODE = "PLS125"
NAME = "missing-required-option"
SEVERITY = Severity.ERROR
SCOPE = "playbook"

# documentation's name for the words of a free-form task (``_raw_params``): no option has it
FREE_FORM = "free_form"
# an upper-case name with an underscore in an option's description: most likely the
# environment variable the module falls back to (``fallback=(env_fallback, [...])``)
_ENVIRONMENT = re.compile(r"\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b|[Ee]nvironment")


def check(ctx: PlaybookContext) -> Iterator[Finding]:
    for call in module_calls(ctx):
        if call.has_module_defaults() or "_raw_params" in call.args:
            continue
        given = {name for _argument, _value, name, _spec in call.documented_arguments()}
        if any(not isinstance(key, str) or key.startswith("_") or "{" in key for key in call.args):
            continue  # a templated name may be the required one
        missing = [name for name, spec in call.options.items()
                   if isinstance(spec, dict) and spec.get("required") is True and name not in given
                   and name != FREE_FORM and not _falls_back(spec)]
        if missing and not refused_choice(call):  # a refused choice (PLS126) is the cause of the rest
            names = ", ".join(f"'{name}'" for name in missing)
            yield Finding(f"{call.name} requires {names} and this task does not give "
                          f"{'it' if len(missing) == 1 else 'them'} (ansible-playbook fails the task: missing "
                          "required arguments)", call.module_span or call.task.span)


def _falls_back(spec: dict[str, Any]) -> bool:
    description = spec.get("description")
    text = " ".join(map(str, description)) if isinstance(description, list) else str(description or "")
    return bool(_ENVIRONMENT.search(text)) or "env" in spec
