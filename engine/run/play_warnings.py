"""The warnings ansible-playbook shows for a play before its header (PlaybookExecutor): a play
variable named like a keyword or a template global ("Found variable using reserved name"), and
each ``vars_prompt`` it cannot ask for on a standard input that is no terminal."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from engine.loading.model import Play

# ansible.vars.reserved.get_reserved_names(): the attributes of plays, roles, blocks and tasks
# and the templar's globals ('vars' is left out: ansible adds it itself)
RESERVED_NAMES = frozenset({
    "action", "always", "any_errors_fatal", "args", "async", "async_val", "become", "become_exe", "become_flags",
    "become_method", "become_user", "block", "changed_when", "check_mode", "collections", "connection", "cycler",
    "debugger", "delay", "delegate_facts", "delegate_to", "dict", "diff", "environment", "fact_path", "failed_when",
    "force_handlers", "gather_facts", "gather_timeout", "handlers", "hosts", "ignore_errors", "ignore_unreachable",
    "joiner", "lipsum", "local_action", "lookup", "loop", "loop_control", "loop_with", "max_fail_percentage",
    "module_defaults", "name", "namespace", "no_log", "notify", "now", "omit", "order", "poll", "port", "post_tasks",
    "pre_tasks", "q", "query", "range", "register", "remote_user", "rescue", "retries", "roles", "run_once",
    "serial", "strategy", "tags", "tasks", "throttle", "timeout", "undef", "until", "vars_files", "vars_prompt",
    "when", "with_",
})


def reserved_name_warnings(play: Play, extra_vars: Iterable[str]) -> list[str]:
    """``warn_if_reserved`` of the play's variables (its ``vars``, then the extra vars), each at
    the name as written."""
    from engine.run.error_block import Event, format_events

    written = play.data.get("vars") if isinstance(play.data, Mapping) else None
    names: list[tuple[str, Any]] = []
    if isinstance(written, Mapping):
        spans = getattr(written, "key_spans", {}) or {}
        names += [(str(name), spans.get(name)) for name in written]
    names += [(str(name), None) for name in extra_vars]
    return [format_events([Event(f"Found variable using reserved name {name!r}.", span)]) if span is not None
            else f"Found variable using reserved name {name!r}."
            for name, span in names if name in RESERVED_NAMES]


def prompt_warnings(play: Play, extra_vars: Iterable[str]) -> list[str]:
    """``Display.do_var_prompt`` without a terminal: a warning for each prompt not answered by an
    extra var (the default is taken)."""
    prompts = play.data.get("vars_prompt") if isinstance(play.data, Mapping) else None
    if not isinstance(prompts, list) or sys.__stdin__ is None or sys.__stdin__.isatty():
        return []
    answered = set(extra_vars)
    return ["Not prompting as we are not in interactive mode" for prompt in prompts
            if isinstance(prompt, Mapping) and prompt.get("name") not in answered]


def play_start_warnings(play: Play, extra_vars: Mapping[str, Any], warn: Callable[[str], None]) -> None:
    for warning in [*reserved_name_warnings(play, extra_vars), *prompt_warnings(play, extra_vars)]:
        warn(warning)


def stored_name_warnings(task: Any, result: Mapping[str, Any], set_fact: bool) -> tuple[list[str], list[str]]:
    """``warn_if_reserved`` as the strategy stores a result: (the facts ``set_fact`` sets, each
    at its name in the task's arguments; the ``register`` name, at its value), each a warning
    when the name is reserved."""
    from engine.run.error_block import Event, format_events

    data = task.data if isinstance(task.data, Mapping) else {}
    facts: list[str] = []
    if set_fact:
        written = data.get(task.action)
        spans = getattr(written, "key_spans", {}) or {}
        items = result.get("results") if isinstance(result.get("results"), list) else [result]
        for item in items:
            stored = item.get("ansible_facts") if isinstance(item, Mapping) else None
            for name in sorted(stored, key=str) if isinstance(stored, Mapping) else ():  # args templated in name order
                if name in RESERVED_NAMES:
                    facts.append(format_events([Event(f"Found variable using reserved name {name!r}.",
                                                      spans.get(name))]))
    register = data.get("register")
    registered = [format_events([Event(f"Found variable using reserved name {register!r}.",
                                       (getattr(data, "value_spans", {}) or {}).get("register"))])] \
        if isinstance(register, str) and register in RESERVED_NAMES else []
    return facts, registered
