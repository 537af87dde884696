"""Showing a command's result in clients that have no handler for it.

A client runs a lens's command with ``workspace/executeCommand`` and gets its result back; the
VS Code extension shows that result in a view of its own, but Neovim, Helix and Emacs discard
it, so clicking ``List tasks`` or ``tags: …`` there would do nothing. Unless the client says it
shows results itself (initialization option ``commandResults: "return"``), the server shows them:
as a text document opened with ``window/showDocument`` when the client supports it, otherwise
as a ``window/showMessage``. The document lives in the user's cache directory, never in the
project: opening a repository writes nothing into it.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
import tempfile
from pathlib import Path

from lsprotocol import types

from playbook_ls.features.convert import path_to_uri
from playbook_ls.lsp.server import PlaybookServer

log = logging.getLogger("playbook-ls")
MESSAGE_LINES = 40  # a showMessage longer than this is cut, with the path of the whole text


def client_shows_results(ls: PlaybookServer) -> bool:
    return ls.options.get("commandResults") == "return"


def results_dir() -> Path:
    """Where result documents go: ``results`` in playbook-ls's cache directory (``cache_dir``),
    or a directory of this user's in the temporary directory when that cannot be used. Either
    must be private (:func:`engine.user_cache.private_dir`): a document in a directory others
    may write could be changed after it is written, or be a link to another file."""
    from engine.user_cache import cache_subdir, private_dir

    found = cache_subdir("results", create=True)
    if found is not None:
        return Path(found)
    user = os.getuid() if hasattr(os, "getuid") else 0
    fallback = os.path.join(tempfile.gettempdir(), f"playbook-ls-results-{user}")
    if private_dir(fallback, create=True):
        return Path(fallback)
    raise OSError("no private directory for result documents")


def result_file(name: str, text: str) -> Path:
    """``text`` written to a file named after ``name`` (one per kind of result and playbook, so
    clicking the same lens again replaces the same document): a new file renamed into place,
    never written through a link planted with that name."""
    from engine.user_cache import write_quietly

    safe = re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-") or "result"
    path = results_dir() / f"{safe}.txt"
    if not write_quietly(str(path), text):
        raise OSError(f"cannot write {path}")
    return path


def shorten(text: str, keep: str = "head", lines: int = MESSAGE_LINES) -> str:
    """At most ``lines`` lines of ``text``: its first (``keep="head"``) or last ones, saying
    how many were left out."""
    all_lines = text.rstrip("\n").splitlines()
    if len(all_lines) <= lines:
        return "\n".join(all_lines)
    left = len(all_lines) - lines
    if keep == "tail":
        return "\n".join([f"… ({left} lines before)", *all_lines[-lines:]])
    return "\n".join([*all_lines[:lines], f"… ({left} more lines)"])


def _supports_show_document(ls: PlaybookServer) -> bool:
    window = ls.client_capabilities.window if ls.client_capabilities else None
    show = window.show_document if window is not None else None
    return bool(show is not None and show.support)


def present(ls: PlaybookServer, name: str, title: str, text: str, keep: str = "head") -> str | None:
    """Show ``text`` in the client (see the module's docstring); the path of the document
    written, if any. Nothing happens when the client shows results itself."""
    if client_shows_results(ls):
        return None
    path: Path | None = None
    try:
        path = result_file(name, text)
    except OSError as exc:
        log.warning("cannot write the result document: %s", exc)
    if path is not None and _supports_show_document(ls):
        params = types.ShowDocumentParams(uri=path_to_uri(str(path)), take_focus=True)
        _spawn(ls, params, title, text, keep, str(path))
        return str(path)
    _message(ls, title, text, keep, str(path) if path else None)
    return str(path) if path else None


def _message(ls: PlaybookServer, title: str, text: str, keep: str, path: str | None) -> None:
    body = shorten(text, keep)
    where = f"\n(all of it: {path})" if path and body != text.rstrip("\n") else ""
    ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Info, message=f"{title}\n{body}{where}"))


def _spawn(ls: PlaybookServer, params: types.ShowDocumentParams, title: str, text: str, keep: str,
           path: str) -> None:
    """Ask the client to open the document; if it refuses, fall back to a message."""
    async def show() -> None:
        try:
            answer = await ls.window_show_document_async(params)
            if answer is not None and answer.success:
                return
        except Exception as exc:  # noqa: BLE001 - a refusal is answered with a message instead
            log.warning("window/showDocument failed: %s", exc)
        _message(ls, title, text, keep, path)

    try:
        asyncio.get_running_loop().create_task(show())
    except RuntimeError:  # no event loop (a synchronous caller outside the server): a message
        _message(ls, title, text, keep, path)
