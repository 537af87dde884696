"""unsupported-module-option

## What it does
Checks for arguments a task gives its module that the module does not take: neither an option
nor an alias of one in the module's documentation. The module is the one ansible-playbook
resolves the task's name to (ansible-core, the installed collections, the play's
`collections:`), its documentation read from its file. Suggests the option that was probably
meant (`stat` for `state`).

Only what is certain is judged: modules that have documentation and come from ansible-core or a
collection (a `library/` module's documentation is not checked against its code), written in
Python or in PowerShell on `Ansible.Basic` (a legacy PowerShell module ignores arguments it does
not read); not modules
an action plugin runs that accepts more than the module documents (`template`, `package`,
`set_fact`, a collection's or the project's own action plugin); not `args:` from a variable nor
a templated argument string; not names that are templates or start with `_`; not a task that
expects to fail (`ignore_errors` on it or its block, `failed_when`: integration tests call
modules with wrong arguments on purpose and assert that they failed). Nor modules whose
options are built at run time: `ansible.windows.win_dsc` takes the DSC resource's properties, a
module documenting a `free_form` pseudo-option without taking free-form words, a module whose
argument spec gains computed names (`scripts/gen_open_option_modules.py` finds them in ansible-core
and the collections of the `ansible` package, `playbook_ls/data/open_option_modules.json`; the
same test is applied to any other module).

## Why is this bad?
The module refuses the whole task when it runs ("Unsupported parameters for
(ansible.builtin.file) module: stat"): a misspelt option is not ignored, the play stops there.

## Example
```yaml title="playbook.yml"
- hosts: all
  tasks:
    - name: Make the directory
      ansible.builtin.file:
        path: /srv/app
        stat: directory
```

Use instead:
```yaml title="playbook.yml"
- hosts: all
  tasks:
    - name: Make the directory
      ansible.builtin.file:
        path: /srv/app
        state: directory
```

## Fix
`check --fix` and the editor rename the argument to the one option name it is close to, when
there is exactly one and the task does not give that option already.

## Claim
ansible-playbook fails the task with "Unsupported parameters for (MODULE) module: NAME".
Confirmed by running ansible-playbook on the recorded corpus of accepted and refused tasks
(`tests/rules/data/module_args.yml`).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator

from engine.templating.load_time import is_template
from playbook_ls.rules.base import Finding, PlaybookContext, Severity
from playbook_ls.rules.module_args import module_calls

CODE = "PLS124"
NAME = "unsupported-module-option"
SEVERITY = Severity.ERROR
SCOPE = "playbook"


def check(ctx: PlaybookContext) -> Iterator[Finding]:
    for call in module_calls(ctx):
        legal = call.legal_names()
        for argument, value in call.literal_arguments():
            if argument in legal or is_template(value):
                continue  # a templated value may be omit, which takes the argument away
            close = closest_option(argument, legal)
            hint = f"; did you mean '{close}'?" if close else ""
            yield Finding(f"'{argument}' is not an option of {call.name}{hint} (ansible-playbook fails the "
                          "task: Unsupported parameters)", call.span_of(argument))


def closest_option(argument: str, legal: set[str]) -> str | None:
    """The one option name ``argument`` is a likely misspelling of, if exactly one is close."""
    close = difflib.get_close_matches(argument, sorted(legal), n=2, cutoff=0.75)
    return close[0] if len(close) == 1 else None
