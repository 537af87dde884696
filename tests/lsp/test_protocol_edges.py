"""The server's lifecycle at its edges, over raw pipes: requests after shutdown, a run in
progress at shutdown, a client that stops reading, params that do not fit, a cancelled request,
a FIFO named by a request."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from raw_client import SERVER, RawClient, read_message
from waiting import indexed_hover


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
        client.initialize(root, runRepositoryCode=True)
        client.send("workspace/executeCommand", {"command": "playbook-ls.runTasks",
                                                 "arguments": [{"playbook": str(root / "site.yml"), "play": 0}]})
        time.sleep(1.5)  # the worker is in the shell task by now
        client.response(client.send("shutdown"))
        time.sleep(3)
        assert not (root / "marker").exists(), "the run went on after shutdown"
    finally:
        client.process.kill()


def test_a_client_that_stops_reading_ends_the_server(root: Path) -> None:
    client = RawClient(root, threaded=False)  # nothing reading when the test closes its end
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


def _free_port() -> int:
    with socket.socket() as probe:  # a free port on the loopback
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _tcp_server(root: Path, port: int) -> subprocess.Popen[bytes]:
    return subprocess.Popen([*SERVER, "--tcp", f"127.0.0.1:{port}"], cwd=root, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def _connect(port: int, server: subprocess.Popen[bytes]) -> socket.socket:
    # a loaded machine can take many seconds to start the server: wait while it lives
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            return socket.create_connection(("127.0.0.1", port), timeout=10)
        except OSError:
            if server.poll() is not None:
                pytest.fail(f"the server ended before it listened: {server.stderr.read()!r}")  # type: ignore[union-attr]
            time.sleep(0.1)
    pytest.fail("the server never listened")


def _ask(connection: socket.socket, msg_id: int, method: str, params: Any) -> dict[str, Any] | None:
    """Send a request and read the answer to it (None: the server hung up)."""
    body = json.dumps({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params}).encode()
    connection.sendall(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    stream = connection.makefile("rb")
    while True:
        message = read_message(stream)
        if message is None or (message.get("id") == msg_id and "method" not in message):
            return message


def test_a_dropped_tcp_connection_ends_the_server(root: Path) -> None:
    port = _free_port()
    server = _tcp_server(root, port)
    try:
        connection = _connect(port, server)
        assert _ask(connection, 1, "initialize", {"processId": None, "rootUri": root.as_uri(), "capabilities": {}})
        connection.close()  # the client goes away without shutdown
        assert server.wait(60) is not None
    finally:
        if server.poll() is None:
            server.kill()


def test_a_second_tcp_client_is_refused_and_the_first_keeps_its_session(root: Path) -> None:
    port = _free_port()
    server = _tcp_server(root, port)
    initialize = {"processId": None, "rootUri": root.as_uri(), "capabilities": {}}
    try:
        first = _connect(port, server)
        assert _ask(first, 1, "initialize", initialize)["result"]["capabilities"]  # type: ignore[index]
        second = _connect(port, server)
        refusal = _ask(second, 1, "initialize", initialize)
        assert refusal is not None and "already serves another client" in refusal["error"]["message"]
        assert second.recv(1) == b""  # and hung up
        second.close()
        hover = {"textDocument": {"uri": (root / "site.yml").as_uri()}, "position": {"line": 0, "character": 0}}
        assert "result" in _ask(first, 2, "textDocument/hover", hover)  # type: ignore[operator]
        assert _ask(first, 3, "shutdown", None) == {"jsonrpc": "2.0", "id": 3, "result": None}
        first.close()
        assert server.wait(60) is not None
    finally:
        if server.poll() is None:
            server.kill()
    assert b"Traceback" not in server.stderr.read()  # type: ignore[union-attr]


@pytest.mark.parametrize("address", ["bad", ":abc", ":99999", "256.1.1.1:2087", "a b:2087"])
def test_a_bad_tcp_address_is_a_usage_error(root: Path, address: str) -> None:
    done = subprocess.run([*SERVER, "--tcp", address], cwd=root, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "usage: playbook-ls serve" in done.stderr and "Traceback" not in done.stderr
    assert f"argument --tcp: {address!r}" in done.stderr


def test_a_port_in_use_is_a_message(root: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run([*SERVER, "--tcp", f"127.0.0.1:{port}"], cwd=root, capture_output=True, text=True,
                              timeout=60)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.startswith(f"playbook-ls: error: cannot listen on 127.0.0.1:{port}: ")


def _hover(root: Path, line: int = 0, character: Any = 0) -> dict[str, Any]:
    return {"textDocument": {"uri": (root / "site.yml").as_uri()}, "position": {"line": line, "character": character}}


def test_params_that_do_not_fit_are_answered_invalid_params_without_a_traceback(root: Path) -> None:
    client = RawClient(root)
    try:
        client.initialize(root)
        answer = client.response(client.send("textDocument/hover", _hover(root, character="x")))
        assert answer["error"]["code"] == -32602
        assert "expected int @ $.params.position.character" in answer["error"]["message"]
        client.send("textDocument/didChange", {"textDocument": {"uri": 5}}, request=False)  # dropped
        answer = client.response(client.send("workspace/executeCommand", {"command": "playbook-ls.runTasks",
                                                                          "arguments": [1, 2, 3]}))
        assert answer["error"]["code"] == -32602  # the handler's own refusal
        assert "result" in client.response(client.send("textDocument/hover", _hover(root)))  # still serving
        client.response(client.send("shutdown"))
    finally:
        client.process.kill()
        client.process.wait()
    log = client.stderr.read_text()
    assert "Traceback" not in log, log


def test_a_cancelled_request_is_answered_request_cancelled(root: Path) -> None:
    """A request still being worked on when the cancel comes gets error -32800 (RequestCancelled)
    at once, as LSP asks, not its result later."""
    lines = ["- hosts: localhost", "  gather_facts: false", "  vars:", "    d: /opt", "  tasks:"]
    for number in range(1500):  # about 10 s of value hints without their time bound
        lines += [f"    - copy: {{dest: '{{{{ d }}}}/{number}', content: '{{{{ d | upper }}}} {number}'}}"]
    (root / "site.yml").write_text("\n".join(lines) + "\n")
    client = RawClient(root)
    try:
        client.initialize(root)
        while not indexed_hover(client.response(client.send("textDocument/hover", _hover(root, 5, 8))).get("result")):
            time.sleep(0.2)  # indexed
        whole = {"start": {"line": 0, "character": 0}, "end": {"line": len(lines), "character": 0}}
        request = client.send("textDocument/inlayHint", {"textDocument": _hover(root)["textDocument"],
                                                         "range": whole})
        client.send("$/cancelRequest", {"id": request}, request=False)
        answer = client.response(request)
        assert answer.get("error", {}).get("code") == -32800, answer
    finally:
        client.process.kill()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX's")
def test_requests_on_a_fifo_the_client_never_opened_do_not_block(root: Path) -> None:
    os.mkfifo(root / "pipe.yml")
    client = RawClient(root)
    try:
        client.initialize(root)
        at = {"textDocument": {"uri": (root / "pipe.yml").as_uri()}, "position": {"line": 0, "character": 0}}
        for method in ("textDocument/completion", "textDocument/hover", "textDocument/codeAction"):
            params: dict[str, Any] = dict(at)
            if method == "textDocument/codeAction":
                params = {"textDocument": at["textDocument"], "range": {"start": at["position"], "end": at["position"]},
                          "context": {"diagnostics": []}}
            assert "result" in client.response(client.send(method, params))  # read() fails after 15 s
    finally:
        client.process.kill()
