"""The values a role's argument spec checks, typed and converted as ansible-core 2.19 does it:
the type checkers of ``module_utils/common/validation.py`` and the types ansible's values have
when they reach the ``validate_argument_spec`` action (engine.run.role_arguments)."""

from __future__ import annotations

import decimal
import json
import os
from collections.abc import Mapping
from typing import Any

from engine.booleans import NotABoolean, boolean
from engine.type_checks import check_type_list
from engine.values import type_name_of


class ValidatorCrash(TypeError):
    """A Python error the validator meets instead of a validation error: the task fails with it."""


# ansible's loader tags each value it reads (``_AnsibleTaggedStr`` and the like, subclasses of the
# native types): messages that print ``type(value)`` show them; a template's result is native.
_TAGGED_MODULE = "ansible.module_utils._internal._datatag"


class _AnsibleTaggedStr(str):
    __slots__ = ()


class _AnsibleTaggedInt(int):
    __slots__ = ()


class _AnsibleTaggedFloat(float):
    __slots__ = ()


class _AnsibleTaggedList(list):  # type: ignore[type-arg]
    __slots__ = ()


class _AnsibleTaggedDict(dict):  # type: ignore[type-arg]
    __slots__ = ()


_TAGGED = {str: _AnsibleTaggedStr, int: _AnsibleTaggedInt, float: _AnsibleTaggedFloat}
for _tagged in (*_TAGGED.values(), _AnsibleTaggedList, _AnsibleTaggedDict):
    _tagged.__module__ = _TAGGED_MODULE


def tagged(raw: Any, value: Any) -> Any:
    """``value`` (what ``raw`` templated to) with the types ansible's values have: what was
    written as it is (no template in it) tagged by the loader, a template's result native."""
    from engine.templating.templar import is_template
    from engine.values import UnsafeText

    if (isinstance(raw, str) and is_template(raw)) or isinstance(value, UnsafeText):
        return value
    if isinstance(value, dict):
        items = {key: tagged(raw.get(key) if isinstance(raw, Mapping) else None, each) for key, each in value.items()}
        return items if _has_template(raw) else _AnsibleTaggedDict(items)
    if isinstance(value, list):
        raws = list(raw) if isinstance(raw, list) and len(raw) == len(value) else [None] * len(value)
        items_ = [tagged(r, each) for r, each in zip(raws, value, strict=True)]
        return items_ if _has_template(raw) else _AnsibleTaggedList(items_)
    kind = _TAGGED.get(type(value))
    return kind(value) if kind is not None else value


def _has_template(raw: Any) -> bool:
    from engine.templating.templar import is_template

    if isinstance(raw, str):
        return is_template(raw)
    if isinstance(raw, Mapping):
        return any(_has_template(each) for each in raw.values())
    if isinstance(raw, list):
        return any(_has_template(each) for each in raw)
    return False


def native_name(value: Any) -> str:
    """``native_type_name``: the native type a tagged value is of."""
    for base in (str, int, float, list, dict):
        if isinstance(value, base) and type(value).__module__ == _TAGGED_MODULE:
            return base.__name__
    return type_name_of(value)


def plain(value: Any) -> Any:
    """The value as ansible's ``repr`` shows it: the engine's own string types are ``str``."""
    return str.__str__(value) if isinstance(value, str) else value


# -- the type checkers (module_utils/common/validation.py) -----------------------------------------
def _str(value: Any) -> str:
    if isinstance(value, str):
        return value
    return "" if value is None else str(value)


def as_dict(value: Any) -> dict[Any, Any]:
    if isinstance(value, dict):
        return value
    if not isinstance(value, str):
        raise TypeError(f"{type(value)} cannot be converted to a dict")
    if value.startswith("{"):
        try:
            return json.loads(value)  # type: ignore[no-any-return]
        except Exception:  # noqa: BLE001 - then Python's literal, as ansible tries
            from ast import literal_eval

            try:
                result = literal_eval(value)
            except Exception:  # noqa: BLE001
                result = None
            if isinstance(result, dict):
                return result
            raise TypeError("unable to evaluate string as dictionary") from None
    if "=" not in value:
        raise TypeError("dictionary requested, could not parse JSON or key=value")
    fields, buffer, quote, escape = [], [], "", False
    for char in value.strip():
        if escape:
            buffer.append(char)
            escape = False
        elif char == "\\":
            escape = True
        elif not quote and char in ("'", '"'):
            quote = char
        elif quote and quote == char:
            quote = ""
        elif not quote and char in (",", " "):
            if field := "".join(buffer):
                fields.append(field)
            buffer = []
        else:
            buffer.append(char)
    if field := "".join(buffer):
        fields.append(field)
    try:
        return dict(field.split("=", 1) for field in fields)
    except ValueError:
        raise TypeError('unable to evaluate string in the "key=value" format as dictionary') from None


def _bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, (str, int, float)):
        try:
            return boolean(value, strict=True)
        except NotABoolean as exc:
            raise TypeError(str(exc)) from None
    raise TypeError(f"{type(value)} cannot be converted to a bool")


def _int(value: Any) -> int:
    if isinstance(value, int):
        return value
    try:
        number = decimal.Decimal(value)
        whole = int(number)
        if number != whole:
            raise ValueError("Significant decimal part found")
    except (decimal.DecimalException, TypeError, ValueError):
        raise TypeError(f'"{plain(value)!r}" cannot be converted to an int') from None
    return whole


def _float(value: Any) -> float:
    if isinstance(value, float):
        return value
    try:
        return float(value)
    except (TypeError, ValueError):
        raise TypeError(f"{type(value)} cannot be converted to a float") from None


def _path(value: Any) -> str:
    return os.path.expanduser(os.path.expandvars(_str(value)))


def _jsonarg(value: Any) -> Any:
    if isinstance(value, (str, bytes)):
        return value.strip()
    if isinstance(value, (list, tuple, dict)):
        return json.dumps(value)
    raise TypeError(f"{type(value)} cannot be converted to a json string")


CHECKERS = {"str": _str, "list": check_type_list, "dict": as_dict, "bool": _bool, "int": _int, "float": _float,
            "path": _path, "raw": lambda value: value, "json": _jsonarg, "jsonarg": _jsonarg}
