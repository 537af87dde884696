"""A JSON-RPC client over a server's raw pipes, for what pytest-lsp's client hides: answers in
the order they come, requests the client cannot type, the server's own log."""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, BinaryIO

SERVER = [sys.executable, "-m", "playbook_ls", "serve"]
# seconds without the awaited answer before a test fails instead of hanging; a busy machine starts the server slowly
WAIT = 60.0


class RawClient:
    """``threaded``: a thread reads the server's output all along (answers in any order); without
    it, output is read only while a test waits, so the test may close its end in between."""

    def __init__(self, root: Path, threaded: bool = True) -> None:
        self.stderr = root / "server.stderr"  # the server's log, for what it must not say
        with self.stderr.open("wb") as log:
            self.process = subprocess.Popen(SERVER, cwd=root, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                            stderr=log)
        self.next_id = 0
        self.messages: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.answers: dict[Any, dict[str, Any]] = {}  # responses read while waiting for another
        self.threaded = threaded
        if threaded:
            threading.Thread(target=self._read_all, daemon=True).start()

    def send(self, method: str, params: Any = None, request: bool = True) -> int | None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": params}
        msg_id = None
        if request:
            self.next_id += 1
            message["id"] = msg_id = self.next_id
        self._write(message)
        return msg_id

    def _write(self, message: dict[str, Any]) -> None:
        body = json.dumps(message).encode()
        assert self.process.stdin is not None
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()

    def _read_all(self) -> None:
        try:
            while self._read_one():
                pass
        finally:
            self.messages.put(None)

    def _read_one(self) -> bool:
        """Read one message into ``messages``; False at the end of the output."""
        assert self.process.stdout is not None
        try:
            message = read_message(self.process.stdout)
        except (OSError, ValueError):
            return False
        if message is not None:
            self.messages.put(message)
        return message is not None

    def read(self, timeout: float = WAIT) -> dict[str, Any]:
        """The next message; fails after ``timeout`` seconds instead of hanging the test run."""
        if not self.threaded and self.messages.empty():
            reader = threading.Thread(target=lambda: self._read_one() or self.messages.put(None), daemon=True)
            reader.start()
            reader.join(timeout)
        try:
            message = self.messages.get(timeout=timeout)
        except queue.Empty:
            self.process.kill()
            raise AssertionError(f"no message from the server within {timeout:g} s") from None
        assert message is not None, "the server closed its output"
        return message

    def response(self, msg_id: int | None, timeout: float = WAIT) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while msg_id not in self.answers:
            message = self.read(max(0.01, deadline - time.monotonic()))
            if "method" in message and "id" in message:  # a request of the server's: answer nothing
                self.answer(message["id"], None)
            elif "method" not in message:
                self.answers[message.get("id")] = message
        return self.answers.pop(msg_id)

    def answer(self, msg_id: Any, result: Any) -> None:
        self._write({"jsonrpc": "2.0", "id": msg_id, "result": result})

    def initialize(self, root: Path, **options: Any) -> None:
        """``options``: initialization options besides ``confirmRun: false`` (``runRepositoryCode``...)."""
        self.response(self.send("initialize", {"processId": None, "rootUri": root.as_uri(), "capabilities": {},
                                               "initializationOptions": {"confirmRun": False, **options}}))
        self.send("initialized", {}, request=False)


def read_message(stream: BinaryIO) -> dict[str, Any] | None:
    """One JSON-RPC message from a server's output (None at its end)."""
    length = 0
    while True:
        line = stream.readline()
        if not line:
            return None
        if not line.strip():
            break
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    return dict(json.loads(stream.read(length)))
