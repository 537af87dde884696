"""The levels a play's roles give a task: their defaults and vars files, the ``vars`` of their
entries and the parameters of the roles that pull a role in, as ansible's ``Role.get_default_vars``
and ``Role.get_vars`` order them (public roles first, then the task's role's lineage).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engine.booleans import boolean
from engine.config import config_value
from engine.loading.model import ROLE_ENTRY_KINDS
from engine.loading.paths import find_role_var_files
from engine.parsing.source import files_state
from engine.span import YMap
from engine.variables.layer import Layer, RuntimeValue, VarsReader, as_mapping, make_layer, vars_path
from engine.variables.play_context import PlayContext, parent_role_params
from engine.variables.play_context import role_lineage as _role_lineage

if TYPE_CHECKING:
    from engine.loading.model import RoleInstance


_role_files: dict[tuple[Any, ...], tuple[int, list[Layer]]] = {}


def _role_file_layers(manager: VarsReader, role: RoleInstance, sub: str, level: str) -> list[Layer]:
    """A role's defaults or vars files as layers, one per file of a ``main/`` directory
    (reused until the files change: a play's every task reads the defaults of every role of the play)."""
    run_from = role.run_from[1].get(sub) if role.run_from is not None else None
    if run_from is not None:  # which file the host gets is the run's: every name they set is unknown
        names = {name: RuntimeValue(role.run_from[0])  # type: ignore[index]
                 for main in run_from for path in find_role_var_files(role.path or "", sub, main)
                 for name in as_mapping(manager.cache.load(path).data)}
        layer = make_layer(level, f"role '{role.name}' {sub}", names, None, True)
        return [layer] if layer is not None else []
    key = (role.path, role.name, sub, role.from_files.get(sub), id(manager.cache))
    now = files_state()
    cached = _role_files.get(key)
    if cached is not None and cached[0] == now:
        return cached[1]
    found = [make_layer(level, f"role '{role.name}' {sub}", manager.cache.load(path).data, path)
             for path in find_role_var_files(role.path or "", sub, role.from_files.get(sub))]
    layers = [layer for layer in found if layer is not None]
    if len(_role_files) > 4096:
        _role_files.clear()
    _role_files[key] = (now, layers)
    return layers


def private_role_vars() -> bool | None:
    """``DEFAULT_PRIVATE_ROLE_VARS`` where ansible.cfg or the environment sets it (None: not set,
    which ansible tells apart from false)."""
    value = config_value("ANSIBLE_PRIVATE_ROLE_VARS", "defaults", "private_role_vars")
    if value is None:
        return None
    try:
        return bool(boolean(value))
    except (TypeError, ValueError):
        return None


def role_is_public(role: RoleInstance, private: bool | None) -> bool:
    """Whether the play's other tasks see ``role``'s defaults and vars (``Role.public``): as its
    import or include says (``public:``), else by ``private_role_vars`` where it is set, else
    roles of ``roles:`` and ``import_role`` are public and included roles private. A dependency
    is seen through the role that pulls it in."""
    root = _role_lineage(role)[0]
    if root.public is not None:
        try:
            return bool(boolean(root.public))
        except (TypeError, ValueError):
            return False
    if private is not None:
        return not private
    return root.via != "include_role"


def role_layers(manager: VarsReader, context: PlayContext, role: RoleInstance | None, sub: str,
                level: str, private: bool | None = None) -> list[Layer]:
    """The ``sub`` file (defaults or vars) of every public role of the play, then of the task's
    role's lineage. With the defaults (``Role.get_default_vars(dep_chain)``): the defaults of
    the task's role's own dependencies, the deepest first, then those of the roles that pulled
    it in, outermost first, then its own (a private role, one an ``include_role`` brought in,
    still gives its tasks its dependencies' defaults). With the vars (``Role.get_vars``): each
    role that pulled it in gives the ``vars`` of its entry then its vars files
    (``get_inherited_vars``: not what that role's dependencies export), then come the vars its
    own dependencies export, its vars files and its entry's ``vars``."""
    public = [layer for owner in context.roles if role_is_public(owner, private)
              for layer in _role_file_layers(manager, owner, sub, level)]
    chain = dep_chain(role)
    if not chain:
        return public
    *parents, own = chain
    lineage = []
    if sub == "defaults":  # get_default_vars(dep_chain)
        lineage += [layer for dep in _all_dependencies(own, context.roles)
                    for layer in _role_file_layers(manager, dep, sub, level)]
        for owner in chain:
            lineage += _role_file_layers(manager, owner, sub, level)
        return public + lineage
    for parent in parents:  # get_inherited_vars(dep_chain): each parent's entry vars, then its vars files
        if (entry := _role_entry_vars(parent)) is not None:
            lineage.append(entry)
        lineage += _role_file_layers(manager, parent, sub, level)
    lineage += [layer for dep in _all_dependencies(own, context.roles)  # what the role's dependencies export
                for layer in _role_file_layers(manager, dep, sub, level)]
    lineage += _role_file_layers(manager, own, sub, level)
    if (entry := _role_entry_vars(own)) is not None:
        lineage.append(entry)
    return public + lineage


def _all_dependencies(role: RoleInstance, roles: list[RoleInstance]) -> list[RoleInstance]:
    """``Role.get_all_dependencies``: the role's dependencies among ``roles``, each after its own."""
    direct = list({id(r): r for r in roles if r.parent is role and r.via == "dependency"}.values())
    return [inner for dep in direct for inner in [*_all_dependencies(dep, roles), dep]]


def dep_chain(role: RoleInstance | None) -> list[RoleInstance]:
    """``task.get_dep_chain()`` and the task's role, outermost first: the roles that pulled the
    role in as a dependency, and those whose tasks imported or included it (``IncludeRole``
    compiles the role with its parent roles as its dependency chain, so they lend it their
    defaults and vars, below its own)."""
    chain: list[RoleInstance] = []
    while role is not None:
        chain.insert(0, role)
        role = role.parent
    return chain


def _role_entry_vars(role: RoleInstance) -> Layer | None:
    frame = role.entry
    if frame is None or frame.kind not in ROLE_ENTRY_KINDS:
        return None
    return make_layer("role vars", f"{frame.label} vars", frame.keywords.get("vars"), vars_path(frame))


def parent_role_layer(role: RoleInstance | None) -> Layer | None:
    """:func:`engine.variables.play_context.parent_role_params` as a level of its own."""
    found = parent_role_params(role)
    if found is None:
        return None
    top, params = found
    values = YMap()
    values.update(params)
    span = top.span
    assert top.parent is not None
    return Layer("include params", f"role '{top.parent.name}', which brings in role '{top.name}'", values,
                 span.file if span else None, span.line if span else None)
