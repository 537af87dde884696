"""Marked string values from YAML tags, and ansible's ``omit``. Apart from the loader so that
templating can recognise them without importing ruamel.yaml."""


class VaultText(str):
    """An ``!vault`` value. It stays encrypted: playbook-ls never decrypts anything."""


class UnsafeText(str):
    """An ``!unsafe`` value, or one ansible does not trust as a template (a script's variables given
    as a malformed group, ``{"__ansible_unsafe": ...}`` in a script's output, a string a
    ``constructed`` expression makes): never templated, and
    ansible-inventory's ``--list`` JSON writes it as ``{"__ansible_unsafe": ...}``."""


class _Omit:
    """ansible's ``omit`` while it loads a playbook (2.19's ``Omit`` sentinel): a field templated
    to it is left unset (a play's hosts become an empty list, its name empty), an item of a list
    templated to it is dropped, and in a string it is empty (``"x{{ omit }}"`` is ``x``)."""

    __slots__ = ()

    def __str__(self) -> str:
        return ""

    def __repr__(self) -> str:
        return "omit"


OMIT = _Omit()

__all__ = ["OMIT", "UnsafeText", "VaultText"]
