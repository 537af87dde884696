"""A role's argument spec checked as ansible-core 2.19 checks it.

ansible prepends to a role's tasks (for the entry point ``tasks_from`` names, ``main`` by default)
a ``validate_argument_spec`` task when ``meta/argument_specs.yml`` (or ``argument_specs`` in
``meta/main.yml``) has a spec for it (``Role._prepend_validation_task``). Its action plugin takes
the value of each option the spec names from the task's variables (templated), lays the role's
parameters over them and runs ``ArgumentSpecValidator`` (``module_utils/common/arg_spec.py``,
``parameters.py``, ``validation.py``): the errors, in the validator's order, fail the task with
``Validation of arguments failed:``. The validated values (defaults, conversions) are thrown away:
the role's variables are what they were.

This module is a port of that validator for what a spec written in YAML can ask: the types
``str``, ``list``, ``dict``, ``bool``, ``int``, ``float``, ``path``, ``raw``, ``json`` and
``jsonarg`` (of an option and of its ``elements``), ``required``, ``default``, ``choices``,
``options`` (nested, ``apply_defaults``) and the sub-spec checks ``mutually_exclusive``,
``required_together``, ``required_one_of``, ``required_if``, ``required_by``. What else a spec
uses (aliases, fallbacks, deprecations, the ``bytes`` and ``bits`` types...) is named by
:func:`spec_declines` so that the plan declines the run before it starts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.booleans import BOOLEANS_FALSE, BOOLEANS_TRUE
from engine.run.role_argument_types import CHECKERS, ValidatorCrash, as_dict, native_name, plain, tagged

TYPES = frozenset({"str", "list", "dict", "bool", "int", "float", "path", "raw", "json", "jsonarg"})
# option keys that change what the validator does and that this port does not follow
DECLINED_KEYS = ("aliases", "deprecated_aliases", "fallback", "removed_in_version", "removed_at_date",
                 "removed_from_collection")
SUB_CHECKS = ("required_together", "required_one_of", "required_if", "required_by")


def spec_declines(spec: Any, context: str = "") -> list[str]:
    """What in an entry point's ``options`` the port cannot check exactly, as the plan words it."""
    found: list[str] = []
    if not isinstance(spec, Mapping):
        return [] if spec is None else [f"a role argument spec whose options are not a mapping{context}"]
    for name, option in spec.items():
        where = f"{context}{' -> ' if context else ' '}{name}" if context else f" ({name})"
        if not isinstance(option, Mapping):
            found.append(f"a role argument spec option that is not a mapping{where}")
            continue
        for key in DECLINED_KEYS:
            if key in option:
                found.append(f"a role argument spec's {key}{where}")
        if option.get("default") is not None and option.get("required", False):
            found.append(f"a role argument spec option both required and with a default{where}")
        if option.get("elements") is not None and option.get("type") != "list":
            found.append(f"a role argument spec's elements without type list{where}")
        for key in ("type", "elements"):
            kind = option.get(key)
            if kind is not None and (not isinstance(kind, str) or kind not in TYPES):
                found.append(f"a role argument spec's {key} {kind}{where}")
        for key in ("mutually_exclusive", *SUB_CHECKS):
            if key in option and not _well_formed(key, option[key]):
                found.append(f"a role argument spec's {key} as written{where}")
        if "options" in option:
            found += spec_declines(option["options"], f"{context} -> {name}" if context else f" ({name}")
    return [f"{text})" if text.count("(") > text.count(")") else text for text in found]


def _well_formed(key: str, value: Any) -> bool:
    """Whether a sub-spec check is laid out as the validator reads it (lists of names)."""
    if value is None:
        return True
    if key == "required_by":
        return isinstance(value, Mapping) and all(isinstance(v, (str, list)) for v in value.values())
    if not isinstance(value, list):
        return False
    if key == "required_if":
        return all(isinstance(item, list) and len(item) in (3, 4) and isinstance(item[2], list) for item in value)
    return all(isinstance(item, list) and all(isinstance(term, str) for term in item) for item in value)


def validate(argument_spec: Mapping[str, Any], parameters: dict[str, Any]) -> list[str]:
    """``ArgumentSpecValidator(argument_spec).validate(parameters).error_messages``."""
    errors: list[str] = []
    params = dict(parameters)
    try:
        _no_log_values(argument_spec, params)
    except TypeError as exc:
        errors.append(str(exc))
    unsupported: set[Any] = set()
    supported: dict[Any, list[str]] = {}
    _unsupported(argument_spec, params, None, unsupported, supported)
    _set_defaults(argument_spec, params, False)
    try:
        _required(argument_spec, params)
    except TypeError as exc:
        errors.append(str(exc))
    _types(argument_spec, params, "", None, errors)
    _values(argument_spec, params, None, errors)
    _set_defaults(argument_spec, params)
    _sub_spec(argument_spec, params, "", [], errors, unsupported, supported)
    if unsupported:
        names = [".".join(item) if isinstance(item, tuple) else item for item in unsupported]
        last = list(unsupported)[-1]  # the validator names the supported options of the set's last one
        listed = ", ".join(sorted(supported.get(last, [])))
        errors.append(f"{', '.join(sorted(names))}. Supported parameters include: {listed}.")
    return errors


def _no_log_values(spec: Mapping[str, Any], params: Mapping[str, Any]) -> None:
    """What of ``_list_no_log_values`` can fail: a sub-option's value that is no mapping (a string
    is read as one first)."""
    for name, option in spec.items():
        sub, values = option.get("options"), params.get(name)
        if sub is None or values is None:
            continue
        wanted = option.get("type")
        if wanted == "dict" or (wanted == "list" and option.get("elements", "") == "dict"):
            for each in values if isinstance(values, list) else [values]:
                if isinstance(each, str):
                    each = as_dict(each)
                if not isinstance(each, Mapping):
                    raise TypeError(f"Value '{each}' in the sub parameter field '{name}' must be a {wanted}, "
                                    f"not '{type(each).__name__}'")
                _no_log_values(sub, each)


def _unsupported(spec: Mapping[str, Any], params: Mapping[str, Any], context: list[str] | None,
                 found: set[Any], supported: dict[Any, list[str]]) -> None:
    for key in params:
        if key not in spec:
            where = tuple([*context, key]) if context else key
            found.add(where)
            supported[where] = list(spec)


def _set_defaults(spec: Mapping[str, Any], params: dict[str, Any], set_default: bool = True) -> None:
    for name, option in spec.items():
        default = option.get("default")
        if name not in params and (default is not None or set_default):
            params[name] = default


def _found_in(msg: str, context: list[str] | None) -> str:
    return f"{msg} found in {' -> '.join(context)}" if context else msg


def _required(spec: Mapping[str, Any], params: Mapping[str, Any], context: list[str] | None = None) -> None:
    missing = [name for name, option in spec.items() if option.get("required", False) and name not in params]
    if missing:
        raise TypeError(_found_in(f"missing required arguments: {', '.join(sorted(missing))}", context))


def _count(terms: Any, params: Mapping[str, Any]) -> int:
    if isinstance(terms, str) or not isinstance(terms, Sequence):
        terms = [terms]
    return len(set(terms).intersection(params))


def _mutually_exclusive(terms: Any, params: Mapping[str, Any], context: list[str]) -> None:
    if terms is None:
        return
    both = [check for check in terms if _count(check, params) > 1]
    if both:
        listed = ", ".join("|".join(check) for check in both)
        raise TypeError(_found_in(f"parameters are mutually exclusive: {listed}", context))


def _required_together(terms: Any, params: Mapping[str, Any], context: list[str]) -> None:
    for term in terms or ():
        counts = [_count(name, params) for name in term]
        if any(counts) and 0 in counts:
            raise TypeError(_found_in(f"parameters are required together: {', '.join(term)}", context))


def _required_one_of(terms: Any, params: Mapping[str, Any], context: list[str]) -> None:
    for term in terms or ():
        if _count(term, params) == 0:
            raise TypeError(_found_in(f"one of the following is required: {', '.join(term)}", context))


def _required_if(requirements: Any, params: Mapping[str, Any], context: list[str]) -> None:
    for req in requirements or ():
        key, val, names = req[0], req[1], req[2]
        any_of = len(req) == 4 and req[3]
        missing = [name for name in names if _count(name, params) == 0] if key in params and params[key] == val else []
        if missing and len(missing) >= (len(names) if any_of else 0):
            msg = f"{key} is {val} but {'any' if any_of else 'all'} of the following are missing: {', '.join(missing)}"
            raise TypeError(_found_in(msg, context))


def _required_by(requirements: Any, params: Mapping[str, Any], context: list[str]) -> None:
    for key, value in (requirements or {}).items():
        if key not in params or params[key] is None:
            continue
        names = [value] if isinstance(value, str) else value
        if missing := [name for name in names if name not in params or params[name] is None]:
            msg = f"missing parameter(s) required by '{key}': {', '.join(missing)}"
            raise TypeError(f"{msg} found in {' -> '.join(context)}" if context else msg)


CHECKS = {"required_together": _required_together, "required_one_of": _required_one_of,
          "required_if": _required_if, "required_by": _required_by}


def _elements(kind: str, name: str, values: list[Any], context: list[str] | None, errors: list[str]) -> list[Any]:
    checked = []
    for value in values:
        try:
            checked.append(CHECKERS[kind](value))
        except (TypeError, ValueError) as exc:
            msg = f"Elements value for option '{name}'"
            if context:
                msg += f" found in '{' -> '.join(context)}'"
            errors.append(f"{msg} is of type {native_name(value)} and we were unable to convert to {kind}: {exc}")
    return checked


def _types(spec: Mapping[str, Any], params: dict[str, Any], prefix: str, context: list[str] | None,
           errors: list[str]) -> None:
    for name, option in spec.items():
        if name not in params:
            continue
        value = params[name]
        if value is None and not option.get("required") and option.get("default") is None:
            continue
        kind = option.get("type") or "str"
        try:
            params[name] = CHECKERS[kind](value)
            if elements := option.get("elements"):
                if not isinstance(params[name], list):
                    msg = f"Invalid type {kind} for option '{params[name]}'"
                    if context:
                        msg += f" found in '{' -> '.join(context)}'."
                    errors.append(msg + ", elements value check is supported only with 'list' type")
                params[name] = _elements(elements, name, params[name], context, errors)
        except (TypeError, ValueError) as exc:
            msg = f"argument '{name}' is of type {native_name(value)}"
            if context:
                msg += f" found in '{' -> '.join(context)}'."
            errors.append(f"{msg} and we were unable to convert to {kind}: {exc}")


def _values(spec: Mapping[str, Any], params: dict[str, Any], context: list[str] | None, errors: list[str]) -> None:
    for name, option in spec.items():
        choices = option.get("choices")
        if choices is None:
            continue
        if not isinstance(choices, (Sequence, frozenset)) or isinstance(choices, (str, bytes)):
            msg = f"internal error: choices for argument {name} are not iterable: {choices}"
            errors.append(_found_in(msg, context))
            continue
        if name not in params:
            continue
        listed = ", ".join(str(choice) for choice in choices)
        value = params[name]
        if isinstance(value, list):
            if other := [item for item in value if item not in choices]:
                msg = (f"value of {name} must be one or more of: {listed}. "
                       f"Got no match for: {', '.join(map(str, other))}")
                errors.append(_found_in(msg, context))
        elif value not in choices:
            for text, words in (("False", BOOLEANS_FALSE), ("True", BOOLEANS_TRUE)):
                overlap = words.intersection(choices) if value == text else set()
                if len(overlap) == 1:
                    (value,) = overlap
                    params[name] = value
            if value not in choices:
                errors.append(_found_in(f"value of {name} must be one of: {listed}, got: {value}", context))


def _sub_spec(spec: Mapping[str, Any], params: dict[str, Any], prefix: str, context: list[str], errors: list[str],
              unsupported: set[Any], supported: dict[Any, list[str]]) -> None:
    for name, option in spec.items():
        wanted = option.get("type")
        if not (wanted == "dict" or (wanted == "list" and option.get("elements", "") == "dict")):
            continue
        sub = option.get("options")
        if option.get("apply_defaults", False):
            if sub is None:
                continue
            if params.get(name) is None:
                params[name] = {}
        elif sub is None or name not in params or params[name] is None:
            continue
        context.append(name)
        value = params[name]
        elements = [value] if not isinstance(value, Sequence) or isinstance(value, str) else value
        for index, each in enumerate(elements):
            if isinstance(each, (bool, int, float)):  # set_fallbacks asks ``name in each``
                raise ValidatorCrash(f"argument of type '{type(each).__name__}' is not iterable")
            if not isinstance(each, dict):
                errors.append(f"value of '{name}' must be of type dict or list of dicts")
                continue
            new_prefix = f"{prefix}{name}" + (f"[{index}]" if wanted == "list" else "") + "."
            try:
                _no_log_values(sub, each)
            except TypeError as exc:
                errors.append(str(exc))
            _unsupported(sub, each, context, unsupported, supported)
            try:
                _mutually_exclusive(option.get("mutually_exclusive"), each, context)
            except TypeError as exc:
                errors.append(str(exc))
            _set_defaults(sub, each, False)
            try:
                _required(sub, each, context)
            except TypeError as exc:
                errors.append(str(exc))
            _types(sub, each, new_prefix, context, errors)
            _values(sub, each, context, errors)
            for key, check in CHECKS.items():
                try:
                    check(option.get(key), each, context)
                except TypeError as exc:
                    errors.append(str(exc))
            _set_defaults(sub, each)
            _sub_spec(sub, each, new_prefix, context, errors, unsupported, supported)
        context.pop()


def run_validation(task: Any, args: Mapping[str, Any], templar: Any) -> dict[str, Any]:
    """The ``validate_argument_spec`` action: the options' values from the task's variables under
    the provided arguments, checked against the spec (``plugins/action/validate_argument_spec.py``)."""
    result: dict[str, Any] = {"validate_args_context": args.get("validate_args_context", {})}
    if "argument_spec" not in args:
        return {**result, "failed": True, "msg": f'"argument_spec" arg is required in args: {dict(args)}'}
    spec, provided = args["argument_spec"], args.get("provided_arguments", {})
    if not isinstance(spec, dict):
        return {**result, "failed": True,
                "msg": f"Incorrect type for argument_spec, expected dict and got {type(spec)}"}
    if not isinstance(provided, dict):
        return {**result, "failed": True,
                "msg": f"Incorrect type for provided_arguments, expected dict and got {type(provided)}"}
    variables = templar.variables
    written = getattr(variables, "written", variables.get)  # the values as written (a template or not)
    raw = {name: written(name) for name in spec if name in variables}
    from_vars = {name: tagged(raw[name], value) for name, value in templar.template(
        {name: variables[name] for name in raw}).items()}
    given = task.args.get("provided_arguments") if isinstance(task.args, Mapping) else None
    provided = {name: tagged(given.get(name) if isinstance(given, Mapping) else None, value)
                for name, value in provided.items()}
    try:
        errors = validate(spec, {**from_vars, **provided})
    except ValidatorCrash as exc:  # raised out of the action: the task fails with it alone
        return _shown_failure(task, {"failed": True, "changed": False, "msg": f"Task failed: {exc}"}, [str(exc)])
    if not errors:
        return {**result, "changed": False, "msg": "The arg spec validation passed"}
    result.update(failed=True, msg="Validation of arguments failed:\n" + "\n".join(errors), argument_spec_data=spec,
                  argument_errors=errors)
    return _shown_failure(task, result, ["Action failed.", result["msg"]])


def _shown_failure(task: Any, result: dict[str, Any], chain: list[str]) -> dict[str, Any]:
    """The failed result, with the error chain ansible shows for the task it prepends: no source,
    the task's data in its place."""
    if type(task.data).__name__ == "RoleValidation":
        from engine.run.error_block import ERROR_KEY, UNKNOWN, Event

        result[ERROR_KEY] = [Event("Task failed.", UNKNOWN, str(_shown(task.data))), *map(Event, chain)]
    return result


def _shown(value: Any) -> Any:
    """The prepended task's data as Python shows ansible's: plain dicts, lists and strings."""
    if isinstance(value, Mapping):
        return {_shown(k): _shown(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_shown(item) for item in value]
    return plain(value)
