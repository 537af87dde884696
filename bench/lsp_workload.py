"""What the LSP benchmark does in one session: the files and tasks it hovers, the edits it
makes, and the timings of one server on one tree."""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from check import tree_stats
from lsp_client import Client, ServerDied
from lsp_peers import Server

PROGRESS_END_TIMEOUT = 120.0
READY_TIMEOUT = 90.0
PEER_DIAGNOSTICS_TIMEOUT = 3.0
PLS_DIAGNOSTICS_TIMEOUT = 20.0
EDIT_TASK = '- name: Bench edit\n  ansible.builtin.debug:\n    msg: bench\n  when: "{{ x }}"\n'
TASK_NAME = re.compile(r"^(\s*)- name:")
VARIABLE = re.compile(r"\{\{\s*([A-Za-z_]\w*)")
IMPORT_LINE = re.compile(r"import_tasks:\s*(\S+\.yml)\s*$", re.MULTILINE)


def count_tasks(tree: Path) -> int | None:
    """Tasks as gen_repo (and bench/check.py) counts them; None without PyYAML (ansible-core brings it)."""
    try:
        return tree_stats(tree)["tasks"]
    except ImportError:
        return None


def task_files(tree: Path) -> list[Path]:
    """Role task files and playbooks (the top-level YAML files but site.yml)."""
    roles = sorted(tree.glob("roles/*/tasks/**/*.yml"))
    books = sorted(p for p in tree.glob("*.yml") if p.name != "site.yml")
    return roles + books + sorted(tree.glob("tasks/*.yml"))


@dataclass(frozen=True)
class Target:
    path: Path
    line: int
    character: int


@dataclass
class Plan:
    deep: Target  # a task of a role file imported from another imported role file
    deep_text: str
    hovers: list[Target]  # the `name` keys of tasks
    module_hovers: list[Target]  # the module keys of the same tasks
    files: list[Path]  # opened before hovering
    variable_hovers: list[Target] = field(default_factory=list)  # variables in {{ }} of the same files


TASK_KEYWORDS = set("""name when tags register loop loop_control notify become become_user changed_when failed_when
    ignore_errors retries until delay vars args with_items with_dict listen delegate_to run_once no_log environment
    check_mode any_errors_fatal diff throttle timeout collections module_defaults""".split())


def entry_keys(lines: list[str], number: int) -> dict[str, Target]:
    """The keys of the sequence entry (a mapping) that starts at ``lines[number]`` with `- key:`, with
    the position of each key (the key's second character)."""
    indent = len(lines[number]) - len(lines[number].lstrip(" ")) + 2
    first = lines[number][indent:].split(":", 1)[0]
    keys = {first: Target(Path(), number, indent + 1)}
    for at, line in enumerate(lines[number + 1:], number + 1):
        stripped = line.lstrip(" ")
        if not stripped or stripped.startswith("#"):
            continue
        here = len(line) - len(stripped)
        if here < indent:
            break
        if here == indent:
            keys.setdefault(stripped.split(":", 1)[0], Target(Path(), at, indent + 1))
    return keys


def task_lines(path: Path, playbook: bool) -> list[tuple[Target, Target | None]]:
    """The `- name:` lines of tasks in ``path`` with their module keys, neither blocks nor static imports
    (which are no tasks of their own once resolved); in a playbook, not the plays (unindented)."""
    lines = path.read_text().splitlines()
    found = []
    for number, line in enumerate(lines):
        m = TASK_NAME.match(line)
        if not m or (playbook and not m.group(1)):
            continue
        keys = entry_keys(lines, number)
        if "block" in keys or any(k.endswith(("import_tasks", "import_role", "import_playbook")) for k in keys):
            continue
        module = next((Target(path, t.line, t.character) for k, t in keys.items() if k not in TASK_KEYWORDS), None)
        found.append((Target(path, number, line.index("name") + 1), module))
    return found


def make_plan(tree: Path, hovers: int, seed: int) -> Plan:
    rng = random.Random(seed)
    candidates = []
    for role_tasks in sorted(tree.glob("roles/*/tasks")):
        for imported in sorted(role_tasks.glob("**/*.yml")):
            if imported.name == "main.yml":
                continue
            for target in IMPORT_LINE.findall(imported.read_text()):
                path = role_tasks / target
                if "/" in target and path.exists() and task_lines(path, False):
                    candidates.append(path)
    if not candidates:
        candidates = [p for p in sorted(tree.glob("roles/*/tasks/main.yml")) if task_lines(p, False)]
    deep_path = candidates[len(candidates) // 2]
    deep = task_lines(deep_path, False)[0][0]
    pool = [p for p in task_files(tree) if p != deep_path]
    files = rng.sample(pool, min(len(pool), max(1, hovers // 5)))
    entries = {path: task_lines(path, path.parent == tree) for path in files}
    chosen: list[tuple[Target, Target | None]] = []
    for path in files:
        chosen += rng.sample(entries[path], min(len(entries[path]), 5))
    while len(chosen) < hovers and any(entries.values()):
        chosen.append(rng.choice(entries[rng.choice([p for p in files if entries[p]])]))
    chosen = chosen[:hovers]
    rng.shuffle(chosen)
    variables = [Target(path, number, m.start(1) + 1) for path in files
                 for number, line in enumerate(path.read_text().splitlines())
                 for m in VARIABLE.finditer(line)]
    variables = rng.sample(variables, min(len(variables), hovers))
    return Plan(deep, deep_path.read_text(), [n for n, _ in chosen], [m for _, m in chosen if m],
                [deep_path, *files], variables)


# --- one session ---------------------------------------------------------------------------------------


@dataclass
class Session:
    init: float = float("nan")  # s, spawn -> initialize response
    ready: float = float("nan")  # s, initialized -> indexed (or first non-null hover)
    ready_how: str = ""
    ready_from_spawn: float = float("nan")
    settle: float = float("nan")  # s, didOpen of the hovered files -> no CPU
    hovers: list[float] = field(default_factory=list)  # s each
    hovers_answered: int = 0
    module_hovers: list[float] = field(default_factory=list)
    module_hovers_answered: int = 0
    variable_hovers: list[float] = field(default_factory=list)
    variable_hovers_answered: int = 0
    diagnostics: list[float] = field(default_factory=list)  # s each
    diagnostics_how: str = ""
    rss_kb: int = 0
    tree_rss_kb: int = 0
    cpu: float = 0.0
    errors: list[str] = field(default_factory=list)


def capabilities() -> dict[str, Any]:
    return {
        "workspace": {"configuration": True, "workspaceFolders": True, "didChangeConfiguration": {},
                      "didChangeWatchedFiles": {"dynamicRegistration": True}},
        "textDocument": {
            "synchronization": {"didSave": True, "dynamicRegistration": True},
            "hover": {"contentFormat": ["markdown", "plaintext"]},
            "publishDiagnostics": {"relatedInformation": True, "codeDescriptionSupport": True},
            "documentSymbol": {"hierarchicalDocumentSymbolSupport": True},
            "completion": {"completionItem": {"snippetSupport": True}},
        },
        "window": {"workDoneProgress": True, "showMessage": {}},
        "general": {"positionEncodings": ["utf-16"]},
    }


def text_document(path: Path, text: str, version: int = 1) -> dict[str, Any]:
    return {"uri": path.as_uri(), "languageId": "ansible", "version": version, "text": text}


def answered(hover: Any) -> bool:
    """A hover with an answer: not null, and not playbook-ls's notice that it is still indexing
    the workspace (which it gives instead of null until the file is indexed)."""
    if not hover:
        return False
    contents = hover.get("contents") if isinstance(hover, dict) else None
    return "indexing the workspace" not in str(contents.get("value") if isinstance(contents, dict) else contents)


def hover_params(target: Target) -> dict[str, Any]:
    return {"textDocument": {"uri": target.path.as_uri()},
            "position": {"line": target.line, "character": target.character}}


async def session(server: Server, tree: Path, plan: Plan, args: argparse.Namespace, cache: Path) -> Session:
    out = Session()
    folders = [{"uri": tree.as_uri(), "name": tree.name}]
    client = Client(server.name, server.settings, folders)
    env = {**server.env, "PLAYBOOK_LS_CACHE_DIR": str(cache)} if server.is_pls else server.env
    caps = capabilities()
    if server.is_pls and args.no_progress:
        caps["window"]["workDoneProgress"] = False
    spawned = time.perf_counter()
    await client.start(server.argv, tree, env)
    try:
        await client.request("initialize", {
            "processId": os.getpid(), "rootUri": tree.as_uri(), "rootPath": str(tree), "capabilities": caps,
            "workspaceFolders": folders, "initializationOptions": server.settings,
            "clientInfo": {"name": "playbook-ls-bench", "version": "1"}, "trace": "off"})
        out.init = time.perf_counter() - spawned
        await client.notify("initialized", {})
        started = time.perf_counter()
        if server.is_pls and not args.no_progress:
            end = await client.wait_for(lambda: next((at for at, _, v in client.progress if v.get("kind") == "end"),
                                                     None), PROGRESS_END_TIMEOUT)
            if end is not None:
                out.ready, out.ready_how = end - started, "$/progress end"
        await client.notify("textDocument/didOpen", {"textDocument": text_document(plan.deep.path, plan.deep_text)})
        if out.ready != out.ready:  # NaN: poll a hover on the deep task
            deadline = started + READY_TIMEOUT
            while time.perf_counter() < deadline:
                if answered(await client.request("textDocument/hover", hover_params(plan.deep))):
                    out.ready, out.ready_how = time.perf_counter() - started, "first answered hover (deep task)"
                    break
                await asyncio.sleep(0.01)
            else:
                out.ready_how = f"hover on the deep task still unanswered after {READY_TIMEOUT:g} s"
        elif not answered(await client.request("textDocument/hover", hover_params(plan.deep))):
            out.errors.append("hover on the deep task is null after the index")
        out.ready_from_spawn = out.ready + started - spawned
        await client.wait_idle()
        opened = time.perf_counter()
        for path in plan.files[1:]:
            await client.notify("textDocument/didOpen", {"textDocument": text_document(path, path.read_text())})
        out.settle = time.perf_counter() - opened + await client.wait_idle()

        for target in plan.hovers:
            t0 = time.perf_counter()
            result = await client.request("textDocument/hover", hover_params(target))
            out.hovers.append(time.perf_counter() - t0)
            out.hovers_answered += answered(result)
        for target in plan.module_hovers:
            t0 = time.perf_counter()
            result = await client.request("textDocument/hover", hover_params(target))
            out.module_hovers.append(time.perf_counter() - t0)
            out.module_hovers_answered += answered(result)
        for target in plan.variable_hovers:
            t0 = time.perf_counter()
            result = await client.request("textDocument/hover", hover_params(target))
            out.variable_hovers.append(time.perf_counter() - t0)
            out.variable_hovers_answered += answered(result)

        out.diagnostics_how = "PLS105 published" if server.is_pls else "first publishDiagnostics for the file"
        await edits(client, server, plan, args.edits, out)
    except (ServerDied, TimeoutError) as exc:
        out.errors.append(f"{type(exc).__name__}: {exc}; stderr: {client.stderr_tail()}")
    finally:
        out.tree_rss_kb = client.tree_rss_peak_kb
        out.rss_kb, out.cpu = await client.stop()
        out.tree_rss_kb = max(out.tree_rss_kb, out.rss_kb)
        out.errors += [f"response error: {e}" for e in client.response_errors[:5]]
        out.errors += [f"server said: {m}" for m in client.messages[:3]]
    return out


async def edits(client: Client, server: Server, plan: Plan, count: int, out: Session) -> None:
    """``count`` round trips on the deep file: add a task with `when: "{{ x }}"` (timed), then undo it."""
    uri = plan.deep.path.as_uri()
    timeout = PLS_DIAGNOSTICS_TIMEOUT if server.is_pls else PEER_DIAGNOSTICS_TIMEOUT
    version = 1
    for _ in range(count):
        for edited in (True, False):
            version += 1
            text = plan.deep_text.rstrip("\n") + "\n" + EDIT_TASK if edited else plan.deep_text
            client.published.pop(uri, None)
            sent = time.perf_counter()
            await client.notify("textDocument/didChange", {
                "textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]})

            def arrived(want: bool = edited) -> float | None:
                for p in client.published.get(uri, []):
                    if not server.is_pls or any(d.get("code") == "PLS105" for d in p.diagnostics) == want:
                        return p.at
                return None

            at = await client.wait_for(arrived, timeout)
            if at is None:
                if edited:
                    out.diagnostics_how += f" (none within {timeout:g} s)"
                    return
            elif edited:
                out.diagnostics.append(at - sent)
            await client.wait_idle(quiet=0.2, timeout=10)
