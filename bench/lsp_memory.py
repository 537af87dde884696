"""The language server's memory over rounds of paced edits: does it plateau?

    python bench/lsp_memory.py REPO [--rounds 3] [--edits 1000] [--workload edits] [--trace]

Starts ``playbook-ls serve`` over stdio from this checkout on REPO, waits for its index and for it
to be idle (past the pause after which it collects and hands freed memory back), and takes its RSS
(VmRSS) as the fresh figure. Then each round makes ``--edits`` paced edits to role task files,
with requests between them, waits until the server is idle and prints its RSS and the ratio to the
fresh figure; after the last round, the RSS after ``--idle`` more seconds.

An edit is a real one, whole text (``didChange``): a task added at the end of the file (a distinct
name, module argument, ``when`` and ``tags`` each time), its ``when`` changed, its tags changed, the
task removed. Workloads (``--workload``, a comma-separated list, mixed edit by edit):

- ``edits``: edits to a few files opened once, each followed by hovers on the new task's name,
  module, variable and ``when`` (the workload the issue measured);
- ``files``: each edit in another file of many, opened before it and closed after it;
- ``features``: ``edits``, each also followed by code lenses, inlay hints, completion, document
  symbols, folding ranges, definition and references on the file.

``--heap`` runs the server through ``bench/traced_serve.py`` and, after each round, prints what
Python's allocator holds (live blocks and bytes, arenas) and the object types whose count grew (a
full collection before each count). ``--trace`` adds ``tracemalloc``, started after the fresh
figure: the allocation sites that grew most since the previous round. Tracing slows the server
several times over: use it with fewer edits."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

from lsp_client import Client, rss_kb
from lsp_workload import capabilities, text_document

ROOT = Path(__file__).resolve().parent.parent
INDEX_TIMEOUT = 900.0
IDLE_QUIET = 2.0  # seconds of (nearly) no CPU: longer than the server's COLLECT_AFTER_IDLE


def task_files(repo: Path, count: int, pattern: str, spread: bool = True) -> list[Path]:
    """``count`` files matching ``pattern`` with at least one task, spread over them or the first ones."""
    files = [p for p in sorted(repo.glob(pattern)) if "\n- name:" in "\n" + _read(p)]
    step = max(1, len(files) // max(count, 1)) if spread else 1
    return files[::step][:count]


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except (OSError, UnicodeDecodeError):
        return ""


class Edited:
    """One file's text as the bench edits it: the original, then a task added, changed and removed."""

    def __init__(self, path: Path) -> None:
        self.path, self.original = path, _read(path).rstrip("\n") + "\n"
        self.uri = path.as_uri()
        self.version = 1
        self.step = 0
        self.text = self.original

    def next(self, serial: int) -> str:
        kind = self.step % 4
        self.step += 1
        self.version += 1
        if kind == 3:
            self.text = self.original
            return self.text
        when = f"bench_flag_{serial} | bool" if kind != 1 else f"bench_other_{serial} is defined"
        tags = f"[bench_{serial}]" if kind != 2 else f"[bench_{serial}, bench_more]"
        self.text = (self.original + f"\n- name: Bench task {serial}\n  ansible.builtin.debug:\n"
                     f'    msg: "{{{{ bench_var_{serial} }}}}"\n  when: {when}\n  tags: {tags}\n')
        return self.text

    def added_line(self) -> int:
        """The line of the added task's ``- name:`` (the line after the original text's blank line)."""
        return self.original.count("\n") + 1


def position(uri: str, line: int, character: int) -> dict[str, Any]:
    return {"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}


ANSWERED = [0, 0]  # requests answered with something, requests sent


async def ask(client: Client, method: str, params: dict[str, Any]) -> None:
    ANSWERED[0] += bool(await client.request(method, params))
    ANSWERED[1] += 1


async def requests_after(client: Client, doc: Edited, features: bool) -> None:
    line = doc.added_line()
    if doc.text != doc.original:
        for at in ((line, 4), (line + 1, 4), (line + 2, 16), (line + 3, 10)):  # name, module, variable, when
            await ask(client, "textDocument/hover", position(doc.uri, *at))
    first = doc.original.split("\n").index(next(x for x in doc.original.split("\n") if x.startswith("- name:")))
    await ask(client, "textDocument/hover", position(doc.uri, first, 4))
    if not features:
        return
    whole = {"start": {"line": 0, "character": 0}, "end": {"line": doc.text.count("\n") + 1, "character": 0}}
    ident = {"textDocument": {"uri": doc.uri}}
    await ask(client, "textDocument/codeLens", ident)
    await ask(client, "textDocument/inlayHint", {**ident, "range": whole})
    await ask(client, "textDocument/documentSymbol", ident)
    await ask(client, "textDocument/foldingRange", ident)
    await ask(client, "textDocument/completion", position(doc.uri, line + 1, 4))
    await ask(client, "textDocument/definition", position(doc.uri, line + 2, 16))
    await ask(client, "textDocument/references", {**position(doc.uri, line + 2, 16),
                                                     "context": {"includeDeclaration": True}})


class Bench:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.repo: Path = args.repo.resolve()
        self.workloads = args.workload.split(",")
        self.serial = 0
        self.heap_dir = Path(tempfile.mkdtemp(prefix="pls-heap-")) if args.heap or args.trace else None
        self.dumps = 0
        self.previous_trace: Any = None
        self.previous_types: dict[str, int] = {}

    async def run(self) -> None:
        args = self.args
        argv = [sys.executable, str(ROOT / "bench" / "traced_serve.py")] if self.heap_dir else \
            [sys.executable, "-m", "playbook_ls", "serve"]
        env = {"PYTHONPATH": str(ROOT), "PLAYBOOK_LS_CACHE_DIR": str(args.cache_dir or tempfile.mkdtemp())}
        if self.heap_dir is not None:
            env |= {"PLAYBOOK_LS_HEAP_DUMP": str(self.heap_dir / "heap"),
                    "PLAYBOOK_LS_TRACE_FRAMES": str(args.frames if args.trace else 0)}
        folders = [{"uri": self.repo.as_uri(), "name": self.repo.name}]
        client = Client("playbook-ls", {"playbook-ls": {}}, folders)
        await client.start(argv, self.repo, env)
        try:
            await self.session(client)
        finally:
            await client.stop()
            if client.stderr_tail():
                print("server stderr (tail):", client.stderr_tail(), sep="\n")

    async def session(self, client: Client) -> None:
        args = self.args
        started = time.perf_counter()
        await client.request("initialize", {
            "processId": os.getpid(), "rootUri": self.repo.as_uri(), "capabilities": capabilities(),
            "workspaceFolders": [{"uri": self.repo.as_uri(), "name": self.repo.name}], "initializationOptions": {}})
        await client.notify("initialized", {})
        end = await client.wait_for(lambda: any(v.get("kind") == "end" for _, _, v in client.progress), INDEX_TIMEOUT)
        if not end:
            raise SystemExit(f"no index within {INDEX_TIMEOUT:g} s; stderr: {client.stderr_tail()}")
        kept = [Edited(p) for p in task_files(self.repo, args.files, args.glob, not args.first)]
        spread = [Edited(p) for p in task_files(self.repo, args.spread + len(kept), args.glob)
                  if p not in {doc.path for doc in kept}][:args.spread]
        for doc in kept:
            await client.notify("textDocument/didOpen", {"textDocument": text_document(doc.path, doc.text)})
        await client.wait_idle(quiet=IDLE_QUIET, timeout=INDEX_TIMEOUT)
        fresh = rss_kb(client.pid)
        print(f"repo {self.repo}: {len(kept)} files kept open, {len(spread)} opened in turn; workload "
              f"{args.workload}; indexed and idle in {time.perf_counter() - started:.0f} s", flush=True)
        print(f"fresh          RSS {fresh / 1024:6.0f} MB", flush=True)
        await self.heap(client)
        for number in range(1, args.rounds + 1):
            t0 = time.perf_counter()
            for _ in range(args.edits):
                await self.edit(client, kept, spread)
            busy = time.perf_counter() - t0
            await client.wait_idle(quiet=IDLE_QUIET, timeout=300)
            now = rss_kb(client.pid)
            print(f"round {number} ({number * args.edits:5d} edits) RSS {now / 1024:6.0f} MB  {now / fresh:4.2f}x "
                  f"fresh  ({busy:.0f} s, {ANSWERED[0]}/{ANSWERED[1]} requests answered)", flush=True)
            ANSWERED[:] = [0, 0]
            await self.heap(client)
        await asyncio.sleep(args.idle)
        now = rss_kb(client.pid)
        print(f"after {args.idle:g} s idle  RSS {now / 1024:6.0f} MB  {now / fresh:4.2f}x fresh", flush=True)
        for message in client.response_errors[:5] + client.messages[:5]:
            print("server said:", message)

    async def edit(self, client: Client, kept: list[Edited], spread: list[Edited]) -> None:
        self.serial += 1
        workload = self.workloads[self.serial % len(self.workloads)]
        if workload == "files":
            doc = spread[self.serial % len(spread)]
            doc.text = doc.original
            await client.notify("textDocument/didOpen", {"textDocument": text_document(doc.path, doc.text)})
        else:
            doc = kept[self.serial % len(kept)]
        await client.notify("textDocument/didChange", {"textDocument": {"uri": doc.uri, "version": doc.version + 1},
                                                       "contentChanges": [{"text": doc.next(self.serial)}]})
        await asyncio.sleep(self.args.pace)
        await requests_after(client, doc, workload == "features")
        if workload == "files":
            await client.notify("textDocument/didClose", {"textDocument": {"uri": doc.uri}})
        client.published.clear()  # what was published is not what is measured

    async def heap(self, client: Client) -> None:
        """With --trace: have the server dump its heap, and print what grew since the last dump."""
        if self.heap_dir is None:
            return
        self.dumps += 1
        base = self.heap_dir / f"heap.{self.dumps}"
        os.kill(client.pid, signal.SIGUSR1)
        deadline = time.monotonic() + 600
        while not Path(f"{base}.done").exists() and time.monotonic() < deadline and not client.dead:
            await asyncio.sleep(0.2)
        dumped = json.loads(Path(f"{base}.json").read_text())
        types, held = dumped["types"], dumped["allocator"]
        print(f"  Python allocator: {held.get('blocks', 0):,} blocks, {held.get('used_bytes', 0) / 2**20:.1f} MB used, "
              f"{held.get('free_bytes', 0) / 2**20:.1f} MB free in {held.get('arenas', 0):,} arenas "
              f"({held.get('arena_bytes', 0) / 2**20:.1f} MB)")
        if self.previous_types:
            grown = sorted(((n - self.previous_types.get(t, 0), t, n) for t, n in types.items()), reverse=True)[:15]
            print("  object types grown since the last dump:",
                  ", ".join(f"{t} +{d} ({n})" for d, t, n in grown if d > 0))
        self.previous_types = types
        trace = Path(f"{base}.trace")
        if not trace.exists():
            return
        snapshot = tracemalloc.Snapshot.load(str(trace))
        snapshot = snapshot.filter_traces([tracemalloc.Filter(False, tracemalloc.__file__)])
        if self.previous_trace is not None:
            for stat in snapshot.compare_to(self.previous_trace, "traceback")[:self.args.top]:
                if stat.size_diff <= 0:
                    break
                print(f"  +{stat.size_diff / 1024:8.0f} kB in {stat.count_diff:+d} blocks "
                      f"(now {stat.size / 1024:.0f} kB):")
                for line in stat.traceback.format(limit=self.args.frames, most_recent_first=True):
                    if line.strip().startswith("File"):
                        print("     ", line.strip())
        self.previous_trace = snapshot


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("repo", type=Path, help="the repository to index and edit (e.g. a debops checkout)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--edits", type=int, default=1000, help="edits per round")
    parser.add_argument("--pace", type=float, default=0.01, help="seconds between an edit and its requests")
    parser.add_argument("--workload", default="edits", help="edits, files, features, or a comma-separated mix")
    parser.add_argument("--files", type=int, default=3, help="files kept open and edited (edits, features)")
    parser.add_argument("--spread", type=int, default=200, help="files opened, edited and closed in turn (files)")
    parser.add_argument("--glob", default="roles/*/tasks/*.yml", help="the files edited, under REPO")
    parser.add_argument("--first", action="store_true", help="edit the first --files files, not files spread out")
    parser.add_argument("--idle", type=float, default=10.0, help="seconds idle after the last round")
    parser.add_argument("--cache-dir", type=Path, help="PLAYBOOK_LS_CACHE_DIR (default: a new temporary one)")
    parser.add_argument("--heap", action="store_true", help="print the allocator's figures and the types that grew")
    parser.add_argument("--trace", action="store_true", help="--heap, and the allocation sites that grew (slow)")
    parser.add_argument("--frames", type=int, default=6, help="frames of each allocation traced (--trace)")
    parser.add_argument("--top", type=int, default=12, help="allocation sites printed per round (--trace)")
    args = parser.parse_args()
    asyncio.run(Bench(args).run())


if __name__ == "__main__":
    main()
