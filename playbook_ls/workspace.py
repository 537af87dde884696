"""The language server's model of a workspace: every playbook resolved, and reverse maps.

No LSP types in here. Paths are absolute file-system paths. ``set_document`` puts an
editor's unsaved text in front of the disk; ``refresh`` re-parses what changed and
re-resolves only the playbooks that read a changed file. Queries read the last complete
state: a refresh builds new maps and swaps them in at the end, so a file that is broken
mid-edit leaves the previous answers in place until it parses again.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable
from typing import Any

from engine import paths as fs
from engine.config import AnsibleConfig
from engine.model import Play, Playbook, Task
from engine.span import Span
from playbook_ls.check import discover
from playbook_ls.config import Settings, load_settings
from playbook_ls.rules.base import Finding, PlaybookContext
from playbook_ls.rules.ruleset import Checked, RuleSet, playbook_summary


class Book:
    """One resolved playbook (or a role no playbook uses, in a play of its own)."""

    __slots__ = ("path", "context", "deps", "findings", "tags", "roles", "synthetic")

    def __init__(self, path: str, context: PlaybookContext, deps: set[str], findings: list[Finding],
                 synthetic: bool) -> None:
        self.path, self.context, self.deps = path, context, deps
        self.findings, self.synthetic = findings, synthetic
        self.tags, self.roles = playbook_summary(context)

    @property
    def playbook(self) -> Playbook:
        return self.context.playbook

    def __repr__(self) -> str:
        return f"Book({self.path!r})"


class Reach:
    """A task (or play) as reached from one book: the answer to "what is at this line?"."""

    __slots__ = ("book", "task", "play")

    def __init__(self, book: Book, task: Task | None, play: Play) -> None:
        self.book, self.task, self.play = book, task, play


class WorkspaceIndex:
    def __init__(self, root: str | None = None, settings: Settings | None = None) -> None:
        self.lock = threading.RLock()
        self._sources: Any = None
        self.books: dict[str, Book] = {}
        self.files: list[str] = []
        self.errors: dict[str, Finding] = {}  # YAML syntax errors of files no playbook reads
        self.by_file: dict[str, list[Reach]] = {}
        self.tag_index: dict[str, list[Reach]] = {}
        self.findings: dict[str, list[Finding]] = {}
        self.internal_errors: list[str] = []
        self._real: dict[str, str] = {}
        self.configure(root or os.getcwd(), settings)

    @property
    def sources(self) -> Any:
        """The parsed files (a SourceCache), made on first use: creating the index while the
        server answers initialize must not import the YAML library."""
        if self._sources is None:
            from engine.source import SourceCache

            with self.lock:
                if self._sources is None:
                    self._sources = SourceCache()
        return self._sources

    # -- configuration ----------------------------------------------------------------------
    def configure(self, root: str, settings: Settings | None = None) -> None:
        self.root = os.path.abspath(root)
        self.settings = settings or load_settings(None, self.root)
        self.ansible = AnsibleConfig.load(self.root)
        self.ansible.roles_path = [*self.ansible.roles_path,
                                   *(os.path.join(self.settings.root, p) for p in self.settings.roles_path)]
        self.rules = RuleSet(self.settings, self.ansible.skip_tags, self.ansible.path)

    # -- documents --------------------------------------------------------------------------
    def set_document(self, path: str, text: str | None) -> bool:
        """Unsaved editor text for ``path`` (None: back to the disk). Returns whether what the
        index reads for ``path`` changed (opening a file unchanged changes nothing)."""
        with self.lock:
            before = self.text(path)
            if text is None:
                self.sources.overlay.pop(path, None)
            else:
                self.sources.overlay[path] = text
            return self.text(path) != before

    def text(self, path: str) -> str:
        try:
            return self.sources.read_text(path)
        except (OSError, UnicodeDecodeError):
            return ""

    # -- indexing ---------------------------------------------------------------------------
    def index(self, progress: Callable[[int, int], None] | None = None) -> None:
        """Discover and resolve everything under the root."""
        with self.lock:
            fs.clear_cache()
            self._real.clear()
            discover.is_role_dir.cache_clear()
            self.files = discover.yaml_files([self.root], self.settings.exclude, self.settings.root)
            playbooks = self._playbooks()
            books: dict[str, Book] = {}
            for number, path in enumerate(playbooks):
                books[path] = self._resolve(path)
                if progress:
                    progress(number + 1, len(playbooks))
            self._finish(books, None)

    def refresh(self, changed: Iterable[str], on_disk: bool = False) -> None:
        """Take changed files into account: re-resolve only the books that read one of them.
        ``on_disk`` means files were created, deleted or saved (not only edited in a buffer)."""
        with self.lock:
            if on_disk:
                self._real.clear()
            changed = {self.real(path) for path in changed}
            if on_disk:
                fs.clear_cache()
                discover.is_role_dir.cache_clear()  # a role may have been created or removed
                self.files = discover.yaml_files([self.root], self.settings.exclude, self.settings.root)
            books = {}
            for path in self._playbooks():
                book = self.books.get(path)
                if book is not None and self.sources.load(path).error is not None:
                    books[path] = book  # broken mid-edit: keep the last good state
                    continue
                if book is None or not book.deps.isdisjoint(changed):
                    book = self._resolve(path)
                books[path] = book
            self._finish(books, changed)

    def _playbooks(self) -> list[str]:
        """Playbooks among the files. A playbook that stops parsing mid-edit stays one, so its
        last good resolution keeps serving hovers and its tasks' diagnostics."""
        result = []
        for path in self.files:
            if discover.role_of(path):
                continue
            loaded = self.sources.load(path)
            if discover.looks_like_playbook(loaded.data) or discover.matches(path, self.settings.root,
                                                                             self.settings.include):
                result.append(path)
            elif loaded.error is not None and path in self.books:
                result.append(path)
        return discover.standalone_playbooks(result, lambda p: discover.plain_imports(self.sources.load(p).data),
                                             self.settings.profile_playbooks())

    def _resolve(self, path: str) -> Book:
        return self._book(path, self.rules.check_playbook(self.sources, self.ansible, path), synthetic=False)

    def _lone_role(self, role: str) -> Book:
        checked = self.rules.check_lone_role(self.sources, self.ansible, role)
        return self._book(discover.role_playbook_path(role), checked, synthetic=True)

    def _book(self, path: str, checked: Checked, synthetic: bool) -> Book:
        deps = {self.real(p) for p in checked.read}
        return Book(path, checked.context, deps, checked.findings, synthetic)

    def _finish(self, books: dict[str, Book], changed: set[str] | None) -> None:
        """Add books for unused roles, rebuild the reverse maps and findings, swap them in."""
        reached = set().union(*(book.roles for book in books.values()))
        for role in sorted({r for path in self.files if (r := discover.role_of(path))}):
            if fs.realpath(role) not in reached:
                key = discover.role_playbook_path(role)
                old = self.books.get(key)
                fresh = old is not None and changed is not None and old.deps.isdisjoint(changed)
                books[key] = old if fresh else self._lone_role(role)  # type: ignore[assignment]
        by_file: dict[str, list[Reach]] = {}
        tag_index: dict[str, list[Reach]] = {}
        for book in books.values():
            for play, task in book.context.tasks():
                reach = Reach(book, task, play)
                if task.span is not None:
                    by_file.setdefault(self.real(task.span.file), []).append(reach)
                for tag in task.tag_set():
                    if isinstance(tag, str):
                        tag_index.setdefault(tag, []).append(reach)
            for play in book.playbook.plays:
                if play.span is not None:
                    by_file.setdefault(self.real(play.span.file), []).append(Reach(book, None, play))
        self.books, self.by_file, self.tag_index = books, by_file, tag_index
        self.findings = self._findings()
        self.internal_errors = list(self.rules.errors)

    def _findings(self) -> dict[str, list[Finding]]:
        found = [finding for book in self.books.values() for finding in book.findings]
        for path in self.files:
            error = self.sources.load(path).error
            if error is not None:
                found.append(self.rules.syntax_error(error.message, error.span))
        tags = set().union(*(book.tags for book in self.books.values())) if self.books else set()
        by_playbook = {fs.realpath(book.path): book.tags for book in self.books.values() if not book.synthetic}
        found += self.rules.project_findings(tags, by_playbook)
        by_file: dict[str, list[Finding]] = {}
        lines: dict[str, list[str]] = {}  # each file split once, however many findings it has

        def line_of(path: str, number: int) -> str:
            if path not in lines:
                lines[path] = self.text(path).splitlines()
            return lines[path][number] if 0 <= number < len(lines[path]) else ""

        for finding in self.rules.settle(found, line_of):
            if finding.span is not None:
                by_file.setdefault(self.real(finding.span.file), []).append(finding)
        for findings in by_file.values():
            findings.sort(key=Finding.sort_key)
        return by_file

    # -- queries ----------------------------------------------------------------------------
    def real(self, path: str) -> str:
        """``os.path.realpath``, memoised until files change on disk (it costs a stat per component)."""
        found = self._real.get(path)
        if found is None:
            found = self._real[path] = os.path.realpath(path)
        return found

    def reaches(self, path: str) -> list[Reach]:
        return self.by_file.get(self.real(path), [])

    def at(self, path: str, line: int) -> list[Reach]:
        """What is at ``line`` (0-based) of ``path``, in every context: the innermost tasks
        whose lines contain it, else the plays."""
        candidates = [r for r in self.reaches(path) if r.task is not None and _covers(r.task.span, line)]
        if candidates:
            innermost = min(candidates, key=lambda r: _size(r.task.span))  # type: ignore[union-attr]
            return [r for r in candidates if r.task.span == innermost.task.span]  # type: ignore[union-attr]
        return [r for r in self.reaches(path) if r.task is None and _covers(r.play.span, line)]

    def findings_for(self, path: str) -> list[Finding]:
        return self.findings.get(self.real(path), [])

    def profiles_for(self, book: Book) -> list[Any]:
        return [profile for profile in self.settings.profiles if book.context.applies_to(profile)]


def _covers(span: Span | None, line: int) -> bool:
    if span is None:
        return False
    end = span.end_line if span.end_col > 0 or span.end_line == span.line else span.end_line - 1
    return span.line <= line <= end


def _size(span: Span | None) -> int:
    return (span.end_line - span.line) if span else 1 << 30
