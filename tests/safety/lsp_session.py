"""A language client over the server's pipes for the safety tests: it sends requests in order,
answers the server's own requests (progress tokens, questions, documents to show) as an editor
that accepts them would, and keeps every notification, so that a test can drive any request
and command and then look at what the server said."""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "lsp"))
from raw_client import read_message  # noqa: E402 - the same framing as every raw client of the tests

WAIT = 60.0  # seconds for one answer before the test fails instead of hanging
CAPABILITIES = {
    "window": {"workDoneProgress": True, "showDocument": {"support": True}, "showMessage": {}},
    "workspace": {"workspaceFolders": True, "configuration": True,
                  "didChangeWatchedFiles": {"dynamicRegistration": True}},
    "textDocument": {"hover": {"contentFormat": ["markdown", "plaintext"]}, "codeLens": {}, "inlayHint": {},
                     "completion": {"completionItem": {"snippetSupport": True}}},
}


class Session:
    def __init__(self, argv: list[str], cwd: Path, env: dict[str, str], stderr: Path) -> None:
        with stderr.open("wb") as log:
            self.process = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                            stderr=log)
        self.stderr = stderr
        self.next_id = 0
        self.answers: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.notifications: list[dict[str, Any]] = []
        self.server_requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        threading.Thread(target=self._read_all, daemon=True).start()

    def _write(self, message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        with self.lock:
            assert self.process.stdin is not None
            self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
            self.process.stdin.flush()

    def _read_all(self) -> None:
        assert self.process.stdout is not None
        while (message := read_message(self.process.stdout)) is not None:
            if "id" in message and "method" in message:  # the server asks: answer as an editor would
                self.server_requests.append(message)
                self._write({"id": message["id"], "result": self._answer(message)})
            elif "id" in message:
                self.answers.put(message)
            else:
                self.notifications.append(message)
        self.answers.put(None)

    @staticmethod
    def _answer(message: dict[str, Any]) -> Any:
        method = message["method"]
        if method == "window/showMessageRequest":  # the user says yes to whatever is asked
            actions = message["params"].get("actions") or []
            return actions[0] if actions else None
        if method == "window/showDocument":
            return {"success": True}
        if method == "workspace/configuration":
            return [None for _ in message["params"].get("items", [])]
        return None

    def request(self, method: str, params: Any = None, wait: float = WAIT) -> dict[str, Any]:
        """The whole response (``result`` or ``error``) to one request."""
        self.next_id += 1
        self._write({"id": self.next_id, "method": method, "params": params})
        deadline = time.monotonic() + wait
        while True:
            try:
                answer = self.answers.get(timeout=max(0.1, deadline - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"no answer to {method} within {wait:g} s") from None
            assert answer is not None, f"the server stopped while answering {method}; see {self.stderr}"
            if answer.get("id") == self.next_id:
                return answer

    def notify(self, method: str, params: Any = None) -> None:
        self._write({"method": method, "params": params})

    def shown(self) -> list[str]:
        """What the server showed the user (window/showMessage)."""
        return [n["params"]["message"] for n in self.notifications if n.get("method") == "window/showMessage"]

    def close(self) -> None:
        try:
            if self.process.poll() is None:
                self.request("shutdown", wait=15)
                self.notify("exit")
                self.process.wait(10)
        except (AssertionError, OSError, subprocess.TimeoutExpired):
            pass
        finally:
            if self.process.poll() is None:
                self.process.kill()
                self.process.wait()
