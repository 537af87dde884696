"""ansible's ``version`` test (``version_compare``): compares version strings the way
``ansible.plugins.test.core.version_compare`` does, with its loose (the default) and strict
version schemes, ``semver`` (``semantic``: ``ansible.utils.version.SemanticVersion``), ``pep440``
where the ``packaging`` library is installed."""

from __future__ import annotations

import operator as py_operator
import re
from typing import Any

from engine.templating.errors import SeparateFailure, VersionError

OPERATORS = {
    "==": "eq", "=": "eq", "eq": "eq", "<": "lt", "lt": "lt", "<=": "le", "le": "le",
    ">": "gt", "gt": "gt", ">=": "ge", "ge": "ge", "!=": "ne", "<>": "ne", "ne": "ne",
}
VERSION_TYPES = ("loose", "strict", "semver", "semantic", "pep440")

_LOOSE_COMPONENT = re.compile(r"(\d+ | [a-z]+ | \.)", re.VERBOSE)
_STRICT = re.compile(r"^(\d+) \. (\d+) (\. (\d+))? ([ab](\d+))?$", re.VERBOSE | re.ASCII)


class HandledVersionError(SeparateFailure, VersionError):
    """One ansible raises while handling another exception: shown as a cause of its own."""


def _loose(text: str) -> list[Any]:
    """``LooseVersion``: numbers compared as numbers, letters as text, dots dropped."""
    components: list[Any] = [x for x in _LOOSE_COMPONENT.split(text) if x and x != "."]
    return [int(x) if x.isdigit() else x for x in components]


def _strict(text: str) -> tuple[Any, ...]:
    """``StrictVersion``: MAJOR.MINOR[.PATCH][a|bN]; a final release sorts after its pre-releases."""
    match = _STRICT.match(text)
    if not match:
        raise ValueError(f"invalid version number '{text}'")
    major, minor, patch, pre, pre_number = match.group(1, 2, 4, 5, 6)
    release = (int(major), int(minor), int(patch or 0))
    return (*release, (pre[0], int(pre_number)) if pre else ("z", 0))


_SEMVER = re.compile(r"""^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)
    (?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?
    (?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$""", re.VERBOSE)


class _Identifier:
    """A pre-release identifier: each kind says ``==`` and ``<`` (raising ValueError against what
    it cannot be compared with, as ansible's do); the other comparisons follow from those two."""

    def __eq__(self, other: object) -> bool:
        raise NotImplementedError

    def __lt__(self, other: Any) -> bool:
        raise NotImplementedError

    def __le__(self, other: Any) -> bool:
        return self.__lt__(other) or self.__eq__(other)

    def __gt__(self, other: Any) -> bool:
        return not self.__le__(other)

    def __ge__(self, other: Any) -> bool:
        return not self.__lt__(other)

    __hash__ = None  # type: ignore[assignment]


class _Alpha(_Identifier):
    """A textual pre-release identifier: after every numeric one, compared as text among its kind."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Alpha) and self.text == other.text

    def __lt__(self, other: Any) -> bool:
        if isinstance(other, _Alpha):
            return self.text < other.text
        if isinstance(other, _Numeric):
            return False
        raise ValueError


class _Numeric(_Identifier):
    """A numeric pre-release identifier: before every textual one, compared as a number."""

    def __init__(self, text: str) -> None:
        self.number = int(text)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Numeric) and self.number == other.number

    def __lt__(self, other: Any) -> bool:
        if isinstance(other, _Numeric):
            return self.number < other.number
        if isinstance(other, _Alpha):
            return True
        raise ValueError


def _semver(text: str) -> tuple[tuple[int, int, int], tuple[Any, ...]]:
    """``SemanticVersion``: the core and the pre-release identifiers (build metadata is ignored)."""
    match = _SEMVER.match(text)
    if not match:
        raise ValueError(f"invalid semantic version '{text}'")
    major, minor, patch, pre = match.group(1, 2, 3, 4)
    identifiers = tuple(_Numeric(x) if x.isdigit() else _Alpha(x) for x in pre.split(".")) if pre else ()
    return (int(major), int(minor), int(patch)), identifiers


def _semver_order(left: str, right: str) -> int:
    """``SemanticVersion._cmp``: the core first; a pre-release before its release."""
    (core, pre), (other_core, other_pre) = _semver(left), _semver(right)
    if core != other_core:
        return -1 if core < other_core else 1
    if not pre and not other_pre:
        return 0
    if pre and not other_pre:
        return -1
    if other_pre and not pre:
        return 1
    return -1 if pre < other_pre else 1 if pre > other_pre else 0


def _pep440(text: str) -> Any:
    try:
        from packaging.version import Version
    except ImportError:
        raise VersionError("The pep440 version_type requires the Python 'packaging' library") from None
    return Version(text)


def version_compare(value: Any, version: Any, operator: str = "eq", strict: Any = None,
                    version_type: str | None = None) -> bool:
    if strict is not None and version_type is not None:
        raise VersionError("Cannot specify both 'strict' and 'version_type'")
    if not value:
        raise VersionError("Input version value cannot be empty")
    if not version:
        raise VersionError("Version parameter to compare against cannot be empty")
    kind = "strict" if strict else version_type or "loose"
    if kind not in VERSION_TYPES:
        raise HandledVersionError(f"Invalid version type ({kind}). Must be one of "  # raised handling a KeyError
                                  f"{', '.join(map(repr, VERSION_TYPES))}")
    if operator not in OPERATORS:
        raise VersionError(f"Invalid operator type ({operator}). Must be one of {', '.join(map(repr, OPERATORS))}")
    parse = {"loose": _loose, "strict": _strict, "pep440": _pep440}.get(kind)
    try:
        if parse is None:  # semver, semantic
            order = _semver_order(str(value), str(version))
        else:
            left, right = parse(str(value)), parse(str(version))
            # Version._cmp: equal, else ordered (which fails on a number against letters, even for !=)
            order = 0 if left == right else -1 if left < right else 1
        return bool(getattr(py_operator, OPERATORS[operator])(order, 0))
    except Exception as exc:  # noqa: BLE001 - ansible words any comparison failure alike
        raise HandledVersionError(f"Version comparison failed: {exc}") from exc
