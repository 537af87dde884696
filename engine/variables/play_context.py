"""The play a task runs in, as every variable level sees it: its hosts, the roles it uses, and
the variables ansible derives from them (role names, a role's own, a task's environment)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from engine.loading.model import Play, RoleInstance, Task
from engine.values import RunOrdered

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from engine.inventory.data import Host
    from engine.variables.layer import Layer


class PlayContext:
    """The play being run: its hosts (all, and those still running) and the roles it uses."""

    def __init__(self, play: Play, hosts_all: list[str], hosts_left: list[str], roles: list[RoleInstance],
                 batch: list[str] | None = None, conditional: frozenset[int] = frozenset(),
                 repeats: Mapping[int, int] | None = None) -> None:
        self.play, self.hosts_all, self.hosts_left, self.roles = play, hosts_all, hosts_left, roles
        self.repeats = repeats or {}
        """How many times a looping include_role has included a role of ``roles`` (by id; else once):
        ansible adds the role to the play's roles once per item."""
        self.batch = batch
        """The hosts of the ``serial`` batch being run (None: all the play's hosts)."""
        self.conditional = conditional
        """Roles of ``roles`` an include brings in only if its ``when`` holds (by id): not named
        among the play's roles, which a run knows and a report before it cannot."""

    def magic_lists(self) -> dict[str, list[str]]:
        """The play's host lists the magic variables hold, each a list of its own (two batch lists:
        ``play_hosts`` and ``ansible_play_batch``)."""
        return _magic_lists(self.batch_left(), self.hosts_left, self.hosts_all)

    def batch_left(self) -> list[str]:
        """``ansible_play_batch``: the batch's hosts still running."""
        if self.batch is None:
            return list(self.hosts_left)
        running = set(self.hosts_left)  # a batch may hold thousands of hosts; it keeps the play's order
        return [h for h in self.batch if h in running]


class PlayLists:
    """The host lists of a play's magic variables (``ansible_play_hosts(_all)``, each ``serial``
    batch's ``ansible_play_batch``), built once for every task of the play that sees the same
    hosts: a fleet's thousands of names, not copied at each task. No template changes them in
    place (:func:`engine.templating.lazy_variables.own_copies` gives one that would its own copies),
    so one object serves every task and host."""

    def __init__(self, hosts_all: list[str], batches: list[list[str]]) -> None:
        self.hosts_all = hosts_all
        self.hosts_left = list(hosts_all)
        """The context's hosts still running (all of them, before the run)."""
        self._batches = batches
        self._left: list[list[str]] | None = None
        self._magic: dict[int | None, dict[str, list[str]]] = {}

    def left(self, at: int | None) -> list[str]:
        """The hosts of batch ``at`` still running, in the batch's order (None: of the play)."""
        if at is None:
            return self.hosts_left
        if self._left is None:
            running = set(self.hosts_left)
            self._left = [[h for h in batch if h in running] for batch in self._batches]
        return self._left[at]

    def magic(self, at: int | None) -> dict[str, list[str]]:
        """The lists :meth:`PlayContext.magic_lists` gives with batch ``at`` (None: no batch), as
        many list objects as it makes."""
        found = self._magic.get(at)
        if found is None:
            found = self._magic[at] = _magic_lists(list(self.left(at)), self.hosts_left, self.hosts_all)
        return found


def _magic_lists(batch: list[str], hosts_left: list[str], hosts_all: list[str]) -> dict[str, list[str]]:
    """The host lists of the magic variables, each a list of its own (``batch``, a list made for them,
    is ``play_hosts``; ``ansible_play_batch`` a copy of it)."""
    return {"play_hosts": batch, "ansible_play_hosts": list(hosts_left), "ansible_play_batch": list(batch),
            "ansible_play_hosts_all": list(hosts_all)}


def role_lineage(role: RoleInstance | None) -> list[RoleInstance]:
    """The role and the roles that pulled it in as a dependency, outermost first."""
    lineage: list[RoleInstance] = []
    while role is not None:
        lineage.insert(0, role)
        role = role.parent if role.via == "dependency" else None
    return lineage


def role_variables(role: RoleInstance) -> dict[str, Any]:
    """The magic variables of a task in ``role``: ``role_name`` is the short name, while
    ``ansible_role_name`` keeps a collection role's full name."""
    short = role.name.rsplit(".", 1)[-1] if role.collection else role.name
    return {"role_name": short, "ansible_role_name": role.name, "role_path": role.path,
            "ansible_collection_name": role.collection}


def parent_role_params(role: RoleInstance | None) -> tuple[RoleInstance, dict[str, Any]] | None:
    """What a role that imports or includes another passes on to its tasks as include params
    (``IncludeRole.get_include_params``): its own params, and its name and path first in
    ``ansible_parent_role_names`` / ``ansible_parent_role_paths`` (nested includes add theirs).
    With the role (or the dependency root) that was imported or included; None for others."""
    if role is None:
        return None
    top = role_lineage(role)[0]
    if top.via not in ("include_role", "import_role") or top.parent is None:
        return None
    parent = top.parent
    outer = parent_role_params(parent)
    values: dict[str, Any] = {}
    values.update(outer[1] if outer is not None else {})
    values.update(parent.params)
    values["ansible_parent_role_names"] = [parent.name, *values.get("ansible_parent_role_names", [])]
    values["ansible_parent_role_paths"] = [parent.path, *values.get("ansible_parent_role_paths", [])]
    return top, values


def role_name_variables(roles: list[RoleInstance], left_out: frozenset[int] = frozenset(),
                        repeats: Mapping[int, int] | None = None) -> dict[str, Any]:
    """The play's role names (``_get_magic_variables``): the roles the play names (``roles:``,
    ``import_role``, included roles once included, once per item of a looping include_role:
    ``repeats``) in order, those their dependencies pull in, and both; ``left_out`` (by id) are
    not named. ansible builds the last two from sets, so their order changes from run to run:
    here they are sorted, as :class:`RunOrdered` lists."""
    roles = [role for role in roles if id(role) not in left_out]
    named = [role.name for role in roles if role.via != "dependency" for _ in range((repeats or {}).get(id(role), 1))]
    dependencies = RunOrdered(sorted({role.name for role in roles if role.via == "dependency"}))
    return {"ansible_play_role_names": named, "role_names": list(named),
            "ansible_dependent_role_names": dependencies,
            "ansible_role_names": RunOrdered(sorted(set(named) | set(dependencies)))}


def raw_environment(task: Task) -> list[Any]:
    """The environment entries that reach ``task``, outermost first, as written."""
    return [sourced.value for sourced in task.effective("environment") or []]  # type: ignore[union-attr]


def namespace_facts(facts: Mapping[str, Any]) -> dict[str, Any]:
    """``ansible_facts``: the facts without their ``ansible_`` prefix (``ansible_local`` keeps it)."""
    return {key[8:] if key.startswith("ansible_") and key != "ansible_local" else key: value
            for key, value in facts.items()}


def connection_layer(host: Host, task: Task | None,
                     delegate_names: Callable[[str | None], frozenset[str] | None] | None = None,
                     default_user: str | None = None) -> list[Layer]:
    """What a task's templates see of its connection where nothing defines it: the task executor
    adds the play context's address (``PlayContext.update_vars``: ``remote_addr``, ``ansible_host``
    or else the host's name) under ``ansible_host`` and ``ansible_ssh_host``, and its user
    (:func:`_user_values`) under ``ansible_user`` and ``ansible_ssh_user``, below every level;
    ``hostvars`` has none of it. A delegated task's is the delegate's (:func:`delegated_layer`);
    ``delegate_names``: the names the inventory levels of an inventory host define (None: no
    inventory host of that name; asked of None, those any inventory host defines);
    ``default_user``: ``-u``, else ansible.cfg's ``remote_user``."""
    from engine.variables.layer import Layer  # (not at the top: a listing imports this module, not dataclasses)

    data = task.data if task is not None and isinstance(task.data, Mapping) else None
    if data is None or task is None:
        return []
    names = delegate_names or (lambda _name: None)
    keyword = task.effective("remote_user")
    user = keyword.value if keyword is not None and not isinstance(keyword, list) else default_user
    if data.get("delegate_to") is not None:
        layer = delegated_layer(data["delegate_to"], names)
        users = {} if "ansible_user" in layer.values or user is None else dict.fromkeys(USER_NAMES, user)
        return [Layer(layer.level, layer.label, {"ansible_connection": _connection_unknown(), **users, **layer.values})]
    keyword = task.effective("connection")
    connection = keyword.value if keyword is not None and not isinstance(keyword, list) else _connection_unknown()
    return [Layer("play context", "the task's connection (the host's name as its address)",
                  {"ansible_host": host.name, "ansible_ssh_host": "{{ ansible_host }}",
                   "ansible_connection": connection, **_user_values(names(host.name) or frozenset(), user)})]


USER_NAMES = ("ansible_ssh_user", "ansible_user")
"""``MAGIC_VARIABLE_MAPPING['remote_user']``, in the order the play context reads them."""


def _user_values(defined: frozenset[str], user: Any) -> dict[str, Any]:
    """The play context's user under both names (``set_task_and_variable_override``, then
    ``update_vars``): the host's ``ansible_ssh_user``, else its ``ansible_user``, else the task's
    ``remote_user`` keyword (its block's, its play's), else ``-u`` or ansible.cfg's; a name the host
    defines keeps its own value. None of them: no user, both undefined. (engine.run.local's
    ``remote_user``: the same rule on the values a run has.)"""
    own = next((name for name in USER_NAMES if name in defined), None)
    if own is not None:
        return {name: "{{ " + own + " }}" for name in USER_NAMES if name != own}
    return dict.fromkeys(USER_NAMES, user) if user is not None else {}


_connection: list[Any] = []


def _connection_unknown() -> Any:
    """``ansible_connection`` where nothing sets it: the run's, one value for every host (made when
    first asked: a listing loads this module with the roles and never asks)."""
    if not _connection:
        from engine.variables.layer import RuntimeValue

        _connection.append(RuntimeValue("the connection plugin's name, which ansible-playbook's -c (or "
                                        "ansible.cfg's transport) gives the play context", defined=True))
    return _connection[0]


_LOCALHOST = ("127.0.0.1", "localhost", "::1")
"""``C.LOCALHOST``: the names ``InventoryManager.get_host`` answers with the implicit localhost."""
_WHOLE_EXPRESSION = re.compile(r"^\{\{(?P<expression>(?:(?!\{\{|\}\}|\{%|\{#).)*)\}\}$", re.DOTALL)
_ADDRESS = "{h}.ansible_ssh_host | default({h}.ansible_host | default({d}))"


def delegated_layer(delegate: Any, names_of: Callable[[str | None], frozenset[str] | None]) -> Layer:
    """What a task delegated to ``delegate`` (its ``delegate_to`` as written) sees of the connection,
    as ansible-core 2.19 gives it: ``VariableManager.get_delegated_vars_and_hostname`` takes the
    delegate's variables (an inventory host's, else those of a new host of that name, which has
    none), ``PlayContext.set_task_and_variable_override`` takes its address from them
    (``ansible_ssh_host``, else ``ansible_host``, else the name it was delegated to) and its port and
    user where they set one, and ``PlayContext.update_vars`` adds them under ``ansible_host`` /
    ``ansible_ssh_host``, ``ansible_port`` / ``ansible_ssh_port``, ``ansible_user`` /
    ``ansible_ssh_user``, below every level: a host that defines one keeps its own. A delegate named
    by one template is templated per run (a loop item), its port and user where an inventory host
    defines one (whether the delegate does is then the run's: hostvars of a name it lacks is
    unknown); one of text and templates mixed is the run's."""
    from engine.templating.load_time import is_template
    from engine.variables.layer import Layer

    label = "the delegated task's connection"
    if not isinstance(delegate, str) or not delegate:
        return Layer("play context", label, {})
    if not is_template(delegate):
        defined = names_of(delegate)
        if defined is None:  # a host of that name made for the task: its name is its address
            values = {"ansible_host": delegate, "ansible_ssh_host": delegate}
            if delegate in _LOCALHOST:  # the implicit localhost: its connection is local
                values["ansible_connection"] = "local"
            return Layer("play context", label, values)
        host = f"hostvars[{delegate!r}]"
        address = "{{ " + _ADDRESS.format(h=host, d=repr(delegate)) + " }}"
        values: dict[str, Any] = {"ansible_host": address, "ansible_ssh_host": address}
        if "ansible_connection" in defined:
            values["ansible_connection"] = "{{ " + f"{host}.ansible_connection" + " }}"
        for pair in (("ansible_ssh_port", "ansible_port"), ("ansible_ssh_user", "ansible_user")):
            own = next((name for name in pair if name in defined), None)
            if own is not None:
                values.update(dict.fromkeys(pair, "{{ " + f"{host}.{own}" + " }}"))
        return Layer("play context", label, values)
    whole = _WHOLE_EXPRESSION.match(delegate.strip())
    if whole is None:
        from engine.variables.layer import RuntimeValue

        address = RuntimeValue("the address of the host the task is delegated to, which its connection gives",
                               defined=True)
        return Layer("play context", label, {"ansible_host": address, "ansible_ssh_host": address})
    name = f"(({whole.group('expression').strip()}) | string)"
    host = f"hostvars[{name}]"
    address = "{{ (" + _ADDRESS.format(h=host, d=name) + f") if {name} in hostvars else {name}" + " }}"
    values: dict[str, Any] = {"ansible_host": address, "ansible_ssh_host": address}
    anywhere = names_of(None) or frozenset()
    for pair in (("ansible_ssh_port", "ansible_port"), ("ansible_ssh_user", "ansible_user")):
        if anywhere.intersection(pair):  # else no inventory host gives one: none is set
            values.update(dict.fromkeys(pair, "{{ " + f"{host}.{pair[0]} | default({host}.{pair[1]})" + " }}"))
    return Layer("play context", label, values)
