"""The language server over TCP: one client per server.

The server's state (the workspace root the process changes into, the index, the open buffers,
the diagnostics it published) belongs to one editor session, so a second connection is refused
with an answer that says so, instead of taking over the first one's output. When the client
disconnects, the server ends, as it does when an editor closes its stdio.
"""

from __future__ import annotations

import argparse
import asyncio
import ipaddress
import json
import logging
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from playbook_ls.lsp.server import PlaybookServer

log = logging.getLogger("playbook-ls")
REFUSAL_READ_SECONDS = 5.0  # how long a refused client has to send the request the refusal answers


def tcp_address(text: str) -> tuple[str, int]:
    """``HOST:PORT``, ``:PORT`` (the loopback) or ``[IPV6]:PORT`` as ``(host, port)``; an argparse
    error, which is a usage error (exit 2), for anything else."""
    host, colon, port_text = text.rpartition(":")
    if not colon:
        raise argparse.ArgumentTypeError(f"{text!r} is not HOST:PORT (e.g. 127.0.0.1:2087, or :2087 for the loopback)")
    if not port_text.isdigit() or not 1 <= int(port_text) <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r}: the port must be a number from 1 to 65535, not {port_text!r}")
    host = host.strip()
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    if not host:
        return "127.0.0.1", int(port_text)
    if all(part.isdigit() for part in host.split(".")) or ":" in host:  # written as an IP address
        try:
            ipaddress.ip_address(host)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r}: {host!r} is not an IP address") from None
    elif not all(part and (part.replace("-", "").isalnum()) for part in host.split(".")):
        raise argparse.ArgumentTypeError(f"{text!r}: {host!r} is not a host name or an IP address")
    return host, int(port_text)


def serve_tcp(server: PlaybookServer, host: str, port: int) -> int:
    """Serve the first client that connects; refuse the others while it is connected. 1 (with a
    message) when the address cannot be listened on."""
    from threading import Event

    from pygls.io_ import run_async

    server._stop_event = Event()
    connected = False

    async def main() -> None:
        done = asyncio.get_running_loop().create_future()

        async def connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            nonlocal connected
            if connected:
                await _refuse(reader, writer, f"{host}:{port}")
                return
            connected = True
            server.protocol.set_writer(writer)  # type: ignore[arg-type]
            try:
                await run_async(stop_event=server._stop_event, reader=reader, protocol=server.protocol,
                                logger=log, error_handler=server.report_server_error)
            finally:
                if not done.done():
                    done.set_result(None)

        listener = await asyncio.start_server(connection, host, port)
        log.info("listening on %s:%s", host, port)
        async with listener:
            await done

    try:
        asyncio.run(main())
    except OSError as exc:
        print(f"playbook-ls: error: cannot listen on {host}:{port}: {exc.strerror or exc}: "
              "choose another address or port", file=sys.stderr)
        return 1
    finally:
        server.shutdown()
    return 0


async def _refuse(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, address: str) -> None:
    """Answer the refused client's first request with an error saying why, then hang up."""
    message = (f"playbook-ls on {address} already serves another client, and a server serves one: start "
               "another with `playbook-ls serve --tcp HOST:PORT` on a free port (or over stdio)")
    log.warning("a second client connected to %s: refused", address)
    try:
        msg_id = await asyncio.wait_for(_first_request_id(reader), REFUSAL_READ_SECONDS)
        if msg_id is not None:
            body = json.dumps({"jsonrpc": "2.0", "id": msg_id,
                               "error": {"code": -32600, "message": message}}).encode()
            writer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
            await writer.drain()
    except (TimeoutError, OSError, ValueError, asyncio.IncompleteReadError):
        pass  # it sent nothing to answer, or went away: closing is the refusal
    finally:
        writer.close()


async def _first_request_id(reader: asyncio.StreamReader) -> Any:
    length = 0
    while True:
        line = await reader.readline()
        if not line:
            return None
        if not line.strip():
            break
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":", 1)[1])
    if not 0 < length <= 1 << 20:
        return None
    message = json.loads(await reader.readexactly(length))
    return message.get("id") if isinstance(message, dict) else None
