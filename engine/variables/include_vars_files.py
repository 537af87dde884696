"""The files an ``include_vars`` task reads on a host and what they give, as its action reads them
(ansible-core 2.19: plugins/action/include_vars.py): a file, or a directory walked with
``files_matching`` / ``ignore_files``, under ``name`` when set, combined per its ``hash_behaviour``."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

from engine.booleans import boolean
from engine.loading.paths import include_vars_candidates, include_vars_path
from engine.span import YMap
from engine.variables.failing import fails_evaluating
from engine.vault import NO_SECRETS, configured_secrets, encrypted_file_reason, is_encrypted_text, is_vaulted

if TYPE_CHECKING:
    from engine.loading.model import Task
    from engine.parsing.source import SourceCache
    from engine.templating.templar import Templar

VARS_EXTENSIONS = ("yaml", "yml", "json")


class VarsFilesUnknown(Exception):
    """Which files, or what they give, only the run knows (the message says why)."""


class VarsFilesFail(VarsFilesUnknown):
    """The action fails on the files it finds (a file without a valid extension in its directory):
    it sets nothing, its message is the run's."""


def vaulted_include_without_secrets(task: Task) -> bool:
    """Whether ``task``, an ``include_vars`` of one file named without a template, reads a file
    encrypted whole where ansible has no vault secrets: its action fails on every host."""
    args = task.args if isinstance(task.args, Mapping) else {}
    target = args.get("_raw_params", args.get("file"))
    if not isinstance(target, str) or "{" in target or configured_secrets() is not None:
        return False
    role_path = task.role.path if task.role is not None else None
    found = include_vars_path(role_path, task.span.file if task.span is not None else None, target,
                              os.path.dirname(task.span.file) if task.span is not None else ".")
    return found is not None and is_vaulted(found)


def files_failure(task: Task, templar: Templar, basedir: str, cache: SourceCache) -> str | None:
    """Why ``include_vars`` fails on the host whose ``templar`` it is for the files it finds (a file
    of its directory without a valid extension, :class:`VarsFilesFail`), as its action fails the
    task; None where it loads them or where only the run knows."""
    args = task.args if isinstance(task.args, Mapping) else {}
    try:
        included_vars(task, args, templar, basedir, cache, f"task '{task.display_name()}'")
    except VarsFilesFail as exc:
        return str(exc)
    except VarsFilesUnknown:
        return None
    return None


def included_vars(task: Task, args: Mapping[str, Any], templar: Templar, basedir: str, cache: SourceCache,
                  label: str) -> tuple[list[str], Mapping[str, Any]]:
    """The files ``include_vars`` reads on the host and what they give (under ``name`` when set)."""
    role_path = task.role.path if task.role is not None else None
    task_file = task.span.file if task.span is not None else None
    try:
        target = templar.template(args.get("_raw_params", args.get("file")))
        folder = templar.template(args.get("dir"))
        matching = templar.template(args.get("files_matching"))
        ignored = templar.template(args.get("ignore_files")) or []
        walk = _Walk(templar.template(args.get("depth")) or 0,
                     templar.template(args.get("extensions", VARS_EXTENSIONS)),
                     boolean(templar.template(args.get("ignore_unknown_extensions", False))))
    except Exception as exc:  # noqa: BLE001 - a file named from what only the run knows
        raise VarsFilesUnknown(f"the variables of {label}, whose file only the run knows ({exc})") from exc
    if isinstance(folder, str) and folder:
        root = _vars_dir(role_path, task_file, folder, basedir)
        if root is None:
            raise VarsFilesUnknown(f"{label} fails: no directory {folder!r}")
        files = _files_in(root, matching, ignored.split() if isinstance(ignored, str) else ignored, walk, role_path,
                          label)
    elif isinstance(target, str) and target:
        found = include_vars_path(role_path, task_file, target, basedir)
        if found is None:
            raise VarsFilesUnknown(f"{label} fails: no file {target!r}")
        files = [found]
    else:
        raise VarsFilesUnknown(f"the variables of {label}")
    merged = YMap()
    for path in files:
        data = cache.load(path).data
        if data is None:
            continue
        if is_encrypted_text(data):
            if configured_secrets() is None:  # ansible's action fails, in these words
                raise VarsFilesFail(f"Task failed: Action failed: Unknown error. ({path}: {NO_SECRETS})")
            raise VarsFilesUnknown(f"the variables of {label}, set by {encrypted_file_reason(path)}")
        if not isinstance(data, Mapping):
            raise VarsFilesUnknown(f"{label} fails: {path} is not a mapping")
        merged.update(data)
        merged.key_spans.update(getattr(data, "key_spans", {}))
    if args.get("name"):
        try:  # templated as the action's other arguments (a loop item's name, most often)
            name = templar.template(args["name"])
        except Exception as exc:  # noqa: BLE001 - a name only the run knows
            raise VarsFilesUnknown(f"the variables of {label}, whose name only the run knows ({exc})") from exc
        wrapped = YMap()
        wrapped[str(name)] = dict(merged)
        return files, wrapped
    return files, merged


def with_hash_behaviour(args: Mapping[str, Any], data: Mapping[str, Any], templar: Templar, merge_hashes: bool,
                         label: str) -> Mapping[str, Any]:
    """``include_vars``' ``hash_behaviour`` other than the run's: what the files give combined over
    the values the host has of the same names (merged, or replacing them), as the action does."""
    wanted = args.get("hash_behaviour")
    if wanted is None or wanted == ("merge" if merge_hashes else "replace"):
        return data
    from engine.inventory.combine import combine_vars

    existing: dict[str, Any] = {}
    for name in data:
        try:
            existing[str(name)] = templar.template("{{ " + str(name) + " }}")
        except Exception as exc:  # noqa: BLE001 - undefined is no value to merge; only the run knows another
            if not fails_evaluating(exc):
                raise VarsFilesUnknown(f"the variables of {label}, merged with what only the run knows ({exc})") \
                    from exc
    combined = YMap()
    combined.update(combine_vars(existing, data, merge=wanted == "merge"))
    combined.key_spans.update(getattr(data, "key_spans", {}))
    return combined


def _vars_dir(role_path: str | None, task_file: str | None, folder: str, basedir: str) -> str | None:
    candidates = [folder] if os.path.isabs(folder) else []
    if role_path:
        candidates.append(os.path.join(role_path, "vars", folder))
    if task_file is not None:
        candidates += [os.path.join(os.path.dirname(task_file), "vars", folder),
                       os.path.join(os.path.dirname(task_file), folder)]
    candidates += [os.path.join(basedir, "vars", folder), os.path.join(basedir, folder)]
    return next((c for c in candidates if os.path.isdir(c)), None)


class _Walk(NamedTuple):
    depth: Any
    extensions: Any
    ignore_unknown: bool


def _files_in(root: str, matching: Any, ignored: list[Any], walk: _Walk, role_path: str | None, label: str
              ) -> list[str]:
    """``include_vars``' ``_traverse_dir_depth`` and ``_load_files_in_dir``: the directories in order
    of their paths, down to ``depth`` (0: all), each one's files sorted; a file ``files_matching``
    does not find in its name, or an ``ignore_files`` pattern ends, is passed over, as is a role's
    ``vars/main.yml``; one without an extension of ``extensions`` fails the task, unless
    ``ignore_unknown_extensions``."""
    extensions = list(walk.extensions) if isinstance(walk.extensions, list | tuple | str) else None
    if extensions is None or not isinstance(walk.depth, int):
        raise VarsFilesUnknown(f"{label} fails: its extensions or depth are not what the action takes")
    found = []
    for current, _folders, names in sorted(os.walk(root, followlinks=True), key=lambda entry: entry[0]):
        relative = os.path.relpath(current, root)
        if walk.depth and (0 if relative == "." else len(relative.split(os.sep))) + 1 > walk.depth:
            continue  # the root is at depth 1
        for name in sorted(names):
            if role_path and os.path.join(role_path, name) == os.path.join(current, "vars", "main.yml"):
                continue
            if matching and not re.search(str(matching), name):
                continue
            if any(re.search(f"{pattern}$", name) for pattern in ignored):
                continue
            valid = "." in name and os.path.splitext(name)[1][1:] in extensions
            if not valid and walk.ignore_unknown:
                continue
            if not valid:
                raise VarsFilesFail(f"{label} fails: {os.path.join(current, name)} does not have a valid extension: "
                                       f"{', '.join(map(str, extensions))}")
            found.append(os.path.join(current, name))
    return found



def include_vars_names(task: Task, basedir: str, cache: SourceCache,
                       templar: Templar | None = None) -> list[str] | None:
    """The names an ``include_vars`` task sets whatever the host: those of the files it names
    without a template (with ``templar``: as it templates them); None when only a host's values
    or the run tell which files they are."""
    from engine.templating.templar import Templar

    args = task.args if isinstance(task.args, Mapping) else {}
    try:
        _files, values = included_vars(task, args, templar or Templar({}), basedir, cache,
                                       f"task '{task.display_name()}'")
    except VarsFilesUnknown:
        return None
    return [str(name) for name in values]


_TEMPLATE = re.compile(r"\{\{.*?\}\}|\{%.*?%\}", re.S)
_WALKED = 5000
"""Files looked at per directory a pattern is matched in: beyond, any name stays possible."""


def possible_names(task: Task, args: Mapping[str, Any], basedir: str, cache: SourceCache,
                   templar: Templar | None = None) -> list[str] | None:
    """The names an ``include_vars`` whose file only the run names may set: those of every file of
    the repository its templated file name could be (each template part the host's value where it
    has one, else any text, ``/`` included: the files ``vars/{{ os_family }}-*.yml`` and the
    ``with_first_found`` candidates match, where ``include_vars`` and ``first_found`` look). None
    when any name may be: a name wholly templated (a loop item but the candidates of
    ``with_first_found``), a directory, a ``name``, a lookup, or no file matching."""
    if args.get("dir") or args.get("name") or not isinstance(task.data, Mapping):
        return None
    target = args.get("_raw_params", args.get("file"))
    patterns: list[Any] = []
    candidates = task.data.get("with_first_found")
    if isinstance(target, str) and _TEMPLATE.fullmatch(target.strip()) and candidates is not None:
        patterns = _first_found_terms(candidates)
    elif isinstance(target, str) and "lookup(" not in target and "query(" not in target:
        patterns = [target]
    role_path = task.role.path if task.role is not None else None
    task_file = task.span.file if task.span is not None else None
    names: dict[str, None] = {}
    found = False
    for pattern in patterns:
        matcher = _matcher(pattern, templar) if isinstance(pattern, str) else None
        if matcher is None:
            return None
        text, regex = matcher
        if text.startswith("/"):
            roots = [text]
        else:
            roots = include_vars_candidates(role_path, task_file, text, basedir)
            roots += [os.path.join(role_path, folder, text) for folder in ("vars", "files", "tasks", "")] \
                if role_path else []
        paths = _matching(roots, regex, len(text))
        if paths is None:
            return None
        for path in paths:
            data = cache.load(path).data
            if isinstance(data, Mapping):
                found = True
                names.update(dict.fromkeys(map(str, data)))
    return list(names) if found else None


def _matcher(pattern: str, templar: Templar | None) -> tuple[str, re.Pattern[str]] | None:
    """(``pattern`` with its template parts the host's values where known, a wildcard ``\\0``
    else; the regex a file's path matches it by). None for a pattern with no text of its own."""
    parts: list[str] = []
    at = 0
    for match in _TEMPLATE.finditer(pattern):
        parts.append(pattern[at:match.start()])
        try:
            value = templar.template(match.group(0)) if templar is not None else None
        except Exception:  # noqa: BLE001 - a part only the run knows: any text
            value = None
        parts.append(value if isinstance(value, str | int) and not isinstance(value, bool) else "\0")
        at = match.end()
    text = os.path.expanduser("".join(map(str, parts)) + pattern[at:])
    if not text.replace("\0", "").strip("/.") or ".." in text:
        return None
    return text, re.compile(".*".join(map(re.escape, text.split("\0"))), re.S)


def _matching(roots: list[str], regex: re.Pattern[str], size: int) -> list[str] | None:
    """The files under the static directory of each of ``roots`` (a path whose last ``size``
    characters are the pattern) whose path matches ``regex`` (the pattern's, at the root's end);
    None past :data:`_WALKED` files in one directory."""
    found: list[str] = []
    for root in roots:
        if "\0" not in root:  # a name without a template part: that file
            found += [root] if os.path.isfile(root) and root not in found else []
            continue
        base = root[:len(root) - size]
        static = root[:root.index("\0")]
        folder = static[:static.rfind("/") + 1] if "/" in static else base
        if not os.path.isdir(folder):
            continue
        seen = 0
        for current, dirs, files in os.walk(folder):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            for name in sorted(files):
                seen += 1
                if seen > _WALKED:
                    return None
                path = os.path.join(current, name)
                if path.startswith(base) and regex.fullmatch(path[len(base):]) and path not in found:
                    found.append(path)
    return found


def _first_found_terms(terms: Any) -> list[str]:
    """The file names a ``with_first_found`` looks at (its ``paths``, when given, make any name
    possible: none are given back then)."""
    found: list[str] = []
    for term in terms if isinstance(terms, list) else [terms]:
        if isinstance(term, Mapping):
            if term.get("paths"):
                return []
            files = term.get("files", [])
            found += [files] if isinstance(files, str) else [f for f in files if isinstance(f, str)]
        elif isinstance(term, str):
            found.append(term)
        else:
            return []
    return found
