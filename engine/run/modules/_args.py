"""Argument validation worded like ansible's AnsibleModule / validate_argument_spec."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from engine.run.modules import ModuleError
from engine.values import type_name_of

_TRUE = {"yes", "on", "1", "true", "y", "t"}
_FALSE = {"no", "off", "0", "false", "n", "f", ""}


@dataclass(frozen=True)
class Arg:
    type: str = "str"  # str | bool | int | list | path | raw | int() (Python's int as the type, as pause has it)
    default: Any = None
    required: bool = False
    choices: tuple[Any, ...] | None = None
    aliases: tuple[str, ...] = ()


# The arguments every module that writes a file takes (ansible's FILE_COMMON_ARGUMENTS).
FILE_COMMON_ARGS: dict[str, Arg] = {
    "mode": Arg(type="raw"),
    "owner": Arg(),
    "group": Arg(),
    "seuser": Arg(),
    "serole": Arg(),
    "selevel": Arg(),
    "setype": Arg(),
    "attributes": Arg(aliases=("attr",)),
    "unsafe_writes": Arg(type="bool", default=False),
}


def boolean(value: Any) -> bool:
    """ansible's ``boolean(value, strict=False)``: what is not a true word is false."""
    return value if isinstance(value, bool) else str(value).strip().lower() in _TRUE


def _convert(name: str, value: Any, kind: str) -> Any:
    if value is None or kind == "raw":
        return value
    if kind == "bool":
        if isinstance(value, bool):
            return value
        text = str(value).strip().lower()
        if text in _TRUE:
            return True
        if text in _FALSE:
            return False
        from engine.booleans import NotABoolean, boolean

        try:  # convert_bool's message: its set of spellings in this process's order, as in the module's
            return boolean(value, strict=True)
        except NotABoolean as exc:
            raise ModuleError(f"argument '{name}' is of type {type_name_of(value)} and we were unable to convert "
                              f"to bool: {exc}") from None
    if kind == "int()":  # a spec whose type is the int callable: a float is cut, "1.5" refused by int()
        try:
            return int(value)
        except (TypeError, ValueError) as exc:
            raise ModuleError(f"argument '{name}' is of type {type_name_of(value)} and we were unable to convert "
                              f"to int: {exc}") from None
    if kind == "int":  # check_type_int: through a decimal, a decimal part refused
        if isinstance(value, int):
            return value
        import decimal

        try:
            if (number := decimal.Decimal(value)) != (whole := int(number)):
                raise ValueError("Significant decimal part found")
            return whole
        except (decimal.DecimalException, TypeError, ValueError):
            shown = str.__str__(value) if isinstance(value, str) else value
            raise ModuleError(
                f"argument '{name}' is of type {type_name_of(value)} and we were unable to convert to int: "
                f'"{shown!r}" cannot be converted to an int'
            ) from None
    if kind == "list":
        if isinstance(value, list):
            return [str(item) for item in value]
        if not isinstance(value, str | int | float):  # check_type_list: a mapping is no list
            raise ModuleError(f"argument '{name}' is of type {type_name_of(value)} and we were unable to convert "
                              f"to list: {type(value)} cannot be converted to a list")
        return [part.strip() for part in str(value).split(",")]
    text = value if isinstance(value, str) else str(value)
    if kind == "path":
        import os

        return os.path.expanduser(os.path.expandvars(text))
    return text


def validate(
    module: str, args: dict[str, Any], spec: dict[str, Arg], mutually_exclusive: tuple[tuple[str, ...], ...] = (),
    strict: bool = True,
) -> dict[str, Any]:
    """``args`` checked against ``spec`` and converted, with defaults filled in and aliases resolved
    to the canonical name; raise :class:`ModuleError` with ansible's message otherwise. Not
    ``strict``: an action plugin's own reading of the arguments of the module it runs, which checks
    them itself when it runs (copy's and template's ``boolean(value, strict=False)``: a word that is
    not true is false; the values of other types as given, no choices checked)."""
    names = {alias: name for name, arg in spec.items() for alias in (name, *arg.aliases)}
    # ArgumentSpecValidator.validate collects its errors in this order and AnsibleModule reports
    # the first: mutually exclusive, required, each option's type, then its choices, and the
    # unsupported parameters last
    refused = unsupported_parameters(module, args, spec)
    if refused and not strict:
        raise ModuleError(refused)
    for group in mutually_exclusive if strict else ():
        given = [name for name in group if args.get(name) is not None]
        if len(given) > 1:
            raise ModuleError(f"parameters are mutually exclusive: {'|'.join(group)}")
    params: dict[str, Any] = {names[key]: value for key, value in args.items() if key in names}
    missing = sorted(name for name, arg in spec.items() if arg.required and params.get(name) is None)
    if missing and strict:
        raise ModuleError(f"missing required arguments: {', '.join(missing)}")
    for name, arg in spec.items():
        value = params.get(name)
        if value is None:
            params[name] = arg.default
        elif not strict:
            params[name] = boolean(value) if arg.type == "bool" else _lenient(name, value, arg.type)
        else:
            params[name] = _convert(name, value, arg.type)
    for name, arg in spec.items() if strict else ():
        value = params[name]
        if value is not None and arg.choices is not None and value not in arg.choices:
            raise ModuleError(f"value of {name} must be one of: {', '.join(str(c) for c in arg.choices)}, got: {value}")
    if refused:
        raise ModuleError(refused)
    if spec.get("attributes") is FILE_COMMON_ARGS["attributes"] and params["attributes"]:
        # one a template gave (a value written as it is is declined before the run: engine.run.declines)
        raise ModuleError(f"playbook-ls's engine does not implement {module}'s file attributes "
                          f"({params['attributes']}); run with --engine ansible to use ansible-playbook")
    return params


def _lenient(name: str, value: Any, kind: str) -> Any:
    try:
        return _convert(name, value, kind)
    except ModuleError:  # the module refuses it when it runs
        return value


def unsupported_parameters(module: str, names: Iterable[str], spec: dict[str, Arg]) -> str | None:
    """AnsibleModule's refusal of the argument ``names`` ``spec`` does not know, or None."""
    known = {alias for name, arg in spec.items() for alias in (name, *arg.aliases)}
    unknown = sorted(name for name in names if name not in known)
    if not unknown:
        return None
    # ansible's arg_spec: the names, then every alias in one parenthesis
    supported = ", ".join(sorted(spec))
    aliases = sorted(alias for arg in spec.values() for alias in arg.aliases)
    if aliases:
        supported += f" ({', '.join(aliases)})"
    return (f"Unsupported parameters for ({module}) module: {', '.join(unknown)}. "
            f"Supported parameters include: {supported}.")


class ActionArgs(dict):  # type: ignore[type-arg]
    """Module arguments an action plugin built (copy's for the copy or file module it runs), in
    the order it built them: the invocation keeps that order, where a task's own arguments come
    sorted by name."""


def module_args(args: dict[str, Any], spec: dict[str, Arg], params: dict[str, Any],
                added: tuple[str, ...] = ()) -> dict[str, Any]:
    """The ``invocation`` AnsibleModule adds to its result: every option of ``spec`` with its
    validated value (``params``), and each alias the task wrote with its value as written
    (``_handle_aliases`` copies an alias to its option before the types are checked). Its keys
    come in the order AnsibleModule's ``params.update(validated)`` leaves them: the arguments
    as the task gives them (sorted by name: ansible templates the task's args into a dict of
    sorted keys; as built for :class:`ActionArgs`), those the action plugin adds (``added``:
    shell's ``_uses_shell``), the
    options of the aliases written (in the spec's order), then the options left out, first
    those with a default (``_set_defaults``), then the others, each group in the spec's order."""
    aliases = {alias for arg in spec.values() for alias in arg.aliases}
    keys = list(args) if isinstance(args, ActionArgs) else sorted(args)
    shown = {key: args[key] if key in aliases else params.get(key) for key in keys}
    shown.update((key, params.get(key)) for key in added)
    for name, arg in spec.items():
        if any(alias in args for alias in arg.aliases):
            shown.setdefault(name, params.get(name))
    for name, arg in spec.items():
        if arg.default is not None:
            shown.setdefault(name, params.get(name))
    for name in spec:
        shown.setdefault(name, params.get(name))
    return {"module_args": shown}


def invalid_options(action: str, args: Iterable[str], valid: frozenset[str]) -> dict[str, Any] | None:
    """ActionBase.run's check of an action plugin's ``_VALID_ARGS`` (fail, group_by, set_stats),
    raised before anything else: ``Invalid options for ACTION: a,b``, the action as the task writes
    it and the names in the order ansible's set difference gives them; None when all are valid."""
    from engine.run.error_block import CONTEXT_KEY

    bad = frozenset(args).difference(valid)
    if not bad:
        return None
    return {"failed": True, "changed": False, "msg": f"Invalid options for {action}: {','.join(list(bad))}",
            CONTEXT_KEY: "task"}


def action_spec_name(action: str) -> str:
    """The name ActionBase.validate_argument_spec's messages give an action plugin (debug, assert,
    pause): its import path when the task names it ansible.builtin.X, else X."""
    short = action.rsplit(".", 1)[-1]
    return f"ansible_collections.ansible.builtin.plugins.action.{short}" if action.startswith("ansible.builtin.") \
        else short


def check_mode_unsupported(module: str) -> dict[str, Any]:
    """What AnsibleModule answers in check mode for a module without ``supports_check_mode``."""
    return {"changed": False, "skipped": True, "msg": f"remote module ({module}) does not support check mode"}
