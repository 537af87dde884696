"""Which strings ansible-core 2.19 trusts as templates, for the values the inventory's template
plugins (``constructed``, ``generator``) make.

ansible tags strings it read from trusted files (inventory files, plugin configurations, vars
files) as templates it may render; a string an expression or template makes is a new, untagged
string: ansible never renders it again, and ansible-inventory's ``--list`` writes it as
``{"__ansible_unsafe": ...}``. Here a trusted string is a :class:`_Trusted` while templates run,
and what comes out untrusted is :class:`~engine.values.UnsafeText`.
"""

from __future__ import annotations

from collections.abc import Mapping

from engine.span import YMap
from engine.values import UnsafeText, VaultText, YamlTimestamp

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MAGIC_VARIABLES = frozenset(("inventory_hostname", "inventory_hostname_short", "group_names"))


class _Trusted(str):
    """A trusted string while templates run, standing for ansible's trust tag: like a tagged string,
    it stays itself when passed through, and any operation on it (a filter, concatenation, even a
    ``trim`` that changes nothing) gives a plain string, as ansible's tagged strings give untagged ones."""


def map_strings(value: Any, convert: Any, keys: Any = None) -> Any:
    """``value`` with ``convert`` applied to each string in it (also in lists and mappings), and to
    the string keys of the mappings ``keys`` (a predicate) accepts."""
    if isinstance(value, str):
        return convert(value)
    if isinstance(value, Mapping):
        converts_keys = keys is not None and keys(value)
        return {convert(key) if converts_keys and isinstance(key, str) else key: map_strings(item, convert, keys)
                for key, item in value.items()}
    if isinstance(value, list):
        return [map_strings(item, convert, keys) for item in value]
    return value


def _trusted(text: str) -> Any:
    if isinstance(text, YamlTimestamp):  # what templates see is the date or datetime ansible's loader made
        return text.moment
    return _Trusted(text) if type(text) is str else text


def with_moments(value: Any) -> Any:
    """``value`` with its YAML timestamps the date or datetime objects ansible's loader made."""
    return map_strings(value, lambda text: text.moment if isinstance(text, YamlTimestamp) else text)


def trusting(value: Any) -> Any:
    """``value`` with its plain strings trusted, and its YAML timestamps the objects ansible holds.
    The keys of a mapping read from YAML are trusted too (ansible's loader tags them, and
    ``dict2items`` passes them on); those of one an INI or TOML value makes are not."""
    return map_strings(value, _trusted, keys=lambda mapping: isinstance(mapping, YMap))


def untrusted(value: Any) -> Any:
    """``value`` with every string in it not trusted (vaulted values stay vaulted)."""
    return map_strings(value, lambda text: text if isinstance(text, VaultText) else UnsafeText(text))


def trusted_variables(variables: Mapping[str, Any]) -> dict[str, Any]:
    """The host's own variables with their strings trusted; not its name nor its groups' names,
    which ansible does not trust as templates."""
    return {key: value if key in MAGIC_VARIABLES else trusting(value) for key, value in variables.items()}


def _result_tag(text: str) -> str:
    if isinstance(text, _Trusted):
        return str.__str__(text)
    return UnsafeText(text) if type(text) is str else text


def as_ansible_tags(value: Any) -> Any:
    """A template's or expression's result as ansible-core 2.19 tags it: a trusted string passed
    through keeps its trust (a plain string again), any string it made is not trusted."""
    return map_strings(value, _result_tag, keys=lambda mapping: True)


def legacy_json_object(pairs: dict[str, Any]) -> Any:
    """ansible's legacy JSON profile (inventory scripts, ansible-inventory's output): an object
    holding ``__ansible_unsafe`` is that string, not trusted as a template; one holding
    ``__ansible_vault`` is that vaulted value."""
    for key, kind in (("__ansible_unsafe", UnsafeText), ("__ansible_vault", VaultText)):
        if key in pairs:
            if type(pairs[key]) is not str:
                raise ValueError(f"{key} is {type(pairs[key])} not {str}")
            return kind(pairs[key])
    return pairs


def decode_legacy_json(text: str) -> Any:
    """JSON as ansible's legacy profile reads it (see :func:`legacy_json_object`)."""
    import json  # only a script's or a plugin's answer is JSON

    return json.loads(text, object_hook=legacy_json_object)
