"""Module docs for hover and completion, and the playbook keywords.

Where ansible-core is installed, every module it and the installed collections offer comes from
:class:`engine.plugins.index.ModuleIndex` (read from the modules' files, never imported; built in
a background thread on first use). The ``ansible.builtin`` modules are also bundled in
``playbook_ls/data/modules.json`` (written by ``scripts/gen_module_data.py``), the fallback
where no ansible-core is found.
"""

from __future__ import annotations

import functools
import json
import os
import re
from importlib import resources
from typing import TYPE_CHECKING, Any

from engine.plugins.collection_search import CollectionFinder, collection_roots
from playbook_ls.features.module_summary import module_entry

if TYPE_CHECKING:
    from engine.plugins.index import ModuleIndex
    from playbook_ls.features.workspace import WorkspaceIndex

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


@functools.cache
def installed() -> ModuleIndex | None:
    """The index of the modules installed beside playbook-ls or its ``ansible-playbook``
    (``ANSIBLE_COLLECTIONS_PATH`` or the default collection directories included); None
    without ansible-core. Used where no workspace is known."""
    configured = os.environ.get("ANSIBLE_COLLECTIONS_PATH", "~/.ansible/collections:/usr/share/ansible/collections")
    return _configured(tuple(collection_roots([], configured.split(os.pathsep))), (), ())


def index_for(workspace: WorkspaceIndex | None, path: str) -> ModuleIndex | None:
    """The modules a file of the workspace can name: collections next to it, its playbook
    directory and the workspace root, the configured ``collections_path`` (ansible.cfg), the
    collections under edit, and ``library/`` beside it, beside its role and at the root."""
    if workspace is None:
        return installed()
    config = workspace.configs.for_path(path)
    here = os.path.dirname(os.path.abspath(path))
    bases = list(dict.fromkeys([here, os.path.dirname(here), workspace.root]))
    roots = collection_roots(bases, config.collections_path, config.collections_scan_sys_path)
    libraries = [d for base in bases if os.path.isdir(d := os.path.join(base, "library"))]
    return _configured(tuple(roots), tuple(sorted(config.collection_sources.items())), tuple(libraries))


@functools.lru_cache(maxsize=16)
def _configured(roots: tuple[str, ...], sources: tuple[tuple[str, str], ...],
                libraries: tuple[str, ...]) -> ModuleIndex | None:
    from engine.plugins.index import ModuleIndex
    from engine.plugins.names import find_ansible_core

    core = find_ansible_core()
    if core is None:
        return None
    index = ModuleIndex(core, CollectionFinder(list(roots), dict(sources)), list(libraries))
    index.build_in_background()
    return index


def collections_at(workspace: WorkspaceIndex | None, path: str, line: int, action: str | None) -> tuple[str, ...]:
    """The collections a short module name at ``line`` of ``path`` is looked up in: the
    ``collections:`` of its task, block, role or play, as the workspace last resolved them."""
    if workspace is None or not action:
        return ()
    for reach in workspace.at(path, line):
        if reach.task is not None and reach.task.action == action:
            return reach.task.collections
    return ()


@functools.lru_cache(maxsize=512)
def module(action: str, index: ModuleIndex | None = None, collections: tuple[str, ...] = ()) -> dict[str, Any] | None:
    """A module's doc as hovers show it (:func:`module_entry` plus ``name``, ``deprecated`` and
    ``path``): from ``index`` (else the installed modules), with a short name looked up in
    ``collections`` first, else the bundled ``ansible.builtin``."""
    if not isinstance(action, str) or not action:
        return None
    index = index or installed()
    name = index.resolve(action, collections) if index else None
    doc = index.doc(name) if index and name else None
    if isinstance(doc, dict):
        entry = module_entry(doc)
        entry.update(name=name, deprecated=doc.get("deprecated"), path=index.file(name).path)  # type: ignore[union-attr]
        return entry
    bundled = modules().get(short_name(action))
    return dict(bundled, name=BUILTIN + short_name(action)) if bundled else None


def module_source(action: str, index: ModuleIndex | None = None, collections: tuple[str, ...] = ()) -> str | None:
    """The file of the module a task names (what go-to-definition opens)."""
    doc = module(action, index, collections)
    return doc.get("path") if doc else None


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


def module_markdown(action: str, index: ModuleIndex | None = None, collections: tuple[str, ...] = ()) -> str | None:
    """A module's hover: what it does and its options, required first; its deprecation (from its
    documentation or its collection's ``runtime.yml``) or, for a module that was removed, the
    tombstone's note."""
    doc = module(action, index, collections)
    index = index or installed()
    if doc is None:
        known = index is not None and isinstance(action, str) and action
        removed = index.removal(action, collections) if known else None  # type: ignore[union-attr]
        return f"**Removed.** {removed}" if removed else None
    lines = [f"**{doc['name']}** — {doc['short_description']}"]
    deprecated = index.deprecation(action, collections) if index is not None else None
    if deprecated:
        lines.append(f"**Deprecated.** {deprecated}")
    elif doc.get("deprecated"):  # the bundled ansible.builtin data
        details = doc["deprecated"] if isinstance(doc["deprecated"], dict) else {}
        why, instead = details.get("why", ""), details.get("alternative", "")
        lines.append(f"**Deprecated.** {why} {('Use ' + instead + '.') if instead else ''}".strip())
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


def option_markdown(action: str, option: str, index: ModuleIndex | None = None,
                    collections: tuple[str, ...] = ()) -> str | None:
    """An option's hover: its type, required flag, default, choices, aliases and description."""
    doc = module(action, index, collections)
    options = doc.get("options", {}) if doc else {}
    spec = options.get(option) or next((s for s in options.values() if option in s.get("aliases", ())), None)
    if spec is None:
        return None
    lines = [f"`{option}` of **{doc['name']}** — *{option_detail(spec)}*"]  # type: ignore[index]
    if spec.get("aliases"):
        lines.append("aliases: " + ", ".join(f"`{a}`" for a in spec["aliases"]))
    if spec.get("description"):
        lines.append(spec["description"])
    return "\n\n".join(lines)
