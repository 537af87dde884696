"""The editor's first seconds on a large workspace: which plays may reach the files open in the
editor, told from the workspace's text alone, so that :class:`~.workspace.WorkspaceIndex`
resolves those plays first and answers hovers on the open files before the rest is indexed.

A play reaches a role's file through the role's name (``roles:``, ``include_role``, a role's
``meta`` dependencies, a path through ``roles/NAME/``, ``ns.coll.NAME``) and a file outside roles
through its file name (``import_tasks: tasks/NAME.yml``). So the names that lead to the open files
are found by searching the workspace's text: the open files' own names, then the name of every
role or file that refers to one of those, and so on. A reference is a value that is the name, or
a path through it; words (a task's name, a message, a condition) and comments refer to nothing.
A reference next to a ``tasks_from`` naming a task file that does not lead to the open file does
not count (``include_role: {name: db, tasks_from: install}`` does not reach db's ``config.yml``).
A play may reach an open file when one of its values refers to one of these names, or when it is
written in an open file (or imported through one). The search errs on the side of too many plays;
only a name made up by templating escapes it, and the whole index, which follows, has the rest.
"""

from __future__ import annotations

import bisect
import os
import re
from collections.abc import Callable, Container, Iterable
from typing import Any

from engine.loading import paths as fs
from playbook_ls.check import discover

Position = tuple[tuple[str, int], ...]  # where a play is: (playbook, entry) for each import_playbook, then its own
# The first pass is a step of WorkspaceIndex.index, kept in a module of its own for its size; it
# calls the index's own steps. The index and its books are typed loosely here so that this module
# does not import the one that imports it.
WorkspaceIndex = Any
Book = Any

_NAME_CHAR = re.compile(r"[\w-]")  # a match must not continue a longer name on either side
_TASKS_FROM = re.compile(r"""\s*(?:- )?tasks_from:\s*['"]?([^\s'"#]+)""")
YAML_SUFFIXES = (".yml", ".yaml")
_ROLE_PARTS = frozenset({"tasks", "handlers", "meta", "defaults", "vars"})
_VARIABLE_DIRS = frozenset({"group_vars", "host_vars"})
_ROLE_KEYS = frozenset({"roles", "include_role", "import_role", "dependencies"})
# keys whose templated value may name any role or task file (roles: ["{{ playbook_dir }}"])
_REFERRING_KEYS = _ROLE_KEYS | {"role", "import_tasks", "include_tasks", "include", "import_playbook"}
# the same in text: a role or a task file named by a template, somewhere in the workspace
_TEMPLATED = re.compile(r"""(?:\brole|_role|_tasks|\binclude|_playbook):\s*['"]?[^'"\n#]*\{\{"""  # role: "{{ x }}"
                        r"""|(?:include_role|import_role):[ \t]*\n(?:[ \t]+\S[^\n]*\n){0,4}?"""  # include_role:
                        r"""[ \t]+name:\s*['"]?[^'"\n#]*\{\{"""  # ... name: "{{ x }}"
                        r"""|^[ \t]*roles:[ \t]*\n(?:[ \t]*-[^\n]*\n)*?[ \t]*-\s*['"]?\{\{""",  # roles: [.., "{{x}}"]
                        re.MULTILINE)


def resolve_first(index: WorkspaceIndex) -> dict[str, Book] | None:
    """Resolve only the plays of ``index`` that may reach the files open in the editor and swap
    them in, with the roles on the way that no playbook uses as roles of their own, and name
    the open files in ``index.early``; None when no file under the root is open."""
    index._take_edits()  # the files opened while the workspace was being discovered
    opened = open_files(index)  # real path -> the path as index.files names it
    if not opened:
        return None
    # the files as on disk: which files lead to an open one is all that is read there (the
    # overlay's realpath of every path would cost more than the reading)
    reaching = Reaching(opened.values(), set(opened), index.files, index._disk_text)
    outside = [path for path in index.files if discover.role_of(path) is None]
    index._scan(set(), outside)  # playbooks are never inside roles

    def skip(position: Position) -> bool:
        path, number = position[-1]
        data = index.sources.load(path).data
        entry = data[number] if isinstance(data, list) and number < len(data) else None
        return not reaching.play_may_reach(position, entry)

    def resolve() -> dict[str, Book]:
        """The plays ``skip`` leaves in, those resolved before taken over; a playbook none of
        whose plays may reach an open file is not even loaded."""
        books: dict[str, Book] = {}
        for path in index._playbooks(outside):
            if path in reaching.leading:
                book = index._guarded_resolve(path, set() if path in index.books else None, rules=False, skip=skip)
                if book is not None:
                    books[path] = book
        return books

    books = resolve()
    # the roles on the way no such play reaches are roles of their own in the whole index too,
    # unless something names them that the search did not follow (a tasks_from elsewhere):
    # then the plays that may reach them at all are resolved as well
    reached = set().union(*(book.roles for book in books.values()))
    if any(fs.realpath(role) not in reached and reaching.used_elsewhere(role) for role in reaching.roles):
        reaching.widen()
        index._swap(books)
        books = resolve()
        reached = set().union(*(book.roles for book in books.values()))
    unsure = False
    for role in sorted(reaching.roles):
        if fs.realpath(role) not in reached:
            book = books[discover.role_playbook_path(role)] = index._lone_role(role)
            unsure = unsure or not book.deps.isdisjoint(opened)
    index._swap(books)
    # a role named by a template elsewhere may be used after all: when one that leads to an open
    # file seems unused, its queries wait for the whole index rather than say "used by no
    # playbook" too soon
    index.early = frozenset(() if unsure and reaching.templated else opened)
    return books


def open_files(index: WorkspaceIndex) -> dict[str, str]:
    """The open files among ``index.files``: real path -> the path there, told apart without a
    realpath of every file (the files are named under the root, the open ones under its real
    path)."""
    files, root, real_root = set(index.files), index.root, fs.realpath(index.root)
    found = {}
    for path in index.sources.overlay:
        named = root + path[len(real_root):] if path.startswith(real_root + os.sep) else path
        if named in files:
            found[path] = named
    return found


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
        # whether a role or task file is named by a template somewhere: what leads where is then
        # not all in the text, and a role the first pass finds unused may not be
        self.templated = _TEMPLATED.search(self._text) is not None
        # name -> the task files of that role (stems under tasks/) that lead to an open file, None: any
        self.entries: dict[str, set[str] | None] = {}
        self.roles: set[str] = set()  # the role directories that lead there
        self.leading: set[str] = set()  # the files that lead there (those open, and what refers to them)
        self.wide = False  # whether a mention leads on whatever task file it enters by
        self._lines: dict[int, tuple[list[str], list[int]]] = {}  # file number -> its lines, where each starts
        self._data: dict[int, bool] = {}  # file number -> whether it holds only variables
        self._file_names: set[str] = set()  # the names that are file names outside roles
        self._names_of_files: set[str] | None = None  # the files, to look one up
        todo: list[str] = []
        for path in opened:
            self._add(path, todo)
        self._follow(todo)
        if self.templated:  # a playbook naming a role by a template may lead there
            self.leading.update(path for path, text in zip(files, self._texts, strict=True)
                                if _role_by_place(path) is None and discover.role_of(path) is None
                                and _TEMPLATED.search(text))

    def _follow(self, todo: list[str]) -> None:
        while todo:
            name = todo.pop()
            for number in self._mentions(name):
                self._add(self._files[number], todo)

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
        self.leading.add(path)
        role = discover.role_of(path) or _role_by_place(path)
        if role is None:
            name, entries = os.path.basename(path), None
            self._file_names.add(name)
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
                if other not in reaching and self._names(number, base):
                    reaching.add(other)
                    todo.append(other)
        return {_stem(p[len(tasks):]) for p in reaching}

    def _names(self, number: int, name: str) -> bool:
        """Whether file ``number`` refers to ``name``."""
        text = self._texts[number]
        at = text.find(name)
        while at >= 0:
            if _whole(text, at, len(name)) and _is_reference(_scalar_at(text, at), (name,)):
                return True
            at = text.find(name, at + len(name))
        return False

    def _mentions(self, name: str, outside: str | None = None, entries: Any = ...) -> set[int]:
        """The numbers of the files (but those under ``outside``) that refer to ``name`` in a way
        that may enter it by one of ``entries`` (by default the name's own; None: any)."""
        text, found, size = self._text, set(), len(name)
        entries = self.entries[name] if entries is ... else entries
        at = text.find(name)
        while at >= 0:
            if _whole(text, at, size):
                number = bisect.bisect_right(self._starts, at) - 1
                here = at - self._starts[number]
                if number not in found and self._may_refer(number) and \
                        (outside is None or not self._files[number].startswith(outside)):
                    scalar = _scalar_at(self._texts[number], here)
                    if _is_reference(scalar, (name,)) and (entries is None or self._enters(number, here, entries)) \
                            and not self._own_file(number, name, scalar):
                        found.add(number)
            at = text.find(name, at + size)
        return found

    def _own_file(self, number: int, name: str, scalar: str | None) -> bool:
        """Whether ``scalar`` in file ``number``, a role's, names a file of the role itself by
        ``name`` (global_handlers' ``import_tasks: etherpad.yml`` is its own handlers/etherpad.yml,
        not the playbook etherpad.yml): one beside the file (or in a tasks/ there), where
        ansible looks first. Elsewhere in the role does not do: ansible's search may reach a
        file of the playbook's directory before the role's tasks/ (tests/random_playbooks'
        decoys)."""
        if name not in self._file_names or not scalar or "/" in scalar:
            return False
        path = self._files[number]
        role = discover.role_of(path) or _role_by_place(path)
        if role is None:
            return False
        if self._names_of_files is None:
            self._names_of_files = set(self._files)
        beside = os.path.dirname(path)
        return any(os.path.join(directory, scalar) in self._names_of_files
                   for directory in (beside, os.path.join(beside, "tasks")))

    def _may_refer(self, number: int) -> bool:
        """Whether file ``number`` may lead somewhere: not variables (a role's defaults/ and vars/,
        group_vars/, host_vars/), where a role's name is data (a service, a package)."""
        if number not in self._data:
            path = self._files[number]
            role = discover.role_of(path) or _role_by_place(path)
            if role is not None:
                self._data[number] = path[len(role) + 1:].startswith(("defaults" + os.sep, "vars" + os.sep))
            else:
                self._data[number] = not _VARIABLE_DIRS.isdisjoint(path.split(os.sep))
        return not self._data[number]

    def used_elsewhere(self, role: str) -> bool:
        """Whether a file outside ``role`` (a directory) refers to it, whatever it enters it by."""
        return bool(self._mentions(os.path.basename(role), role + os.sep, None))

    def _enters(self, number: int, at: int, entries: set[str]) -> bool:
        """Whether the reference at ``at`` of file ``number`` may enter its role by one of
        ``entries``: no ``tasks_from`` is written in the mapping it is written in, or that names
        one of them (or is templated)."""
        if number not in self._lines:
            lines = self._texts[number].split("\n")
            starts, offset = [], 0
            for line in lines:
                starts.append(offset)
                offset += len(line) + 1
            self._lines[number] = (lines, starts)
        lines, starts = self._lines[number]
        return _enters(lines, bisect.bisect_right(starts, at) - 1, entries)

    # -- the plays ----------------------------------------------------------------------------
    def play_may_reach(self, position: Iterable[tuple[str, int]], entry: Any) -> bool:
        """Whether the play at ``position`` (real paths, as the resolver gives it), written as
        ``entry``, may reach an open file."""
        return any(path in self.opened for path, _index in position) or self._mentioned(entry)

    def _mentioned(self, value: Any, key: str = "", depth: int = 0) -> bool:
        """Whether a value in ``value`` (a play's data, under ``key``) refers to one of the
        names, or names a role or task file by a template (which may be any of them). Data
        nested deeper than :data:`_MAX_DEPTH` (a YAML alias inside itself) may refer to anything."""
        if depth > _MAX_DEPTH:
            return True
        if isinstance(value, str):
            if "{{" in value and key.rsplit(".", 1)[-1] in _REFERRING_KEYS:
                return True
            return _is_reference(value.strip().strip("'\"").strip(), self.entries)
        if isinstance(value, dict):
            tasks_from = value.get("tasks_from")
            role = value.get("name", value.get("role"))
            if isinstance(tasks_from, str) and "{{" not in tasks_from and isinstance(role, str):
                entries = self.entries.get(role.rsplit(".", 1)[-1], None)
                if entries is not None and _stem(tasks_from) not in entries:
                    return False  # include_role of a task file that does not lead there
            inside = key.rsplit(".", 1)[-1] in _ROLE_KEYS  # a role's entry: its name is the role's
            return any(self._mentioned(item, "role" if inside and name == "name" else str(name), depth + 1)
                       for name, item in value.items())
        if isinstance(value, list):
            return any(self._mentioned(item, key, depth + 1) for item in value)
        return False


_MAX_DEPTH = 100  # levels of a play's data searched; deeper only a YAML alias inside itself goes


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


def _scalar_at(text: str, at: int) -> str | None:
    """The scalar the name at ``at`` is written in, as far as its line tells (from a ``key: ``,
    ``- ``, ``[``, ``{`` or ``,`` to a ``,``, ``]``, ``}``, a comment or the line's end), without
    quotes; None in a comment."""
    start = text.rfind("\n", 0, at) + 1
    end = text.find("\n", at)
    line = text[start:len(text) if end < 0 else end]
    column = at - start
    comment = line.find("#")
    if 0 <= comment < column and (comment == 0 or line[comment - 1] in " \t"):
        return None
    first = max((found + len(mark) for mark in (": ", "- ", "[", "{", ",")
                 if (found := line.rfind(mark, 0, column)) >= 0), default=0)
    last = min((found for mark in (",", "]", "}", " #") if (found := line.find(mark, column)) >= 0),
               default=len(line))
    return line[first:last].strip().strip("'\"").strip()


def _is_reference(scalar: str | None, names: Container[str]) -> bool:
    """Whether ``scalar`` refers to one of ``names``: it is one, or a collection's name of one
    (``ns.coll.NAME``), or a path through one (``roles/NAME/tasks``, ``tasks/NAME.yml``). A scalar
    of words (a task's name, a message, a condition) refers to nothing."""
    if not scalar:
        return False
    if scalar in names:
        return True
    if "/" in scalar:
        return any(part.strip() in names for part in scalar.split("/"))
    return " " not in scalar and "." in scalar and scalar.rsplit(".", 1)[1] in names


def _enters(lines: list[str], number: int, entries: set[str]) -> bool:
    """:meth:`Reaching._enters` for the reference on ``lines[number]``."""
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
