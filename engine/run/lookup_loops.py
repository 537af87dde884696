"""A ``with_<lookup>`` loop whose lookup ansible-playbook cannot find stops it while it loads the
playbook: ``with_`` and a name is a task attribute only where the lookup plugin loader has that
plugin (ansible-core's own, an installed collection's, one of a ``lookup_plugins`` directory), so
ansible 2.19 fails with "'with_filetree' is not a valid attribute for a Task" (exit code 4), after
its plugin loader's warning for a collection installed nowhere ("Error loading plugin
'community.general.filetree': No module named 'ansible_collections.community'"). That is known
before the run where no ``lookup_plugins`` directory could hold the name; the engine stops the
same way, in ansible's words, instead of declining the run. Each task is loaded whole before the
next (its module key resolved, then its ``with_`` checked), so another load error stops ansible
first only when its task comes first in load order (``before``)."""

from __future__ import annotations

from typing import Any

from engine.loading.model import Playbook
from engine.span import Span

# the second line of ansible's message (AnsibleParserError's), before its source context
SUPPRESSED = 'This error can be suppressed as a warning using the "invalid_task_attribute_failed" configuration'


def load_failure(book: Playbook, before: Span | None = None) -> tuple[str, str] | None:
    """The first task of ``book``, in load order, whose ``with_`` loop names a lookup ansible
    cannot find, as (where and why, what ansible prints as it stops loading); None when there is
    none (or it may find it). With ``before`` (where another load error is), only a task loaded
    before the one that holds it, and None when no task holds it."""
    from engine.booleans import boolean
    from engine.config import config_value
    from engine.flow.plan import every_task
    from engine.run.collection_lookups import load_failure as plugin_warning
    from engine.run.collection_lookups import target
    from engine.run.declines import CORE_LOOKUPS, _short
    from engine.run.error_block import Event, format_events
    from engine.run.filter_check import plugin_dirs

    setting = config_value("ANSIBLE_INVALID_TASK_ATTRIBUTE_FAILED", "defaults", "invalid_task_attribute_failed")
    if setting is not None and not boolean(setting):  # ansible then warns and goes on: not the engine's
        return None
    collections = getattr(book.plugins, "collections", None)
    directories: list[str] | None = None
    tasks = list(every_task(book))
    if before is not None and not any(_holds(task.span, before) for task in tasks):
        return None  # a load error of no task's (a play's, a role's): where it stops is not known here
    for task in tasks:
        if before is not None and _holds(task.span, before):
            return None  # that task's own load error comes first
        data: Any = task.data
        key = next((key for key in data if isinstance(key, str) and key.startswith("with_")), None) \
            if isinstance(data, dict) and not task.dynamic else None
        if key is None:
            continue
        name = key[len("with_"):]
        if _short(name) in CORE_LOOKUPS or "." in name and target(name) is None:
            continue  # ansible-core's own (ansible.builtin.NAME too)
        warning = plugin_warning(name, collections)
        if target(name) is not None and warning is None:
            continue  # its collection is installed (or the installed ones are unknown)
        if directories is None:
            directories = plugin_dirs(book, "lookup")
        if directories or collections is None:
            return None  # a lookup_plugins directory may hold it
        span = getattr(data, "key_spans", {}).get(key)
        message = f"'{key}' is not a valid attribute for a Task"
        error = format_events([Event(f"{message}\n{SUPPRESSED}", span)])
        where = span.human() if span is not None else "<unknown>"
        return f"{where}: {message}", (f"[WARNING]: {warning}\n" if warning else "") + f"[ERROR]: {error}"
    return None


def _holds(span: Span | None, inner: Span) -> bool:
    return span is not None and span.file == inner.file and \
        (span.line, span.col) <= (inner.line, inner.col) <= (span.end_line, span.end_col)
