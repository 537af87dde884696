"""pygls's protocol, with what the language server promises on top of it.

- ``$/cancelRequest`` of a ``checkTasks`` / ``runTasks`` command stops the run: pygls answers the
  request "cancelled" but runs a command handler under a future of its own, which the cancel
  does not reach, so the worker went on running tasks.
- A request after ``shutdown`` gets an ``InvalidRequest`` error instead of no answer at all.
- A client that stops reading (its end of the pipe closed) ends the server instead of a loop of
  ``BrokenPipeError``.
"""

from __future__ import annotations

import logging
import os
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidRequest
from pygls.protocol import LanguageServerProtocol

from playbook_ls.features import CHECK_TASKS, RUN_TASKS

log = logging.getLogger("playbook-ls")
RUN_COMMANDS = frozenset({CHECK_TASKS, RUN_TASKS})


class PlaybookProtocol(LanguageServerProtocol):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.run_requests: set[Any] = set()  # ids of executeCommand requests that start a run

    def handle_message(self, message: Any) -> None:
        method = getattr(message, "method", None)
        if self._shutdown and method not in (None, types.EXIT) and getattr(message, "id", None) is not None:
            error = JsonRpcInvalidRequest(f"the server is shutting down: {method} is not handled after 'shutdown'")
            self._send_response(message.id, None, error.to_response_error())
            return
        super().handle_message(message)

    def _handle_request(self, msg_id: Any, method_name: str, params: Any) -> None:
        if method_name == types.WORKSPACE_EXECUTE_COMMAND and getattr(params, "command", None) in RUN_COMMANDS:
            self.run_requests.add(msg_id)
        super()._handle_request(msg_id, method_name, params)

    def _send_handler_result(self, future: Any, *, msg_id: Any) -> None:
        self.run_requests.discard(msg_id)
        super()._send_handler_result(future, msg_id=msg_id)

    def _handle_cancel_notification(self, msg_id: Any) -> None:
        starts_a_run = msg_id in self.run_requests  # cancelling answers the request, which forgets it
        super()._handle_cancel_notification(msg_id)
        if starts_a_run:
            self.run_requests.discard(msg_id)
            job = getattr(self._server, "run_job", None)
            if job is not None:
                log.info("request %s cancelled: stopping the run", msg_id)
                job.cancel()

    def _send_data(self, data: Any) -> None:
        try:
            super()._send_data(data)
        except (BrokenPipeError, ConnectionResetError):
            log.error("the client stopped reading: exiting")
            job = getattr(self._server, "run_job", None)
            if job is not None:
                job.cancel()  # the worker is in its own process group: it would outlive us
            os._exit(1)
