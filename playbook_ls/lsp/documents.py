"""LSP glue for the session and the documents: initialize, settings, open/change/close/save
and files changed on disk. Each of these only records what changed and queues a refresh for
the background :class:`~playbook_ls.lsp.server.Refresher`.
"""

from __future__ import annotations

import logging
import os

from lsprotocol import types

from playbook_ls.features.convert import uri_to_path
from playbook_ls.lsp import selection
from playbook_ls.lsp.server import (
    PROGRESS_TOKEN,
    SETTINGS_FILES,
    PlaybookServer,
    client_settings,
    edited,
    guarded,
)

log = logging.getLogger("playbook-ls")


def register(server: PlaybookServer) -> None:

    @server.feature(types.INITIALIZE)
    def initialize(ls: PlaybookServer, params: types.InitializeParams) -> None:
        root = uri_to_path(params.root_uri) if params.root_uri else (params.root_path or os.getcwd())
        if params.workspace_folders:
            root = uri_to_path(params.workspace_folders[0].uri)
        ls.options = params.initialization_options if isinstance(params.initialization_options, dict) else {}
        ls.init_options = dict(ls.options)
        try:
            os.chdir(root)  # messages name files relative to the workspace
        except OSError:
            pass
        ls.root = root
        ls.index = ls.make_index(root)  # empty until the background run; trusted or not as the client said

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    @guarded()
    def did_change_configuration(ls: PlaybookServer, params: types.DidChangeConfigurationParams) -> None:
        # Only our section counts, over the initialization options: clients such as eglot send
        # their whole (often empty) configuration right after connecting.
        settings = params.settings if isinstance(params.settings, dict) else {}
        section = settings.get("playbook-ls")
        if not isinstance(section, dict):
            return
        options = {**ls.init_options, **section}
        ls.options = options
        if ls.index is not None:
            ls.index.configure(ls.index.root, client_settings(ls, ls.index.root, options))
        selection.take_option(ls, section)
        ls.refresher.jobs.put(("index", None))

    @server.feature(types.INITIALIZED)
    async def initialized(ls: PlaybookServer, params: types.InitializedParams) -> None:
        import asyncio

        ls.loop = asyncio.get_running_loop()
        window = ls.client_capabilities.window
        if window is not None and window.work_done_progress:
            try:
                await ls.work_done_progress.create_async(PROGRESS_TOKEN)
                ls.progress = True
            except Exception:  # noqa: BLE001 - progress is a nicety; index anyway
                log.warning("the client refused a progress token")
        await _watch_files(ls)
        selection.take_option(ls, ls.init_options)
        if not ls.refresher.is_alive():
            ls.refresher.start()
        ls.refresher.jobs.put(("index", None))

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    @guarded()
    def did_open(ls: PlaybookServer, params: types.DidOpenTextDocumentParams) -> None:
        uri = params.text_document.uri
        ls.client_uris[os.path.realpath(uri_to_path(uri))] = uri
        edited(ls, uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    @guarded()
    def did_change(ls: PlaybookServer, params: types.DidChangeTextDocumentParams) -> None:
        ls.clear_run_hints(uri_to_path(params.text_document.uri))
        edited(ls, params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    @guarded()
    def did_close(ls: PlaybookServer, params: types.DidCloseTextDocumentParams) -> None:
        path = uri_to_path(params.text_document.uri)
        ls.client_uris.pop(os.path.realpath(path), None)
        if ls.index is None or ls.index.set_document(path, None):
            ls.refresher.jobs.put(("edit", path))

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    @guarded()
    def did_save(ls: PlaybookServer, params: types.DidSaveTextDocumentParams) -> None:
        ls.refresher.jobs.put(("disk", uri_to_path(params.text_document.uri)))

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    @guarded()
    def did_change_watched(ls: PlaybookServer, params: types.DidChangeWatchedFilesParams) -> None:
        changed = [uri_to_path(change.uri) for change in params.changes]
        if any(os.path.basename(path) in SETTINGS_FILES for path in changed) and ls.index is not None:
            ls.index.configure(ls.index.root, client_settings(ls, ls.index.root, ls.options))
            ls.refresher.jobs.put(("index", None))
            return
        for path in changed:
            ls.refresher.jobs.put(("disk", path))


async def _watch_files(ls: PlaybookServer) -> None:
    """Ask the client to report YAML and settings files changing on disk (git checkouts,
    generators, other editors), when it can register watchers dynamically."""
    workspace = ls.client_capabilities.workspace
    watched = workspace.did_change_watched_files if workspace else None
    if watched is None or not watched.dynamic_registration:
        return
    patterns = ["**/*.yml", "**/*.yaml", *(f"**/{name}" for name in SETTINGS_FILES)]
    options = types.DidChangeWatchedFilesRegistrationOptions(
        watchers=[types.FileSystemWatcher(glob_pattern=pattern) for pattern in patterns])
    try:
        await ls.client_register_capability_async(types.RegistrationParams(registrations=[types.Registration(
            id="playbook-ls-watch", method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES, register_options=options)]))
    except Exception:  # noqa: BLE001 - without watchers, saves in the editor still refresh
        log.warning("the client refused to watch files")
