"""The language server's state: the workspace index, the background refresher and the helpers
every handler group shares (:func:`guarded`, positions, the client's settings).

Handlers live in their own modules (:mod:`.documents`, :mod:`.navigation`, :mod:`.lenses`,
:mod:`.editing`, :mod:`.running`) and are registered by :mod:`.setup`; this module imports none
of them. Indexing and re-resolving run in one background thread (``Refresher``), so initialize
answers at once and requests are served from the last complete index (on the first index, the
open files' answers come first: see :meth:`Refresher._index`). Every handler is
guarded: an exception is logged and answered with nothing, never fatal.
"""

from __future__ import annotations

import asyncio
import functools
import gc
import logging
import os
import queue
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, TypeVar

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer

from playbook_ls import __version__
from playbook_ls.features.convert import from_units, path_to_uri, to_units, uri_to_path
from playbook_ls.features.yamltext import split_lines
from playbook_ls.lsp.heap import release_free_memory

if TYPE_CHECKING:
    from playbook_ls.config import Settings
    from playbook_ls.features.workspace import WorkspaceIndex

log = logging.getLogger("playbook-ls")
F = TypeVar("F", bound=Callable[..., Any])
DEBOUNCE_SECONDS = 0.03
COLLECT_AFTER_IDLE = 1.0  # seconds without edits after which what they replaced is collected
COLLECT_EVERY = 100  # refreshes after which it is collected anyway
# replaced plays (by their tasks) as a share of the plays held, past which they are collected at
# once: a steady stream of edits on debops left up to 100 refreshes' plays to the collection, and
# the heap grown to hold them stayed (RSS 2.2x a fresh server's after 1,000 edits, half of it free)
GARBAGE_SHARE = 0.25
COLLECT_SPACING = 1.0  # seconds at least between two such collections: each holds every request a moment
WRITE_PAUSE = 0.01  # seconds without a job after which some parses are stored
QUERY_THREADS = 4  # requests answered at once; more wait for a thread, while the event loop reads on
PROGRESS_TOKEN = "playbook-ls-index"
# a change to one of these re-reads the configuration and indexes everything again (galaxy.yml:
# which collection a directory's source is; .gitignore: which files are indexed at all)
SETTINGS_FILES = ("ansible.cfg", "pyproject.toml", ".playbook-ls.yml", ".playbook-ls.yaml", "galaxy.yml", ".gitignore")


class PlaybookServer(LanguageServer):
    def __init__(self) -> None:
        from playbook_ls.lsp.protocol import PlaybookProtocol

        super().__init__(name="playbook-ls", version=__version__, protocol_cls=PlaybookProtocol)
        self.index: WorkspaceIndex | None = None
        self.ready = threading.Event()
        self.refresher = Refresher(self)
        # not pygls's thread pool: its stdin reader runs there, and must never wait behind a request
        self.queries = ThreadPoolExecutor(QUERY_THREADS, thread_name_prefix="playbook-ls-query")
        self.published: dict[str, tuple[Any, ...]] = {}  # real path -> (URI, what was published there)
        self.client_uris: dict[str, str] = {}  # real path -> the URI the client opened it by
        self.loop: Any = None
        self.options: dict[str, Any] = {}  # the initialization options, then our section of the settings over them
        self.init_options: dict[str, Any] = {}
        self.settings_problem: str | None = None  # why the settings file could not be used
        self.root = os.getcwd()
        self.progress = False  # whether the client accepted our progress token
        self.run_job: Any = None  # the checkTasks/runTasks run in progress (lsp.running)
        self.run_hints: dict[str, list[types.Diagnostic]] = {}  # real path -> the last run's outcomes
        self.publishing = threading.Lock()  # the refresher and the runs both publish
        self.selection_request: dict[str, Any] | None = None  # playbook-ls.setSelection / previewSelection
        self.selection: Any = None  # that request as a features.selection.Preview, None: no preview
        self._hints_for: tuple[Any, Any, dict[str, list[types.Diagnostic]]] | None = None  # hints, by state
        self.parses: Any = None  # the parse store, read at once and written when idle (lsp.stored_parses)

    def make_index(self, root: str) -> WorkspaceIndex:
        """An empty index of ``root`` with the client's settings, its parses kept between starts."""
        from playbook_ls.features.workspace import WorkspaceIndex
        from playbook_ls.lsp.stored_parses import LaterWrites

        if self.parses is None:
            self.parses = LaterWrites()
        index = WorkspaceIndex(root, client_settings(self, root, self.options), self.parses)
        index.run_repository_code = self.trusted
        return index

    @property
    def trusted(self) -> bool:
        """Whether the client said the workspace is trusted (the initialization option
        ``runRepositoryCode: true``): only then does anything run code from the repository (a
        check or run, the inventory's scripts and plugins). Only the client's own start-up
        options say so, never a later configuration that a project's settings file may feed."""
        from playbook_ls.features import TRUST_OPTION

        return self.init_options.get(TRUST_OPTION) is True

    @property
    def run_output(self) -> str:
        """``notification``: a run's output goes out as playbook-ls/runOutput; else as log messages."""
        return str(self.options.get("runOutput") or "log")

    @property
    def encoding(self) -> str:
        return str(self.workspace.position_encoding or "utf-16")

    def buffer(self, uri: str) -> str:
        """The client's text of ``uri`` while it is open, else the file through the one safe reader
        (pygls's document would read a FIFO or a device itself, blocking the server)."""
        document = self.workspace.text_documents.get(uri)
        if document is not None:
            return document.source
        return self.index.text(uri_to_path(uri)) if self.index is not None else ""

    def answers(self, path: str) -> bool:
        """Whether queries on ``path`` have their answers: the index is complete, or the first
        index has resolved what reaches this open file already."""
        index = self.index
        return index is not None and (self.ready.is_set() or index.real(path) in index.early)

    def lines(self, path: str) -> list[str]:
        return split_lines(self.index.text(path)) if self.index else []

    def send(self, method: Callable[..., Any], *args: Any) -> None:
        """Send from the background thread through the event loop, so writes never interleave."""
        if self.loop is not None:
            self.loop.call_soon_threadsafe(method, *args)
        else:
            method(*args)

    def set_run_hints(self, hints: dict[str, list[types.Diagnostic]]) -> None:
        """Replace the last run's outcomes (real path -> Hint diagnostics) and publish."""
        self.run_hints = hints
        self.publish_diagnostics()

    def clear_run_hints(self, path: str) -> None:
        """An edit of ``path`` makes its run outcomes stale."""
        if self.run_hints.pop(os.path.realpath(path), None) is not None:
            self.publish_diagnostics()

    def publish_diagnostics(self) -> None:
        index = self.index
        if index is None:
            return
        with self.publishing:
            self._publish(index)

    def _publish(self, index: WorkspaceIndex) -> None:
        docs = rule_docs_uri()
        hints = self.run_hints
        unselected = self._selection_hints(index)
        current = set(index.findings) | set(hints) | set(unselected)
        for path in current | set(self.published):
            try:
                self._publish_file(index, path, hints.get(path, []) + unselected.get(path, []), docs)
            except Exception:  # noqa: BLE001 - one file's diagnostics never stop another's
                log.exception("publishing the diagnostics of %s failed", path)

    def inventory_setting(self) -> list[str] | None:
        """The ``inventory`` setting (the runs' default), which host summaries, variable values
        and the plan's greying are computed for."""
        value = self.options.get("inventory")
        return [value] if isinstance(value, str) and value.strip() else None

    def _selection_hints(self, index: WorkspaceIndex) -> dict[str, list[types.Diagnostic]]:
        """Real path -> an Unnecessary hint over each task the preview selection runs in no
        context and, with the ``inventory`` setting, over each task of an open file that the
        selection (the preview's, else ansible.cfg's) runs but no host does; computed once per
        index state, selection, inventory and set of open files."""
        preview, inventory = self.selection, self.inventory_setting()
        if preview is None and inventory is None:
            return {}
        opened = frozenset(index.sources.overlay) if inventory else frozenset()
        key = (preview, tuple(inventory or ()), opened)
        cached = self._hints_for
        if cached is not None and cached[0] is index.books and cached[1] == key:
            return cached[2]
        hints: dict[str, list[types.Diagnostic]] = {}
        if preview is not None:
            self._add_hints(hints, "playbook-ls selection", f"not run by {preview.label}",
                            lambda: _unselected(index, preview))
        if inventory is not None:
            self._add_hints(hints, "playbook-ls plan", f"runs on no host of {inventory[0]}",
                            lambda: _run_nowhere(index, preview, inventory, opened))
        self._hints_for = (index.books, key, hints)
        return hints

    def _add_hints(self, hints: dict[str, list[types.Diagnostic]], source: str, what: str,
                   spans_of: Callable[[], dict[str, list[tuple[Any, str]]]]) -> None:
        try:
            from playbook_ls.features.convert import lsp_range

            for path, spans in spans_of().items():
                lines = self.lines(path)
                hints.setdefault(path, []).extend(types.Diagnostic(
                    range=_trimmed(lsp_range(span, lines, self.encoding), lines, self.encoding),
                    message=f"{what}: {why}", severity=types.DiagnosticSeverity.Hint,
                    tags=[types.DiagnosticTag.Unnecessary], source=source) for span, why in spans)
        except Exception:  # noqa: BLE001 - a preview is a nicety: the findings are published anyway
            log.exception("the %s preview failed", source)

    def _publish_file(self, index: WorkspaceIndex, path: str, extra: list[types.Diagnostic],
                      docs: str | None) -> None:
        from playbook_ls.features.diagnostics import to_diagnostic

        findings = index.findings_for(path)
        uri = self.client_uris.get(path) or path_to_uri(path)  # the name the client knows the file by
        key = (uri, tuple((f.code, f.span, f.message) for f in findings),
               tuple((d.range.start.line, d.message) for d in extra))
        before = self.published.get(path)
        if before == key:
            return
        if before is not None and before[0] != uri:  # opened by another name since: clear the old one
            self.send(self.text_document_publish_diagnostics,
                      types.PublishDiagnosticsParams(uri=before[0], diagnostics=[]))
        diagnostics = [to_diagnostic(f, self.lines, docs, self.encoding) for f in findings] + extra
        if diagnostics:
            self.published[path] = key
        else:
            self.published.pop(path, None)
        params = types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics)
        self.send(self.text_document_publish_diagnostics, params)


def _trimmed(span: types.Range, lines: list[str], encoding: str) -> types.Range:
    """``span`` without the indentation of the line it ends on (a task ends where the next
    item's '- ' starts) and the blank lines before it."""
    end = span.end
    while end.line > span.start.line:
        text = lines[end.line] if end.line < len(lines) else ""
        if text[:end.character].strip():
            break
        previous = lines[end.line - 1] if end.line - 1 < len(lines) else ""
        end = types.Position(line=end.line - 1, character=to_units(previous, len(previous), encoding))
    return types.Range(start=span.start, end=end)


class Refresher(threading.Thread):
    """Runs the initial index and every re-resolve, one at a time, coalescing bursts of edits."""

    def __init__(self, server: PlaybookServer) -> None:
        super().__init__(name="playbook-ls-refresher", daemon=True)
        self.server = server
        self.jobs: queue.Queue[tuple[str, Any]] = queue.Queue()
        self.failed: list[tuple[str, Any]] = []  # the jobs of a refresh that failed
        self.collected_at = float("-inf")  # time.monotonic() of the last full collection

    def run(self) -> None:
        refreshed = 0  # refreshes since the last full garbage collection
        while True:
            parses = self.server.parses
            writing = parses is not None and parses.queued
            try:
                kind, payload = self.jobs.get(timeout=WRITE_PAUSE if writing else COLLECT_AFTER_IDLE if refreshed
                                              else None)
            except queue.Empty:  # edits paused: a moment to store parses, then to collect what they replaced
                if writing:
                    parses.write_some()
                    continue
                refreshed = self._collect()
                release_free_memory()  # and to give it back: the resident size stays high otherwise
                continue
            refreshed += 1
            jobs = [(kind, payload)]
            if kind != "index":  # the first index starts at once; edits come in bursts
                threading.Event().wait(DEBOUNCE_SECONDS)
            while not self.jobs.empty():
                jobs.append(self.jobs.get_nowait())
            jobs, self.failed = self.failed + jobs, []
            try:
                self._do(jobs)
            except Exception:  # noqa: BLE001 - the server outlives any input
                log.exception("refresh failed")
                # kept for the next refresh, so that the files they change are re-resolved then
                self.failed = [job for job in jobs if job[0] != "index"][-1000:]
            index = self.server.index
            if refreshed >= COLLECT_EVERY or (index is not None and index.garbage_share() > GARBAGE_SHARE
                                              and time.monotonic() - self.collected_at >= COLLECT_SPACING):
                # a steady stream of edits gets no pause; the next pause still collects and hands back
                refreshed = self._collect() + 1

    def _collect(self) -> int:
        """A full garbage collection. The plays an edit replaces are cycles (tasks and their
        blocks refer to each other) that only a full collection frees, and the collection
        thresholds that make indexing fast (cli.main.tune_gc) make those rare: without this,
        3,000 edits took the server on debops from 180 to 429 MB."""
        index = self.server.index
        if index is not None:
            index.replaced_tasks = 0
        gc.collect()
        self.collected_at = time.monotonic()
        return 0

    def _do(self, jobs: list[tuple[str, Any]]) -> None:
        server = self.server
        if server.index is None:
            index = server.make_index(server.root)
            for uri, document in list(server.workspace.text_documents.items()):  # opened meanwhile
                index.set_document(uri_to_path(uri), document.source)
            server.index = index
        index = server.index
        if any(kind == "index" for kind, _ in jobs):
            self._index(index)
        else:
            edited = {p for kind, p in jobs if kind == "edit"}
            on_disk = {p for kind, p in jobs if kind == "disk"}
            if on_disk:
                index.refresh(edited | on_disk, on_disk=True)
            elif edited:
                index.refresh(edited)
        for error in index.internal_errors:
            log.error("%s", error)
        server.publish_diagnostics()

    def _index(self, index: WorkspaceIndex) -> None:
        """Index the workspace: the open files' plays first (their hovers are answered from
        then on, see :attr:`WorkspaceIndex.early`), then the rest; rules after both."""
        server = self.server
        if not server.progress:
            index.index(check=False, first=lambda: None)
            server.ready.set()
            index.check()
            return
        progress = server.work_done_progress
        server.send(progress.begin, PROGRESS_TOKEN,
                    types.WorkDoneProgressBegin(title="playbook-ls: indexing", percentage=0))

        def first() -> None:
            server.send(progress.report, PROGRESS_TOKEN, types.WorkDoneProgressReport(
                message=f"open files ready ({len(index.early)}); indexing the rest", percentage=0))

        def report(done: int, total: int) -> None:
            server.send(progress.report, PROGRESS_TOKEN, types.WorkDoneProgressReport(
                message=f"{done}/{total} playbooks", percentage=int(100 * done / max(total, 1))))

        index.index(report, check=False, first=first)
        server.ready.set()
        server.send(progress.end, PROGRESS_TOKEN, types.WorkDoneProgressEnd(
            message=f"{len(index.books)} playbooks and roles"))
        index.check()  # queries are answered meanwhile; the diagnostics follow


def guarded(default: Any = None) -> Callable[[F], F]:
    """Log a handler's exception and answer ``default``: one broken feature never kills the server."""

    def wrap(handler: F) -> F:
        @functools.wraps(handler)
        def run(*args: Any, **kwargs: Any) -> Any:
            try:
                return handler(*args, **kwargs)
            except JsonRpcException:
                raise  # an answer meant for the client (InvalidParams, say), not a failure
            except Exception:  # noqa: BLE001
                log.exception("%s failed", handler.__name__)
                return default

        return run  # type: ignore[return-value]

    return wrap


def query(default: Any = None) -> Callable[[F], F]:
    """:func:`guarded`, run in the query threads: a request reading the index (a hover on a value
    that takes its time, inlay hints over a 50,000-line file) never holds the event loop, so other
    requests, edits and cancellations are read and answered meanwhile. The answer is made JSON
    data there too. A cancelled request is answered RequestCancelled at once; its thread finishes
    unseen."""

    def wrap(handler: F) -> F:
        safe = guarded(default)(handler)

        def answer(ls: PlaybookServer, *args: Any) -> Any:
            from playbook_ls.lsp.protocol import Serialized

            return Serialized(ls.protocol._converter.unstructure(safe(ls, *args)))

        @functools.wraps(handler)
        async def run(ls: PlaybookServer, *args: Any) -> Any:
            return await asyncio.get_running_loop().run_in_executor(ls.queries, functools.partial(answer, ls, *args))

        return run  # type: ignore[return-value]

    return wrap


@functools.cache
def rule_docs_uri() -> str | None:
    """A file URI of the rule pages, in the user cache directory (a private one), checked once
    per process: a page that is not what this version renders (planted, older, damaged) is
    written again."""
    from engine.user_cache import cache_subdir, private_dir, read_cache_file, write_quietly
    from playbook_ls import rules
    from playbook_ls.rules.docs import render_page

    docs = cache_subdir("docs", create=True)
    target = os.path.join(docs, __version__) if docs else None
    if target is None or not private_dir(target, create=True):
        return None
    for code, module in rules.RULES.items():
        page = os.path.join(target, f"{code}.md")
        text = render_page(module).encode("utf-8")
        if read_cache_file(page, len(text)) != text and not write_quietly(page, text):
            return None
    return path_to_uri(target)


def profiles_file_option(root: str, options: dict[str, Any]) -> str | None:
    """The client's ``profilesFile``, relative to the workspace root, or None."""
    value = options.get("profilesFile")
    return os.path.join(root, os.path.expanduser(value)) if isinstance(value, str) and value else None


def client_settings(ls: PlaybookServer, root: str, options: dict[str, Any]) -> Settings:
    """The project's settings file, overridden by the client's: ``config`` (a settings file to
    use), ``profilesFile`` (a file whose ``profiles`` replace the settings'), ``select``,
    ``ignore``, ``rolesPath``. A bad value is shown to the user, then ignored."""
    from playbook_ls.config import ConfigError, Settings, load_settings

    ls.settings_problem = None
    try:
        settings = load_settings(options.get("config") or None, root)
    except ConfigError as exc:
        ls.settings_problem = f"playbook-ls settings: {exc}"
        settings = Settings(root)
    profiles_file = profiles_file_option(root, options)
    if profiles_file:
        try:
            settings.profiles = load_settings(profiles_file).profiles
        except ConfigError as exc:
            ls.settings_problem = f"playbook-ls profiles file: {exc}"
    if ls.settings_problem:
        ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Error, message=ls.settings_problem))
    for key in ("select", "ignore"):
        values = options.get(key)
        if isinstance(values, list):
            settings.choose(**{key: [value for value in values if isinstance(value, str)]})
    roles_path = options.get("rolesPath", options.get("roles_path"))
    if isinstance(roles_path, list):
        settings.roles_path += [str(p) for p in roles_path]
    return settings


def command_args(args: Any) -> dict[str, Any]:
    """Commands take ``{path|uri, line, tags, skip_tags}`` or ``[path, line]``. Anything else
    is answered ``InvalidParams`` with what is expected."""
    if isinstance(args, list) and len(args) == 1 and isinstance(args[0], dict):
        request = dict(args[0])
    elif isinstance(args, list) and len(args) <= 2 and all(isinstance(a, str | int) for a in args):
        request = dict(zip(("path", "line"), args, strict=False))
    elif isinstance(args, dict):
        request = dict(args)
    else:
        raise invalid_params("the arguments must be [path, line] or one object {path|uri, line, tags, skip_tags}")
    for key, kind in (("path", str), ("uri", str), ("tags", str), ("skip_tags", str)):
        if key in request and request[key] is not None and not isinstance(request[key], kind):
            raise invalid_params(f"'{key}' must be a string, not {type(request[key]).__name__}")
    line = request.get("line")
    if line is not None and (isinstance(line, bool) or not isinstance(line, int) or line < 0):
        raise invalid_params(f"'line' must be a line number from 0, not {line!r}")
    if "uri" in request:
        request["path"] = uri_to_path(request.pop("uri"))
    elif isinstance(request.get("path"), str) and request["path"].startswith("file:"):
        request["path"] = uri_to_path(request["path"])
    return request


def invalid_params(message: str) -> Exception:
    """The error a handler raises for arguments it cannot take: the client gets InvalidParams."""
    from pygls.exceptions import JsonRpcInvalidParams

    return JsonRpcInvalidParams(message)


def edited(ls: PlaybookServer, uri: str) -> None:
    path = uri_to_path(uri)
    if ls.index is not None and not ls.index.set_document(path, ls.buffer(uri)):
        return  # e.g. a file opened as it is on disk: nothing to re-resolve
    ls.refresher.jobs.put(("edit", path))


def position_column(ls: PlaybookServer, path: str, position: types.Position) -> int:
    """The code-point column of an LSP position."""
    lines = ls.lines(path)
    line = lines[position.line] if 0 <= position.line < len(lines) else ""
    return from_units(line, position.character, ls.encoding)


def _unselected(index: WorkspaceIndex, preview: Any) -> dict[str, list[tuple[Any, str]]]:
    from playbook_ls.features.selection import unselected

    return unselected(index, preview)


def _run_nowhere(index: WorkspaceIndex, preview: Any, inventory: list[str],
                 opened: frozenset[str]) -> dict[str, list[tuple[Any, str]]]:
    from playbook_ls.features.host_preview import run_nowhere
    from playbook_ls.features.selection import make_preview

    selection = preview.selection if preview is not None else make_preview(
        None, None, None, (index.ansible.run_tags, index.ansible.skip_tags)).selection
    return run_nowhere(index, selection, inventory, opened)
