"""A plugin's documentation read from its file as ansible-doc reads it, without importing it.

A port of ``parsing/plugin_docs.py`` (``read_docstring_from_python_file``: the module is parsed
with :mod:`ast`, only top-level string or dict constants are taken) and of
``utils/plugin_docs.py`` (``add_fragments`` and ``merge_fragment``: ``extends_documentation_fragment``
resolved from the doc fragment plugins' own files, read the same way). No plugin code runs: a
fragment's ``DOCUMENTATION`` (or a named variant such as ``files.OPTION``) is the string a
class attribute is assigned in the fragment file, found in its syntax tree.
"""

from __future__ import annotations

import ast
import copy
import os
import re
from collections.abc import Callable, MutableMapping, MutableSequence, MutableSet
from functools import lru_cache
from typing import Any

import yaml

from engine import files

_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
# ansible's ``string_to_vars``: the constants a plugin file documents itself with.
DOC_CONSTANTS = {"DOCUMENTATION": "doc", "EXAMPLES": "examples", "RETURN": "returndocs", "ANSIBLE_METADATA": "metadata"}
DOC_EXTENSIONS = (".yml", ".yaml", ".py")  # ``C.DOC_EXTENSIONS``
YAML_EXTENSIONS = (".yml", ".yaml")


class FragmentError(Exception):
    """A doc fragment that is named but not found (ansible-doc refuses the whole doc)."""


def _yaml(text: str) -> Any:
    return yaml.load(text, Loader=_LOADER)  # noqa: S506 - a safe loader


def read_docstring(filename: str) -> dict[str, Any]:
    """``read_docstring``: ``{doc, examples, returndocs, metadata}`` of a ``.py`` plugin or a
    ``.yml`` sidecar; the values ansible cannot read are None, as ansible-doc leaves them."""
    data: dict[str, Any] = dict.fromkeys(DOC_CONSTANTS.values())
    try:
        source = files.read_bytes(filename)  # a FIFO or a device is no documentation, never a wait
        if filename.endswith(YAML_EXTENSIONS):
            loaded = _yaml(source)
            if isinstance(loaded, dict):
                for key, value in DOC_CONSTANTS.items():
                    data[value] = loaded.get(key)
        else:
            body = _assignments(source)
            _constants(body if body is not None else ast.parse(source).body, data)
    except Exception:  # noqa: BLE001 - ansible-doc too reports no documentation for a broken file
        pass
    return data


_ASSIGNED = re.compile(rb"^(DOCUMENTATION|EXAMPLES|RETURN|ANSIBLE_METADATA)[ \t]*=", re.MULTILINE)


def _assignments(source: bytes) -> list[ast.stmt] | None:
    """The top-level assignments of the documentation constants, parsed alone: a module's code
    can be a hundred times longer than its documentation, and parsing all of it is most of the
    cost of a first hover. None (parse the whole file, as ansible does) unless each constant is
    assigned once, at the start of a line, in a statement that parses by itself."""
    found = list(_ASSIGNED.finditer(source))
    names = [match.group(1) for match in found]
    if len(set(names)) != len(names):
        return None
    body: list[ast.stmt] = []
    for match in found:
        parsed = _parsed(source, match.start(), _triple_quoted_end(source, match.end()))
        if parsed is None:
            parsed = _parsed(source, match.start(), _statement_end(source, match.start()))
        if parsed is None:
            return None
        body.append(parsed)
    return body


def documentation_spans(source: bytes) -> list[tuple[int, int]]:
    """Where the documentation constants' assignments are in a plugin's source, in order (none
    when they cannot be told apart from the code without parsing it all)."""
    spans = []
    for match in _ASSIGNED.finditer(source):
        end = _triple_quoted_end(source, match.end()) or _statement_end(source, match.start())
        if end is None:
            return []
        spans.append((match.start(), end))
    return spans


def _parsed(source: bytes, start: int, end: int | None) -> ast.stmt | None:
    """The assignment ``source[start:end]``, if it is one whole statement."""
    if end is None:
        return None
    try:
        parsed = ast.parse(source[start:end])
    except (SyntaxError, ValueError):
        return None
    if len(parsed.body) != 1 or not isinstance(parsed.body[0], ast.Assign):
        return None
    return parsed.body[0]


_TRIPLE = re.compile(rb"[ \t]*[rRuU]?(\"\"\"|\'\'\')")


def _triple_quoted_end(source: bytes, after_equals: int) -> int | None:
    """Where ``= r\"\"\"...\"\"\"`` ends when that is all the line holds (the usual form), else None."""
    opened = _TRIPLE.match(source, after_equals)
    if opened is None:
        return None
    close = source.find(opened.group(1), opened.end())
    if close < 0:
        return None
    line_end = source.find(b"\n", close)
    end = len(source) if line_end < 0 else line_end
    rest = source[close + 3:end].strip()
    return end if not rest or rest.startswith(b"#") else None


def _statement_end(source: bytes, start: int) -> int | None:
    """The offset where the logical line starting at ``start`` ends (strings, brackets and line
    continuations followed as Python's tokenizer follows them)."""
    import io
    import tokenize

    lines = io.BytesIO(source[start:]).readline
    try:
        for token in tokenize.tokenize(lines):
            if token.type == tokenize.NEWLINE:
                return start + _offset(source, start, token.end)
            if token.type == tokenize.ENDMARKER:
                return len(source)
    except (tokenize.TokenError, SyntaxError):
        return None
    return None


def _offset(source: bytes, start: int, position: tuple[int, int]) -> int:
    """The byte offset from ``start`` of a tokenizer ``(row, col)`` (col counts characters)."""
    row, col = position
    offset = 0
    for _ in range(row - 1):
        offset = source.index(b"\n", start + offset) - start + 1
    line_end = source.find(b"\n", start + offset)
    line = source[start + offset: line_end if line_end >= 0 else len(source)].decode("utf-8", "replace")
    return offset + len(line[:col].encode("utf-8"))


def _constants(body: list[ast.stmt], data: dict[str, Any]) -> None:
    for child in body:
        if not isinstance(child, ast.Assign):
            continue
        for target in child.targets:
            key = DOC_CONSTANTS.get(getattr(target, "id", ""))
            if key is None:
                continue
            if isinstance(child.value, ast.Dict):
                data[key] = ast.literal_eval(child.value)
            elif key == "examples":
                data[key] = getattr(child.value, "value", None)
            else:
                data[key] = _yaml(child.value.value)  # type: ignore[attr-defined]


@lru_cache(maxsize=4096)
def _fragment_attributes(filename: str, mtime_ns: int, size: int) -> dict[str, str]:
    """The string attributes of a doc fragment file's ``ModuleDocFragment`` class (the class the
    plugin loader takes), by name."""
    try:
        tree = ast.parse(files.read_bytes(filename))
    except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):
        return {}
    found: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == "ModuleDocFragment":
            for child in node.body:
                if isinstance(child, ast.Assign) and isinstance(child.value, ast.Constant) \
                        and isinstance(child.value.value, str):
                    for target in child.targets:
                        if isinstance(target, ast.Name):
                            found[target.id] = child.value.value
            for method in ast.walk(node):
                # ``self.DOCUMENTATION = f"..."`` in ``__init__``: built by code that is not run
                # here; taken as documenting no option (such fragments add requirements only)
                if isinstance(method, ast.Assign):
                    for target in method.targets:
                        if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) \
                                and target.value.id == "self":
                            found.setdefault(target.attr, _same_as(method.value, found))
    return found


COMPUTED = ""


def _same_as(value: ast.expr, found: dict[str, str]) -> str:
    """``self.MODULES = self.DOCUMENTATION`` (or a class attribute): the text already found."""
    if isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name) and value.value.id == "self":
        return found.get(value.attr, COMPUTED)
    if isinstance(value, ast.Name):
        return found.get(value.id, COMPUTED)
    return COMPUTED


def fragment_attributes(filename: str) -> dict[str, str] | None:
    try:
        stat = os.stat(filename)
    except OSError:
        return None
    return _fragment_attributes(filename, stat.st_mtime_ns, stat.st_size)


# A fragment name -> the fragment file, or None when there is none (``fragment_loader.get``).
FragmentFinder = Callable[[str], str | None]


def add_fragments(doc: dict[str, Any], find_fragment: FragmentFinder) -> list[str]:
    """``add_fragments``: merge each ``extends_documentation_fragment`` into ``doc`` in place.
    Returns the fragment files read (their identity invalidates a cached doc). Raises
    :class:`FragmentError` where ansible-doc raises ``unknown doc_fragment(s)``."""
    fragments = doc.pop("extends_documentation_fragment", [])
    if isinstance(fragments, str):
        fragments = fragments.split(",")
    used: list[str] = []
    unknown: list[str] = []
    for slug in fragments or []:
        name, variable = slug.strip(), "DOCUMENTATION"
        filename = find_fragment(name)
        if filename is None and "." in slug:
            # a collection fragment's name has dots too: the variable is only split off when the
            # whole name finds no fragment
            name, variable = slug.rsplit(".", 1)
            variable = variable.upper()
            filename = find_fragment(name)
        attributes = fragment_attributes(filename) if filename else None
        if attributes is None:
            unknown.append(slug)
            continue
        used.append(filename)  # type: ignore[arg-type]
        text = attributes.get(variable)
        if text is None:
            if variable != "DOCUMENTATION":
                unknown.append(slug)
                continue
            text = "{}"
        fragment = {"options": {}} if text == COMPUTED else copy.deepcopy(_parsed_fragment(text)) or {}
        _merge_into(doc, fragment, slug)
    if unknown:
        raise FragmentError(", ".join(unknown))
    return used


@lru_cache(maxsize=4096)
def _parsed_fragment(text: str) -> Any:
    return _yaml(text)


def _merge_into(doc: dict[str, Any], fragment: dict[str, Any], slug: str) -> None:
    for listed in ("notes", "seealso"):
        if listed in fragment:
            values = fragment.pop(listed)
            if values:
                doc.setdefault(listed, []).extend(values)
    if "options" not in fragment and "attributes" not in fragment:
        raise FragmentError(f"{slug} (missing options or attributes)")
    for key in ("options", "attributes"):
        if key in fragment:
            if key in doc:
                merge_fragment(doc[key], fragment.pop(key))
            else:
                doc[key] = fragment.pop(key)
    merge_fragment(doc, fragment)


def merge_fragment(target: MutableMapping[str, Any], source: MutableMapping[str, Any]) -> None:
    """``merge_fragment``: what the plugin itself says wins over the fragment, one level deep
    (an option the plugin redefines replaces the fragment's keys it names, not the others)."""
    for key, value in source.items():
        if key in target:
            existing = target[key]
            if isinstance(existing, MutableMapping):
                value.update(existing)
            elif isinstance(existing, MutableSet):
                value.add(existing)
            elif isinstance(existing, MutableSequence):
                value = sorted(frozenset(value + existing))
            else:
                raise FragmentError(f"invalid type to extend for {key}")
        target[key] = value


def doc_file(path: str) -> str | None:
    """The file that documents the plugin at ``path``: itself when it can hold docs, else a
    sidecar beside it (``win_ping.ps1`` -> ``win_ping.py``, any -> ``name.yml``)."""
    if path.endswith(DOC_EXTENSIONS):
        return path
    return next(iter(adjacent_docs(path)), None)


def adjacent_docs(path: str) -> list[str]:
    """``_find_adjacent``: ``name.yml``, ``name.yaml``, ``name.py`` beside ``path``."""
    base = os.path.splitext(path)[0]
    return [base + ext for ext in DOC_EXTENSIONS if base + ext != path and os.path.isfile(base + ext)]


def plugin_docs(path: str, find_fragment: FragmentFinder) -> tuple[dict[str, Any], list[str]]:
    """``get_plugin_docs`` of the plugin file at ``path``: ``{doc, examples, returndocs}`` with
    fragments merged, and the files read. ``doc`` is None where ansible-doc finds none."""
    filename = doc_file(path)
    files: list[str] = []
    data: dict[str, Any] = dict.fromkeys(DOC_CONSTANTS.values())
    candidates = [filename] if filename else []
    if filename:
        candidates += [f for f in adjacent_docs(filename) if f != path]
    for candidate in candidates:
        data = read_docstring(candidate)
        files.append(candidate)
        if isinstance(data.get("doc"), dict):
            break
    doc = data.get("doc")
    if isinstance(doc, dict):
        try:
            files += add_fragments(doc, find_fragment)
        except (FragmentError, AttributeError, TypeError):
            data["doc"] = None
            data["error"] = "unknown or broken doc fragment"
    else:
        data["doc"] = None
    data.pop("metadata", None)
    return data, files


# What of an option decides whether ansible accepts a task's arguments (and what ansible-doc
# shows of it): the ground-truth comparison and the argument rules look at these only.
OPTION_FIELDS = ("type", "default", "choices", "aliases", "required", "elements")


def option_view(options: Any) -> dict[str, Any]:
    """``options`` (a doc's, or a suboption's) reduced to :data:`OPTION_FIELDS` and suboptions,
    as JSON would write them, so that two readings compare with ``==``."""
    import json

    if not isinstance(options, dict):
        return {}
    view: dict[str, Any] = {}
    for name, spec in options.items():
        spec = spec if isinstance(spec, dict) else {}
        entry = {key: spec[key] for key in OPTION_FIELDS if key in spec}
        if "suboptions" in spec:
            entry["suboptions"] = option_view(spec["suboptions"])
        view[str(name)] = entry
    return json.loads(json.dumps(view, default=str, sort_keys=True))
