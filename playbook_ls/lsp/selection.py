"""LSP glue for the selection preview: the ``playbook-ls.setSelection`` command and the
``previewSelection`` setting set it, ``playbook-ls/selection`` tells the client its label, and
the tasks it would not run are published as Unnecessary hints with the other diagnostics
(:meth:`~playbook_ls.lsp.server.PlaybookServer._selection_hints`). The decisions themselves
are :mod:`playbook_ls.features.selection`'s.
"""

from __future__ import annotations

import logging
from typing import Any

from playbook_ls.features import SELECTION_CHANGED, SET_SELECTION
from playbook_ls.lsp.server import PlaybookServer, guarded, invalid_params

log = logging.getLogger("playbook-ls")
OPTION = "previewSelection"


def register(server: PlaybookServer) -> None:
    @server.command(SET_SELECTION)
    @guarded()
    def set_selection(ls: PlaybookServer, *arguments: Any) -> Any:
        request = arguments[0] if arguments else None
        if request is not None and not isinstance(request, dict):
            raise invalid_params("the argument must be one object {tags?, skip_tags?, profile?}, or null to clear")
        try:
            choose(ls, request)
        except ValueError as exc:
            raise invalid_params(str(exc)) from None
        ls.refresher.jobs.put(("publish", None))  # the hints are computed off the event loop
        return announce(ls)


def choose(ls: PlaybookServer, request: dict[str, Any] | None) -> None:
    """Make ``request`` the preview selection (None: no preview). Raises ValueError for a
    selection that cannot be used, leaving the previous one."""
    from playbook_ls.features.selection import preview_from_request

    preview = None
    if request is not None:
        index = ls.index
        profiles = index.settings.profiles if index is not None else []
        defaults = (index.ansible.run_tags, index.ansible.skip_tags) if index is not None else ((), ())
        preview = preview_from_request(request, profiles, defaults)
    ls.selection_request, ls.selection = request, preview


def announce(ls: PlaybookServer) -> dict[str, Any]:
    """Tell the client the selection's label (for its status item); returns what was sent."""
    preview = ls.selection
    params = preview.to_json() if preview is not None else {"label": None}
    ls.protocol.notify(SELECTION_CHANGED, params)
    return params


def take_option(ls: PlaybookServer, options: dict[str, Any]) -> None:
    """The ``previewSelection`` setting, when ``options`` (the initialization options, or a
    configuration change's section) have it, replaces the preview; else the selection chosen
    is rebuilt against the settings (its profile may have changed). A value that cannot be
    used is logged and leaves no preview. Never raises: the index is started after it."""
    request = options.get(OPTION) if OPTION in options else ls.selection_request
    if request is not None and not isinstance(request, dict):
        log.warning("%s must be an object {tags?, skip_tags?, profile?} or null", OPTION)
        request = None
    try:
        choose(ls, request)
    except ValueError as exc:
        log.warning("%s: %s", OPTION, exc)
        choose(ls, None)
    except Exception:  # noqa: BLE001 - the preview is a nicety, the server goes on without it
        log.exception("the %s setting could not be applied", OPTION)
        ls.selection_request, ls.selection = None, None
    try:
        announce(ls)
    except Exception:  # noqa: BLE001
        log.exception("announcing the selection failed")
