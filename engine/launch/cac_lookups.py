"""The lookups a configuration-as-code value may read files with: ``lookup('template', ...)`` and
``lookup('file', ...)``, as workshops' ``survey_spec: "{{ lookup('template', 'survey_spec.json') }}"``.

The collection's run finds such a file where ansible's lookups search (``find_file_in_search_path``):
for a file of a role (its ``tasks/``, ``vars/``, ``defaults/``, ``handlers/``), the role's
``templates/`` (``files/`` for ``file``) then the role's directory; then the directory of the file
that holds the value, its ``templates/`` (``files/``) first. Only relative names under those
directories are read (no absolute path, no ``..``): the repository's own files, nothing else."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import Any

ROLE_PARTS = frozenset({"tasks", "vars", "defaults", "handlers", "meta"})
SUBDIRS = {"template": "templates", "file": "files"}
MAX_BYTES = 1_000_000
LOOKUP_NAMES = frozenset({"lookup", "query", "q"})


def file_lookups(holder: str, variables: Mapping[str, Any]) -> dict[str, Callable[..., Any]]:
    """``lookup``, ``query`` and ``q`` for templating a value of the file ``holder``."""

    def query(name: str, *terms: Any, **kwargs: Any) -> list[Any]:
        plugin = name.removeprefix("ansible.builtin.").removeprefix("ansible.legacy.")
        if plugin not in SUBDIRS:
            raise ValueError(f"the lookup {name!r} is not one a configuration-as-code value is read with here "
                             f"(only {', '.join(SUBDIRS)})")
        return [_read(plugin, str(term), holder, variables) for term in terms]

    def lookup(name: str, *terms: Any, **kwargs: Any) -> Any:
        found = query(name, *terms, **kwargs)
        return kwargs["wantlist"] and found if kwargs.get("wantlist") else ",".join(map(str, found))

    return {"lookup": lookup, "query": query, "q": query}


def search_path(plugin: str, holder: str) -> list[str]:
    directory = os.path.dirname(os.path.abspath(holder))
    places = []
    if os.path.basename(directory) in ROLE_PARTS:
        role = os.path.dirname(directory)
        places += [os.path.join(role, SUBDIRS[plugin]), role]
    places += [os.path.join(directory, SUBDIRS[plugin]), directory]
    return places


def _read(plugin: str, term: str, holder: str, variables: Mapping[str, Any]) -> str:
    if not term or os.path.isabs(term) or ".." in term.replace("\\", "/").split("/"):
        raise ValueError(f"lookup('{plugin}', {term!r}): only a name relative to the file's search path is read")
    for place in search_path(plugin, holder):
        path = os.path.join(place, term)
        if os.path.isfile(path):
            with open(path, encoding="utf-8") as handle:
                text = handle.read(MAX_BYTES + 1)
            if len(text) > MAX_BYTES:
                raise ValueError(f"lookup('{plugin}', {term!r}): the file is larger than {MAX_BYTES} bytes")
            if plugin == "file":
                return text.rstrip("\n")  # the file lookup strips trailing newlines (rstrip: true)
            from engine.templating.load_time import render

            rendered = render(text, {**variables, **file_lookups(path, variables)})
            return rendered if isinstance(rendered, str) else str(rendered)
    raise ValueError(f"lookup('{plugin}', {term!r}): the file was not found in "
                     f"{', '.join(search_path(plugin, holder))}")
