"""A module's documentation as hovers and completion show it: the first paragraph of each text
in Markdown, options with their type, required flag, default, choices and aliases.

Shared by ``scripts/gen_module_data.py`` (the bundled ``ansible.builtin`` data) and the module
index of installed modules, so both read the same.
"""

from __future__ import annotations

import re
from typing import Any

MAX_DESCRIPTION = 160  # one line in a completion list or hover; the full text is one ansible-doc away

# ansible-doc markup (O(opt), C(code), L(text,url), ...) turned into Markdown, so hovers read well.
_MARKUP = [
    (re.compile(r"L\(([^)]*?),\s*[^)]*\)"), r"\1"),
    (re.compile(r"U\(([^)]*)\)"), r"\1"),
    (re.compile(r"I\(([^)]*)\)"), r"*\1*"),
    (re.compile(r"B\(([^)]*)\)"), r"**\1**"),
    (re.compile(r"\b(?:O|V|C|RV|E)\(([^)]*)\)"), r"`\1`"),
    (re.compile(r"\b[MP]\(([^)#]*)(?:#[^)]*)?\)"), r"`\1`"),
    (re.compile(r"HORIZONTALLINE"), ""),
]


def plain(text: Any) -> str:
    """The first paragraph as one line, markup converted, cut after a sentence if long."""
    if isinstance(text, list):
        text = next((t for t in text if isinstance(t, str) and t.strip()), "")
    text = " ".join(str(text or "").split())
    for pattern, replacement in _MARKUP:
        text = pattern.sub(replacement, text)
    if len(text) > MAX_DESCRIPTION:
        cut = text.find(". ", 40, MAX_DESCRIPTION)
        text = text[: cut + 1] if cut > 0 else text[: MAX_DESCRIPTION - 1].rstrip() + "…"
    return text


def jsonable(value: Any) -> Any:
    """Defaults and choices as JSON values (YAML may give dates, sets, tuples)."""
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set):
        return [jsonable(v) for v in value]
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return str(value)


def option(spec: dict[str, Any]) -> dict[str, Any]:
    entry: dict[str, Any] = {"type": spec.get("type", "str")}
    if spec.get("required"):
        entry["required"] = True
    default = spec.get("default")
    if entry["type"] == "bool" and isinstance(default, str):  # 'no'/'yes' as written; the value is a bool
        default = {"yes": True, "true": True, "no": False, "false": False}.get(default.lower(), default)
    if default is not None:
        entry["default"] = jsonable(default)
    choices = spec.get("choices")
    if choices:
        entry["choices"] = jsonable(list(choices))  # a dict of choice -> description keeps its keys
    if spec.get("aliases"):
        entry["aliases"] = list(spec["aliases"])
    entry["description"] = plain(spec.get("description"))
    return entry


def module_entry(doc: dict[str, Any]) -> dict[str, Any]:
    options = doc.get("options") or {}
    entry: dict[str, Any] = {"short_description": plain(doc.get("short_description"))}
    # ``free_form`` documents the bare string after the module name, not a key one can write.
    if "free_form" in options:
        entry["free_form"] = True
    entry["options"] = {name: option(spec) for name, spec in options.items() if name != "free_form"}
    return entry
