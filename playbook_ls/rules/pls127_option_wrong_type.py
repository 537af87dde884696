"""option-wrong-type

## What it does
Checks for a literal value that ansible cannot convert to the type a module option documents:
`force: maybe` for a `bool` option, `timeout: 10s` for an `int`, a mapping given to a `list`
option or a list to a `dict` option. ansible converts what it can (`yes`, `"1"` and `on` are
booleans, `"30"` is an int, `a,b` is a list), and only what its own type checks
(`check_type_bool`, `check_type_int`, `check_type_float`, `check_type_list`, `check_type_dict`)
refuse is reported. `str`, `path`, `raw` and the other types take anything and are not judged.

Judged only for values with no `{{ }}` in them (a list or mapping counts as what it is, whatever
its items are), in tasks judged as for PLS124.

## Why is this bad?
The module refuses the task when it runs ("argument 'force' is of type str and we were unable to
convert to bool: The value 'maybe' is not a valid boolean").

## Example
```yaml title="playbook.yml"
- hosts: all
  tasks:
    - name: Wait for the port
      ansible.builtin.wait_for:
        port: 8080
        timeout: 5m
```

Use instead:
```yaml title="playbook.yml"
- hosts: all
  tasks:
    - name: Wait for the port
      ansible.builtin.wait_for:
        port: 8080
        timeout: 300
```

## Claim
ansible-playbook fails the task with "argument 'NAME' is of type ... and we were unable to
convert to TYPE". Confirmed by running ansible-playbook on the recorded corpus of accepted and
refused tasks (`tests/rules/data/module_args.yml`).
"""

from __future__ import annotations

from collections.abc import Iterator

from playbook_ls.rules.base import Finding, PlaybookContext, Severity
from playbook_ls.rules.module_args import NotConvertible, code_strings, convert, is_literal, module_calls

CODE = "PLS127"
NAME = "option-wrong-type"
SEVERITY = Severity.ERROR
SCOPE = "playbook"


def check(ctx: PlaybookContext) -> Iterator[Finding]:
    for call in module_calls(ctx):
        for argument, value, name, spec in call.documented_arguments():
            if not (is_literal(value) or isinstance(value, (list, dict))):
                continue
            if call.code.endswith(".py") and spec.get("type") not in code_strings(call.code):
                continue  # the argument spec does not spell the documented type
            try:
                convert(value, spec.get("type"))
            except NotConvertible as refused:
                article = "an" if spec["type"] == "int" else "a"
                yield Finding(f"'{name}' of {call.name} is {article} {spec['type']}: {refused} (ansible-playbook "
                              "fails the task)", call.value_span(argument))
