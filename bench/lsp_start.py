"""The language server's first seconds on a large workspace: how long after `initialized` a file
opened at once gets its first hover answered, and how long until the whole workspace is indexed.

Usage: python bench/lsp_start.py [--runs 3] [--workdir bench/out] [--roles 470] [--seed 1] [--tree DIR]
           [--open deep|playbook]

The tree is gen_repo.py's with --extras (470 roles: about 5,700 YAML files, generated under WORKDIR if
absent), or --tree DIR. Each session, timed on the client:
  1. spawn, initialize, then `initialized`; at once a didOpen of one file: a role task file imported
     from another imported file (--open deep, the default), or a playbook (--open playbook)
  2. a hover on a task's `name` in that file, repeated every 10 ms until it is answered (not null, not
     playbook-ls's notice that it is still indexing): the first hover
  3. the server's `$/progress` end for the index (the client announces window.workDoneProgress): the
     whole index. The hover is asked again then and must say the same as the first one.
  4. the session goes on until the server is idle (what it does after the index, such as storing the
     parses for the next start, is done), then shuts down.
The server's CPU time over 1 and 2 is shown too: on a busy machine it says more than the wall time.
Runs alternate cold (a new, empty cache directory: PLAYBOOK_LS_CACHE_DIR) and warm (the cache directory
of the cold run before it). The page cache is warm in both: the files were read by the previous run.
PLAYBOOK_LS overrides how playbook-ls is started, as for the other benchmarks.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from check import ensure_repo
from lsp_client import Client, cpu_seconds, load_average
from lsp_peers import Server, servers
from lsp_workload import Target, answered, capabilities, hover_params, make_plan, task_lines, text_document

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT = 120.0


@dataclass
class Start:
    first_hover: float = float("nan")  # s, initialized -> first non-null hover
    full_index: float = float("nan")  # s, initialized -> $/progress end
    first_hover_cpu: float = float("nan")  # the server's CPU seconds over the same spans
    full_index_cpu: float = float("nan")
    reports: int = 0  # $/progress report notifications
    same: bool = False  # the first hover says what the hover after the whole index says
    error: str = ""


def open_target(tree: Path, which: str, seed: int) -> Target:
    if which == "deep":
        return make_plan(tree, 5, seed).deep
    books = sorted(p for p in tree.glob("*.yml") if p.name != "site.yml")
    book = books[len(books) // 2]
    return next(target for target, _ in task_lines(book, True))


def hover_text(result: object) -> str:
    contents = result.get("contents") if isinstance(result, dict) else None
    return str(contents.get("value") if isinstance(contents, dict) else contents)


async def session(server: Server, tree: Path, target: Target, cache: Path) -> Start:
    out = Start()
    folders = [{"uri": tree.as_uri(), "name": tree.name}]
    client = Client(server.name, server.settings, folders)
    await client.start(server.argv, tree, {**server.env, "PLAYBOOK_LS_CACHE_DIR": str(cache)})
    try:
        await client.request("initialize", {
            "processId": os.getpid(), "rootUri": tree.as_uri(), "rootPath": str(tree), "capabilities": capabilities(),
            "workspaceFolders": folders, "initializationOptions": server.settings})
        await client.notify("initialized", {})
        started, cpu = time.perf_counter(), cpu_seconds([client.pid])
        opened = text_document(target.path, target.path.read_text())
        await client.notify("textDocument/didOpen", {"textDocument": opened})
        first = None
        while time.perf_counter() - started < TIMEOUT:
            first = await client.request("textDocument/hover", hover_params(target), timeout=TIMEOUT)
            if answered(first):
                out.first_hover, out.first_hover_cpu = time.perf_counter() - started, cpu_seconds([client.pid]) - cpu
                break
            await asyncio.sleep(0.01)
        end = await client.wait_for(lambda: next((at for at, _, v in client.progress if v.get("kind") == "end"),
                                                 None), TIMEOUT)
        if end is not None:
            out.full_index, out.full_index_cpu = end - started, cpu_seconds([client.pid]) - cpu
        out.reports = sum(1 for _, _, v in client.progress if v.get("kind") == "report")
        after = await client.request("textDocument/hover", hover_params(target))
        out.same = bool(first) and hover_text(first) == hover_text(after)
        await client.wait_idle(quiet=0.5, timeout=TIMEOUT)  # as in an editor: what it does once idle is done
    except Exception as exc:  # noqa: BLE001 - a failed session is reported, the others still run
        out.error = f"{type(exc).__name__}: {exc}; stderr: {client.stderr_tail()}"
    finally:
        await client.stop()
    return out


def fmt(values: list[float]) -> str:
    values = [v for v in values if v == v]
    return f"{statistics.median(values):.2f}" if values else "n/a"


async def amain(args: argparse.Namespace) -> None:
    args.peer_bin, args.node_modules, args.als, args.zals, args.only = None, [], [], None, ["playbook-ls"]
    server = servers(args)[0][0]
    tree = args.tree.resolve() if args.tree else ensure_repo(args.workdir, args.roles, args.seed).resolve()
    target = open_target(tree, args.open, args.seed)
    files = sum(1 for _ in tree.rglob("*.y*ml"))
    print(f"{tree}: {files} YAML files; opened {target.path.relative_to(tree)}, hover at line {target.line + 1}")
    print(f"load average at start: {load_average()} ({os.cpu_count()} CPUs)")
    results: dict[str, list[Start]] = {"cold": [], "warm": []}
    with tempfile.TemporaryDirectory(prefix="playbook-ls-start-bench-") as scratch:
        for run in range(args.runs):
            cache = Path(scratch) / f"cache-{run}"
            for kind in ("cold", "warm"):
                result = await session(server, tree, target, cache)
                results[kind].append(result)
                print(f"  run {run + 1} {kind}: first hover {result.first_hover:.2f} s ({result.first_hover_cpu:.2f} s "
                      f"CPU), whole index {result.full_index:.2f} s ({result.full_index_cpu:.2f} s CPU), "
                      f"{result.reports} progress reports, first hover "
                      f"{'same as' if result.same else 'DIFFERS from'} the one after the index "
                      f"(load average {load_average()}){'; ' + result.error if result.error else ''}", flush=True)
    print("\n| cache | first hover (s) | its CPU (s) | whole index (s) | its CPU (s) | runs |")
    print("|---|---|---|---|---|---|")
    for kind, runs in results.items():
        print(f"| {kind} | {fmt([r.first_hover for r in runs])} | {fmt([r.first_hover_cpu for r in runs])} | "
              f"{fmt([r.full_index for r in runs])} | {fmt([r.full_index_cpu for r in runs])} | {len(runs)} |")
    print("\nmedians, from initialized (CPU: the server's); targets: first hover < 1 s, whole index < 3 s on a "
          "5,000-file workspace")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=3, help="cold+warm pairs of sessions (default 3)")
    ap.add_argument("--workdir", type=Path, default=ROOT / "bench" / "out")
    ap.add_argument("--roles", type=int, default=470, help="roles of the generated tree (default 470)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--tree", type=Path, help="an existing repository instead of the generated tree")
    ap.add_argument("--open", choices=("deep", "playbook"), default="deep",
                    help="the file opened and hovered: a deeply imported role task file, or a playbook")
    asyncio.run(amain(ap.parse_args()))


if __name__ == "__main__":
    main()
