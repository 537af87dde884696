"""``plugin_routing`` of a runtime.yml (ansible-core's ``ansible_builtin_runtime.yml`` or a
collection's ``meta/runtime.yml``): redirects, deprecations and tombstones of plugin names.

A playbook names a few dozen modules, and most resolve to a file without any routing. ansible-core's
table has ten thousand lines (0.2 s to load), so one name is looked up by
reading only its own entry (:func:`routing_entry`); the whole table is loaded only by callers
that need every name (:func:`load_routing`, kept as JSON in the user's cache directory, sealed as
:mod:`engine.user_cache` seals entries).
"""

from __future__ import annotations

import os
import re
from functools import cache
from typing import Any

from engine import files

LARGE_RUNTIME = 4 * 1024
_ENTRY_INDENT = "    "  # plugin_routing: / <2> kind: / <4> name:


def routing_entry(path: str, kind: str, name: str) -> Any:
    """``plugin_routing[kind][name]`` of the runtime.yml at ``path``; None when it has none."""
    outline = _outline(path)
    if outline is not None:
        found = outline.entry(kind, name)
        if found is not _UNSURE:
            return found
    section = load_routing(path).get(kind)
    return section.get(name) if isinstance(section, dict) else None


@cache
def load_routing(path: str) -> dict[str, Any]:
    """The whole ``plugin_routing`` table. A large one is kept as JSON in the user's cache
    directory, keyed by its path, size and modification time."""
    try:
        stat = os.stat(path)
    except OSError:
        return {}
    cached = _cache_file(path, stat) if stat.st_size > LARGE_RUNTIME else None
    if cached is not None:
        import json  # only for a large table, in the cache

        from engine.user_cache import read_entry

        data = read_entry(cached, files.max_file_bytes())  # sealed by this user's playbook-ls, bounded
        try:
            routing = json.loads(data) if data is not None else None
        except (ValueError, RecursionError):
            routing = None
        if isinstance(routing, dict):
            return routing
    routing = _yaml_routing(_read(path))
    if cached is not None and routing:
        import json

        from engine.user_cache import write_entry

        write_entry(cached, json.dumps(routing).encode())
    return routing


_UNSURE = object()  # the outline cannot tell: load the whole table


class _Outline:
    """Where each entry of a block-style runtime.yml starts and ends, so one entry's lines can be
    parsed alone. Anything but the plain layout ansible-core writes (two-space levels, plain keys)
    makes a lookup :data:`_UNSURE`."""

    def __init__(self, text: str, sections: dict[str, tuple[int, int]]) -> None:
        self.text = text
        self.sections = sections
        self._plain: dict[str, bool] = {}
        self._entries: dict[tuple[str, str], Any] = {}

    def entry(self, kind: str, name: str) -> Any:
        key = (kind, name)
        if key not in self._entries:
            self._entries[key] = self._find(kind, name)
        return self._entries[key]

    def _find(self, kind: str, name: str) -> Any:
        span = self._entry_span(kind, name)
        if span is None or span is _UNSURE:
            return span
        lines = self.text[span[0]:span[1]].splitlines()
        snippet = "\n".join(line[len(_ENTRY_INDENT):] if line.startswith(_ENTRY_INDENT) else "" for line in lines)
        data = _yaml(snippet)
        if not isinstance(data, dict) or list(data) != [name]:
            return _UNSURE
        return data[name]

    def _entry_span(self, kind: str, name: str) -> Any:
        """Where the entry's text is in the section: from its key's line to the next key's (a
        repeated name: the last, as YAML keeps); None when the section has no such key,
        :data:`_UNSURE` when the section is absent or a line at the entries' level is not a plain
        key. Found by searching for the key's line, not by indexing the section's thousands."""
        section = self.sections.get(kind)
        if section is None or not self._all_plain(kind, *section):
            return _UNSURE
        start, stop = section
        if not _PLAIN_NAME.fullmatch(name):
            return None  # no line of a section whose keys are all plain can hold it
        found = self.text.rfind(f"\n{_ENTRY_INDENT}{name}:", start, stop)
        if found < 0:
            return None
        line = found + 1
        following = _ENTRY_LEVEL.search(self.text, line + 1, stop)
        return line, following.start() if following else stop

    def _all_plain(self, kind: str, start: int, stop: int) -> bool:
        if kind not in self._plain:
            self._plain[kind] = _NOT_PLAIN_KEY.search(self.text, start, stop) is None
        return self._plain[kind]


_SECTION = re.compile(r"^  ([A-Za-z_][A-Za-z0-9_]*):[ \t]*(?:#.*)?$", re.MULTILINE)
_TOP_LEVEL = re.compile(r"^[^ \n#]", re.MULTILINE)
_ODD_LINE = re.compile(r"^ {1,3}[^ \n#]", re.MULTILINE)
_ENTRY_LEVEL = re.compile(rf"^{_ENTRY_INDENT}[^ \n#]", re.MULTILINE)
_PLAIN_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.\-]*")
_NOT_PLAIN_KEY = re.compile(rf"^{_ENTRY_INDENT}(?!{_PLAIN_NAME.pattern}:(?:[ \t]|$))[^ \n#]", re.MULTILINE)


@cache
def _outline(path: str) -> _Outline | None:
    """The outline of a large runtime.yml (a small one is loaded whole at once)."""
    text = _read(path)
    if len(text) <= LARGE_RUNTIME:
        return None
    root = re.search(r"^plugin_routing:[ \t]*$", text, re.MULTILINE)
    if root is None or "\t" in text or "&" in text and re.search(r"[:-][ \t]+&", text):
        return None  # another layout, or anchors an entry could refer to: not for the outline
    after_root = _TOP_LEVEL.search(text, root.end())
    end_of_routing = after_root.start() if after_root else len(text)
    headers = list(_SECTION.finditer(text, root.end(), end_of_routing))
    sections: dict[str, tuple[int, int]] = {}
    for index, header in enumerate(headers):
        stop = headers[index + 1].start() if index + 1 < len(headers) else end_of_routing
        if header.group(1) in sections:
            return None  # a repeated section: YAML's last-one-wins over whole sections
        sections[header.group(1)] = (header.end(), stop)
    if any(_ODD_LINE.search(text, start, stop) for start, stop in sections.values()):
        return None  # a line the levels above do not account for (a quoted or flow section key)
    return _Outline(text, sections)


@cache
def top_level_section(path: str, key: str) -> dict[str, Any] | None:
    """The top-level mapping ``key`` of the runtime.yml at ``path`` (``action_groups``), parsed
    from its own lines only (ansible-core's file is mostly its routing table): {} where it has none
    or they do not load, None where the file cannot be read (ansible's
    ``_get_collection_metadata`` fails then)."""
    try:
        text = files.read_text(path)
    except (OSError, ValueError):
        return None
    found = re.search(rf"^{re.escape(key)}:", text, re.MULTILINE)
    if found is None:
        return {}
    following = _TOP_LEVEL.search(text, found.end())
    data = _yaml(text[found.start():following.start() if following else len(text)])
    section = data.get(key) if isinstance(data, dict) else None
    return section if isinstance(section, dict) else {}


def _yaml_routing(text: str) -> dict[str, Any]:
    data = _yaml(text)
    routing = data.get("plugin_routing") if isinstance(data, dict) else None
    return routing if isinstance(routing, dict) else {}


def _yaml(text: str) -> Any:
    """The YAML as ansible reads it (playbook-ls's one YAML reader); None if it does not load."""
    from engine.parsing.yaml_compose import parse_yaml

    loaded = parse_yaml(text, "runtime.yml")
    return None if loaded.error else loaded.data


@cache
def _read(path: str) -> str:
    """The file's text; "" for one that cannot be read (a FIFO, a device, over the size limit,
    not UTF-8), which routes nothing."""
    try:
        return files.read_text(path)
    except (OSError, ValueError):
        return ""


def _cache_file(path: str, stat: os.stat_result) -> str | None:
    """Where the table is cached; None when the cache directory is not the user's own."""
    from engine.user_cache import blake2b, cache_subdir

    directory = cache_subdir("routing", create=True)
    if directory is None:
        return None
    from engine import code_files

    code = code_files.identity(code_files.ROUTING, code_files.PARSER_LIBRARIES)
    identity = f"{os.path.realpath(path)}|{stat.st_size}|{stat.st_mtime_ns}|{code}"
    key = blake2b(identity.encode("utf-8", "surrogateescape"), digest_size=20).hexdigest()
    return os.path.join(directory, f"{key}.json")
