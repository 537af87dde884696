"""The warnings ansible-playbook shows for a play before its header (PlaybookExecutor): a play
variable named like a keyword or a template global ("Found variable using reserved name"), and
each ``vars_prompt`` it cannot ask for on a standard input that is no terminal."""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from engine.loading.model import Play, RoleInstance
from engine.run.error_block import UNKNOWN
from engine.values import SourcedName

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


def _warned(name: str, span: Any) -> str:
    """``warn_if_reserved``'s warning for ``name``, with the source context of ``span`` (or None,
    or an INI source's ``PATH:LINE``: the line underlined)."""
    from engine.run.error_block import Event, annotated_lines, format_events

    message = f"Found variable using reserved name {name!r}."
    if isinstance(span, str) and (line := _INI_LINE.fullmatch(span)):
        return f"{message}\n{annotated_lines(line.group(1), int(line.group(2)), None)}\n\n"
    return format_events([Event(message, span)])


_INI_LINE = re.compile(r"(.+):(\d+)")


def _reserved_in(written: Any, where: Any = None) -> list[str]:
    """The warning for each reserved name ``written`` (a mapping of variables) defines, at the
    name as written (in ``where``, when given: the mapping ``written`` was taken from)."""
    if not isinstance(written, Mapping):
        return []
    spans = getattr(written if where is None else where, "key_spans", {}) or {}
    return [_warned(str(name), spans.get(name)) for name in written if name in RESERVED_NAMES]


def _extra_warned(name: Any) -> str:
    """The warning of an extra var's reserved name, where it was given (a file's place, else
    the command line, shown with the name: ``Origin: <CLI option '-e'>``)."""
    from engine.run.error_block import Event, format_events

    origin = getattr(name, "origin", None)
    if isinstance(origin, str):
        return format_events([Event(f"Found variable using reserved name {str(name)!r}.", origin, str(name))])
    return _warned(str(name), origin)


def play_var_warnings(play: Play) -> list[str]:
    return _reserved_in(play.data.get("vars") if isinstance(play.data, Mapping) else None)


def role_reserved_warnings(roles: Iterable[RoleInstance], subdir: str, load: Callable[[str], Any]) -> list[str]:
    """``warn_if_reserved`` of the names of the ``defaults`` or ``vars`` files (``subdir``) of
    ``roles``, in their order, each at the name in its file: ansible warns of every variable
    ``get_vars`` gathers, a role's among them once its defaults and vars reach a task."""
    from engine.loading.paths import find_role_var_files

    out = []
    for role in roles:
        for path in find_role_var_files(role.path or "", subdir, role.from_files.get(subdir)):
            try:
                data = load(path)
            except Exception:  # noqa: BLE001 - a file that does not load is reported where it is used
                continue
            out += _reserved_in(data)
    return out


def inventory_reserved_warnings(layers: Iterable[Any]) -> list[str]:
    """``warn_if_reserved`` of a host's inventory variables (``layers``: its groups' and its own,
    from the inventory's sources and group_vars/host_vars files, lowest first), as its first
    ``get_vars`` gathers them: each name once, at its first definition (the key ``all_vars``
    keeps), an INI source's at its line."""
    out: list[str] = []
    seen: set[str] = set()
    for layer in layers:
        values = layer.values
        keys = getattr(values, "key_spans", None) or {}
        lines = getattr(values, "origins", None) or {}
        for name in values:
            if name in RESERVED_NAMES and name not in seen:
                seen.add(name)
                out.append(_warned(str(name), keys.get(name) or lines.get(name)))
    return out


def frame_var_warnings(chain: Iterable[Any]) -> list[str]:
    """``warn_if_reserved`` of the ``vars`` the levels of a task set (its blocks', its includes',
    its own; the play's are warned of before its banner), outermost first."""
    from engine.variables.sources import without_task_keywords

    return [warning for frame in chain if frame.kind != "play"
            for warning in _reserved_in(without_task_keywords(frame.keywords.get("vars")))]


def load_time_warnings(tasks: Iterable[Any], include_actions: Iterable[str], included: bool = False) -> list[str]:
    """``warn_if_reserved`` of the ``get_vars`` loading a play makes for each include and import
    it meets (``load_list_of_tasks`` templates their names with the variables they see): the
    ``vars`` of the levels around each ``include_tasks`` of ``tasks`` (a compiled play's, in
    order) and around each ``import_tasks`` or ``import_role`` they came through, each level once.
    ``included``: ``tasks`` are those of a file an ``include_tasks`` loads, which the strategy
    loads the same way before it announces the file (their includes are loaded later, in turn)."""
    out: list[str] = []
    seen: set[int] = set()
    for task in tasks:
        chain = list(task.chain)
        ends = [i for i, frame in enumerate(chain) if frame.kind in ("import_tasks", "import_role")]
        if task.action in include_actions and (included or not task.dynamic):
            ends.append(len(chain) - 1)
        for end in ends:
            if id(chain[end]) not in seen:
                seen.add(id(chain[end]))
                out += frame_var_warnings(chain[:end + 1])
                if end == len(chain) - 1:  # an include's own vars are its params too, tags and when kept
                    own = chain[end].keywords.get("vars")
                    out += _reserved_in({name: None for name in own if name in ("tags", "when")}
                                        if isinstance(own, Mapping) else None, own)
    return out


def role_chain(role: RoleInstance | None, tree: Any) -> list[RoleInstance]:
    """The role uses whose defaults and vars a task of ``role`` sees (``get_default_vars`` with
    its dep chain): every dependency first, then the roles that pulled it in, then ``role``."""
    if role is None:
        return []
    parents: list[RoleInstance] = []
    link = role
    while link.via == "dependency" and link.parent is not None:
        parents.insert(0, link.parent)
        link = link.parent
    return [*(r for r in tree.expanded(role) if r is not role), *parents, role]


def prompt_warnings(play: Play, extra_vars: Iterable[str]) -> list[str]:
    """``Display.do_var_prompt`` without a terminal: a warning for each prompt not answered by an
    extra var (the default is taken)."""
    prompts = play.data.get("vars_prompt") if isinstance(play.data, Mapping) else None
    if not isinstance(prompts, list) or sys.__stdin__ is None or sys.__stdin__.isatty():
        return []
    answered = set(extra_vars)
    return ["Not prompting as we are not in interactive mode" for prompt in prompts
            if isinstance(prompt, Mapping) and prompt.get("name") not in answered]


def _extra_var_warnings(play: Play, extra_vars: Iterable[str]) -> list[str]:
    """The extra vars' reserved names the play's vars do not define too: one warning a name, at
    its first definition (the key ansible's variables keep)."""
    play_vars = play.data.get("vars") if isinstance(play.data, Mapping) else None
    return [_extra_warned(name) for name in extra_vars
            if name in RESERVED_NAMES and not (isinstance(play_vars, Mapping) and name in play_vars)]


def play_start_warnings(play: Play, extra_vars: Mapping[str, Any], warn: Callable[[str], None],
                        role_names: Iterable[str] = ()) -> None:
    """The warnings before the play's banner: the reserved names among the variables loading
    the play gathers (its vars and the extra vars first, while a role name is templated before
    any role is loaded, then the roles' defaults and vars as each joins the play), then the
    prompts ansible cannot ask for. Those :func:`load_reserved_warnings` gave while the playbook
    loaded are not shown again (ansible's Display shows a warning once)."""
    for warning in [*play_var_warnings(play), *_extra_var_warnings(play, extra_vars), *role_names,
                    *prompt_warnings(play, extra_vars)]:
        warn(warning)


def load_reserved_warnings(play: Play, extra_vars: Iterable[str]) -> list[str]:
    """The reserved names ansible warns of while it loads the playbook, before any play starts:
    loading a play's ``roles:`` entries (their names are templated with the play's variables) or
    an include or import among its tasks and handlers (``load_list_of_tasks`` templates its name)
    gathers the play's vars, the extra vars and the vars around each include; a play without
    them warns when it starts. The roles' own defaults and vars are not yet the play's then."""
    from engine.loading import keywords as kw

    tasks = [task for block in play.compile() for task in block.tasks()]
    includes = kw.INCLUDE_TASKS | kw.INCLUDE_ROLE | kw.IMPORT_TASKS | kw.IMPORT_ROLE
    roles = play.data.get("roles") if isinstance(play.data, Mapping) else None
    handlers = (task for block in play.handlers for task in block.tasks())
    if not roles and not any(task.action in includes or any(frame.kind in ("import_tasks", "import_role")
                                                            for frame in task.chain) for task in [*tasks, *handlers]):
        return []
    return [*play_var_warnings(play), *_extra_var_warnings(play, extra_vars),
            *load_time_warnings(tasks, kw.INCLUDE_TASKS)]


def stored_name_warnings(task: Any, result: Mapping[str, Any], set_fact: bool,
                         name_spans: Mapping[str, Any] | None = None) -> tuple[list[str], list[str]]:
    """``warn_if_reserved`` as the strategy stores a result: (the facts ``set_fact`` sets, each
    at its name in the task's arguments; the ``register`` name, at its value), each a warning
    when the name is reserved."""
    data = task.data if isinstance(task.data, Mapping) else {}
    facts: list[str] = []
    if set_fact:
        spans = getattr(data.get(task.action), "key_spans", {}) or {}
        items = result.get("results") if isinstance(result.get("results"), list) else [result]
        for item in items:
            stored = item.get("ansible_facts") if isinstance(item, Mapping) else None
            for name in sorted(stored, key=str) if isinstance(stored, Mapping) else ():  # args templated in name order
                if name in RESERVED_NAMES:
                    facts.append(_warned(str(name), spans.get(name)))
    if name_spans is not None:  # include_vars: each variable's name where its file writes it
        spans = name_spans
        stored = result.get("ansible_facts")
        for name in stored if isinstance(stored, Mapping) else ():
            if name in RESERVED_NAMES:
                facts.append(_warned(str(name), spans.get(name)) if spans.get(name) is not None
                             else _extra_warned(SourcedName(str(name), UNKNOWN)))
    register = data.get("register")
    registered = [_warned(register, (getattr(data, "value_spans", {}) or {}).get("register"))] \
        if isinstance(register, str) and register in RESERVED_NAMES else []
    return facts, registered


def duplicate_key_warnings(paths: Iterable[str], load: Callable[[str], Any], seen: set[str]) -> list[str]:
    """ansible's YAML constructor's "Found duplicate mapping key" warning (the default
    ``duplicate_dict_key`` is ``warn``) for each key a file of ``paths`` gives twice, at the later
    one, as each file is loaded; ``seen`` are the files loaded already (ansible's loader keeps them)."""
    from engine.run.error_block import Event, format_events

    out: list[str] = []
    for path in paths:
        if path in seen:
            continue
        seen.add(path)
        out += [format_events([Event(problem.message, problem.span, help="Using last defined value only.")])
                for problem in load(path).duplicates]
    return out


def vars_plugin_warnings(layers: Iterable[Any], load: Callable[[str], Any], seen: set[str]) -> list[str]:
    """The duplicate keys of the group_vars/host_vars files of a host's inventory ``layers``
    (lowest first), as ansible's ``host_group_vars`` plugin loads them on the host's first
    ``get_vars``, each file once for the run (its loader caches them)."""
    return duplicate_key_warnings([layer.path for layer in layers if layer.path and "_vars/" in layer.level],
                                  load, seen)


def load_time_files(play: Play) -> list[str]:
    """The files loading ``play`` reads, in the order ansible's ``Play.load`` reads them: its
    ``roles:`` entries, handlers, pre_tasks, post_tasks and tasks (see :func:`files_of`)."""
    return files_of([*play.roles, *play.handlers, *play.pre_tasks, *play.post_tasks, *play.tasks])


def files_of(blocks: Iterable[Any]) -> list[str]:
    """The files loading ``blocks`` read: each role's vars, defaults, then task files, and each
    task's file (an import's where it is met); not what an include among them loads at run time."""
    from engine.loading.paths import find_role_var_files

    files: list[str] = []
    roles: set[int] = set()
    for block in blocks:
        for task in block.tasks():
            role = task.role
            if role is not None and id(role) not in roles:
                roles.add(id(role))
                files += [path for subdir in ("vars", "defaults")
                          for path in find_role_var_files(role.path or "", subdir, role.from_files.get(subdir))]
            if task.span is not None:
                files.append(task.span.file)
    return list(dict.fromkeys(files))


def vars_files_warnings(play: Play, variables: Mapping[str, Any], load: Callable[[str], Any]) -> list[str]:
    """PlaybookExecutor reads the play's variables without a host first (``variables``: the extra
    vars, the play's, ``playbook_dir`` and ``groups``): a ``vars_files`` entry named after what only
    a host has (``inventory_hostname``, a host variable) is skipped then, with a warning (each host
    picks its file later); a file read warns of its duplicate keys as it is loaded."""
    from engine.run.error_block import Event, format_events
    from engine.templating.templar import Templar
    from engine.variables.sources import vars_files_chosen, vars_files_skipped

    entries = play.data.get("vars_files") if isinstance(play.data, Mapping) else None
    if not entries:
        return []
    template = Templar(dict(variables)).template
    spans = getattr(entries, "item_spans", [])
    skipped = vars_files_skipped(entries, play.basedir, template)
    out: list[str] = []
    for index, entry in enumerate(entries if isinstance(entries, list) else [entries]):
        if index in skipped:
            span = spans[index] if index < len(spans) else None
            out.append(format_events([Event("skipping vars_files item due to an undefined variable", span)]))
        else:
            out += duplicate_key_warnings(vars_files_chosen([entry], play.basedir, template), load, set())
    return out
