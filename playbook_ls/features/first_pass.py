"""The editor's first seconds on a large workspace: which plays may reach the files open in the
editor, told from the workspace's text alone, so that :class:`~.workspace.WorkspaceIndex`
resolves those plays first and answers hovers on the open files before the rest is indexed.

A play reaches a role's file through the role's name (``roles:``, ``include_role``, a role's
``meta`` dependencies, a path through ``roles/NAME/``) and a file outside roles through its file
name (``import_tasks: tasks/NAME.yml``). So the names that lead to the open files are found by
searching the workspace's text: the open files' own names, then the name of every role or file
whose text mentions one of those, and so on. A mention next to a ``tasks_from`` naming a task
file that does not lead to the open file does not count (``include_role: {name: db, tasks_from:
install}`` does not reach db's ``config.yml``). A play may reach an open file when its entry
mentions one of these names, or when it is written in an open file (or imported through one).
The search errs on the side of too many plays; only a name made up by templating escapes it, and
the whole index, which follows, has the rest.
"""

from __future__ import annotations

import bisect
import os
import re
from collections.abc import Callable, Iterable
from typing import Any

from playbook_ls.check import discover

_NAME_CHAR = re.compile(r"[\w-]")  # a match must not continue a longer name on either side
_NAMED = re.compile(r"[ \t]*(?:- )?name:[ \t]*")  # a task's or a play's name
_TASKS_FROM = re.compile(r"""\s*(?:- )?tasks_from:\s*['"]?([^\s'"#]+)""")
YAML_SUFFIXES = (".yml", ".yaml")
_ROLE_PARTS = frozenset({"tasks", "handlers", "meta", "defaults", "vars"})


def _stem(name: str) -> str:
    for suffix in YAML_SUFFIXES:
        if name.endswith(suffix):
            return name[:-len(suffix)]
    return name


def _key_indent(line: str) -> int:
    """Where the line's key starts (after a list item's '- ')."""
    stripped = line.lstrip(" ")
    indent = len(line) - len(stripped)
    return indent + 2 if stripped.startswith("- ") else indent


class Reaching:
    """The names that lead to the open files, searched in ``files`` (absolute paths, sorted):
    ``opened`` are the open files named as in ``files``, ``real`` their real paths."""

    def __init__(self, opened: Iterable[str], real: set[str], files: list[str], read: Callable[[str], str]) -> None:
        self.opened = real
        self._files = files
        self._texts = [read(path) for path in files]
        self._starts: list[int] = []
        at = 0
        for text in self._texts:
            self._starts.append(at)
            at += len(text) + 1
        self._text = "\0".join(self._texts)  # one search per name over everything, not one per file
        # name -> the task files of that role (stems under tasks/) that lead to an open file, None: any
        self.entries: dict[str, set[str] | None] = {}
        self.roles: set[str] = set()  # the role directories that lead there
        self.wide = False  # whether a mention leads on whatever task file it enters by
        todo: list[str] = []
        for path in opened:
            self._add(path, todo)
        self._follow(todo)

    def _follow(self, todo: list[str]) -> None:
        while todo:
            name = todo.pop()
            for number in self._mentions(name):
                self._add(self._files[number], todo)
        alternatives = "|".join(re.escape(name) for name in sorted(self.entries, key=len, reverse=True))
        self._pattern = re.compile(rf"(?<![\w-])(?:{alternatives})(?![\w-])")

    def widen(self) -> None:
        """Follow every mention of the roles on the way, whatever task file it enters by: then
        each play that may reach one of them at all is among those :meth:`play_may_reach` says
        may reach, and a role none of them reaches is one no playbook uses."""
        self.wide = True
        self.entries = dict.fromkeys(self.entries)
        self._follow(list(self.entries))

    # -- the names ----------------------------------------------------------------------------
    def _add(self, path: str, todo: list[str]) -> None:
        """``path`` leads to an open file: the name others reach it by leads there too."""
        role = discover.role_of(path) or _role_by_place(path)
        if role is None:
            name, entries = os.path.basename(path), None
        else:
            name, entries = os.path.basename(role), None if self.wide else self._role_entries(role, path)
            if discover.role_of(path) == role:
                self.roles.add(role)
        if name not in self.entries:
            self.entries[name] = entries
        else:
            known = self.entries[name]
            if known is None or (entries is not None and entries <= known):
                return
            self.entries[name] = None if entries is None else known | entries
        todo.append(name)  # again when its entries grew: a mention passed over may count now

    def _role_entries(self, role: str, path: str) -> set[str] | None:
        """The stems of ``role``'s task files that lead to ``path`` (any file outside tasks/ is
        reached whatever task file a role is entered by: None)."""
        tasks = os.path.join(role, "tasks") + os.sep
        if not path.startswith(tasks):
            return None
        numbers = [n for n in range(bisect.bisect_left(self._files, tasks), len(self._files))
                   if self._files[n].startswith(tasks)] if self._files else []
        reaching, todo = {path}, [path]
        while todo:
            base = os.path.basename(todo.pop())
            for number in numbers:
                other = self._files[number]
                if other not in reaching and self._names(self._texts[number], base):
                    reaching.add(other)
                    todo.append(other)
        return {_stem(p[len(tasks):]) for p in reaching}

    @staticmethod
    def _names(text: str, name: str) -> bool:
        at = text.find(name)
        while at >= 0:
            if _whole(text, at, len(name)):
                return True
            at = text.find(name, at + len(name))
        return False

    def _mentions(self, name: str) -> set[int]:
        """The numbers of the files whose text names ``name`` in a way that may lead on."""
        text, found, size = self._text, set(), len(name)
        entries = self.entries[name]
        at = text.find(name)
        while at >= 0:
            if _whole(text, at, size):
                number = bisect.bisect_right(self._starts, at) - 1
                if _refers(self._texts[number], at - self._starts[number], entries):
                    found.add(number)
            at = text.find(name, at + size)
        return found

    def used_elsewhere(self, role: str) -> bool:
        """Whether a file outside ``role`` (a directory) names it, whatever it enters it by."""
        name, inside = os.path.basename(role), role + os.sep
        text, size = self._text, len(name)
        at = text.find(name)
        while at >= 0:
            if _whole(text, at, size):
                number = bisect.bisect_right(self._starts, at) - 1
                if not self._files[number].startswith(inside) and _refers(self._texts[number],
                                                                            at - self._starts[number], None):
                    return True
            at = text.find(name, at + size)
        return False

    # -- the plays ----------------------------------------------------------------------------
    def play_may_reach(self, position: Iterable[tuple[str, int]], entry: Any) -> bool:
        """Whether the play at ``position`` (real paths, as the resolver gives it), written as
        ``entry``, may reach an open file."""
        return any(path in self.opened for path, _index in position) or self._mentioned(entry)

    def _mentioned(self, value: Any) -> bool:
        if isinstance(value, str):
            return self._pattern.search(value) is not None
        if isinstance(value, dict):
            if any(isinstance(name, str) and " " in name.strip() for name in [value.get("name")]):
                value = {key: item for key, item in value.items() if key != "name"}  # words, not a role
            tasks_from = value.get("tasks_from")
            role = value.get("name", value.get("role"))
            if isinstance(tasks_from, str) and "{{" not in tasks_from and isinstance(role, str):
                entries = self.entries.get(role.rsplit(".", 1)[-1], None)
                if entries is not None and _stem(tasks_from) not in entries:
                    return False  # include_role of a task file that does not lead there
            return any(self._mentioned(key) or self._mentioned(item) for key, item in value.items())
        if isinstance(value, list):
            return any(self._mentioned(item) for item in value)
        return False


def _role_by_place(path: str) -> str | None:
    """The role directory of a file at ``roles/NAME/<part>/...`` (a role with no tasks/main.yml,
    which only brings its dependencies, is no role for :func:`discover.role_of`)."""
    parts = path.split(os.sep)
    for at in range(len(parts) - 3, 0, -1):
        if parts[at - 1] == "roles" and parts[at + 1] in _ROLE_PARTS:
            return os.sep.join(parts[:at + 1])
    return None


def _whole(text: str, at: int, size: int) -> bool:
    """Whether ``text[at:at + size]`` is a whole name, not part of a longer one."""
    before, after = text[at - 1:at] if at else "", text[at + size:at + size + 1]
    return not (before and _NAME_CHAR.match(before)) and not (after and _NAME_CHAR.match(after))


def _refers(text: str, at: int, entries: set[str] | None) -> bool:
    """Whether the mention at ``at`` of ``text`` may refer to what it names: not in a name made
    of words (``- name: Include db role``), and entering the role by one of ``entries``."""
    start = text.rfind("\n", 0, at) + 1
    end = text.find("\n", at)
    end = len(text) if end < 0 else end
    named = _NAMED.match(text, start, end)
    if named is not None and named.end() <= at and " " in text[named.end():end].split(" #")[0].strip().strip("'\""):
        return False
    return entries is None or _enters(text, at, entries)


def _enters(text: str, at: int, entries: set[str]) -> bool:
    """Whether the mention at ``at`` of ``text`` may enter its role by one of ``entries``: no
    ``tasks_from`` is written in the mapping it is written in, or that names one of them (or is
    templated)."""
    lines = text.split("\n")
    number = text.count("\n", 0, at)
    indent = _key_indent(lines[number])
    found = _tasks_from(lines[number], indent)
    if not lines[number].lstrip(" ").startswith("- "):  # the keys above, up to the mapping's first
        for above in reversed(lines[:number]):
            if found is not None:
                break
            if not above.strip() or _key_indent(above) > indent:
                continue
            if _key_indent(above) < indent:
                break
            found = _tasks_from(above, indent)
            if above.lstrip(" ").startswith("- "):
                break
    for below in lines[number + 1:]:  # and the keys below, up to the next item
        if found is not None:
            break
        if not below.strip() or _key_indent(below) > indent:
            continue
        if _key_indent(below) < indent or below.lstrip(" ").startswith("- "):
            break
        found = _tasks_from(below, indent)
    return found is None or "{{" in found or _stem(found) in entries


def _tasks_from(line: str, indent: int) -> str | None:
    """The value of a ``tasks_from`` key written at ``indent`` on ``line``."""
    if _key_indent(line) != indent:
        return None
    match = _TASKS_FROM.match(line)
    return match.group(1) if match else None
