"""pygls's protocol, with what the language server promises on top of it.

- ``$/cancelRequest`` of a ``checkTasks`` / ``runTasks`` command stops the run: pygls answers the
  request "cancelled" but runs a command handler under a future of its own, which the cancel
  does not reach, so the worker went on running tasks.
- A request after ``shutdown`` gets an ``InvalidRequest`` error instead of no answer at all.
- A client that stops reading (its end of the pipe closed) ends the server instead of a loop of
  ``BrokenPipeError``.
- A notification's future is let go when it is done: pygls keeps a future per didOpen, didChange,
  didClose (their handlers are generators) under a message id only a request's answer removes, so
  every edit stayed in memory, with the exception and the frames of any that failed.
- A request whose params do not fit the method's type is answered ``InvalidParams`` saying what is
  wrong (pygls logged a traceback and answered nothing, so the client waited forever); a notification
  like that is dropped with a one-line warning. An ``InvalidParams`` a handler raises on purpose is
  an answer, not a failure: it is not logged as one.
"""

from __future__ import annotations

import functools
import logging
import os
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams, JsonRpcInvalidRequest
from pygls.protocol import LanguageServerProtocol

from playbook_ls.features import CHECK_TASKS, RUN_TASKS

log = logging.getLogger("playbook-ls")
RUN_COMMANDS = frozenset({CHECK_TASKS, RUN_TASKS})


class Unusable:
    """A message whose params could not be read; ``reason`` says why, as the client is told."""

    def __init__(self, msg_id: Any, method: str, reason: str) -> None:
        self.id, self.method, self.reason = msg_id, method, reason


def _reason(exc: Exception) -> str:
    """One line on what in the params is wrong (cattrs names each path), not a traceback."""
    try:
        from cattrs import transform_error

        return "; ".join(transform_error(exc, path="$"))[:500]
    except Exception:  # noqa: BLE001 - not a cattrs error: its own text will do
        return str(exc)[:500]


class Serialized:
    """A request's answer already made JSON-ready data by the thread that computed it: made into
    data on the event loop, 10,000 inlay hints held every other request for 300 ms."""

    __slots__ = ("data",)

    def __init__(self, data: Any) -> None:
        self.data = data


class PlaybookProtocol(LanguageServerProtocol):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.run_requests: set[Any] = set()  # ids of executeCommand requests that start a run

    def structure_message(self, data: dict[str, Any]) -> Any:
        method = data.get("method") if isinstance(data, dict) else None
        if not isinstance(method, str) or "jsonrpc" not in data or "error" in data:
            return super().structure_message(data)
        kind = self.get_message_type(method)
        if kind is None:
            return super().structure_message(data)  # no type to check against (unknown methods)
        try:
            return self._converter.structure(data, kind)
        except Exception as exc:  # noqa: BLE001 - whatever the client sent, it gets an answer
            return Unusable(data.get("id"), method, _reason(exc))

    def handle_message(self, message: Any) -> None:
        if isinstance(message, Unusable):
            if message.id is None:
                log.warning("%s notification dropped: its params are not what LSP says: %s", message.method,
                            message.reason)
            else:
                log.info("%s request %s answered InvalidParams: %s", message.method, message.id, message.reason)
                error = JsonRpcInvalidParams(f"{message.method}: the params are not what LSP says: {message.reason}")
                self._send_response(message.id, None, error.to_response_error())
            return
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

    def _execute_handler(self, msg_id: Any, handler: Any, callback: Any, args: Any = None, kwargs: Any = None) -> None:
        super()._execute_handler(msg_id, handler, callback, args, kwargs)
        future = self._request_futures.get(msg_id)
        if future is not None:  # run after pygls's own callback, which answers a request
            future.add_done_callback(functools.partial(self._forget_future, msg_id))

    def _forget_future(self, msg_id: Any, future: Any) -> None:
        if self._request_futures.get(msg_id) is future:
            del self._request_futures[msg_id]

    def _send_handler_result(self, future: Any, *, msg_id: Any) -> None:
        self.run_requests.discard(msg_id)
        error = None if future.cancelled() else future.exception()
        if error is None and not future.cancelled() and isinstance(future.result(), Serialized):
            self._request_futures.pop(msg_id, None)
            self._result_types.pop(msg_id, None)
            self._send_data({"jsonrpc": "2.0", "id": msg_id, "result": future.result().data})
            return
        if isinstance(error, JsonRpcException):  # raised on purpose: an answer, not a failure to log
            self._request_futures.pop(msg_id, None)
            log.info("request %s answered %s: %s", msg_id, type(error).__name__, error)
            self._send_response(msg_id, error=error.to_response_error())
            return
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
