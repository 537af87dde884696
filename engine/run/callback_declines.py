"""Callback plugins ansible-playbook loads by itself, declined before the run starts.

``TaskQueueManager.load_callbacks`` loads the stdout callback by name (``default``, which a file of
that name in a callback directory replaces) and every other callback plugin it finds in the
configured callback path (``callback_plugins`` of ansible.cfg, ``ANSIBLE_CALLBACK_PLUGINS``) and the
``callback_plugins/`` directories beside the playbooks and legacy roles, unless the plugin is of
the stdout type or needs enabling (``CALLBACK_NEEDS_ENABLED``, else ``CALLBACK_NEEDS_WHITELIST``,
else false: such a plugin runs without being enabled). The engine runs no plugin code: a plugin
that would run, or one whose class it cannot read as one that would not, declines the run. The
plugin's source is parsed, never imported."""

from __future__ import annotations

import ast
import os
from collections.abc import Iterable

from engine.config import config_value
from engine.files import read_text

CLASS_NAME = "CallbackModule"


def declined_callbacks(directories: Iterable[str]) -> list[tuple[str, None]]:
    """(what, None) for each callback plugin of ``directories`` that ansible-playbook would run."""
    stdout_name = (config_value("ANSIBLE_STDOUT_CALLBACK", "defaults", "stdout_callback") or "default").strip()
    found: list[tuple[str, None]] = []
    seen: set[str] = set()
    for directory in directories:
        try:
            names = sorted(os.listdir(directory))
        except OSError:
            continue
        for name in names:
            base, extension = os.path.splitext(name)
            path = os.path.join(directory, name)
            if extension != ".py" or base == "__init__" or base in seen or not os.path.isfile(path):
                continue
            seen.add(base)  # the first directory's plugin of a name is the one loaded
            if base == stdout_name or not _stays_out(path):
                found.append((f"the callback plugin {path}, which ansible-playbook loads without being asked "
                              "(its output and actions are its own)", None))
    return found


def _stays_out(path: str) -> bool:
    """Whether the plugin's class says it is a stdout callback or needs enabling (read literally)."""
    try:  # bounded, and a regular file only; a parse too deep for Python's parser is unreadable too
        tree = ast.parse(read_text(path), path)
    except (OSError, SyntaxError, UnicodeDecodeError, ValueError, RecursionError, MemoryError):
        return False
    cls = next((node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == CLASS_NAME), None)
    if cls is None:
        return False
    values: dict[str, object] = {}
    for node in cls.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    values[target.id] = node.value.value
    if values.get("CALLBACK_TYPE") == "stdout":
        return True
    for key in ("CALLBACK_NEEDS_ENABLED", "CALLBACK_NEEDS_WHITELIST"):
        if key in values:
            return bool(values[key])
    return False
