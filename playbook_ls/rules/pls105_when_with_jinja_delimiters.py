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

`check --fix` applies it only when the expression is a boolean whatever its variables hold
(a comparison, a test such as `is defined`, `not`, `| bool`, and `and`/`or` of those): then
both forms do the same. `when: "{{ do_it }}"` with `-e do_it=true` (a string) runs the task in
ansible 2.19, while `when: do_it` fails it ("Conditionals must have a boolean result"), so
there the editor offers the change and says what it changes, and `--fix` leaves it.

## Claim
ansible evaluates the condition as an expression, so the delimiters are not needed.
Confirmed with ansible-playbook 2.19 for both forms under string and boolean values, which is
how the fix's safety is decided.
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
            bare = _bare(item)
            caveat = "" if boolean_by_construction(bare) else (
                f" (then {bare} must give a boolean: ansible 2.19 fails a condition whose result is a string such as "
                "'true' from -e, which the templated form accepts)")
            yield Finding(f"{key}: {item!r} should not use Jinja2 delimiters; ansible evaluates the condition "
                          f"as an expression already, write {key}: {bare}{caveat}", where)


def _bare(condition: str) -> str:
    text = condition.strip()
    if text.startswith("{{") and text.endswith("}}") and text.count("{{") == 1:
        return text[2:-2].strip()
    return "the expression without {{ }}"


def boolean_by_construction(expression: str) -> bool:
    """Whether ``expression`` gives a boolean whatever its variables hold: a comparison, a test,
    ``not``, ``| bool``, ``true``/``false``, or ``and``/``or``/``if`` of those. Only then does
    ``when: "{{ e }}"`` do what ``when: e`` does: ansible 2.19 re-reads a templated condition's
    string result as an expression (``"true"`` runs), but fails a bare one that is not a boolean."""
    from jinja2 import nodes
    from jinja2.exceptions import TemplateSyntaxError

    from engine.templating.templar import parsing_environment

    try:
        body = parsing_environment().parse("{{ " + expression + " }}").body
    except TemplateSyntaxError:
        return False
    if len(body) != 1 or not isinstance(body[0], nodes.Output) or len(body[0].nodes) != 1:
        return False

    def boolean(node: nodes.Node) -> bool:
        if isinstance(node, nodes.Compare | nodes.Test | nodes.Not):
            return True
        if isinstance(node, nodes.Const):
            return isinstance(node.value, bool)
        if isinstance(node, nodes.Filter):
            return node.name == "bool"
        if isinstance(node, nodes.And | nodes.Or):
            return boolean(node.left) and boolean(node.right)
        if isinstance(node, nodes.CondExpr):
            return boolean(node.expr1) and node.expr2 is not None and boolean(node.expr2)
        return False

    return boolean(body[0].nodes[0])
