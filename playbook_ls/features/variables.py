"""Variables in the editor: the name under the cursor (in ``{{ }}`` or a ``when``-like
condition), its value on the hosts of each play that reaches the task, where it was set and
what that overrides (hover), and where it is defined (go to definition). Pure functions over
the workspace index and :mod:`engine.variables.report`; nothing is run to show a value.

The hosts come from the inventory the runs use (the ``inventory`` setting, else ansible.cfg's),
read without running scripts; at most ``MAX_HOSTS`` hosts per play are looked at.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

from playbook_ls.features.yamltext import split_lines
from playbook_ls.rules.base import display_path

if TYPE_CHECKING:
    from engine.span import Span
    from engine.variables.task_variables import Resolved
    from playbook_ls.features.workspace import Reach, WorkspaceIndex

MAX_HOSTS = 30
INVENTORY_TTL = 2.0  # seconds before the inventory's files are looked at again for changes
# inventories kept, one per directory a hovered file is in (its inventory_plugins/ count): files of
# a few directories are edited in turn, and reading the inventory again for each hover was slow
INVENTORIES_KEPT = 4
CONDITION_KEYS = frozenset({"when", "failed_when", "changed_when", "until", "that"})
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
JINJA_WORDS = frozenset({
    "and", "or", "not", "in", "is", "if", "else", "elif", "for", "endfor", "endif", "true", "false", "none",
    "True", "False", "None", "defined", "undefined", "set", "endset", "block", "endblock", "loop", "range",
    "lookup", "query", "q", "item", "omit",
})


@dataclass(frozen=True)
class VariableAt:
    name: str
    line: int
    start: int
    end: int


def variable_at(text: str, line: int, column: int) -> VariableAt | None:
    """The variable name at ``column`` of ``line``: inside ``{{ }}``/``{% %}``, or in the value
    of a condition key (``when``, ``failed_when``, ``changed_when``, ``until``, ``that``) or one of
    its list items. Attributes (``x.name``), filters (``| default``), tests (``is defined``) and
    strings are not variables."""
    lines = split_lines(text)
    if not 0 <= line < len(lines):
        return None
    current = lines[line]
    match = next((m for m in NAME.finditer(current) if m.start() <= column <= m.end()), None)
    if match is None or match.group() in JINJA_WORDS:
        return None
    before = current[: match.start()].rstrip()
    if before.endswith((".", "|")) or re.search(r"\bis\s+(not\s+)?$", before):
        return None
    if _in_quotes_inside_template(current, match.start()):
        return None
    if _inside_template(current, match.start()) or _in_condition(lines, line, match.start()):
        return VariableAt(match.group(), line, match.start(), match.end())
    return None


def _inside_template(line: str, column: int) -> bool:
    opened = max(line.rfind("{{", 0, column), line.rfind("{%", 0, column))
    if opened < 0:
        return False
    closed = max(line.rfind("}}", 0, column), line.rfind("%}", 0, column))
    return closed < opened


def _in_quotes_inside_template(line: str, column: int) -> bool:
    opened = max(line.rfind("{{", 0, column), line.rfind("{%", 0, column))
    segment = line[opened + 2: column] if opened >= 0 else ""
    return opened >= 0 and (segment.count("'") % 2 == 1 or segment.count('"') % 2 == 1)


def _in_condition(lines: list[str], line: int, column: int) -> bool:
    current = lines[line]
    key = re.match(r"\s*(?:-\s+)?([A-Za-z_]+):\s*", current)
    if key and key.end() <= column:
        return key.group(1) in CONDITION_KEYS
    if not re.match(r"\s*-\s+", current):
        return False
    indent = len(current) - len(current.lstrip())
    for above in range(line - 1, -1, -1):
        text = lines[above]
        if not text.strip() or text.lstrip().startswith("#"):
            continue
        above_indent = len(text) - len(text.lstrip())
        if above_indent < indent or (above_indent == indent and not text.lstrip().startswith("-")):
            owner = re.match(r"\s*(?:-\s+)?([A-Za-z_]+):\s*$", text)
            return bool(owner and owner.group(1) in CONDITION_KEYS)
    return False


@dataclass
class HostGroup:
    """Hosts on which the variable has the same value from the same definition."""

    hosts: list[str]
    resolved: Resolved


@dataclass
class ContextValues:
    reach: Reach
    groups: list[HostGroup]
    hosts_total: int
    partial: tuple[str, ...] = ()
    """Why the inventory lacks sources (code not run): its hosts may not be all the play's."""


_inventories: dict[tuple[Any, ...], tuple[tuple[float, int], tuple[Any, ...], Any]] = {}


def _signature(paths: list[str]) -> tuple[Any, ...]:
    """What changes when an inventory source or a vars file beside it changes: the modification
    times and sizes of the sources and of everything under them and their group_vars/host_vars."""
    found: list[Any] = []
    for source in paths:
        if "," in source and not os.path.exists(source):
            continue
        base = source if os.path.isdir(source) else os.path.dirname(source) or "."
        for directory in (source, os.path.join(base, "group_vars"), os.path.join(base, "host_vars")):
            if not os.path.exists(directory):
                continue
            walk = os.walk(directory) if os.path.isdir(directory) else [(os.path.dirname(directory), [],
                                                                       [os.path.basename(directory)])]
            for folder, _dirs, files in walk:
                for name in files:
                    try:
                        stat = os.stat(os.path.join(folder, name))
                    except OSError:
                        continue
                    found.append((folder, name, stat.st_mtime_ns, stat.st_size))
    return tuple(sorted(found))


def _inventory(index: WorkspaceIndex, path: str, sources: list[str] | None) -> Any:
    """The inventory values are shown for, read without running scripts or plugins unless the
    workspace is trusted; read again only when one of its files changed: looked at as soon as
    the index is told of a change (:func:`~engine.parsing.source.files_state`), and every
    ``INVENTORY_TTL`` seconds at most for the changes it is not told of (an inventory outside the
    workspace)."""
    from engine.inventory.manager import load_inventory
    from engine.parsing.source import files_state

    config = index.configs.for_path(path)
    chosen = [os.path.join(index.root, s) if not os.path.isabs(s) and "," not in s else s
              for s in sources] if sources else list(config.inventory.sources)
    basedir = os.path.dirname(os.path.abspath(path))  # ansible-playbook's, for inventory_plugins/
    key = (id(index), tuple(chosen), id(config), basedir, index.run_repository_code)
    now = (time.monotonic(), files_state())
    cached = _inventories.pop(key, None)  # put back last: the least recently used goes first
    if cached is not None and now[1] == cached[0][1] and now[0] - cached[0][0] < INVENTORY_TTL:
        _inventories[key] = cached
        return cached[2]
    signature = _signature(chosen)
    if cached is not None and cached[1] == signature:
        _inventories[key] = (now, signature, cached[2])
        return cached[2]
    inventory = load_inventory(chosen, index.sources, dynamic=index.run_repository_code, playbook_dir=None,
                               settings=config.inventory, plugin_basedir=basedir)
    for oldest in list(_inventories)[:max(0, len(_inventories) - INVENTORIES_KEPT + 1)]:
        _inventories.pop(oldest, None)  # another query thread may have dropped it meanwhile
    _inventories[key] = (now, signature, inventory)
    return inventory


def play_context(index: WorkspaceIndex, reach: Reach, inventory: list[str] | None) -> tuple[Any, Any]:
    """The plan and the play's plan a variable report needs for ``reach``: the inventory read
    for the playbook's directory (ansible-playbook's, whichever file of a role is asked about:
    one inventory for every file the playbook reaches), and the play's hosts in it (the
    implicit localhost when its pattern matches none)."""
    from engine.flow.plan import PlayPlan, RunOptions, play_order
    from engine.flow.unrun_hosts import maybe_hosts, more_hosts
    from engine.inventory.patterns import HostPatternError, select_hosts

    book = reach.book.path
    inv = _inventory(index, book, inventory).with_playbook_dir(os.path.dirname(os.path.abspath(book)))
    try:
        hosts = select_hosts(inv.data, reach.play.hosts, None, warnings=[])
    except HostPatternError:
        hosts = []
    hosts, maybe = maybe_hosts(inv.data, reach.play.hosts, None, hosts, inv.unrun)
    if not hosts:
        hosts = [inv.data.get_host("localhost") or _implicit_localhost()]
    # the play context's user where no keyword gives one: the project's ansible.cfg (no -u here)
    plan = SimpleNamespace(inventory=inv, options=RunOptions(playbook=reach.book.path, inventory=inv.sources),
                           remote_user=index.configs.for_path(book).remote_user)
    ordered, order_known = play_order(reach.play, hosts)
    return plan, PlayPlan(reach.play, ordered, [], order_known=order_known, hosts_all=[host.name for host in hosts],
                          maybe=maybe, more_hosts=more_hosts(inv.data, reach.play.hosts, inv.unrun))


def values_in_contexts(index: WorkspaceIndex, path: str, line: int, name: str,
                       inventory: list[str] | None = None) -> list[ContextValues]:
    """The variable's value on the hosts of each context reaching the task at ``line``."""
    from engine.variables.task_variables import variables_at

    found = []
    for reach in index.at(path, line):
        plan, play_plan = play_context(index, reach, inventory)
        groups: dict[tuple[str, Any], HostGroup] = {}
        for host in play_plan.hosts[:MAX_HOSTS]:
            resolved = variables_at(plan, play_plan, host, reach.task, [name]).variables[name]
            winner = resolved.definitions[0] if resolved.definitions else None
            key = (repr(resolved.value) + str(resolved.unknown),
                   (winner.level, winner.path, winner.line) if winner else None)
            groups.setdefault(key, HostGroup([], resolved)).hosts.append(host.name)
        partial = tuple(note for note in plan.inventory.notes if note.startswith("dynamic inventory:"))
        found.append(ContextValues(reach, list(groups.values()), len(play_plan.hosts), partial))
    return found


def _implicit_localhost() -> Any:
    from engine.inventory.data import Host

    return Host("localhost")


def _value_text(resolved: Resolved) -> str:
    import json

    if resolved.unknown and not resolved.definitions:
        return "undefined"
    if resolved.per_item:
        return "; ".join(f"item {index + 1}: {_value_text(each)}" for index, each in enumerate(resolved.per_item))
    if resolved.unknown:
        return f"unknown before the run ({resolved.unknown})"
    try:
        text = json.dumps(resolved.value, default=str, ensure_ascii=False)
    except (ValueError, RecursionError):  # inside itself, or nested too deeply for JSON
        return "(a value that cannot be shown)"
    return text if len(text) <= 120 else text[:119] + "…"


def _where(definition: Any) -> str:
    if definition.path is None:
        return definition.label
    line = f":{definition.line + 1}" if definition.line is not None else ""
    return f"{definition.label}, `{display_path(definition.path)}{line}`"


def hover_markdown(index: WorkspaceIndex, path: str, line: int, column: int,
                   inventory: list[str] | None = None) -> str | None:
    """Markdown for the variable at ``line``/``column``, or None when there is none."""
    from engine.inventory.data import InventoryError
    from playbook_ls.features.hover import context_label

    found = variable_at(index.text(path), line, column)
    if found is None:
        return None
    try:
        contexts = values_in_contexts(index, path, line, found.name, inventory)
    except InventoryError as exc:  # a group_vars/host_vars file that does not parse (being edited, say)
        return f"**`{found.name}`**\n\nunknown: the inventory's variables cannot be read: {exc}"
    if not contexts:
        return None
    parts = [f"**`{found.name}`**"]
    for context in contexts:
        if len(contexts) > 1:
            parts.append(f"In {context_label(context.reach)}:")
        for group in context.groups:
            hosts = ", ".join(group.hosts)
            resolved = group.resolved
            lines = [f"- `{_value_text(resolved)}` on {hosts}"]
            for position, definition in enumerate(resolved.definitions[:6]):
                verb = "set by" if position == 0 else "overrides"
                runtime = " (at run time, if reached)" if definition.runtime else ""
                lines.append(f"  - {verb} {definition.level}: {_where(definition)}{runtime}")
            if resolved.template is not None and not resolved.unknown:
                lines.append(f"  - from the template `{resolved.template}`")
            parts.append("\n".join(lines))
        if context.hosts_total > MAX_HOSTS:
            parts.append(f"(the first {MAX_HOSTS} of {context.hosts_total} hosts)")
    for note in dict.fromkeys(note for context in contexts for note in context.partial):
        parts.append(f"The inventory is partial, hosts and their values may be missing: {note}")
    return "\n\n".join(parts)


def definitions(index: WorkspaceIndex, path: str, line: int, column: int,
                inventory: list[str] | None = None) -> list[Span]:
    """Every definition of the variable at the cursor in every context, the winning ones first."""
    from engine.inventory.data import InventoryError
    from engine.span import Span

    found = variable_at(index.text(path), line, column)
    if found is None:
        return []
    spans: list[Span] = []
    later: list[Span] = []
    try:
        contexts = values_in_contexts(index, path, line, found.name, inventory)
    except InventoryError:  # the hover says why
        return []
    for context in contexts:
        for group in context.groups:
            for position, definition in enumerate(group.resolved.definitions):
                if definition.path is None:
                    continue
                span = Span(definition.path, definition.line or 0, 0, definition.line or 0, 0)
                target = spans if position == 0 else later
                if span not in spans and span not in later:
                    target.append(span)
    return spans + later


def completion(index: WorkspaceIndex, path: str, line: int, column: int, text: str,
               inventory: list[str] | None = None) -> tuple[int, list[tuple[str, str, str]]] | None:
    """Variable names for the word before ``column`` inside ``{{ }}``/``{% %}`` or a condition:
    ``(start column, [(name, detail, sort key)])`` with the value on the first host of the first
    play reaching the task, or None when the cursor is not where a variable is written."""
    lines = split_lines(text)
    if not 0 <= line < len(lines):
        return None
    current = lines[line]
    start = column
    while start > 0 and (current[start - 1].isalnum() or current[start - 1] == "_"):
        start -= 1
    before = current[:start].rstrip()
    if before.endswith((".", "|")) or re.search(r"\bis\s+(not\s+)?$", before):
        return None
    if _in_quotes_inside_template(current, start) or not (_inside_template(current, start)
                                                         or _in_condition(lines, line, start)):
        return None
    contexts = values_for_completion(index, path, line, inventory)
    if contexts is None:
        return None
    items = []
    for resolved in contexts.values():
        winner = resolved.definitions[0] if resolved.definitions else None
        detail = f"{_value_text(resolved)}" + (f" · {winner.level}" if winner is not None else "")
        items.append((resolved.name, detail, ("z" if resolved.magic else "a") + resolved.name))
    return start, items


def values_for_completion(index: WorkspaceIndex, path: str, line: int,
                          inventory: list[str] | None = None) -> dict[str, Resolved] | None:
    """Every variable visible at the task at ``line`` on the first host of its first context;
    None when there is no such task, or the inventory's variables cannot be read."""
    from engine.inventory.data import InventoryError
    from engine.variables.task_variables import variables_at

    reaches = index.at(path, line)
    if not reaches:
        return None
    plan, play_plan = play_context(index, reaches[0], inventory)
    try:
        return variables_at(plan, play_plan, play_plan.hosts[0], reaches[0].task).variables
    except InventoryError:  # a group_vars/host_vars file that does not parse: the hover says so
        return None


@dataclass(frozen=True)
class ValueHint:
    line: int
    col: int
    label: str
    tooltip: str


def value_hints(index: WorkspaceIndex, path: str, first_line: int, last_line: int,
                inventory: list[str] | None = None, seconds: float | None = None) -> list[ValueHint]:
    """After each templated module argument of the tasks in ``first_line..last_line``: its value
    where it is static (the same on every host looked at, in the first context reaching the
    task), e.g. ``dest: "{{ app_dir }}/app.conf"  = "/opt/app/app.conf"``. With ``seconds``, the
    tasks met after that much time get no hint: each costs milliseconds (a template compiled, the
    variables gathered), and a range of thousands of tasks would take a minute."""
    import json
    from collections.abc import Mapping

    from engine.inventory.data import InventoryError
    from engine.templating.templar import TemplateFailure, is_template
    from engine.variables.task_variables import variables_at

    lines = split_lines(index.text(path))
    hints: list[ValueHint] = []
    seen: set[Any] = set()
    stop = None if seconds is None else time.monotonic() + seconds
    for reach in sorted(index.reaches(path), key=_first_line):  # in the file's order: the top ones first
        if stop is not None and time.monotonic() > stop:
            break
        task = reach.task
        if task is None or task.implicit or task.span is None or task.span in seen:
            continue
        if task.span.end_line < first_line or task.span.line > last_line:
            continue
        seen.add(task.span)
        templated = [(value, spans.get(name)) for key, args in (task.data or {}).items()
                     if isinstance(args, Mapping) and key not in ("vars", "when", "loop_control")
                     for spans in [getattr(args, "value_spans", {})]
                     for name, value in args.items() if is_template(value)]
        if not templated:
            continue
        plan, play_plan = play_context(index, reach, inventory)
        hosts = play_plan.hosts
        try:
            templars = [variables_at(plan, play_plan, host, task, []).templar for host in hosts[:3]]
        except InventoryError:  # a group_vars/host_vars file that does not parse: no value is certain
            continue
        for value, span in templated:
            if span is None or not first_line <= span.end_line <= last_line or span.end_line >= len(lines):
                continue
            try:
                results = {json.dumps(t.template(value), default=str, ensure_ascii=False) for t in templars}
            except (TemplateFailure, RecursionError, TypeError, ValueError):
                continue
            if len(results) != 1:
                continue
            shown = results.pop()
            shown = shown if len(shown) <= 60 else shown[:59] + "…"
            hosts_text = ", ".join(h.name for h in hosts[:3]) + (" …" if len(hosts) > 3 else "")
            hints.append(ValueHint(span.end_line, len(lines[span.end_line]), f"  = {shown}",
                                   f"{value} on {hosts_text}"))
    return sorted(hints, key=lambda h: (h.line, h.col))


def _first_line(reach: Reach) -> int:
    return reach.task.span.line if reach.task is not None and reach.task.span is not None else -1


VARS_DIRS = ("group_vars", "host_vars", "defaults", "vars")


def references(index: WorkspaceIndex, path: str, line: int, column: int) -> list[Span]:
    """Every use of the variable at the cursor (in templates and conditions) and every place
    that sets it (a top-level key of a vars file, a key under ``vars:`` or ``set_fact:``, a
    ``register:``), across the workspace's files."""
    from engine.span import Span

    found = variable_at(index.text(path), line, column)
    if found is None:
        return []
    name = found.name
    word = re.compile(rf"(?<![\w.]){re.escape(name)}(?!\w)")
    setting = re.compile(rf"^(\s*)(?:-\s+)?{re.escape(name)}\s*:")
    spans: list[Span] = []
    for file in index.files:
        text = index.text(file)
        if name not in text:
            continue
        lines = split_lines(text)
        in_vars_file = any(part in VARS_DIRS for part in os.path.normpath(file).split(os.sep)[:-1])
        for number, current in enumerate(lines):
            for match in word.finditer(current):
                if variable_at(text, number, match.start()) is not None:
                    spans.append(Span(file, number, match.start(), number, match.end()))
            key = setting.match(current)
            if key and (in_vars_file and not key.group(1) or _under_setter(lines, number, len(key.group(1)))):
                start = current.index(name)
                spans.append(Span(file, number, start, number, start + len(name)))
            elif re.match(rf"\s*(?:-\s+)?register:\s*['\"]?{re.escape(name)}['\"]?\s*$", current):
                start = current.rindex(name)
                spans.append(Span(file, number, start, number, start + len(name)))
        spans += _role_parameters(index.load(file).data, name)
    return sorted(set(spans))


def _role_parameters(data: Any, name: str) -> list[Span]:
    """Where a playbook passes ``name`` as a role parameter, which sets it for that role: a key of
    a ``roles:`` entry that is none of the entry's keywords (``- role: app`` / ``app_port: 80``)."""
    from engine.loading.keywords import ROLE_ENTRY_KEYWORDS

    if name in ROLE_ENTRY_KEYWORDS or not isinstance(data, list):
        return []
    entries = [entry for play in data if isinstance(play, Mapping) and isinstance(play.get("roles"), list)
               for entry in play["roles"]]
    return [entry.key_spans[name] for entry in entries
            if isinstance(entry, Mapping) and ("role" in entry or "name" in entry) and name in entry
            and name in getattr(entry, "key_spans", {})]


def _under_setter(lines: list[str], line: int, indent: int) -> bool:
    """Whether the key at ``indent`` of ``line`` is directly under ``vars:``, ``set_fact:`` or
    a module's ``include_vars``-like mapping (the nearest less indented key)."""
    for above in range(line - 1, -1, -1):
        text = lines[above]
        if not text.strip() or text.lstrip().startswith("#"):
            continue
        above_indent = len(text) - len(text.lstrip(" -"))
        if above_indent < indent:
            return bool(re.match(r"\s*(?:-\s+)?(vars|set_fact|ansible\.builtin\.set_fact|ansible\.legacy\.set_fact)"
                                 r":\s*$", text))
    return False
