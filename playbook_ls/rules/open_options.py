"""Modules whose options are built at run time: no argument of theirs is judged (PLS124-PLS126).

A module's documentation lists its options, but a few modules take options that exist only once
the module runs: ``ansible.windows.win_dsc`` makes the DSC resource's properties its options,
and documents them as a pseudo-option ``free_form`` ("there is no option actually named
free_form"). Whether a module is one of them is read from its documentation and its code, the
same way for every module (``scripts/gen_open_option_modules.py`` applies it to ansible-core and
every collection of the ``ansible`` package and writes the result to
``playbook_ls/data/open_option_modules.json``, which the rules read first):

- its argument spec gains options whose names are computed (PowerShell's
  ``$spec.options."$(...)"`` or ``$spec.options.$name``, Python's ``argument_spec[name] = ...``
  with a variable ``name``);
- it checks its own arguments and documents a ``free_form`` option, but takes no ``_raw_params``
  (neither its code nor its action plugin reads them): the pseudo-option stands for options it
  builds, not for words (``command``'s ``free_form`` is its ``_raw_params``);
- its description says its options are dynamic or passed on unchecked.
"""

from __future__ import annotations

import functools
import json
import os
import re
from typing import Any

from engine.lazy_regex import LazyRegex

# option names computed while the spec is built: PowerShell and Python
_COMPUTED_OPTION = LazyRegex(
    r"""\.options\.(?:"\$|\$(?!true\b|false\b|null\b))|\.options\[\s*\$"""
    r"""|\bargument_spec\[\s*(?!['"])[A-Za-z_]\w*\s*\]\s*=""",
    re.IGNORECASE)
# the module checks its arguments itself (not a documentation stub of an action such as shell or meta)
_ARGUMENT_SPEC = LazyRegex(r"\bAnsibleModule\(|Ansible\.Basic")
_DYNAMIC_DESCRIPTION = LazyRegex(
    r"options (?:for|of) this module are dynamic|takes in multiple free[- ]form options"
    r"|(?:any|all) (?:other|additional|extra) (?:options|parameters|arguments|keys) (?:are|will be) "
    r"(?:passed|sent|given|forwarded)",
    re.IGNORECASE)


def open_reason(doc: dict[str, Any], code: str, action_code: str = "") -> str | None:
    """Why the module's options are open, or None when its documentation lists them all.

    ``code`` is the text of the module's file, ``action_code`` that of the action plugin of the
    same name, if any."""
    # the expression is slow on a large module: most have neither spelling at all
    if (".options" in code or ".Options" in code or "argument_spec[" in code) and _COMPUTED_OPTION.search(code):
        return "its argument spec gains options computed at run time"
    options = doc.get("options")
    if isinstance(options, dict) and "free_form" in options and _ARGUMENT_SPEC.search(code) \
            and "_raw_params" not in code and "_raw_params" not in action_code:
        return "its documented free_form is a pseudo-option standing for options built at run time"
    description = doc.get("description")
    text = " ".join(map(str, description)) if isinstance(description, list) else str(description or "")
    if _DYNAMIC_DESCRIPTION.search(text):
        return "its documentation says its options are dynamic"
    return None


@functools.cache
def known_open_modules() -> dict[str, str]:
    """The modules of ansible-core and the ``ansible`` package found open by the script, with why."""
    from importlib import resources

    try:
        text = resources.files("playbook_ls.data").joinpath("open_option_modules.json").read_text(encoding="utf-8")
        data = json.loads(text)
    except (OSError, ValueError):
        return {}
    modules = data.get("modules") if isinstance(data, dict) else None
    return {str(k): str(v) for k, v in modules.items()} if isinstance(modules, dict) else {}


def is_open(name: str, doc: dict[str, Any], code_path: str, action_path: str | None) -> bool:
    """Whether the module ``name`` (fully qualified) takes options its documentation cannot list."""
    if name in known_open_modules():
        return True
    return open_reason(doc, _read(code_path), _read(action_path) if action_path else "") is not None


def _read(path: str) -> str:
    try:
        if os.path.getsize(path) > 2_000_000:
            return ""
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read()
    except OSError:
        return ""
