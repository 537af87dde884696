"""value-not-in-choices

## What it does
Checks for a literal value given to a module option that documents its `choices`, when the
value is none of them after ansible's own conversion to the option's type: `state: stopped` for
`ansible.builtin.file`, `mode: 2` for a string option with choices `'1'` and `'0'` is fine
(`2` becomes `'2'`, which is not). A `yes` or `no` that YAML read as a boolean is matched back
to the one choice it can mean, as ansible does. A list option checks each item.

Judged only for literal values (no `{{ }}` in them) of `str`, `int` and `list` (of strings)
options whose choices are all of that type, in tasks judged as for PLS124.

A PowerShell module (`Ansible.Basic`) trims the items of a comma-separated list and matches
choices whatever their case (`audit_type: success, failure` is fine there); its values are judged
that way.

When the option's documentation names the module a removed choice moved to (`ec2_tag`'s
`state: list` went to `amazon.aws.ec2_tag_info`), the finding says so.

## Why is this bad?
The module refuses the task when it runs ("value of state must be one of: absent, directory,
file, hard, link, touch, got: stopped").

## Example
```yaml title="playbook.yml"
- hosts: all
  tasks:
    - name: Stop the service
      ansible.builtin.systemd_service:
        name: nginx
        state: stop
```

Use instead:
```yaml title="playbook.yml"
- hosts: all
  tasks:
    - name: Stop the service
      ansible.builtin.systemd_service:
        name: nginx
        state: stopped
```

## Claim
ansible-playbook fails the task with "value of NAME must be one of: ...". Confirmed by running
ansible-playbook on the recorded corpus of accepted and refused tasks
(`tests/rules/data/module_args.yml`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from playbook_ls.rules.base import Finding, PlaybookContext, Severity
from playbook_ls.rules.module_args import (
    BOOLEANS_FALSE,
    BOOLEANS_TRUE,
    UNKNOWN,
    NotConvertible,
    code_strings,
    convert,
    is_literal,
    module_calls,
)

CODE = "PLS126"
NAME = "value-not-in-choices"
SEVERITY = Severity.ERROR
SCOPE = "playbook"


def check(ctx: PlaybookContext) -> Iterator[Finding]:
    for call in module_calls(ctx):
        for argument, value, name, spec in call.documented_arguments():
            wrong = outside_choices(value, spec, call.code.endswith(".ps1"))
            if wrong and in_code(spec["choices"], call.code):
                shown = ", ".join(str(choice) for choice in spec["choices"])
                moved = moved_to(spec, wrong)
                hint = f"; its documentation says this moved to {moved}" if moved else ""
                yield Finding(f"{', '.join(map(repr, wrong))} is not a choice of '{name}' of {call.name}, which "
                              f"takes one of: {shown} (ansible-playbook fails the task){hint}",
                              call.value_span(argument))


def refused_choice(call: Any) -> bool:
    """Whether a literal argument of the call is outside its option's choices (this rule's
    finding): the options a module requires depend on that choice, so PLS125 says nothing more."""
    return any(outside_choices(value, spec, call.code.endswith(".ps1")) and in_code(spec["choices"], call.code)
               for _argument, value, _name, spec in call.documented_arguments())


def moved_to(spec: dict[str, Any], wrong: list[Any]) -> str | None:
    """The module the option's documentation sends a removed choice to (``ec2_tag``'s
    ``state: list``: "moved to a dedicated module M(amazon.aws.ec2_tag_info)")."""
    import re

    description = spec.get("description")
    text = " ".join(map(str, description)) if isinstance(description, list) else str(description or "")
    if not any(str(value) in text for value in wrong):
        return None
    modules = re.findall(r"M\(([\w.]+)\)", text)
    return modules[0] if len(set(modules)) == 1 else None


def in_code(choices: list[Any], path: str) -> bool:
    """Whether the module's code spells every documented choice (its argument spec has them)."""
    strings = code_strings(path)
    return all(str(choice) in strings for choice in choices)


def outside_choices(value: Any, spec: dict[str, Any], powershell: bool = False) -> list[Any]:
    """The values given that are none of the option's choices, as ansible's
    ``_validate_argument_values`` finds them; empty when fine or not judged. ``powershell``: as
    ``Ansible.Basic`` finds them, which trims the items of a comma-separated list and matches
    choices whatever their case."""
    if powershell:
        return _outside_choices_powershell(value, spec)
    choices = spec.get("choices")
    wanted = spec.get("type", "str")
    if not isinstance(choices, list) or not choices:
        return []
    if wanted == "list":
        if spec.get("elements") != "str" or not all(isinstance(c, str) for c in choices):
            return []
        try:
            items = convert(value, "list") if isinstance(value, list) or is_literal(value) else UNKNOWN
        except NotConvertible:
            return []  # PLS127's
        if items is UNKNOWN or not all(is_literal(item) for item in items):
            return []
        return [item for item in (str(i) for i in items) if item not in choices]
    if wanted not in ("str", "int") or not is_literal(value):
        return []
    if not all(isinstance(c, str) if wanted == "str" else isinstance(c, int) and not isinstance(c, bool)
               for c in choices):
        return []
    try:
        converted = convert(value, wanted)
    except NotConvertible:
        return []  # PLS127's
    if converted in choices:
        return []
    for text, booleans in (("False", BOOLEANS_FALSE), ("True", BOOLEANS_TRUE)):
        overlap = booleans.intersection(choices)
        if converted == text and len(overlap) == 1:
            return []
    return [value]


def _outside_choices_powershell(value: Any, spec: dict[str, Any]) -> list[Any]:
    choices = spec.get("choices")
    if not isinstance(choices, list) or not choices or not all(isinstance(c, str) for c in choices):
        return []
    if spec.get("type", "str") == "list":
        if spec.get("elements") != "str":
            return []
        items = value.split(",") if isinstance(value, str) else value if isinstance(value, list) else None
    elif spec.get("type", "str") == "str":
        items = [value]
    else:
        return []
    if items is None or not all(isinstance(item, str) and is_literal(item) for item in items):
        return []
    allowed = {choice.lower() for choice in choices}
    return [item for item in items if item.strip().lower() not in allowed]
