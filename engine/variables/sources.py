"""Where each variable a task sees comes from: the definitions at every precedence level, in
ansible's order (``VariableManager.get_vars``), for one task in one play context on one host.

The levels are folded into the values by whoever asks: engine.variables.report for what a task sees
before the run, engine.variables.manager for a run (so a value shown and a value the bundled
engine uses are one computation). Each level is a :class:`Layer` with the file and line of every
name it sets, lowest first. Levels that only exist when the run gets there (facts, ``include_vars``,
``set_fact``, ``register``) are layers marked ``runtime``, built from the tasks the run reaches
before this one, so they are "at run time, if reached", never invented values.

What a layer is: :mod:`engine.variables.layer`; the roles' levels: :mod:`engine.variables.role_layers`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from engine.booleans import boolean
from engine.config import config_value
from engine.flow.notify import with_handler_runs, with_includers
from engine.inventory.data import Group, Host, sort_groups
from engine.loading import keywords as kw
from engine.loading import paths
from engine.loading.model import ROLE_ENTRY_KINDS
from engine.span import YMap
from engine.templating.load_time import render
from engine.variables.layer import EARLIER_TASKS as EARLIER_TASKS  # re-exported: the API of this module
from engine.variables.layer import RUNTIME_RESULT as RUNTIME_RESULT
from engine.variables.layer import Definition as Definition
from engine.variables.layer import Layer as Layer
from engine.variables.layer import RuntimeValue as RuntimeValue
from engine.variables.layer import VarsReader, make_layer, traced, vars_path
from engine.variables.layer import earlier_tasks_place as earlier_tasks_place
from engine.variables.layer import is_runtime as is_runtime
from engine.variables.play_context import PlayContext, role_variables
from engine.variables.role_layers import dep_chain, parent_role_layer, private_role_vars, role_layers
from engine.variables.unrun_sources import unrun_layers

if TYPE_CHECKING:
    from engine.inventory.manager import Inventory
    from engine.loading.model import Play, RoleInstance, Task
    from engine.parsing.source import SourceCache


SET_FACT = kw._family("set_fact")
INCLUDE_VARS = kw.INCLUDE_VARS


HOST_LAYERS_KEPT = 1 << 17  # (host, playbook directory) pairs whose levels one inventory keeps: a fleet's


def kept_inventory_layers(manager: Any, host: Host, playbook_dir: str) -> list[Layer]:
    """A host's inventory levels, once per inventory read and playbook directory (they do not
    depend on the task). Kept with the inventory, which goes when its files change."""
    kept: dict[tuple[str, str], list[Layer]] = manager.inventory.derived.setdefault("host layers", {})
    key = (host.name, playbook_dir)
    found = kept.get(key)
    if found is None:
        if len(kept) >= HOST_LAYERS_KEPT:
            kept.clear()
        found = kept[key] = inventory_layers(manager, host, playbook_dir)
    return found


def inventory_layers(manager: VarsReader, host: Host, playbook_dir: str | None = None) -> list[Layer]:
    """The inventory's levels for ``host`` in ``Inventory.host_variables``'s order, with the
    group_vars/host_vars of ``playbook_dir`` (the play's playbook's directory) as the playbook's."""
    inventory = manager.inventory if playbook_dir is None else manager.inventory.with_playbook_dir(playbook_dir)
    sources = ", ".join(inventory.sources) or None
    origins = inventory.data.value_origins
    key, layers = _group_levels(manager, inventory, host, playbook_dir)
    below, above_groups, composed = unrun_layers(inventory, host)
    own = [*above_groups,
           make_layer("inventory host vars", f"host '{host.name}' in the inventory",
                      traced(host.get_vars(), origins.get(host.name)), sources),
           *composed,
           *_files(inventory.vars_files, [host], "inventory host_vars/*"),
           *_files(inventory.play_vars_files, [host], "playbook host_vars/*")]
    return HostLayers(key, [*below, *(layer for layer in layers if layer is not None)],
                      [layer for layer in own if layer is not None])


def inventory_part(manager: VarsReader, host: Host, playbook_dir: str) -> tuple[tuple[Any, ...], frozenset[Any]]:
    """What :func:`inventory_layers` tells of ``host`` without building its own levels: the key of
    its groups' levels (``HostLayers.groups_key``) and every name its own levels set, with the marks
    of its levels that may set any name (:func:`any_name_marks`; a fleet's hosts, each told by
    these alone: engine.variables.inventory_twins)."""
    inventory = manager.inventory.with_playbook_dir(playbook_dir)
    key, layers = _group_levels(manager, inventory, host, playbook_dir)
    below, above_groups, composed = unrun_layers(inventory, host)
    # its own levels but that of its inventory line (Host.get_vars's names, never empty): a fleet's hosts
    # mostly have none, and a host_vars file's level is its own (one encrypted whole may set any name)
    own = [layer for layer in (*above_groups, *composed,
                               *_files(inventory.vars_files, [host], "inventory host_vars/*"),
                               *_files(inventory.play_vars_files, [host], "playbook host_vars/*")) if layer is not None]
    names: set[Any] = {*host.vars, *host.get_magic_vars(), *(name for layer in own for name in layer.values)}
    names.update(any_name_marks(layer for layer in (*below, *layers, *own) if layer is not None))
    return key, frozenset(names)


def _files(vars_files: Any, entities: Iterable[Host | Group], level: str) -> list[Layer | None]:
    return [make_layer(level, f"{'host' if isinstance(entity, Host) else 'group'} '{entity.name}'", data, path)
            for entity in entities for path, data in vars_files.files_of(entity)]


def _group_levels(manager: VarsReader, inventory: Inventory, host: Host,
                  playbook_dir: str | None) -> tuple[tuple[Any, ...], list[Layer | None]]:
    """The levels ``host``'s groups give (``all`` and its groups' in the inventory and their vars
    files), in the order of the variable precedence, with the key that tells them: the same for
    every host in the same groups (a fleet has many hosts, few group sets)."""
    precedence = getattr(manager, "precedence", None) or variable_precedence()
    shared: dict[tuple[Any, ...], tuple[tuple[Any, ...], list[Layer | None]]] = \
        inventory.derived.setdefault("group levels", {})
    # first by the groups as the host lists them (one set of groups, so one order of them)
    listed = (playbook_dir, precedence, "listed", tuple(group.name for group in host.get_groups()))
    kept = shared.get(listed)
    if kept is None:
        kept = shared[listed] = _sorted_group_levels(inventory, host, playbook_dir, precedence, shared)
    return kept


def _sorted_group_levels(inventory: Inventory, host: Host, playbook_dir: str | None, precedence: tuple[str, ...],
                         shared: dict[tuple[Any, ...], Any]) -> tuple[tuple[Any, ...], list[Layer | None]]:
    sources = ", ".join(inventory.sources) or None
    all_group = inventory.data.groups["all"]
    # the groups that give a level (variables of their own or a vars file): hosts whose groups differ only
    # by groups without any (a rack's, an environment's) have the same levels, built once
    groups: list[Group] = list(sort_groups([g for g in host.get_groups() if g.name != "all" and
                                            _gives_levels(inventory, g)]))
    play_files = inventory.play_vars_files
    origins = inventory.data.value_origins
    group_levels: dict[str, Callable[[], list[Layer | None]]] = {
        "all_inventory": lambda: [make_layer("inventory group vars", "group 'all' in the inventory",
                                         traced(all_group.get_vars(), origins.get("all")), sources)],
        "groups_inventory": lambda: [make_layer("inventory group vars", f"group '{g.name}' in the inventory",
                                            traced(g.get_vars(), origins.get(g.name)), sources) for g in groups],
        "all_plugins_inventory": lambda: _files(inventory.vars_files, [all_group], "inventory group_vars/all"),
        "all_plugins_play": lambda: _files(play_files, [all_group], "playbook group_vars/all"),
        "groups_plugins_inventory": lambda: _files(inventory.vars_files, groups, "inventory group_vars/*"),
        "groups_plugins_play": lambda: _files(play_files, groups, "playbook group_vars/*"),
    }
    kept = shared.get((playbook_dir, precedence, tuple(group.name for group in groups)))
    if kept is None:
        built = [layer for entry in precedence if entry in group_levels for layer in group_levels[entry]()]
        # told by the levels the groups give, not by the groups: hosts whose groups differ only by
        # groups without variables (a rack, an environment's) have one key and one list of levels
        levels_key = (playbook_dir, precedence, tuple((layer.level, layer.label, layer.path)
                                                      for layer in built if layer is not None))
        kept = shared.setdefault(levels_key, (levels_key, built))
        shared[(playbook_dir, precedence, tuple(group.name for group in groups))] = kept
    return kept


def _gives_levels(inventory: Inventory, group: Group) -> bool:
    """Whether ``group`` gives a host in it a level: variables of its own or a vars file (beside
    the inventory, in the playbook directory of ``inventory``); once per group."""
    kept: dict[str, bool] = inventory.derived.setdefault("groups giving levels", {})
    found = kept.get(group.name)
    if found is None:
        found = kept[group.name] = bool(group.get_vars() or inventory.vars_files.files_of(group) or
                                        inventory.play_vars_files.files_of(group))
    return found


class HostLayers(list):  # type: ignore[type-arg]
    """A host's inventory levels: those of its groups first (the same objects for every host in
    the same groups, told by ``groups_key``), then its own (``shared_count`` tells them apart)."""

    def __init__(self, groups_key: tuple[Any, ...], shared: list[Layer], own: list[Layer]) -> None:
        super().__init__([*shared, *own])
        self.groups_key = groups_key
        self.shared_count = len(shared)
        self.any_names = any_name_marks(self)


def any_name_marks(layers: Iterable[Layer]) -> tuple[tuple[str, str, str], ...]:
    """The levels among ``layers`` that may set any name (a vars file encrypted whole, a source not
    run that may set the host's variables), each by its label and why: no value tells them, so two
    hosts are alike only if these are the same (the second, third: the label and the reason)."""
    return tuple(("any name", layer.label, layer.any_name) for layer in layers if layer.any_name)


DEFAULT_PRECEDENCE = ("all_inventory", "groups_inventory", "all_plugins_inventory", "all_plugins_play",
                      "groups_plugins_inventory", "groups_plugins_play")


def variable_precedence() -> tuple[str, ...]:
    """``VARIABLE_PRECEDENCE`` (ansible.cfg's ``precedence``, ANSIBLE_PRECEDENCE): the order the
    group levels merge in; an unknown entry is left out, as ansible warns and leaves it."""
    value = config_value("ANSIBLE_PRECEDENCE", "defaults", "precedence")
    if not value:
        return DEFAULT_PRECEDENCE
    return tuple(entry.strip() for entry in value.split(",") if entry.strip())


def play_layers(manager: VarsReader, context: PlayContext, extra_vars: Mapping[str, Any],
                imports: list[Layer] = (), prompted: bool = False) -> list[Layer]:  # type: ignore[assignment]
    """Play ``vars`` (then the ``import_playbook`` vars ``imports``, merged over them),
    ``vars_prompt`` and the ``vars_files`` found. A listing takes each prompt's default as it is
    written; a run (``prompted``) takes do_var_prompt's answer without a terminal: the default
    as text, ``"None"`` for a prompt without one."""
    play = context.play
    data = play.data if isinstance(play.data, Mapping) else {}
    path = play.span.file if play.span else None
    layers = [make_layer("play vars", f"play '{play.name}' vars", data.get("vars"), path), *imports]
    prompts = YMap()
    for prompt in data.get("vars_prompt") or []:
        if isinstance(prompt, Mapping) and isinstance(prompt.get("name"), str):
            default = prompt.get("default")
            prompts[prompt["name"]] = (default if isinstance(default, str) else str(default)) if prompted else default
            span = getattr(prompt, "span", None)
            if span is not None:
                prompts.key_spans[prompt["name"]] = span
    layers.append(make_layer("play vars_prompt", f"play '{play.name}' vars_prompt (as prompted)", prompts, path,
                         runtime=True))
    if data.get("vars_files"):  # templated per host: variables_at fills it in (vars_files_layers)
        layers.append(Layer("play vars_files", f"play '{play.name}' vars_files", {}, path, pending=True))
    return [layer for layer in layers if layer is not None]


def vars_files_layers(manager: VarsReader, play: Play, template: Callable[[Any], Any]) -> list[Layer]:
    """The files the play's ``vars_files`` reads on a host, each entry's names templated by
    ``template`` with what the host has so far (``get_vars``: inventory, facts, play vars, the
    files before; a name from the inventory picks a file per host) (:func:`vars_files_chosen`)."""
    data = play.data if isinstance(play.data, Mapping) else {}
    layers = [make_layer("play vars_files", f"play '{play.name}' vars_files", manager.cache.load(found).data, found)
              for found in vars_files_chosen(data.get("vars_files"), play.basedir, template)]
    return [layer for layer in layers if layer is not None]


def with_vars_files(manager: VarsReader, play: Play, layers: list[Layer],
                    extra: Mapping[str, Any], bounded: bool = True) -> list[Layer]:
    """``layers`` with the play's vars_files in their place, their names templated with what
    the layers before them set, ``extra`` (extra vars and magic variables) over it; within
    static evaluation's bounds unless a run asks (``bounded``)."""
    data = play.data if isinstance(play.data, Mapping) else {}
    if not data.get("vars_files"):  # no vars_files level to fill in (play_layers makes one only for these)
        return layers  # (not a pass over a late task's levels, most of them what the setters before set)
    for index, layer in enumerate(layers):
        if layer.pending and layer.level == "play vars_files":
            from engine.templating.pure_lookups import PureLookups
            from engine.templating.templar import Templar

            known: dict[str, Any] = {}
            for before in layers[:index]:
                known.update((k, v) for k, v in before.values.items() if not is_runtime(v))
            template = Templar({**known, **extra}, PureLookups(), bounded=bounded).template
            return [*layers[:index], *vars_files_layers(manager, play, template), *layers[index + 1:]]
    return layers


def vars_file_path(basedir: str, name: Any) -> str | None:
    """Where a ``vars_files`` name is found (``path_dwim_relative_stack`` with ``vars``): an
    absolute path as it is, else in the play's ``vars/`` directory, then beside the play."""
    if not isinstance(name, str) or not name:
        return None
    if name.startswith(("~", os.sep)):
        path = os.path.expanduser(name)
        return path if paths.isfile(path) else None
    candidates = [] if name.split("/")[0] == "vars" else [os.path.join(basedir, "vars", name)]
    candidates.append(os.path.join(basedir, name))
    return next((path for path in candidates if paths.isfile(path)), None)


def vars_files_chosen(entries: Any, basedir: str, template: Callable[[Any], Any]) -> list[str]:
    """The files a play's ``vars_files`` reads, names templated by ``template``: each entry's
    first candidate that exists (a nested list means "first one found"). An entry with a name
    that cannot be templated is skipped whole, as ansible skips it with a warning."""
    return [path for _, path in _vars_files_walk(entries, basedir, template) if path]


def vars_files_skipped(entries: Any, basedir: str, template: Callable[[Any], Any]) -> list[int]:
    """The entries (by index) that :func:`vars_files_chosen` skips because a name before the
    first file found cannot be templated: ansible warns about each when it reads the play."""
    return [index for index, path in _vars_files_walk(entries, basedir, template) if path is None]


def _vars_files_walk(entries: Any, basedir: str, template: Callable[[Any], Any]
                     ) -> Iterator[tuple[int, str | None | bool]]:
    """Each entry's index with the file it reads, False when it finds none, None when it is skipped."""
    for index, item in enumerate(_listed(entries)):
        try:
            path = next((p for p in (vars_file_path(basedir, template(c)) for c in _listed(item)) if p is not None),
                        None)
        except Exception:  # noqa: BLE001 - any failure to template a name skips the entry, as ansible's warning does
            yield index, None
            continue
        yield index, path or False


def vars_files_found(entries: Any, basedir: str, variables: Mapping[str, Any]) -> list[str]:
    """:func:`vars_files_chosen` with the names templated with ``variables`` (what the loader
    has: play vars, extra vars, magic variables)."""
    return vars_files_chosen(entries, basedir, lambda name: render(name, variables))


def _listed(value: Any) -> list[Any]:
    if value is None:
        return []
    return list(value) if isinstance(value, list) else [value]


def tasks_with_includers(play: Play, handlers: bool = False, loaded: Callable[[Task], bool] | None = None,
                         play_handlers: list[Task] | None = None,
                         notified: list[str] | None = None) -> Iterator[tuple[Task, list[Task]]]:
    """Every task of the play as a run reaches it (implicit ones too), the statically known tasks
    of includes after the include, each with the include tasks that load it, outermost first;
    with ``handlers``, each handler after every flush point where it would run (engine.flow.notify,
    which says what ``loaded``, ``play_handlers`` and ``notified`` are), so a handler that runs
    twice comes twice."""
    if handlers:
        yield from with_handler_runs(play, with_includers(play.compile(), []), loaded, play_handlers, notified)
    else:
        yield from with_includers(play.compile(), [])


def chain_layers(task: Task, includers: list[Task] = ()) -> list[Layer]:  # type: ignore[assignment]
    """``vars`` of the levels between the play and the task (role entries, blocks, imports,
    and for a task an include loaded, the include task and the levels around it), outermost
    first, then the task's own."""
    # the vars of roles: entries and dependencies are the role's own (role_layers)
    frames = [frame for owner in (*includers, task) for frame in _below_play(owner.chain)
              if frame.kind not in ROLE_ENTRY_KINDS]
    layers = [make_layer("task vars" if frame is task.chain[-1] else "block vars", f"{frame.label} vars",
                     without_task_keywords(frame.keywords.get("vars")), vars_path(frame)) for frame in frames]
    return [layer for layer in layers if layer is not None]


TASK_VARS_DROPPED = ("tags", "when")
"""``Task.get_vars`` drops these from the vars of a task and the levels around it (an include's
own ``vars`` keep them as its params)."""


class _Without(Mapping[str, Any]):
    """A mapping of variables less some names, keeping what the parser recorded of the rest."""

    def __init__(self, values: Mapping[str, Any], names: tuple[str, ...]) -> None:
        self._values, self._names = values, names

    def __getitem__(self, name: str) -> Any:
        if name in self._names:
            raise KeyError(name)
        return self._values[name]

    def __iter__(self) -> Any:
        return (name for name in self._values if name not in self._names)

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __getattr__(self, attribute: str) -> Any:  # key_spans, value_spans: those of the names kept
        return getattr(self._values, attribute)


def without_task_keywords(values: Any) -> Any:
    """A task's or level's ``vars`` as ``Task.get_vars`` hands them on: no ``tags``, no ``when``."""
    if isinstance(values, Mapping) and any(name in values for name in TASK_VARS_DROPPED):
        return _Without(values, TASK_VARS_DROPPED)
    return values


def _below_play(chain: list[Any]) -> list[Any]:
    for index, frame in enumerate(chain):
        if frame.kind == "play":
            return chain[index + 1:]
    return list(chain)


def import_playbook_layers(task: Task | None) -> list[Layer]:
    """``vars`` of the ``import_playbook`` entries that brought the play in: ansible merges them
    over the play's own vars (``PlaybookInclude``: ``entry.vars | new_obj.vars``)."""
    if task is None:
        return []
    outer = []
    for frame in task.chain:
        if frame.kind == "play":
            break
        outer.append(frame)
    layers = [make_layer("play vars", f"{frame.label} vars", frame.keywords.get("vars"), vars_path(frame))
              for frame in reversed(outer)]  # the nearest import is merged first, the outermost last
    return [layer for layer in layers if layer is not None]


def _play_anchor(play: Play) -> Task | None:
    """A task whose chain is the play's own (its implicit flush_handlers): the import_playbook
    entries around the play, for the play's variables without a task."""
    flush = play.flush
    return flush.block[0] if flush is not None and flush.block else None  # type: ignore[return-value]


def include_params_layers(includers: list[Task]) -> list[Layer]:
    """An include's ``vars`` are also its params to the tasks it loads, above set_fact."""
    layers = [make_layer("include params", f"{include.chain[-1].label} params", include.chain[-1].keywords.get("vars"),
                     vars_path(include.chain[-1])) for include in includers]
    return [layer for layer in layers if layer is not None]


def host_independent_layers(manager: VarsReader, context: PlayContext, task: Task | None,
                            runtime: list[Layer], gathers_facts: bool = True,
                            includers: list[Task] = (),  # type: ignore[assignment]
                            facts: Layer | None = None, include_params: Layer | None = None,
                            prompted: bool = False) -> tuple[list[Layer], list[Layer]]:
    """The levels below the inventory's (role defaults) and above them (facts and up), which are
    the same on every host: computed once for a task, whatever the number of hosts. ``runtime``:
    what earlier tasks set (engine.variables.host_runtime fills in its place per host).
    A run gives what it knows instead: the host's ``facts``, the ``include_params`` of the
    include that loaded the task, and the prompts answered (``prompted``, :func:`play_layers`)."""
    role = task.role if task is not None else None
    extra = manager.options.extra_vars
    private = private_role_vars()
    below = role_layers(manager, context, role, "defaults", "role defaults", private)
    above: list[Layer] = []
    if facts is not None:
        above.append(facts)
    elif gathers_facts:
        above.append(Layer("host facts", "gathered facts (set at run time by gather_facts)",
                           {"ansible_facts": RUNTIME_RESULT}, runtime=True))
    else:  # the fact cache is empty: ansible_facts is there, with nothing in it
        above.append(Layer("host facts", "no facts gathered (gather_facts: false)", {"ansible_facts": {}}))
    above += play_layers(manager, context, extra, import_playbook_layers(task or _play_anchor(context.play)),
                         prompted)
    above += role_layers(manager, context, role, "vars", "role vars", private)
    if task is not None:
        above += chain_layers(task, includers)
    above += runtime
    for ancestor in dep_chain(role):  # get_role_params(dep_chain): every parent role's params
        span = ancestor.span or (ancestor.entry.span if ancestor.entry is not None else None)
        layer = make_layer("role params", f"role '{ancestor.name}' params", ancestor.params,
                       span.file if span else None, line=span.line if span else None)
        if layer is not None:
            above.append(layer)
    parent = parent_role_layer(role)
    if parent is not None:
        above.append(parent)
    above += include_params_layers(list(includers))
    if include_params is not None:
        above.append(include_params)
    extra_layer = make_layer("extra vars", "extra vars (-e)", extra)
    if extra_layer is not None:
        above.append(extra_layer)
    return below, above


def fold(layers: Iterable[Layer], merge_hashes: bool = False) -> dict[str, Any]:
    """The layers merged as ansible's ``combine_vars`` merges levels: later wins, dictionaries
    merged recursively with ``hash_behaviour = merge``. The vars of the blocks and the task are
    one level (``Task.get_vars`` updates its parents' with its own, a task's dictionary replacing
    a block's whole), merged as one into the others; so are the facts earlier tasks set."""
    from engine.inventory.combine import combine_vars

    if not merge_hashes:
        result: dict[str, Any] = {}
        for layer in layers:
            result |= dict(layer.values)
        return result
    levels: list[dict[str, Any]] = []
    chained: frozenset[str] | None = None
    for layer in layers:
        if chained is not None and layer.level in chained:
            levels[-1] |= dict(layer.values)
        else:
            levels.append(dict(layer.values))
        chained = next((chain for chain in _ONE_LEVEL if layer.level in chain), None)
    result = {}
    for values in levels:
        result = combine_vars(result, values, True)
    return result


_TASK_CHAIN = frozenset({"block vars", "task vars"})
_FACTS = frozenset({"set_fact / register", "set_fact"})
"""What ``set_fact`` and ``register`` set is one level too: each replaces a name's value whole in
the host's facts (``VariableManager.set_nonpersistent_facts``: ``|=``), merged as one into the others."""
_ONE_LEVEL = (_TASK_CHAIN, _FACTS)


def definitions(layers: Iterable[Layer], names: Iterable[str] | None = None) -> dict[str, list[Definition]]:
    """Each name's definitions (of ``names`` only, when given), the winning (highest precedence)
    one first. A file merged twice at the same level (a role's defaults, once as a role of the
    play and once as the task's role) is one definition, at its higher place."""
    found: dict[str, list[Definition]] = {}
    if names is None:
        for layer in layers:
            for name, value in layer.values.items():
                _define(found, layer, name, value)
        return found
    wanted = set(names)
    for layer in layers:
        values = layer.values
        # (the few names asked for looked up in a plain loop: not a list made at each of a task's hundreds
        # of levels, which Python 3.11 makes with a call of its own, nor a pass over each level's names,
        # which isdisjoint takes when given a mapping)
        for name in wanted:
            if name in values:
                _define(found, layer, name, values[name])
    return found


def _define(found: dict[str, list[Definition]], layer: Layer, name: Any, value: Any) -> None:
    """Puts ``name``'s definition at ``layer`` first among those ``found``: it wins over the lower
    levels', and replaces the same file's at the same level (merged twice)."""
    definition = Definition(str(name), value, layer.level, layer.label, layer.path, layer.line(str(name)),
                            layer.runtime)
    same = found.setdefault(str(name), [])
    same[:] = [d for d in same if (d.level, d.path, d.line) != (definition.level, definition.path,
                                                                  definition.line) or d.path is None]
    same.insert(0, definition)


def hostless_variables(play: Play, task: Task | None, includers: list[Task], extra_vars: Mapping[str, Any],
                       cache: SourceCache, magic: Mapping[str, Any]) -> Mapping[str, Any]:
    """What ``task`` (None: the play itself) sees on every host before anything runs: the
    levels that do not depend on a host (the public roles' defaults, play vars and vars_files,
    role vars, the vars of the frames and includes on the way, role and include params, extra
    vars) under the load-time ``magic`` variables. What a host or the run adds (inventory,
    facts, set_fact, register) is absent, so a name that needs it stays undefined here:
    ``VariableManager.get_vars`` without a host (with which ansible also templates a play's
    hosts, name and tags)."""
    manager = _HostlessReader(cache, _HostlessLaunch(dict(extra_vars), {}), None)
    below, above = host_independent_layers(manager, PlayContext(play, [], [], play_roles(play)), task, [],
                                           gathers_facts(play),
                                           includers)
    merged: dict[str, Any] = {}
    for layer in with_vars_files(manager, play, [*below, *above], {**extra_vars, **magic}):
        merged.update({name: value for name, value in layer.values.items() if value is not RUNTIME_RESULT})
    merged.update(magic)
    if task is not None and task.role is not None:
        merged.update(role_variables(task.role))
    return merged


@dataclass
class _HostlessReader:
    cache: SourceCache
    options: Any
    inventory: Inventory | None


@dataclass
class _HostlessLaunch:
    extra_vars: dict[str, Any]
    option_vars: dict[str, Any]


def play_roles(play: Play) -> list[RoleInstance]:
    """The roles the play's compiled tasks belong to, once each, in order: the roles a run of the
    play has before any ``include_role`` (dependencies and ``import_role`` ones included)."""
    return list({id(t.role): t.role for b in play.compile() for t in b.tasks() if t.role}.values())


def gathers_facts(play: Play) -> bool:
    """Whether the play gathers facts: ``gather_facts``, or when it is not set, ansible.cfg's
    ``gathering`` (``implicit``, the default, and ``smart`` gather; ``explicit`` does not)."""
    from engine.config import config_value

    data = play.data if isinstance(play.data, Mapping) else {}
    if data.get("gather_facts") is None:
        return config_value("ANSIBLE_GATHERING", "defaults", "gathering") != "explicit"
    try:
        return bool(boolean(data.get("gather_facts")))
    except (TypeError, ValueError):
        return True
