"""The server's lifecycle at its edges, over raw pipes: requests after shutdown, a run in
progress at shutdown, a client that stops reading."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

SERVER = [sys.executable, "-m", "playbook_ls", "serve"]


class RawClient:
    def __init__(self, root: Path) -> None:
        self.process = subprocess.Popen(SERVER, cwd=root, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL)
        self.next_id = 0

    def send(self, method: str, params: Any = None, request: bool = True) -> int | None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": params}
        msg_id = None
        if request:
            self.next_id += 1
            message["id"] = msg_id = self.next_id
        body = json.dumps(message).encode()
        assert self.process.stdin is not None
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()
        return msg_id

    def read(self) -> dict[str, Any]:
        """The next message; fails after 15 s instead of hanging the test run."""
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(1) as pool:
            future = pool.submit(self._read)
            try:
                return future.result(timeout=15)
            except TimeoutError:
                self.process.kill()  # unblocks the reader thread
                raise AssertionError("no message from the server within 15 s") from None

    def _read(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        length = 0
        while True:
            line = self.process.stdout.readline()
            assert line, "the server closed its output"
            if not line.strip():
                break
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        return json.loads(self.process.stdout.read(length))

    def response(self, msg_id: int | None) -> dict[str, Any]:
        while True:
            message = self.read()
            if message.get("id") == msg_id and "method" not in message:
                return message
            if "method" in message and "id" in message:  # a request of the server's: answer nothing
                self.answer(message["id"], None)

    def answer(self, msg_id: Any, result: Any) -> None:
        body = json.dumps({"jsonrpc": "2.0", "id": msg_id, "result": result}).encode()
        assert self.process.stdin is not None
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()

    def initialize(self, root: Path) -> None:
        self.response(self.send("initialize", {"processId": None, "rootUri": root.as_uri(), "capabilities": {},
                                               "initializationOptions": {"confirmRun": False}}))
        self.send("initialized", {}, request=False)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "site.yml").write_text("- hosts: localhost\n  gather_facts: false\n  tasks:\n"
                                       f"    - shell: sleep 3 && touch {tmp_path / 'marker'}\n")
    return tmp_path


def test_requests_after_shutdown_are_invalid_requests(root: Path) -> None:
    client = RawClient(root)
    try:
        client.initialize(root)
        assert client.response(client.send("shutdown"))["result"] is None
        answer = client.response(client.send("textDocument/hover", {
            "textDocument": {"uri": (root / "site.yml").as_uri()}, "position": {"line": 0, "character": 0}}))
        assert answer["error"]["code"] == -32600  # InvalidRequest
        client.send("exit", None, request=False)
        assert client.process.wait(10) == 0
    finally:
        client.process.kill()


def test_shutdown_during_a_run_stops_the_run(root: Path) -> None:
    client = RawClient(root)
    try:
        client.initialize(root)
        client.send("workspace/executeCommand", {"command": "playbook-ls.runTasks",
                                                 "arguments": [{"playbook": str(root / "site.yml"), "play": 0}]})
        time.sleep(1.5)  # the worker is in the shell task by now
        client.response(client.send("shutdown"))
        time.sleep(3)
        assert not (root / "marker").exists(), "the run went on after shutdown"
    finally:
        client.process.kill()


def test_a_client_that_stops_reading_ends_the_server(root: Path) -> None:
    client = RawClient(root)
    try:
        client.initialize(root)
        assert client.process.stdout is not None
        client.process.stdout.close()  # our end of the server's output
        for _ in range(50):  # each answer fails with a broken pipe
            try:
                client.send("textDocument/hover", {"textDocument": {"uri": (root / "site.yml").as_uri()},
                                                   "position": {"line": 0, "character": 0}})
            except (BrokenPipeError, OSError):
                break
            if client.process.poll() is not None:
                break
            time.sleep(0.1)
        assert client.process.wait(10) is not None
    finally:
        if client.process.poll() is None:
            client.process.kill()
    assert os.path.exists(root)


def test_a_dropped_tcp_connection_ends_the_server(root: Path) -> None:
    import socket

    with socket.socket() as probe:  # a free port on the loopback
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen([*SERVER, "--tcp", f"127.0.0.1:{port}"], cwd=root, stdin=subprocess.DEVNULL,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            try:
                connection = socket.create_connection(("127.0.0.1", port), timeout=1)
                break
            except OSError:
                time.sleep(0.1)
        else:
            pytest.fail("the server never listened")
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                           "params": {"processId": None, "rootUri": root.as_uri(), "capabilities": {}}}).encode()
        connection.sendall(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        connection.recv(65536)
        connection.close()  # the client goes away without shutdown
        assert server.wait(10) is not None
    finally:
        if server.poll() is None:
            server.kill()
