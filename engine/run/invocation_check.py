"""Where a playbook would show a module's ``invocation``, which the bundled engine does not make.

ansible's modules return ``invocation: {module_args: ...}``: every argument of the module's spec
with its default, in the order AnsibleModule fills them in, and for ``copy`` and ``template`` the
temporary file the controller sent (a random name). The strategy drops the key from what
``register`` stores, but only at the top: each item result of a looped task keeps its own. So a
loop over such a task's ``results`` shows it in every item line (unless ``loop_control.label``
replaces the item), and so does a ``debug`` of the whole registered value or of its ``results``.
The engine's modules whose argument specs are ansible's (``EXACT_INVOCATION``, and copy and
template through the copy action's ``_ensure_invocation``: ``_exact``) return it as
AnsibleModule does, its values and its key order (engine.run.modules._args.module_args), and
their results' keys in the module's order, so whatever shows their results runs: a debug (sorted
JSON), an item label or a text (a Python repr, ordered). For the others, rather than differ in
those lines, the engine declines the run before it starts (engine.run.declines), naming the
registered variable.

The same holds for ``ansible_failed_result`` in a rescue section: the failed result of a task
of the block, which keeps its invocation; a debug that shows it whole after a block that holds
a task of a module without the engine's exact invocation is declined too.

Found as written, by name: a copy ``set_fact`` makes of the whole results is followed, a
register templated, or an item list built elsewhere from the results, is not.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from functools import lru_cache

from engine.loading import keywords as kw
from engine.loading.model import Block, Task
from engine.values import strings

# Actions whose results carry no module's invocation: the executor's own and the action plugins
# that run no module.
NO_INVOCATION = kw._family("debug", "assert", "fail", "set_fact", "include_vars", "meta", "include_tasks",
                           "include_role", "import_tasks", "import_role", "add_host", "group_by", "pause",
                           "set_stats", "validate_argument_spec", "async_status", "fetch")
# modules whose results carry ansible's invocation (engine.run.modules._args.module_args)
EXACT_INVOCATION = kw._family("command", "shell", "stat", "file", "lineinfile", "replace", "blockinfile", "find")
# copy and template (through the copy action) give ansible's invocation and keys for a file they
# write, one already right, or one check mode would write; not for a remote source the module
# looks at itself nor for a failed validate's result
_COPIES = kw._family("copy", "template")


def _exact(task: Task) -> bool:
    """Whether the engine's result of ``task`` carries ansible's invocation, in its key order."""
    if task.action in EXACT_INVOCATION:
        return True
    args = task.args if isinstance(task.args, Mapping) else None
    return task.action in _COPIES and args is not None and not {"remote_src", "validate"} & set(args)
# filters and tests that take values out of the results: what they give shows no invocation
_EXTRACTING = re.compile(r"\b(?:map|json_query|length|count|sum|join|items2dict|to_json|to_nice_json|is|in)\b")
_LOOPS = ("loop",)


def _loop_text(task: Task) -> str | None:
    data = task.data if isinstance(task.data, Mapping) else {}
    for key, value in data.items():
        if key in _LOOPS or str(key).startswith("with_"):
            return value if isinstance(value, str) else None
    return None


def _has_loop(task: Task) -> bool:
    data = task.data if isinstance(task.data, Mapping) else {}
    return any(key in _LOOPS or str(key).startswith("with_") for key in data)


def looped_module_registers(tasks: Iterable[Task], exact: bool | None = None) -> set[str]:
    """The names registered by looped tasks of a module (whose item results keep ``invocation``);
    with ``exact``, only those of modules whose invocation the engine makes (True) or does not."""
    found = set()
    for task in tasks:
        data = task.data if isinstance(task.data, Mapping) else {}
        register = data.get("register")
        if isinstance(register, str) and register.isidentifier() and _has_loop(task) \
                and task.action not in NO_INVOCATION \
                and (exact is None or _exact(task) == exact):
            found.add(register)
    return found


@lru_cache(maxsize=4096)
def _reference(name: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w.'\"]){re.escape(name)}(\s*\.\s*results\b|\s*\[\s*['\"]results['\"]\s*\])?"
                      r"(\s*\[\s*-?\d+\s*\])?")


def shows_whole_results(text: str, name: str, bare: bool = False) -> bool:
    """Whether ``text`` (a template, or a bare expression when ``bare``) shows ``name``'s item
    results whole: ``name`` or ``name.results`` (an item of it) not taken apart by an attribute,
    an extracting filter or a test."""
    if name not in text:
        return False
    for match in _reference(name).finditer(text):
        if not bare and text.rfind("{{", 0, match.start()) <= text.rfind("}}", 0, match.start()):
            continue  # outside {{ }}: plain text
        rest = text[match.end():]
        end = len(rest) if bare else rest.find("}}")
        expression = rest[:end if end >= 0 else len(rest)].strip()
        if match.group(2) and not match.group(1):
            continue  # name[0]: no item result
        if expression and not expression.startswith("|"):
            continue  # an attribute, an operator, a test: not the results themselves
        if _EXTRACTING.search(expression):
            continue
        return True
    return False


def invocation_uses(tasks: list[Task]) -> Iterator[tuple[str, Task]]:
    """Each (what, task) that would show a registered module's invocation."""
    names = looped_module_registers(tasks)
    if not names:
        return
    # the engine's invocations are ansible's, values and order: only the other modules' are declined
    inexact = looped_module_registers(tasks, exact=False)
    names, inexact = _with_copies(tasks, names, inexact)
    for task in tasks:
        data = task.data if isinstance(task.data, Mapping) else {}
        control = data.get("loop_control")
        loop = _loop_text(task)
        if loop is not None and not (isinstance(control, Mapping) and control.get("label") is not None):
            for name in sorted(inexact):
                if shows_whole_results(loop, name):
                    yield f"the items of a loop over {name}.results (a module's invocation)", task
        args = task.args if isinstance(task.args, Mapping) else {}
        if task.action in kw._family("debug"):
            var, msg = args.get("var"), args.get("msg")
            for name in sorted(names):
                shown = [text for text in strings(msg) if shows_whole_results(text, name)]
                if name in inexact and ((isinstance(var, str) and shows_whole_results(
                        var.strip(), name, bare="{{" not in var)) or shown):
                    yield f"debug of {name} (a module's invocation)", task


def _with_copies(tasks: list[Task], names: set[str], inexact: set[str]) -> tuple[set[str], set[str]]:
    """``names`` and ``inexact`` with the facts ``set_fact`` copies their results whole into
    (``saved: "{{ REG }}"``), which show the invocations as the registered value does."""
    setters = [task for task in tasks if task.action in kw._family("set_fact")
               and isinstance(task.args, Mapping)]
    names, inexact = set(names), set(inexact)
    grown = True
    while grown:
        grown = False
        for task in setters:
            for fact, value in task.args.items():
                if not isinstance(fact, str) or fact in names or not isinstance(value, str):
                    continue
                sources = [name for name in sorted(names) if shows_whole_results(value, name)]
                if sources:
                    names.add(fact)
                    if any(name in inexact for name in sources):
                        inexact.add(fact)
                    grown = True
    return names, inexact


FAILED_RESULT = "ansible_failed_result"


def _blocks(items: list[Block | Task]) -> Iterator[Block]:
    for item in items:
        if isinstance(item, Block):
            yield item
            for section in (item.block, item.rescue, item.always):
                yield from _blocks(section)
        else:
            yield from _blocks(list(item.children))


def failed_result_uses(blocks: list[Block]) -> Iterator[tuple[str, Task]]:
    """Each (what, task) of a rescue section that would show the invocation of a failed module
    of its block in ``ansible_failed_result``: a debug of it whole, after a block with a module
    whose invocation the engine does not make (or any module's, shown as text)."""
    from engine.flow.plan import tasks_within

    for block in _blocks(list(blocks)):
        if not block.rescue:
            continue
        modules = [t.action for t in tasks_within(block.block) if t.action not in NO_INVOCATION]
        if not modules:
            continue
        inexact = any(action not in EXACT_INVOCATION for action in modules)
        for task in tasks_within(block.rescue):
            if task.action not in kw._family("debug"):
                continue
            args = task.args if isinstance(task.args, Mapping) else {}
            var, msg = args.get("var"), args.get("msg")
            shown = [text for text in strings(msg) if shows_whole_results(text, FAILED_RESULT)]
            # a failed result's own keys (fail_json's order) are not the engine's: its text is declined
            if inexact and ((isinstance(var, str) and shows_whole_results(
                    var.strip(), FAILED_RESULT, bare="{{" not in var)) or shown) \
                    or any(not _one_expression(text) for text in shown):
                yield f"debug of {FAILED_RESULT} (a module's invocation)", task


def _one_expression(text: str) -> bool:
    """Whether ``text`` is one ``{{ }}`` expression, whose value the debug shows as JSON."""
    text = text.strip()
    return text.startswith("{{") and text.endswith("}}") and text.count("{{") == 1


