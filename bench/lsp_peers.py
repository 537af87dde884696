"""The servers the LSP benchmark compares: playbook-ls and the peers it finds (the Ansible
language server, zals), how each is started, and the cost of importing pygls alone."""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


@dataclass
class Server:
    name: str
    argv: list[str]
    env: dict[str, str]
    version: str
    settings: dict[str, Any] = field(default_factory=dict)
    is_pls: bool = False


def find_executable(name: str, *dirs: Path | None) -> str | None:
    for directory in (*dirs, Path(sys.executable).parent):
        if directory is not None and os.access(directory / name, os.X_OK):
            return str(directory / name)
    return shutil.which(name)


def version_of(argv: list[str], env: dict[str, str]) -> str:
    try:
        proc = subprocess.run([*argv, "--version"], capture_output=True, text=True, env={**os.environ, **env},
                              timeout=60, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"? ({exc})"
    lines = (proc.stdout or proc.stderr).strip().splitlines()
    return lines[0] if lines else "?"


def peer_settings(peer_bin: Path | None) -> dict[str, Any]:
    """Validation and linting off; ansible from --peer-bin when it is there."""
    ansible = find_executable("ansible", peer_bin) if peer_bin else None
    python = find_executable("python3", peer_bin) if peer_bin else None
    return {"ansible": {
        "ansible": {"path": ansible or "ansible", "useFullyQualifiedCollectionNames": True},
        "validation": {"enabled": False, "lint": {"enabled": False}},
        "executionEnvironment": {"enabled": False},
        "python": {"interpreterPath": python or "", "activationScript": "",
                   **({"venvPath": str(peer_bin.parent)} if peer_bin else {})},
        "completion": {"provideRedirectModules": True, "provideModuleOptionAliases": True},
    }, "playbook-ls": {}}


def servers(args: argparse.Namespace) -> tuple[list[Server], list[str]]:
    found, notes = [], []
    if "PLAYBOOK_LS" in os.environ:
        pls, pls_env = shlex.split(os.environ["PLAYBOOK_LS"]), {}
    elif exe := find_executable("playbook-ls"):
        pls, pls_env = [exe], {}
    else:
        pls = [sys.executable, "-m", "playbook_ls"]
        pls_env = {"PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    found.append(Server("playbook-ls", [*pls, "serve"], pls_env, version_of(pls, pls_env), {"playbook-ls": {}},
                        is_pls=True))
    path_env = {"PATH": os.pathsep.join([str(args.peer_bin), os.environ.get("PATH", "")])} if args.peer_bin else {}
    settings = peer_settings(args.peer_bin)
    commands = [shlex.split(c) for c in args.als]
    commands += [[exe] for d in args.node_modules if (exe := find_executable("ansible-language-server", d / ".bin"))]
    if not commands and (exe := find_executable("ansible-language-server")):
        commands.append([exe])
    for als in commands:
        version = version_of(als, path_env)
        found.append(Server(f"ALS {version}", [*als, "--stdio"], path_env, version, settings))
    if not commands:
        notes.append("ansible-language-server: SKIPPED, not found (npm install --prefix DIR "
                     "@ansible/ansible-language-server, then --node-modules DIR/node_modules)")
    zals = shlex.split(args.zals) if args.zals else None
    if zals is None and (exe := find_executable("zals", args.peer_bin)):
        zals = [exe]
    if zals:
        in_venv = args.peer_bin is not None and (args.peer_bin.parent / "pyvenv.cfg").exists()
        venv = ["--venv", str(args.peer_bin.parent)] if in_venv else []
        found.append(Server("zals", [*zals, "--stdio", *venv], path_env, version_of(zals, path_env), settings))
    else:
        notes.append("zals: SKIPPED, not found (pip install zals into a venv, then --peer-bin VENV/bin)")
    if args.only:
        found = [s for s in found if s.name in args.only or s.name.split()[0] in args.only]
    return found, notes


# --- trees and what is asked of them -----------------------------------------------------------------


def interpreter_of(argv: list[str]) -> str:
    """The Python that runs a command: its script's shebang, else this one."""
    try:
        with open(shutil.which(argv[0]) or argv[0], "rb") as script:
            first = script.readline().decode(errors="replace")
    except OSError:
        return sys.executable
    return first[2:].strip().split()[0] if first.startswith("#!") and "python" in first else sys.executable


def import_floor(server: Server, repeats: int = 3) -> float:
    """Seconds to start the server's Python and import pygls and lsprotocol, nothing else (best
    of ``repeats``): what answering initialize costs a pygls server before any code of its own."""
    argv = [interpreter_of(server.argv), "-c", "import lsprotocol.types, pygls.lsp.server"]
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        subprocess.run(argv, check=False, capture_output=True, env={**os.environ, **server.env})
        times.append(time.perf_counter() - started)
    return min(times)
