"""when-with-jinja-delimiters

## What it does
Checks for conditions (`when`, `changed_when`, `failed_when`, `until`) written with Jinja2
delimiters, such as `when: "{{ enabled }}"`.

## Why is this bad?
ansible already evaluates a condition as a Jinja2 expression. Wrapping it in `{{ }}` makes
ansible template it to a string first and then evaluate that string; ansible-core warns
about it, and a value such as `"False"` or an expression with quotes can then evaluate
unexpectedly.

## Example
```yaml title="playbook.yml"
- hosts: all
  tasks:
    - name: Deploy
      ansible.builtin.debug:
        msg: deploying
      when: "{{ deploy_enabled }}"
```

Use instead:
```yaml title="playbook.yml"
- hosts: all
  tasks:
    - name: Deploy
      ansible.builtin.debug:
        msg: deploying
      when: deploy_enabled | bool
```

## Fix
`check --fix` and the editor write the condition without the delimiters, unquoted when it
reads back the same (`when: "{{ a == 'b' }}"` becomes `when: a == 'b'`), else double-quoted;
the rest of the line, comment included, stays. A condition that is more than one `{{ }}`
is left to you.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from engine.span import Span
from playbook_ls.rules.base import Finding, PlaybookContext, Severity

CODE = "PLS105"
NAME = "when-with-jinja-delimiters"
SEVERITY = Severity.WARNING
SCOPE = "playbook"

TASK_CONDITIONS = ("when", "changed_when", "failed_when", "until")


def check(ctx: PlaybookContext) -> Iterator[Finding]:
    seen: set[int] = set()
    for _play, task in ctx.tasks():
        for frame in task.chain[:-1]:
            if id(frame) not in seen and frame.when:
                seen.add(id(frame))
                yield from _conditions("when", frame.keywords["when"], frame.keyword_spans.get("when"))
        data = task.data if isinstance(task.data, dict) else {}
        for key in TASK_CONDITIONS:
            if key in data:
                yield from _conditions(key, data[key], getattr(data, "value_spans", {}).get(key))


def _conditions(key: str, value: Any, span: Span | None) -> Iterator[Finding]:
    items = value if isinstance(value, list) else [value]
    item_spans = getattr(value, "item_spans", None) or []
    for index, item in enumerate(items):
        if isinstance(item, str) and ("{{" in item or "{%" in item):
            where = item_spans[index] if index < len(item_spans) else span
            yield Finding(f"{key}: {item!r} should not use Jinja2 delimiters; ansible evaluates the condition "
                          f"as an expression already, write {key}: {_bare(item)}", where)


def _bare(condition: str) -> str:
    text = condition.strip()
    if text.startswith("{{") and text.endswith("}}") and text.count("{{") == 1:
        return text[2:-2].strip()
    return "the expression without {{ }}"
