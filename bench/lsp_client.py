"""The LSP benchmark's client side: a JSON-RPC client over a server's stdio, and the
process figures (CPU, RSS) read for the server's whole process tree."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

try:
    import psutil  # type: ignore[import-untyped]
except ImportError:  # /proc is enough on Linux
    psutil = None

REQUEST_TIMEOUT = 30.0
CLOCK_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
PAGE_KB = os.sysconf("SC_PAGE_SIZE") // 1024 if hasattr(os, "sysconf") else 4


# --- processes ----------------------------------------------------------------------------------------


def tree_pids(pid: int) -> list[int]:
    """The process and its descendants."""
    if psutil is not None:
        try:
            proc = psutil.Process(pid)
            return [pid, *(c.pid for c in proc.children(recursive=True))]
        except psutil.Error:
            return []
    pids, todo = [], [pid]
    while todo:
        one = todo.pop()
        pids.append(one)
        for children in Path(f"/proc/{one}/task").glob("*/children"):
            with contextlib.suppress(OSError, ValueError):
                todo += map(int, children.read_text().split())
    return pids


def cpu_seconds(pids: list[int]) -> float:
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])  # utime, stime
        except (OSError, IndexError, ValueError):
            pass
    return total / CLOCK_TICK


def rss_kb(pid: int) -> int:
    try:
        return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * PAGE_KB
    except (OSError, IndexError, ValueError):
        return 0


def peak_rss_kb(pid: int) -> int:
    """The high-water mark of the process's resident set (VmHWM), 0 when unknown."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return 0


def load_average() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "?"


# --- a JSON-RPC client over stdio --------------------------------------------------------------------


class ServerDied(Exception):
    pass


@dataclass
class Published:
    at: float
    diagnostics: list[dict[str, Any]]


class Client:
    """A small LSP client: requests with futures, server requests answered, notifications recorded."""

    def __init__(self, name: str, settings: dict[str, Any], folders: list[dict[str, str]]) -> None:
        self.name, self.settings, self.folders = name, settings, folders
        self.proc: asyncio.subprocess.Process | None = None
        self.pending: dict[int, asyncio.Future[Any]] = {}
        self.next_id = 0
        self.progress: list[tuple[float, Any, dict[str, Any]]] = []  # (time, token, value)
        self.published: dict[str, list[Published]] = {}
        self.messages: list[str] = []  # window/showMessage and logMessage errors
        self.response_errors: list[str] = []
        self.changed = asyncio.Event()  # set on every notification
        self.reader: asyncio.Task[None] | None = None
        self.sampler: asyncio.Task[None] | None = None
        self.tree_rss_peak_kb = 0
        self.stderr = tempfile.TemporaryFile()
        self.dead = False

    async def start(self, argv: list[str], cwd: Path, env: dict[str, str]) -> None:
        self.proc = await asyncio.create_subprocess_exec(
            *argv, cwd=cwd, env={**os.environ, **env}, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=self.stderr, limit=1 << 24)
        self.reader = asyncio.create_task(self._read())
        self.sampler = asyncio.create_task(self._sample())

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    async def _sample(self, interval: float = 0.1) -> None:
        while True:
            self.tree_rss_peak_kb = max(self.tree_rss_peak_kb, sum(rss_kb(p) for p in tree_pids(self.pid)))
            await asyncio.sleep(interval)

    async def _read(self) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        stream = self.proc.stdout
        try:
            while True:
                header = await stream.readuntil(b"\r\n\r\n")
                length = 0
                for line in header.decode("ascii", "replace").split("\r\n"):
                    if line.lower().startswith("content-length:"):
                        length = int(line.split(":", 1)[1])
                body = await stream.readexactly(length)
                self._dispatch(json.loads(body), time.perf_counter())
        except (asyncio.IncompleteReadError, ConnectionError, ValueError):
            pass
        finally:
            self.dead = True
            for future in self.pending.values():
                if not future.done():
                    future.set_exception(ServerDied(f"{self.name} closed its output"))
            self.changed.set()

    def _dispatch(self, message: dict[str, Any], at: float) -> None:
        if "id" in message and "method" not in message:  # a response
            future = self.pending.pop(message["id"], None)
            if future is not None and not future.done():
                future.set_result(message)
            return
        method, params = message.get("method"), message.get("params") or {}
        if "id" in message:  # a request from the server
            self._send({"jsonrpc": "2.0", "id": message["id"], "result": self._answer(method, params)})
            return
        if method == "$/progress":
            self.progress.append((at, params.get("token"), params.get("value") or {}))
        elif method == "textDocument/publishDiagnostics":
            self.published.setdefault(params.get("uri", ""), []).append(
                Published(at, params.get("diagnostics") or []))
        elif method in ("window/showMessage", "window/logMessage") and params.get("type") == 1:
            self.messages.append(str(params.get("message", ""))[:300])
        self.changed.set()

    def _answer(self, method: str | None, params: dict[str, Any]) -> Any:
        if method == "workspace/configuration":
            return [self._section(item.get("section")) for item in params.get("items", [])]
        if method == "workspace/workspaceFolders":
            return self.folders
        return None  # window/workDoneProgress/create, client/registerCapability, ...

    def _section(self, section: str | None) -> Any:
        value: Any = self.settings
        for part in (section or "").split("."):
            if part:
                value = value.get(part) if isinstance(value, dict) else None
        return value

    def _send(self, message: dict[str, Any]) -> None:
        if self.proc is None or self.proc.stdin is None or self.proc.stdin.is_closing():
            return
        try:
            body = json.dumps(message, ensure_ascii=False).encode()
        except UnicodeEncodeError:  # lone surrogates: only \u escapes carry them
            body = json.dumps(message).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    async def request(self, method: str, params: Any, timeout: float = REQUEST_TIMEOUT) -> Any:
        """The result; a response error is recorded and answered as None."""
        if self.dead:
            raise ServerDied(f"{self.name} is not running")
        self.next_id += 1
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.pending[self.next_id] = future
        self._send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        assert self.proc is not None and self.proc.stdin is not None
        await self.proc.stdin.drain()
        message = await asyncio.wait_for(future, timeout)
        if "error" in message:
            self.response_errors.append(f"{method}: {message['error']}")
            return None
        return message.get("result")

    async def notify(self, method: str, params: Any) -> None:
        self._send({"jsonrpc": "2.0", "method": method, "params": params})
        assert self.proc is not None and self.proc.stdin is not None
        await self.proc.stdin.drain()

    async def wait_for(self, predicate: Callable[[], Any], timeout: float) -> Any:
        deadline = time.perf_counter() + timeout
        while True:
            found = predicate()
            if found:
                return found
            if self.dead:
                raise ServerDied(f"{self.name} closed its output")
            left = deadline - time.perf_counter()
            if left <= 0:
                return None
            self.changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), left)

    async def wait_idle(self, quiet: float = 0.3, timeout: float = 60.0) -> float:
        """Seconds until the server's process tree used at most 20 ms of CPU over ``quiet`` seconds."""
        start = time.perf_counter()
        history: list[tuple[float, float]] = []
        while time.perf_counter() - start < timeout and not self.dead:
            now = time.perf_counter()
            history.append((now, cpu_seconds(tree_pids(self.pid))))
            old = [h for h in history if h[0] <= now - quiet]
            if old and history[-1][1] - old[-1][1] <= 0.02:
                return now - quiet - start if now - quiet > start else 0.0
            await asyncio.sleep(0.05)
        return time.perf_counter() - start

    async def stop(self) -> tuple[int, float]:
        """Shut down; the process's VmHWM (kB) and its CPU seconds, read just before it exits."""
        assert self.proc is not None
        hwm = peak_rss_kb(self.pid)
        cpu = cpu_seconds(tree_pids(self.pid))
        try:
            if not self.dead:
                await self.request("shutdown", None, timeout=10)
                await self.notify("exit", None)
            await asyncio.wait_for(self.proc.wait(), 10)
        except (TimeoutError, ServerDied, ConnectionError):
            pass
        if self.proc.returncode is None:
            self.proc.kill()
            await self.proc.wait()
        for task in (self.reader, self.sampler):
            if task is not None:
                task.cancel()
        return hwm, cpu

    def stderr_tail(self, lines: int = 5) -> str:
        self.stderr.seek(0)
        return "\n".join(self.stderr.read().decode(errors="replace").strip().splitlines()[-lines:])
