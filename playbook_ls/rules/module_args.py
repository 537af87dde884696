"""What the module-argument rules (PLS124-PLS128) share: each task's module, its documentation
and the arguments written for it, and which of them can be judged for certain.

The module is looked up where ansible-playbook looked it up while loading the playbook (its
collections, ``library/`` directories and the task's ``collections:``), in the
:class:`engine.plugins.index.ModuleIndex` (documentation read from the files, never imported).
A task is judged only when ansible's answer does not depend on anything but what is written:

- the module has documentation and comes from ansible-core or a collection (whose documentation
  ansible's sanity tests hold to the module's argument spec; a ``library/`` module's is not held),
  and checks its arguments (Python, or PowerShell on ``Ansible.Basic``);
- no action plugin other than the ones whose arguments are known to be the module's own takes
  the task (``template``, ``package``, a collection's or the project's action plugin may accept
  arguments the module does not document, or supply ones it requires);
- the arguments are written out: not ``args:`` from a variable, nor a templated argument string;
- the task does not expect to fail (``ignore_errors`` on it or its blocks, ``failed_when``: a
  test that the module refuses them);
- the module's options are not built at run time (``win_dsc`` takes its DSC resource's
  properties: :mod:`playbook_ls.rules.open_options`).

Each option is then judged only on a literal value: a value holding ``{{`` or ``{%`` is whatever
the template gives at run time.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from engine.loading.model import Task
from engine.span import Span
from engine.templating.load_time import is_template
from engine.type_checks import NotAList, check_type_list
from playbook_ls.rules.base import PlaybookContext, is_generated
from playbook_ls.rules.open_options import is_open

if TYPE_CHECKING:
    from engine.plugins.index import ModuleIndex
    from engine.plugins.names import PluginNames

BUILTIN = "ansible.builtin."
# ansible-core's action plugins that take the task's arguments as the module's documentation
# says (their own argument spec, or handed to the module unchanged whatever happens): checked
# against ansible-playbook in tests/rules/data/module_args/. The others take or pass on more than
# the documentation lists (add_host, set_fact, include_vars, package, service, dnf, template,
# shell, raw, fetch, gather_facts, validate_argument_spec), or may never run the module: copy
# runs only the file module, with the file options alone, when the content is unchanged, and
# unarchive skips the module when its ``creates`` exists.
CHECKED_CORE_ACTIONS = frozenset({
    "assemble", "assert", "async_status", "command", "debug", "fail", "group_by", "pause", "script", "uri",
    "wait_for_connection",
})


@dataclass
class ModuleCall:
    """A task's module and arguments as the rules see them."""

    task: Task
    name: str  # the module's fully qualified name
    doc: dict[str, Any]
    args: dict[str, Any]
    spans: dict[str, Span] = field(default_factory=dict)  # argument -> its key's span
    value_spans: dict[str, Span] = field(default_factory=dict)
    module_span: Span | None = None  # the module key (or action:) of the task
    code: str = ""  # the module's own file (``.py``, ``.ps1``, ...)

    @property
    def options(self) -> dict[str, dict[str, Any]]:
        options = self.doc.get("options")
        return options if isinstance(options, dict) else {}

    def spec(self, argument: str) -> tuple[str, dict[str, Any]] | None:
        """``(option name, its documentation)`` of an argument written by name or alias."""
        return _names(id(self.doc), self.doc).get(argument)

    def legal_names(self) -> set[str]:
        return set(_names(id(self.doc), self.doc))

    def literal_arguments(self) -> Iterator[tuple[str, Any]]:
        """``(argument, value)`` of each argument named literally (not ``_raw_params`` nor an
        internal ``_ansible_`` name), with any value."""
        for key, value in self.args.items():
            if isinstance(key, str) and not key.startswith("_") and not is_template(key):
                yield key, value

    def documented_arguments(self) -> Iterator[tuple[str, Any, str, dict[str, Any]]]:
        """``(argument, value, option, its documentation)`` of each literally named argument
        that is an option or an alias of one."""
        for argument, value in self.literal_arguments():
            found = self.spec(argument)
            if found is not None:
                yield argument, value, *found

    def span_of(self, argument: str) -> Span | None:
        return self.spans.get(argument) or self.module_span or self.task.span

    def value_span(self, argument: str) -> Span | None:
        return self.value_spans.get(argument) or self.span_of(argument)

    def has_module_defaults(self) -> bool:
        """Whether ``module_defaults`` is set on the task or above it (it may supply arguments)."""
        return any(frame.keywords.get("module_defaults") for frame in self.task.chain)


def code_strings(path: str) -> frozenset[str]:
    """The string literals of a module's code, its documentation strings left out: a documented
    choice that is not among them is not one the module's argument spec checks (documentation
    sometimes lists placeholders such as lineinfile's ``*regex*``)."""
    try:
        stat = os.stat(path)
    except OSError:
        return frozenset()
    return _code_strings(path, stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=512)
def _code_strings(path: str, _mtime: int, _size: int) -> frozenset[str]:
    import re

    try:
        with open(path, "rb") as handle:
            source = handle.read()
    except OSError:
        return frozenset()
    if path.endswith(".py"):
        from engine.plugins.docs import documentation_spans

        for start, end in reversed(documentation_spans(source)):
            source = source[:start] + source[end:]
    text = source.decode("utf-8", "replace")
    # quoted strings and numbers: what an argument spec spells its choices and types with
    return frozenset(m.group(2) for m in re.finditer(r"(['\"])(.*?)\1", text)) | \
        frozenset(re.findall(r"(?<![\w.])-?\d+(?![\w.])", text))


_NAMES: dict[int, tuple[Any, dict[str, tuple[str, dict[str, Any]]]]] = {}


def _names(key: int, doc: dict[str, Any]) -> dict[str, tuple[str, dict[str, Any]]]:
    """Option names and aliases of a module's doc -> ``(option, its doc)``, built once per doc
    (the index keeps one doc per module)."""
    known = _NAMES.get(key)
    if known is not None and known[0] is doc:
        return known[1]
    options = doc.get("options")
    names: dict[str, tuple[str, dict[str, Any]]] = {}
    for name, spec in (options.items() if isinstance(options, dict) else ()):
        spec = spec if isinstance(spec, dict) else {}
        for alias in spec.get("aliases") or ():
            names.setdefault(str(alias), (str(name), spec))
        names[str(name)] = (str(name), spec)
    _NAMES[key] = (doc, names)
    return names


def is_literal(value: Any) -> bool:
    """A scalar written out: no template in it, so ansible sees it as written."""
    if isinstance(value, str):
        return not is_template(value)
    return isinstance(value, (bool, int, float))


def module_calls(ctx: PlaybookContext) -> list[ModuleCall]:
    """The judged module call of every task of the playbook, once per task written (a task
    reached in two contexts has one set of arguments)."""
    cached = ctx.shared.get("module_calls")
    if cached is not None:
        return cached  # type: ignore[no-any-return]
    calls: list[ModuleCall] = []
    index = index_of(ctx.playbook.plugins)
    seen: set[int] = set()
    if index is not None:
        for _play, task in ctx.tasks():
            if id(task.data) in seen or is_generated(task):
                continue
            seen.add(id(task.data))
            call = module_call(task, index, ctx.playbook.plugins)
            if call is not None:
                calls.append(call)
    ctx.shared["module_calls"] = calls
    return calls


def module_call(task: Task, index: ModuleIndex, plugins: PluginNames) -> ModuleCall | None:
    """The task's module call, or None where nothing about its arguments is certain."""
    data = task.data
    if not isinstance(data, dict) or not isinstance(task.args, dict):
        return None
    if "args" in data and not isinstance(data["args"], dict):
        return None  # args: "{{ from_a_variable }}"
    if expects_failure(task):
        return None  # a test that the module refuses the arguments (ignore_errors, then assert it failed)
    name = index.resolve(task.action, task.collections)
    if name is None or "." not in name:
        return None
    code = index.file(name).path  # type: ignore[union-attr]  # resolve() found it
    memo = index.__dict__.setdefault("_judged", {})
    key = (name, task.action, tuple(plugins.action_paths))
    if key not in memo:
        memo[key] = _validates_arguments(code) and not _action_plugin(name, task.action, index, plugins) \
            and not _open(name, index, code)
    if not memo[key]:
        return None
    doc = index.doc(name)
    if not isinstance(doc, dict) or not isinstance(doc.get("options", {}), dict):
        return None
    if "_raw_params" in task.args and "free_form" not in doc.get("options", {}):
        return None  # a templated argument string, or words a module without free form rejects
    key = task.action if task.action in data else "action" if "action" in data else "local_action"
    written = data.get(key)
    spans: dict[str, Span] = {}
    value_spans: dict[str, Span] = {}
    for source in (data.get("args"), written):
        if isinstance(source, dict):
            spans.update(getattr(source, "key_spans", {}))
            value_spans.update(getattr(source, "value_spans", {}))
    module_span = getattr(data, "key_spans", {}).get(key)
    return ModuleCall(task, name, doc, dict(task.args), spans, value_spans, module_span, code)


def expects_failure(task: Task) -> bool:
    """Whether the task's failure is expected: ``ignore_errors`` (not false) on the task or its
    blocks, or ``failed_when`` on the task. A collection's integration tests call modules without what they
    require, on purpose, and assert that they failed."""
    data = task.data if isinstance(task.data, dict) else {}
    if "failed_when" in data:
        return True
    # the task's blocks too, not a whole play's (a play that ignores every error is no test of one task)
    ignored = [data.get("ignore_errors"),
               *(frame.keywords.get("ignore_errors") for frame in task.chain if frame.kind == "block")]
    return any(value is not None and value not in (False, "false", "no", "False") for value in ignored)


def _open(name: str, index: ModuleIndex, code: str) -> bool:
    doc = index.doc(name)
    return isinstance(doc, dict) and is_open(name, doc, code, _core_action(name, index))


def _core_action(name: str, index: ModuleIndex) -> str | None:
    """ansible-core's action plugin of a builtin module (it may take the raw parameters)."""
    if not name.startswith(BUILTIN) or index.core is None:
        return None
    path = os.path.join(index.core.action_dir, f"{name[len(BUILTIN):]}.py")
    return path if os.path.isfile(path) else None


def _validates_arguments(code: str) -> bool:
    """Whether the module checks its arguments against a spec: a Python module (AnsibleModule),
    or a PowerShell one built on ``Ansible.Basic``; a legacy PowerShell module (``Parse-Args``,
    ``Get-AnsibleParam``) takes any argument, and other kinds are not known here."""
    if code.endswith(".py"):
        return True
    if not code.endswith(".ps1"):
        return False
    try:
        with open(code, encoding="utf-8", errors="replace") as handle:
            return "Ansible.Basic" in handle.read()
    except OSError:
        return False


def _action_plugin(name: str, action: str, index: ModuleIndex, plugins: PluginNames) -> bool:
    """Whether an action plugin that may take other arguments than the module's runs the task."""
    short = action.rpartition(".")[2]
    if "." not in action or action.startswith("ansible.legacy."):
        for directory in plugins.action_paths:
            if os.path.isfile(os.path.join(directory, f"{short}.py")):
                return True
    collection, _, resource = name.rpartition(".")
    if collection == "ansible.builtin":
        core = index.core
        return core is not None and resource not in CHECKED_CORE_ACTIONS and \
            os.path.isfile(os.path.join(core.action_dir, f"{resource}.py"))
    namespace, _, rest = collection.partition(".")
    base, _, subdirs = rest.partition(".")
    directory = index.collections.collection_dir(f"{namespace}.{base}")
    if directory is None:
        return True
    actions = os.path.join(directory, "plugins", "action")
    if os.path.isfile(os.path.join(actions, *subdirs.split(".") if subdirs else (), f"{resource}.py")):
        return True
    prefix = resource.split("_")[0]
    if prefix != resource and os.path.isfile(os.path.join(actions, f"{prefix}.py")):
        return True  # a network platform's action plugin (TaskExecutor's network_action)
    from engine.plugins.routing import routing_entry

    qualified = f"{subdirs}.{resource}" if subdirs else resource
    return routing_entry(os.path.join(directory, "meta", "runtime.yml"), "action", qualified) is not None


def index_of(plugins: PluginNames | None) -> ModuleIndex | None:
    """The module index of the places a playbook's modules were looked up in."""
    if plugins is None or plugins.core is None:
        return None
    finder = plugins.collections
    return _index(plugins.core, tuple(finder.roots), tuple(sorted(finder.sources.items())),
                  tuple(plugins.module_paths))


@functools.lru_cache(maxsize=16)
def _index(core: Any, roots: tuple[str, ...], sources: tuple[tuple[str, str], ...],
           libraries: tuple[str, ...]) -> ModuleIndex:
    from engine.plugins.collection_search import CollectionFinder
    from engine.plugins.index import ModuleIndex

    return ModuleIndex(core, CollectionFinder(list(roots), dict(sources)), list(libraries))


# -- ansible's type conversions (``module_utils.common.validation.check_type_*``) ----------------
BOOLEANS_TRUE = frozenset(("y", "yes", "on", "1", "true", "t", 1, 1.0, True))
BOOLEANS_FALSE = frozenset(("n", "no", "off", "0", "false", "f", 0, 0.0, False))
UNKNOWN = object()  # a conversion not judged here


class NotConvertible(Exception):
    """ansible's type check refuses the value; the message says why, in ansible's words."""


def convert(value: Any, wanted: Any) -> Any:
    """``value`` as the module gets it after ansible's type check for ``wanted`` (a documented
    ``type``), :data:`UNKNOWN` for the types judged nowhere here, or raise
    :class:`NotConvertible`. Only literal values: the caller leaves templates alone."""
    checker = _CHECKS.get(wanted)
    return checker(value) if checker else UNKNOWN


def _bool(value: Any) -> Any:
    if isinstance(value, bool):
        return value
    if isinstance(value, (str, int, float)):
        normalized = value.lower().strip() if isinstance(value, str) else value
        if normalized in BOOLEANS_TRUE:
            return True
        if normalized in BOOLEANS_FALSE:
            return False
        raise NotConvertible(f"the value '{value}' is not a valid boolean")
    raise NotConvertible(f"a {_type_name(value)} cannot be converted to a bool")


def _int(value: Any) -> Any:
    import decimal

    if isinstance(value, int):
        return value
    if not isinstance(value, (str, float)):
        raise NotConvertible(f"a {_type_name(value)} cannot be converted to an int")
    try:
        exact = decimal.Decimal(value)
        if exact != int(exact):
            raise ValueError
        return int(exact)
    except (decimal.DecimalException, TypeError, ValueError):
        raise NotConvertible(f"{value!r} cannot be converted to an int") from None


def _float(value: Any) -> Any:
    if isinstance(value, float):
        return value
    if not isinstance(value, (str, int)):
        raise NotConvertible(f"a {_type_name(value)} cannot be converted to a float")
    try:
        return float(value)
    except ValueError:
        raise NotConvertible(f"{value!r} cannot be converted to a float") from None


def _str(value: Any) -> Any:
    # a scalar is converted with a warning at most (``string_conversion_action``)
    return str(value) if isinstance(value, (str, int, float, bool)) else UNKNOWN


def _list(value: Any) -> Any:
    try:
        return check_type_list(value)
    except NotAList:
        raise NotConvertible(f"a {_type_name(value)} cannot be converted to a list") from None


def _dict(value: Any) -> Any:
    if isinstance(value, dict):
        return value
    if isinstance(value, str):
        return UNKNOWN if value.startswith("{") or "=" in value else _refuse_dict()
    raise NotConvertible(f"a {_type_name(value)} cannot be converted to a dict")


def _refuse_dict() -> Any:
    raise NotConvertible("a string without '=' or '{' cannot be converted to a dict")


def _type_name(value: Any) -> str:
    return {bool: "boolean", int: "integer", float: "float", str: "string", list: "list",
            dict: "mapping"}.get(type(value), "mapping" if isinstance(value, dict) else
                                 "list" if isinstance(value, list) else type(value).__name__)


_CHECKS = {"bool": _bool, "int": _int, "float": _float, "str": _str, "list": _list, "dict": _dict}
