"""The ansible.builtin modules and playbook keywords, from ``playbook_ls/data/modules.json``.

The JSON is written by ``scripts/gen_module_data.py`` from ansible-core's own docs; the server
never imports ansible. It is read on the first completion or hover that needs it, not at start.
"""

from __future__ import annotations

import functools
import json
import re
from importlib import resources
from typing import Any

BUILTIN = "ansible.builtin."
_PREFIXES = (BUILTIN, "ansible.legacy.")
_PLAIN = re.compile(r"[\w.+/:@-]+")
MAX_OPTIONS = 14  # options shown with their description in a module hover; the rest by name only

# Keys ansible's keyword_desc.yml does not describe.
EXTRA_KEYWORDS = {
    "listen": "Topics this handler also answers to: `notify` one of them to run it.",
    "local_action": "Same as `action`, but delegated to localhost.",
    "import_playbook": "Import the plays of another playbook, statically.",
    "role": "The name or path of the role to use.",
}


@functools.cache
def _data() -> dict[str, Any]:
    text = resources.files("playbook_ls.data").joinpath("modules.json").read_text(encoding="utf-8")
    return json.loads(text)


def modules() -> dict[str, dict[str, Any]]:
    """Short module name -> ``{short_description, options: {name: {type, required, default, ...}}}``."""
    return _data()["modules"]


def short_name(action: str) -> str:
    for prefix in _PREFIXES:
        if action.startswith(prefix):
            return action[len(prefix):]
    return action


def module(action: str) -> dict[str, Any] | None:
    """The doc of a builtin module written short, as ``ansible.builtin.x`` or ``ansible.legacy.x``."""
    return modules().get(short_name(action)) if isinstance(action, str) else None


def keyword_description(name: str) -> str:
    return _data()["keywords"].get(name) or EXTRA_KEYWORDS.get(name, "")


def option_detail(spec: dict[str, Any]) -> str:
    """``str, required`` / ``bool, default: false`` / ``str, one of: a, b``."""
    parts = [str(spec.get("type", "str"))]
    if spec.get("required"):
        parts.append("required")
    if "default" in spec:
        parts.append(f"default: {json.dumps(spec['default'])}")
    if spec.get("choices"):
        parts.append("one of: " + ", ".join(map(_choice, spec["choices"])))
    return ", ".join(parts)


def _choice(value: Any) -> str:
    # quoted when it is not a plain word, so that "\\n" or "" read as what they are
    return value if isinstance(value, str) and _PLAIN.fullmatch(value) else json.dumps(value)


def ordered_options(doc: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """Required options first, then the others, each group in documented order."""
    options = list(doc.get("options", {}).items())
    return [o for o in options if o[1].get("required")] + [o for o in options if not o[1].get("required")]


def module_markdown(action: str) -> str | None:
    """A module's hover: what it does and its options, required first."""
    doc = module(action)
    if doc is None:
        return None
    name = BUILTIN + short_name(action)
    lines = [f"**{name}** — {doc['short_description']}"]
    if doc.get("free_form"):
        lines.append("Takes a free-form command after the module name.")
    options = ordered_options(doc)
    if options:
        shown = [f"- `{key}` *{option_detail(spec)}*" + (f" — {spec['description']}" if spec.get("description")
                                                          else "") for key, spec in options[:MAX_OPTIONS]]
        rest = options[MAX_OPTIONS:]
        if rest:
            shown.append(f"- … and {len(rest)} more: " + ", ".join(f"`{key}`" for key, _ in rest))
        lines.append("**options:**\n" + "\n".join(shown))
    return "\n\n".join(lines)
