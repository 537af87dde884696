"""The lookups the plan may run before the run to know a set-like filter's items
(engine.run.set_order_items): the lookups without side effects, and the ``file`` lookup of a file
that is there before the run and that no task of the playbook may write.

A task may write a file when the file's name is in the text of any of its arguments or keywords,
unless its module only reads (``debug``, ``set_fact``, ``assert``, ``stat``...): a ``copy``,
``template``, ``lineinfile`` or ``shell`` naming it, a loop over names holding it. A task that
writes it under a name made only at run time (with no part of the name written) is beyond what
this reads; it would change the result only if the file's new lines also tied in a sort.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from engine.templating.pure_lookups import Call, PureLookups, invoke, short_name, template_globals

if TYPE_CHECKING:
    from engine.loading.model import Task
    from engine.templating.templar import Templar

READ_ONLY_ACTIONS = frozenset({"debug", "set_fact", "assert", "fail", "stat", "meta", "include_vars", "ping",
                               "set_stats", "add_host", "group_by", "include_tasks", "import_tasks",
                               "include_role", "import_role", "validate_argument_spec", "slurp", "find"})
"""Actions whose tasks write no file (what they include is a task of its own)."""
MAX_FILE = 1 << 20
"""A larger file is read only by the run."""


def unwritten_names(tasks: Iterable[Task], strings: Callable[[Any], Iterable[str]]) -> Callable[[str], bool]:
    """Whether no task of ``tasks`` may write the file at a path: its name is in no text of a
    task whose action may write (``strings`` gives a value's texts)."""
    texts = []
    for task in tasks:
        if task.action.rpartition(".")[2] not in READ_ONLY_ACTIONS:
            texts.extend(strings(task.data))
    written = "\n".join(texts)

    def unwritten(path: str) -> bool:
        return os.path.basename(path) not in written

    return unwritten


class PlanLookups:
    """:class:`~engine.templating.pure_lookups.PureLookups`, and the ``file`` lookup of a file
    ``unwritten`` says no task writes, looked up as the task's own lookup looks (``context``)."""

    warn = None

    def __init__(self, context: Any, unwritten: Callable[[str], bool]) -> None:
        self.context, self.unwritten = context, unwritten
        self._pure = PureLookups()

    def resolve(self, name: str) -> Callable[[list[Any], dict[str, Any], Call], list[Any]]:
        if short_name(name) == "file":
            return self._file
        return self._pure.resolve(name)

    def _file(self, terms: list[Any], kwargs: dict[str, Any], call: Call) -> list[Any]:
        from engine.run.file_and_command_lookups import lookup_file
        from engine.templating.errors import TemplateFailure
        from engine.templating.file_search import find_file

        for term in terms:
            path = find_file(self.context, "files", term) if isinstance(term, str) else None
            if path is None or not os.path.isfile(path) or os.path.getsize(path) > MAX_FILE or not self.unwritten(path):
                raise TemplateFailure("the lookup 'file' gives a value only when the task runs")
        return lookup_file(terms, kwargs, Call(call.templar, self.context, call.name, call.invoked_as_with))

    def template_globals(self, templar: Templar) -> dict[str, Callable[..., Any]]:
        return template_globals(templar, self)

    def invoke(self, templar: Templar, name: str, terms: list[Any], kwargs: dict[str, Any],
               invoked_as_with: bool = False) -> Any:
        return invoke(templar, self, name, terms, kwargs, invoked_as_with)
