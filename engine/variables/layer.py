"""The pieces every variable level is made of: a :class:`Layer` (one precedence level's names, with
the file and line of each), a :class:`Definition` (one name at one level), ansible's precedence
order, and the values only the run knows (:class:`RuntimeValue`).

:mod:`engine.variables.sources` builds a task's layers from the inventory, the play, its roles
(:mod:`engine.variables.role_layers`) and the tasks before it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from engine.vault import encrypted_file_reason, is_encrypted_text

if TYPE_CHECKING:
    from engine.inventory.manager import Inventory
    from engine.parsing.source import SourceCache


class VarsReader(Protocol):
    """What the levels are read with: the files (``cache``), the launch (``options``: extra vars,
    option variables) and the inventory (None where no host is asked about).
    engine.variables.manager.VariableManager is one."""

    cache: SourceCache
    options: Any
    inventory: Inventory | None


# ansible's documented precedence, lowest first (the names playbook-ls shows)
LEVELS = (
    "role defaults",
    "inventory group vars",
    "inventory group_vars/all",
    "playbook group_vars/all",
    "inventory group_vars/*",
    "playbook group_vars/*",
    "inventory host vars",
    "inventory host_vars/*",
    "playbook host_vars/*",
    "host facts",
    "play vars",
    "play vars_prompt",
    "play vars_files",
    "role vars",
    "block vars",
    "task vars",
    "include_vars",
    "set_fact / register",
    "role params",
    "include params",
    "extra vars",
    "magic variables",
    "loop item",
)
LEVEL_RANK = {name: rank for rank, name in enumerate(LEVELS, 1)}


@dataclass(frozen=True)
class Layer:
    """One precedence level's contribution: ``values`` set by ``label`` (in ``path``), lines per name."""

    level: str
    label: str
    values: Mapping[str, Any]
    path: str | None = None
    default_line: int | None = None
    """The line of names whose own line is not known (a role entry's parameters)."""
    runtime: bool = False
    """Set only when the run reaches the task that sets it (facts, include_vars, set_fact, register)."""
    pending: bool = False
    """A place for what is known per host only (the play's vars_files): see vars_files_layers."""
    any_name: str | None = None
    """Why any name not set elsewhere may be set here, which only the run knows (an include_vars
    whose file only the run names): such a name is unknown, not undefined."""

    def line(self, name: str) -> int | None:
        """Where ``name`` is written in ``path`` (0-based), when known."""
        span = getattr(self.values, "key_spans", {}).get(name)
        return span.line if span is not None else self.default_line


@dataclass(frozen=True)
class Definition:
    name: str
    value: Any
    level: str
    label: str
    path: str | None
    line: int | None
    runtime: bool


class TracedVars(dict):  # type: ignore[type-arg]
    """An inventory entity's variables with ``origins``: name -> ``PATH:LINE`` (an INI source's)."""

    origins: Mapping[str, str] = {}


def traced(values: dict[str, Any], origins: Mapping[str, str] | None) -> dict[str, Any]:
    if not origins:
        return values
    traced = TracedVars(values)
    traced.origins = origins
    return traced


def make_layer(level: str, label: str, values: Any, path: str | None = None, runtime: bool = False,
           line: int | None = None) -> Layer | None:
    """The layer of ``values`` (None when empty); ``line``: where names without their own are. A
    vars file encrypted whole (its ciphertext as ``values``) may set any name: what it sets is the run's."""
    if path is not None and is_encrypted_text(values):
        return Layer(level, label, {}, path, line, runtime, any_name=f"may be set by {encrypted_file_reason(path)}")
    if not isinstance(values, Mapping) or not values:
        return None
    return Layer(level, label, values, path, line, runtime)


def as_mapping(data: Any) -> Mapping[str, Any]:
    return data if isinstance(data, Mapping) else {}


def vars_path(frame: Any) -> str | None:
    """The file a frame's ``vars`` are written in (the frame's own when they have no position)."""
    span = frame.keyword_spans.get("vars") or frame.span
    return span.file if span else None


class RuntimeResult:
    """The value of a registered variable: the task's result, known only when it runs."""

    reason: str | None = None

    def __repr__(self) -> str:
        return "<the task's result at run time>"


RUNTIME_RESULT = RuntimeResult()


class RuntimeValue(RuntimeResult):
    """A value only the run knows, with why (the task or fact it comes from)."""

    def __init__(self, reason: str, uniform: bool = False, defined: bool = False) -> None:
        self.reason = reason
        self.uniform = uniform
        """The same on every host (a module's result registered without a condition)."""
        self.defined = defined
        """Certainly set, whatever the value (engine.templating.defined_only)."""

    def __repr__(self) -> str:
        return f"<known at run time: {self.reason}>"


def is_runtime(value: Any) -> bool:
    """Whether ``value`` stands for what only the run knows (:data:`RUNTIME_RESULT`, a :class:`RuntimeValue`)."""
    return isinstance(value, RuntimeResult)


EARLIER_TASKS = "what earlier tasks set"
"""The label of the place kept in a task's levels for what earlier tasks set on the host
(engine.variables.host_runtime fills it in per host)."""


def earlier_tasks_place() -> Layer:
    return Layer("include_vars", EARLIER_TASKS, {}, runtime=True, pending=True)
