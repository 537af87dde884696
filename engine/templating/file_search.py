"""Where a lookup finds a file (``DataLoader.path_dwim_relative_stack`` over ``ansible_search_path``)
and ``first_found``, which only asks which files exist (ansible-core 2.19:
plugins/lookup/first_found.py). Shared by the run's lookups (engine.run.file_and_command_lookups),
which ask the machine, and static templating's (engine.templating.file_lookups.RepositoryLookups),
which asks only about the repository's own files and leaves any other path to the run."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from engine.templating.pure_lookups import Call, LookupFailure, _bool_option, _options


class SearchContext(Protocol):
    basedir: str
    search_paths: list[str]
    in_role: bool
    action: str

    def exists(self, path: str) -> bool: ...


def unfrack(path: str) -> str:
    return os.path.normpath(os.path.abspath(os.path.expanduser(os.path.expandvars(path))))


def missing_file(call: Call, needle: str) -> None:
    """LookupBase.find_file_in_search_path's warning for a file it does not find."""
    if call.context.warn is not None:
        call.context.warn(f"Unable to find '{needle}' in expected paths (use -vvvvv to see paths)")


def find_file(ctx: SearchContext, subdir: str | None, needle: str) -> str | None:
    """``DataLoader.path_dwim_relative_stack`` over ``ansible_search_path`` then the basedir."""
    if needle is None:
        return None
    if needle.startswith(("~", os.path.sep)):
        path = unfrack(needle)
        return path if ctx.exists(path) else None
    candidates: list[str] = []
    add_subdir = subdir and needle.split("/")[0] != subdir
    for path in [*(ctx.search_paths or [ctx.basedir])]:
        upath = unfrack(path)
        parent = os.path.dirname(upath)
        if ctx.in_role and parent.endswith("/tasks"):
            candidates += [os.path.join(os.path.dirname(parent), subdir or "", needle), os.path.join(parent, needle)]
        if add_subdir:
            candidates.append(os.path.join(upath, subdir or "", needle))
        candidates.append(os.path.join(upath, needle))
    if add_subdir:
        candidates.append(os.path.join(ctx.basedir, subdir or "", needle))
    candidates.append(os.path.join(ctx.basedir, needle))
    return next((c for c in candidates if ctx.exists(c)), None)


def split_on(terms: Any, splitters: str) -> list[str]:
    import re

    if isinstance(terms, str):
        return re.split("[" + "".join(map(re.escape, splitters)) + "]", terms)
    out: list[str] = []
    for term in terms:
        out.extend(split_on(term, splitters))
    return out


def lookup_first_found(terms: list[Any], kwargs: dict[str, Any], call: Call) -> list[Any]:
    defaults = {"files": [], "paths": [], "skip": False}
    opts = _options(kwargs, defaults, "first_found")
    if call.invoked_as_with:  # _recurse_terms(omit_undefined=True): undefined values dropped at any depth
        terms = without_undefined(terms)
        subdir = next((s for s in ("template", "var", "file") if s in call.context.action), "file") + "s"
    else:  # _recurse_terms(omit_undefined=False): an undefined value anywhere in the terms fails
        trip_undefined(terms)
        subdir = None
    if not terms:
        terms = opts["files"]

    def process(items: Sequence[Any]) -> list[str]:
        nonlocal opts
        search: list[str] = []
        for term in items:
            if isinstance(term, Mapping):
                unknown = sorted(set(term) - {"files", "paths", "skip"})
                if unknown:
                    raise LookupFailure(f"Unsupported parameters for (first_found) lookup: {', '.join(unknown)}")
                # set_options(direct=term): the term's options over the defaults, kept for the
                # terms after it and for skip
                opts = {**defaults, **term}
                files = opts["files"]
            elif isinstance(term, str):
                files = [term]
            elif isinstance(term, Sequence):
                search.extend(process(term))
                continue
            else:
                raise LookupFailure("Invalid term supplied. A string, dict or list is required, not "
                                    f"{type(term).__name__!r}).")
            filelist = split_on(files, ",;")
            pathlist = split_on(opts["paths"], ",:;")
            search.extend([os.path.join(p, f) for p in pathlist for f in filelist] if pathlist else filelist)
        return search

    for name in process(terms):
        path = find_file(call.context, subdir, name)
        if path is not None:
            return [os.path.normpath(os.path.abspath(os.path.expanduser(path)))]
    if _bool_option(opts["skip"]):
        return []
    raise LookupFailure("No file was found when using first_found.")


lookup_first_found.accepts_undefined = True  # type: ignore[attr-defined] - with_first_found drops undefined terms


def trip_undefined(value: Any) -> None:
    """Fail on the first undefined value in ``value`` with its own error, not as the lookup's."""
    from jinja2 import Undefined
    from jinja2.exceptions import UndefinedError

    from engine.templating.errors import TemplateFailure

    if isinstance(value, Undefined):
        try:
            value._fail_with_undefined_error()
        except UndefinedError as exc:
            raise TemplateFailure(str(exc)) from exc
    for item in value.values() if isinstance(value, Mapping) else value if isinstance(value, list | tuple) else ():
        trip_undefined(item)


def without_undefined(value: Any) -> Any:
    from jinja2 import Undefined

    if isinstance(value, Mapping):
        return {k: without_undefined(v) for k, v in value.items() if not isinstance(v, Undefined)}
    if isinstance(value, list | tuple):
        return type(value)(without_undefined(v) for v in value if not isinstance(v, Undefined))
    return value


def search_paths(role_path: str | None, task_file: str | None) -> list[str]:
    """``Task.get_search_path``: the role's path, then the task file's directory."""
    paths = [role_path] if role_path else []
    if task_file:
        paths.append(os.path.dirname(task_file))
    return list(dict.fromkeys(paths))


def search_path_variable(paths: list[str], basedir: str) -> list[str]:
    """``ansible_search_path`` as the task executor sets it in a task's variables (over any of that
    name): the task's search ``paths``, then the playbook's ``basedir`` if not among them."""
    basedir = os.path.abspath(basedir)
    return [*paths, *([] if basedir in paths else [basedir])]
