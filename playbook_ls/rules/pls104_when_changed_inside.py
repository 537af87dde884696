"""when-changed-inside

## What it does
Checks for a role, import or block applied with `when:` whose condition tests a variable
that a task inside it assigns with `set_fact` or `register` while later tasks inside it
still follow.

## Why is this bad?
An inherited `when` is not checked once at the entrance: ansible copies it onto every task
and re-evaluates it for each one. When a task inside changes a variable the condition
tests, the condition can flip half-way and the remaining tasks are skipped silently (or
start running). In the example, the tasks after `Disable the feature` are skipped.

## Example
```yaml title="playbook.yml"
- hosts: all
  vars:
    feature: true
  tasks:
    - when: feature | bool
      block:
        - name: Configure the feature
          ansible.builtin.debug:
            msg: configuring
        - name: Disable the feature
          ansible.builtin.set_fact:
            feature: false
        - name: Restart the service
          ansible.builtin.debug:
            msg: restarting
```

Use instead:
```yaml title="playbook.yml"
- hosts: all
  vars:
    feature: true
  tasks:
    - name: Remember the decision before the block
      ansible.builtin.set_fact:
        feature_enabled: "{{ feature | bool }}"
    - when: feature_enabled
      block:
        - name: Configure the feature
          ansible.builtin.debug:
            msg: configuring
        - name: Disable the feature
          ansible.builtin.set_fact:
            feature: false
        - name: Restart the service
          ansible.builtin.debug:
            msg: restarting
```
An `include_role` / `include_tasks` checks its own `when` once, which is another way out.

A `set_fact` that gives every variable the condition tests a literal with which the condition
still holds (setting again the value the block was entered with) cannot flip it and is not
reported.

## Claim
ansible evaluates the inherited `when` again for each task of the block (or role, or import)
with the variables as they are then, so after the task named sets the variable, the tasks
after it see the new value. This is how ansible-core's `Conditional` is evaluated per task;
the findings on public repositories were judged by reading the block and the task named.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

from engine.loading.model import Frame, Task
from playbook_ls.rules.base import Finding, PlaybookContext, Related, Severity, describe_frame, keyword_span, where
from playbook_ls.rules.base import task_anchor as anchor

CODE = "PLS104"
NAME = "when-changed-inside"
SEVERITY = Severity.WARNING
SCOPE = "playbook"


def check(ctx: PlaybookContext) -> Iterator[Finding]:
    # a file included from several places of one block is one finding, with every count
    found: dict[tuple[Any, ...], tuple[Task, Frame, list[str], list[int]]] = {}
    for task, frame, tested, later in _flips(ctx):
        key = (anchor(task), keyword_span(frame, "when"), tuple(tested))
        found.setdefault(key, (task, frame, tested, []))[3].append(later)
    for task, frame, tested, counts in found.values():
        yield _finding(task, frame, tested, sorted(set(counts)))


def _flips(ctx: PlaybookContext) -> Iterator[tuple[Task, Frame, list[str], int]]:
    by_play: dict[int, list[Task]] = {}
    for play, task in ctx.tasks():
        if not task.handler:
            by_play.setdefault(id(play), []).append(task)
    for tasks in by_play.values():
        # where each conditional level's tasks sit in the play, to count those after a task
        positions: dict[int, list[int]] = {}
        for index, task in enumerate(tasks):
            for frame in task.chain[:-1]:
                if frame.when:
                    positions.setdefault(id(frame), []).append(index)
        for index, task in enumerate(tasks):
            assigned = assigned_variables(task)
            if not assigned:
                continue
            for frame in task.chain[:-1]:
                if id(frame) not in positions:
                    continue  # no condition at that level
                tested = assigned & condition_variables(frame) if _mentions(frame, assigned) else set()
                if not tested or _still_true(frame, task, tested):
                    continue
                under = positions[id(frame)]
                later = len(under) - bisect_right(under, index)
                if later:
                    yield task, frame, sorted(tested), later


def _finding(task: Task, frame: Frame, variables: list[str], counts: list[int]) -> Finding:
    names = ", ".join(f"'{v}'" for v in variables)
    span = keyword_span(frame, "when")
    if counts == [1]:
        later_tasks, verb = "the task after this one", "is"
    elif len(counts) == 1:
        later_tasks, verb = f"each of the {counts[0]} tasks after this one", "are"
    else:  # the same file included at several points of the block
        numbers = ", ".join(map(str, counts[:-1])) + f" or {counts[-1]}"
        later_tasks, verb = f"each of the tasks after this one ({numbers}, by where it is included)", "are"
    message = (f"'{task.display_name()}' assigns {names}, which the when inherited from {describe_frame(frame)} "
               f"({where(span)}) tests; it is re-checked for {later_tasks}, which {verb} skipped if it turns "
               "false. Decide the condition before entering, or use an include whose when is checked once")
    return Finding(message, anchor(task), [Related(span, "this condition is re-evaluated for every task")] if span
                   else [])


def assigned_variables(task: Task) -> set[str]:
    """Variables a task sets for the tasks after it: set_fact keys, register, include_vars name."""
    names: set[str] = set()
    short = task.action.rsplit(".", 1)[-1]
    if short == "set_fact":
        names |= {str(k) for k in task.args if k not in ("cacheable", "_raw_params")}
        raw = task.args.get("_raw_params")
        if isinstance(raw, str):
            names |= {part.split("=", 1)[0] for part in raw.split() if "=" in part}
    elif short == "include_vars" and isinstance(task.args.get("name"), str):
        names.add(task.args["name"])
    register = task.data.get("register") if isinstance(task.data, dict) else None
    if isinstance(register, str):
        names.add(register)
    return names


def _still_true(frame: Frame, task: Task, tested: set[str]) -> bool:
    """Whether the condition is certainly still true after the task: it sets every tested
    variable to a literal with which each condition that uses them holds (re-setting the value
    the block was entered with, say). Anything unknown counts as a possible flip."""
    from engine.templating.load_time import Unresolved, is_template, render

    values = _literal_facts(task)
    if not tested <= values.keys():
        return False
    for condition in frame.when:
        if not isinstance(condition, str) or not (_variables(condition) & tested):
            continue
        if not _variables(condition) <= values.keys():
            return False
        text = condition.strip()
        text = text[2:-2] if text.startswith("{{") and text.endswith("}}") else text
        try:
            if render("{{ (" + text + ") }}", values) is not True:
                return False
        except Unresolved:
            return False
    return not any(is_template(value) for value in values.values())


def _literal_facts(task: Task) -> dict[str, Any]:
    """What a set_fact assigns, by name (register and include_vars values are not known)."""
    if task.action.rsplit(".", 1)[-1] != "set_fact":
        return {}
    values = {str(k): v for k, v in task.args.items() if k not in ("cacheable", "_raw_params")}
    raw = task.args.get("_raw_params")
    if isinstance(raw, str):
        from engine.parsing.splitter import parse_kv

        values.update({str(k): v for k, v in parse_kv(raw).items() if k != "_raw_params"})
    register = task.data.get("register") if isinstance(task.data, dict) else None
    if isinstance(register, str):
        values.pop(register, None)  # the registered result replaces the fact
    return values


def _mentions(frame: Frame, names: set[str]) -> bool:
    """Whether a condition's text contains one of the names at all: parsing it is dearer."""
    for condition in frame.when:
        if isinstance(condition, str):
            for name in names:
                if name in condition:
                    return True
    return False


def condition_variables(frame: Frame) -> set[str]:
    found: set[str] = set()
    for condition in frame.when:
        if isinstance(condition, str):
            found |= _variables(condition)
    return found


@lru_cache(maxsize=4096)
def _variables(condition: str) -> frozenset[str]:
    from jinja2 import meta
    from jinja2.exceptions import TemplateSyntaxError

    from engine.templating.templar import parsing_environment

    text = condition.strip()
    if text.startswith("{{") and text.endswith("}}"):
        text = text[2:-2]
    try:
        ast = parsing_environment().parse(f"{{% if {text} %}}{{% endif %}}")
    except TemplateSyntaxError:
        return frozenset()
    return frozenset(meta.find_undeclared_variables(ast))
