"""Marked string values from YAML tags. Apart from the loader so that templating can
recognise them without importing ruamel.yaml."""


class VaultText(str):
    """An ``!vault`` value. It stays encrypted: playbook-ls never decrypts anything."""


class UnsafeText(str):
    """An ``!unsafe`` value: never templated."""


__all__ = ["UnsafeText", "VaultText"]
