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
from typing import Any, NamedTuple

from engine.config import ProjectConfigs
from engine.loading import paths as fs
from engine.loading.model import STATIC_IMPORTS, Frame, Play, Playbook, Task
from engine.span import Span
from playbook_ls.check import discover
from playbook_ls.config import Settings, load_settings
from playbook_ls.features.first_pass import Position, resolve_first
from playbook_ls.rules.base import Finding, PlaybookContext, play_tasks
from playbook_ls.rules.ruleset import Checked, RuleSet, play_summary


class PlayDigest:
    """What the index keeps about one play of a book: its tasks by file and by tag, and the
    tags and roles they carry. Made once per resolved play and kept while the play is reused."""

    __slots__ = ("play", "files", "tags", "tag_names", "roles", "imports")

    def __init__(self, play: Play, tasks: list[Task], real: Callable[[str], str]) -> None:
        self.play = play
        self.files: dict[str, list[Task | None]] = {}
        self.tags: dict[str, list[Task]] = {}
        # real path -> the static imports written there, each with the tasks it brings in
        self.imports: dict[str, dict[int, tuple[Frame, list[Task]]]] = {}
        for task in tasks:
            for frame in task.chain:
                if frame.kind in STATIC_IMPORTS and frame.span is not None:
                    entry = self.imports.setdefault(real(frame.span.file), {}).setdefault(id(frame), (frame, []))
                    entry[1].append(task)
            if task.span is not None:
                self.files.setdefault(real(task.span.file), []).append(task)
            for tag in task.tag_set():
                if isinstance(tag, str):
                    self.tags.setdefault(tag, []).append(task)
        if play.span is not None:
            self.files.setdefault(real(play.span.file), []).append(None)  # the play itself
        self.tag_names, self.roles = play_summary(tasks)


class Book:
    """One resolved playbook (or a role no playbook uses, in a play of its own)."""

    __slots__ = ("path", "checked", "deps", "findings", "digests", "tags", "roles", "synthetic")

    def __init__(self, path: str, checked: Checked, deps: set[str], digests: list[PlayDigest],
                 synthetic: bool) -> None:
        self.path, self.checked, self.deps, self.digests = path, checked, deps, digests
        self.findings, self.synthetic = checked.findings, synthetic
        self.tags: set[str] = set().union(*(digest.tag_names for digest in digests))
        self.roles: set[str] = set().union(*(digest.roles for digest in digests))

    @property
    def context(self) -> PlaybookContext:
        return self.checked.context

    @property
    def playbook(self) -> Playbook:
        return self.context.playbook

    def __repr__(self) -> str:
        return f"Book({self.path!r})"


class Scanned(NamedTuple):
    """What a file is, as far as finding playbooks goes."""

    role: str | None  # the role directory it belongs to
    candidate: bool  # a playbook, by content or by the ``include`` setting
    error: Any  # its YAML syntax error (a YamlProblem), if any
    reported: bool = True  # whether that error is shown (not for YAML that is not Ansible's)


class Reach:
    """A task (or play) as reached from one book: the answer to "what is at this line?"."""

    __slots__ = ("book", "task", "play")

    def __init__(self, book: Book, task: Task | None, play: Play) -> None:
        self.book, self.task, self.play = book, task, play


_NO_EDIT = object()


class WorkspaceIndex:
    def __init__(self, root: str | None = None, settings: Settings | None = None, store: Any = None) -> None:
        self.lock = threading.RLock()
        self.store = store  # where parses are kept between runs (an engine.parsing.parse_store.ParseStore), if anywhere
        self._edits_lock = threading.Lock()  # held only to swap texts, never while resolving
        self._pending: dict[str, str | None] = {}  # editor texts not yet taken in by a refresh
        self._sources: Any = None
        self.books: dict[str, Book] = {}
        self.files: list[str] = []
        self.errors: dict[str, Finding] = {}  # YAML syntax errors of files no playbook reads
        # real path -> the plays with tasks in it; tag -> the plays with tasks carrying it
        self.file_map: dict[str, list[tuple[Book, PlayDigest]]] = {}
        self.tag_map: dict[str, list[tuple[Book, PlayDigest]]] = {}
        self.import_map: dict[str, list[tuple[Book, PlayDigest]]] = {}  # real path -> plays importing there
        self.findings: dict[str, list[Finding]] = {}
        self.internal_errors: list[str] = []
        self.scanned: dict[str, Scanned] = {}
        self._real: dict[str, str] = {}
        self.early: frozenset[str] = frozenset()
        """While :meth:`index` runs: the open files (real paths) whose queries it can answer already."""
        self.stage: tuple[str, int, int] | None = None
        """While :meth:`index` runs: what it does, how many of how many (0, 0: not counted), for
        the answers that must wait for it to say so."""
        self.run_repository_code = False
        """The workspace is trusted: its inventory's code (scripts, plugins) may run for the values shown."""
        self.live_tasks = 0  # tasks (once per play reaching them) of the plays the index holds
        self.generation = 0
        """Counts the indexings and refreshes: what was derived before a change is told by it."""
        self.replaced_tasks = 0
        """Tasks of the plays refreshes replaced since the owner last collected: garbage held in cycles
        (tasks and their blocks refer to each other) until a full collection (see :meth:`garbage_share`)."""
        self.configure(root or os.getcwd(), settings)

    @property
    def sources(self) -> Any:
        """The parsed files (a SourceCache), made on first use: creating the index while the
        server answers initialize must not import the YAML library."""
        if self._sources is None:
            from engine.parsing.source import SourceCache

            with self.lock:
                if self._sources is None:
                    self._sources = SourceCache(self.store)
        return self._sources

    # -- configuration ----------------------------------------------------------------------
    def configure(self, root: str, settings: Settings | None = None) -> None:
        self.root = os.path.abspath(root)
        self.settings = settings or load_settings(None, self.root)
        self.configs = ProjectConfigs(self.root, [os.path.join(self.settings.root, p)
                                                  for p in self.settings.roles_path])
        self.ansible = self.configs.default
        self.rules = RuleSet(self.settings, self.ansible.skip_tags, self.ansible.path)

    # -- documents --------------------------------------------------------------------------
    def set_document(self, path: str, text: str | None) -> bool:
        """Unsaved editor text for ``path`` (None: back to the disk). Returns whether what the
        index reads for ``path`` changed (opening a file unchanged changes nothing).

        Never waits for a refresh in progress: the text is kept aside under a short lock and
        taken in by the next :meth:`refresh` (or :meth:`index`), so an editor's didChange is
        read at once however long resolving takes."""
        path = os.path.realpath(path)  # one file, whatever name the editor opened it by
        with self._edits_lock:
            before = self._pending[path] if path in self._pending else self.sources.overlay.get(path)
            if before is None:
                before = self._disk_text(path)
            self._pending[path] = text
        after = text if text is not None else self._disk_text(path)
        return after != before

    def _disk_text(self, path: str) -> str:
        from engine import files

        try:
            return files.read_text(path)
        except (OSError, UnicodeDecodeError):
            return ""

    def _take_edits(self) -> set[str]:
        """Move the editor texts set meanwhile into the sources; the paths whose text changed."""
        with self._edits_lock:
            pending, self._pending = self._pending, {}
        for path, text in pending.items():
            if text is None:
                self.sources.overlay.pop(path, None)
                self.sources.forget_buffer(path)
            else:
                self.sources.overlay[path] = text
        return set(pending)

    def text(self, path: str) -> str:
        """What the editor has for ``path`` now: its buffer (even one no refresh has taken in
        yet), else the file on disk."""
        with self._edits_lock:
            pending = self._pending.get(self.real(path), _NO_EDIT) if self._pending else _NO_EDIT
        if pending is not _NO_EDIT:
            return pending if pending is not None else self._disk_text(path)
        try:
            return self.sources.read_text(path)
        except (OSError, UnicodeDecodeError):
            return ""

    def load(self, path: str) -> Any:
        """The parse of :meth:`text` (an ``engine.parsing.source.Loaded``), for features that read the
        current buffer's structure."""
        return self.sources.parse(path, self.text(path))

    # -- indexing ---------------------------------------------------------------------------
    def index(self, progress: Callable[[int, int], None] | None = None, check: bool = True,
              first: Callable[[], None] | None = None) -> None:
        """Discover and resolve everything under the root. With ``check=False`` the playbooks'
        rules are left for :meth:`check`, so that queries can be answered sooner. With
        ``first``, on an index that holds nothing yet, the plays that may reach the files open
        in the editor are resolved first and swapped in, :attr:`early` names those files, and
        ``first`` is called: their queries are answered while the rest is resolved."""
        self.stage = ("finding the files", 0, 0)
        with self.lock:
            try:
                self._index(progress, check, first)
            finally:
                self.stage = None

    def _index(self, progress: Callable[[int, int], None] | None, check: bool,
               first: Callable[[], None] | None) -> None:
        self.generation += 1
        _new_template_generation()
        self._take_edits()
        fs.clear_cache()
        self._real.clear()
        discover.is_role_dir.cache_clear()
        self.files = self._discover()
        self.configs.find_collection_sources(self.files, lambda path: self.sources.load(path).data)
        self.scanned = {}
        early = self._guarded_first_pass() if first is not None and not self.books else None
        if early is not None and first is not None:
            first()
        self._scan(set())
        playbooks = self._playbooks()
        books: dict[str, Book] = {}
        for number, path in enumerate(playbooks):
            self.stage = ("resolving playbooks", number, len(playbooks))
            # the plays the first pass resolved are taken over (nothing changed since)
            book = self._guarded_resolve(path, set() if early and path in early else None, rules=check)
            if book is not None:
                books[path] = book
            if progress:
                progress(number + 1, len(playbooks))
        self._finish(books, set() if early is not None else None)
        self.early = frozenset()

    def _guarded_first_pass(self) -> dict[str, Book] | None:
        """Resolve the plays that may reach the open files and swap them in (see
        :func:`.first_pass.resolve_first`); None when no file is open, or when that fails (an
        internal error then): the whole index is then built as without a first pass."""
        try:
            return resolve_first(self)
        except Exception as exc:  # noqa: BLE001
            import traceback

            self.rules.errors.append(f"resolving the open files first failed: {exc!r}\n{traceback.format_exc()}")
            self.early = frozenset()
            return None

    def refresh(self, changed: Iterable[str], on_disk: bool = False) -> None:
        """Take changed files into account: re-resolve only the books that read one of them.
        ``on_disk`` means files were created, deleted or saved (not only edited in a buffer)."""
        with self.lock:
            self.generation += 1
            _new_template_generation()  # what earlier resolutions remembered and this one does not use goes
            changed = set(changed) | self._take_edits()
            if on_disk:
                self._real.clear()
            changed = {self.real(path) for path in changed}
            if on_disk:
                fs.clear_cache()
                discover.is_role_dir.cache_clear()  # a role may have been created or removed
                self.files = self._discover()
            self._scan(None if on_disk else changed)
            books = {}
            for path in self._playbooks():
                book = self.books.get(path)
                if book is not None and self.sources.load(path).error is not None:
                    books[path] = book  # broken mid-edit: keep the last good state
                    continue
                if book is None or not book.deps.isdisjoint(changed):
                    book = self._guarded_resolve(path, None if on_disk or book is None else changed) or book
                if book is not None:
                    books[path] = book
            self._finish(books, changed)

    def _discover(self) -> list[str]:
        """The YAML files under the root, as ``check`` finds them (settings' excludes, .gitignore)."""
        settings = self.settings
        return discover.yaml_files([self.root], settings.exclude, settings.root, settings.respect_gitignore)

    def _scan(self, changed: set[str] | None, files: list[str] | None = None) -> None:
        """Classify the files (role file, playbook candidate, syntax error): all of them, or
        with ``changed`` (real paths edited in buffers) only those, the others being as before."""
        if changed is None:
            self.scanned = {}
        listed = self.files if files is None else files
        for number, path in enumerate(listed):
            if changed is not None and path in self.scanned and self.real(path) not in changed:
                continue
            if self.stage is not None:  # indexing: the first reading of every file is the long part
                self.stage = ("reading files", number, len(listed))
            role = discover.role_of(path)
            loaded = self.sources.load(path)
            candidate = role is None and (discover.looks_like_playbook(loaded.data)
                                          or discover.matches(path, self.settings.root, self.settings.include))
            reported = loaded.error is None or discover.syntax_error_matters(
                path, self.settings.root, role is not None, discover.ansible_text(self.text(path)),
                self.settings.include)
            self.scanned[path] = Scanned(role, candidate, loaded.error, reported)

    def _playbooks(self, files: list[str] | None = None) -> list[str]:
        """Playbooks among the files (or ``files``). A playbook that stops parsing mid-edit stays
        one, so its last good resolution keeps serving hovers and its tasks' diagnostics."""
        result = [path for path in (self.files if files is None else files) if (scan := self.scanned[path]).candidate
                  or (scan.role is None and scan.error is not None and path in self.books)]
        return discover.standalone_playbooks(result, lambda p: discover.plain_imports(self.sources.load(p).data),
                                             self.settings.profile_playbooks())

    def check(self) -> None:
        """Run the rules on the playbooks :meth:`index` only resolved, and swap the findings in."""
        with self.lock:
            for book in self.books.values():
                if not book.checked.complete:
                    book.checked = self.rules.complete(book.checked)
                    book.findings = book.checked.findings
            self.findings = self._findings()
            self.internal_errors = list(self.rules.errors)

    def _guarded_resolve(self, path: str, changed: set[str] | None = None, rules: bool = True,
                         skip: Callable[[Position], bool] | None = None) -> Book | None:
        """:meth:`_resolve`, or None (and an internal error) when it fails: one playbook that
        trips a bug never takes the others' results with it."""
        try:
            return self._resolve(path, changed, rules, skip)
        except Exception as exc:  # noqa: BLE001
            import traceback

            self.rules.errors.append(f"resolving {path} failed: {exc!r}\n{traceback.format_exc()}")
            return None

    def _resolve(self, path: str, changed: set[str] | None = None, rules: bool = True,
                 skip: Callable[[Position], bool] | None = None) -> Book:
        """Resolve and check a playbook; with ``changed``, re-resolve only the plays that read
        a changed file and take the others over from the last resolution. ``skip``: positions
        of plays left out (see :meth:`RuleSet.check_playbook`)."""
        previous = self.books.get(path) if changed is not None else None
        stale = (lambda reads: not changed.isdisjoint(map(self.real, reads))) if changed else None
        if changed is not None and not changed:
            stale = lambda reads: False  # noqa: E731 - nothing changed: every play is taken over
        checked = self.rules.check_playbook(self.sources, self.configs.for_path(path), path,
                                            previous and previous.checked, stale, rules, skip=skip)
        return self._book(path, checked, previous, synthetic=False)

    def _lone_role(self, role: str) -> Book:
        checked = self.rules.check_lone_role(self.sources, self.configs.for_path(role), role)
        return self._book(discover.role_playbook_path(role), checked, None, synthetic=True)

    def _book(self, path: str, checked: Checked, previous: Book | None, synthetic: bool) -> Book:
        deps = {self.real(p) for p in checked.read}
        kept = {id(digest.play): digest for digest in previous.digests} if previous is not None else {}
        digests = [kept.get(id(play)) or PlayDigest(play, play_tasks(play), self.real)
                   for play in checked.context.playbook.plays]
        return Book(path, checked, deps, digests, synthetic)

    def _finish(self, books: dict[str, Book], changed: set[str] | None) -> None:
        """Add books for unused roles, rebuild the reverse maps and findings, swap them in."""
        reached = set().union(*(book.roles for book in books.values()))
        for role in sorted({scan.role for scan in self.scanned.values() if scan.role}):
            if fs.realpath(role) not in reached:
                key = discover.role_playbook_path(role)
                old = self.books.get(key)
                fresh = old is not None and changed is not None and old.deps.isdisjoint(changed)
                books[key] = old if fresh else self._lone_role(role)  # type: ignore[assignment]
        self._swap(books)
        self.findings = self._findings()
        self.internal_errors = list(self.rules.errors)

    def _swap(self, books: dict[str, Book]) -> None:
        """Make ``books`` the index's, with the reverse maps built from them."""
        file_map: dict[str, list[tuple[Book, PlayDigest]]] = {}
        tag_map: dict[str, list[tuple[Book, PlayDigest]]] = {}
        import_map: dict[str, list[tuple[Book, PlayDigest]]] = {}
        for book in books.values():
            for digest in book.digests:
                for path in digest.files:
                    file_map.setdefault(path, []).append((book, digest))
                for path in digest.imports:
                    import_map.setdefault(path, []).append((book, digest))
                for tag in digest.tags:
                    tag_map.setdefault(tag, []).append((book, digest))
        kept = {id(digest.play) for book in books.values() for digest in book.digests}
        gone = [digest for book in self.books.values() for digest in book.digests if id(digest.play) not in kept]
        self.books, self.file_map, self.tag_map, self.import_map = books, file_map, tag_map, import_map
        self.live_tasks = sum(_tasks(digest) for book in books.values() for digest in book.digests)
        self.replaced_tasks += sum(_tasks(digest) for digest in gone)
        for play in (digest.play for digest in gone):
            # what was derived from a replaced play refers back to it: without this cycle it goes
            # at once, not at a full garbage collection, which the server's thresholds make rare
            play.derived.clear()

    def _findings(self) -> dict[str, list[Finding]]:
        found = [finding for book in self.books.values() for finding in book.findings]
        for scan in self.scanned.values():
            if scan.error is not None and scan.reported:
                found.append(self.rules.syntax_error(scan.error.message, scan.error.span))
        tags = set().union(*(book.tags for book in self.books.values())) if self.books else set()
        by_playbook = {fs.realpath(book.path): book.tags for book in self.books.values() if not book.synthetic}
        found += self.rules.project_findings(tags, by_playbook)
        by_file: dict[str, list[Finding]] = {}
        lines: dict[str, list[str]] = {}  # each file split once, however many findings it has

        def line_of(path: str, number: int) -> str:
            if path not in lines:
                lines[path] = self.text(path).splitlines()
            return lines[path][number] if 0 <= number < len(lines[path]) else ""

        for finding in self.rules.settle_with_noqa(found, line_of, self._noqa_texts(), self.real,
                                                   lambda path: "noqa" in self.text(path).lower()):
            if finding.span is not None:
                by_file.setdefault(self.real(finding.span.file), []).append(finding)
        for findings in by_file.values():
            findings.sort(key=Finding.sort_key)
        return by_file

    def _noqa_texts(self) -> list[tuple[str, str]]:
        """The open files whose ``# noqa`` comments are checked (PLS118), with their text. Only
        open ones: the others would be read from disk on every refresh. None until every
        playbook's rules have run: before, each comment would look unused."""
        if not all(book.checked.complete for book in self.books.values()):
            return []
        open_files = {self.real(path) for path in self.sources.overlay}
        return [(path, self.text(path)) for path in self.files if self.real(path) in open_files]

    def garbage_share(self) -> float:
        """The replaced plays not collected yet, as a share of the plays held (by their tasks)."""
        return self.replaced_tasks / max(self.live_tasks, 1)

    # -- queries ----------------------------------------------------------------------------
    def real(self, path: str) -> str:
        """``os.path.realpath``, memoised until files change on disk (it costs a stat per component)."""
        found = self._real.get(path)
        if found is None:  # through the loader's memo, which its overlay fills for the same paths
            found = self._real[path] = fs.realpath(path)
        return found

    def reaches(self, path: str) -> list[Reach]:
        """The tasks and plays written in ``path``, once per context that reaches them."""
        real = self.real(path)
        return [Reach(book, task, digest.play) for book, digest in self.file_map.get(real, ())
                for task in digest.files[real]]

    def imports_in(self, path: str) -> list[tuple[Frame, list[Reach]]]:
        """The static imports (import_tasks, import_role) written in ``path``, each with the
        tasks it brings in, once per context that reaches it."""
        real = self.real(path)
        return [(frame, [Reach(book, task, digest.play) for task in tasks])
                for book, digest in self.import_map.get(real, ()) for frame, tasks in digest.imports[real].values()]

    def tagged(self, tag: str) -> list[Reach]:
        """The tasks carrying ``tag`` effectively (own or inherited), once per context."""
        return [Reach(book, task, digest.play) for book, digest in self.tag_map.get(tag, ())
                for task in digest.tags[tag]]

    def at(self, path: str, line: int) -> list[Reach]:
        """What is at ``line`` (0-based) of ``path``, in every context: the innermost tasks
        whose lines contain it, else the plays."""
        candidates = [r for r in self.reaches(path) if r.task is not None and _covers(r.task.span, line)]
        if any(r.task.span.line == line for r in candidates):  # type: ignore[union-attr]
            # a task's span ends where the next item's '- ' starts: that line is the next task's
            candidates = [r for r in candidates if r.task.span.line == line  # type: ignore[union-attr]
                          or r.task.span.end_line != line]  # type: ignore[union-attr]
        if candidates:
            innermost = min(candidates, key=lambda r: _size(r.task.span))  # type: ignore[union-attr]
            return [r for r in candidates if r.task.span == innermost.task.span]  # type: ignore[union-attr]
        return [r for r in self.reaches(path) if r.task is None and _covers(r.play.span, line)]

    def findings_for(self, path: str) -> list[Finding]:
        return self.findings.get(self.real(path), [])

    def profiles_for(self, book: Book) -> list[Any]:
        return [profile for profile in self.settings.profiles if book.context.applies_to(profile)]


def _tasks(digest: PlayDigest) -> int:
    return sum(map(len, digest.files.values()))


def _new_template_generation() -> None:
    """The files changed: what templates gave before and what was worked out from files go."""
    # not at import: the index is created while initialize is answered
    from engine.parsing.source import files_changed
    from engine.templating import load_time as templating

    templating.new_generation()
    files_changed()


def _covers(span: Span | None, line: int) -> bool:
    if span is None:
        return False
    end = span.end_line if span.end_col > 0 or span.end_line == span.line else span.end_line - 1
    return span.line <= line <= end


def _size(span: Span | None) -> int:
    return (span.end_line - span.line) if span else 1 << 30
