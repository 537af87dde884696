"""`playbook-ls vars` against ansible-core's own variable manager on public repositories.

Usage: python bench/vars_realworld.py REPO_DIR [REPO_DIR ...] [--ansible-python PY] [--jobs 2] [--timeout 240]
                                      [--max-playbooks 12] [--tasks 15] [--hosts 1] [--max-values 300]
                                      [--examples 3] [--workdir bench/out/vars-realworld] [--json FILE]

For each (task, host, variable) of a sample, the value ansible-core 2.19 gives the task (its VariableManager's
``get_vars`` for the play, host and task, each value then rendered by its Templar, nothing executed) is compared
with the value ``playbook-ls vars`` computes statically (engine.variables.report.variables_at), value and type. Each
playbook runs in two child processes, one per tool, with a timeout. bench/README.md says more.

The same file is the two children: ``--oracle SPEC`` (run with the reference ansible's Python) and ``--ours SPEC``
(run with playbook-ls's Python); each reads a JSON spec and writes a JSON result.
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import traceback
from collections import Counter, defaultdict
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

# magic and option variables compared besides the project's own (a few at each task, in turn)
MAGIC_COMPARED = (
    "role_name", "ansible_role_name", "role_path", "ansible_play_name", "playbook_dir", "inventory_hostname",
    "inventory_hostname_short", "group_names", "ansible_check_mode", "ansible_diff_mode", "ansible_play_hosts",
    "ansible_play_batch", "ansible_play_hosts_all", "ansible_play_role_names", "ansible_role_names",
    "ansible_parent_role_names", "ansible_collection_name", "inventory_dir", "inventory_file", "ansible_run_tags",
    "ansible_skip_tags", "ansible_verbosity", "ansible_forks", "play_hosts", "groups",
)
MAGIC_PER_TASK = 3
# set by ansible itself (or a run), never compared as the project's variables
NOT_PROJECT = frozenset({
    "hostvars", "omit", "vars", "environment", "ansible_facts", "ansible_local", "ansible_version",
    "ansible_playbook_python", "ansible_config_file", "ansible_search_path", "role_uuid", "ansible_loop_var",
    "ansible_index_var", "ansible_loop", "item", "ansible_dependent_role_names", "role_names",
})
# ansible sets these on the implicit localhost (its own Python): not the project's
IMPLICIT_LOCALHOST = frozenset({"ansible_python_interpreter", "ansible_connection"})
MAX_CANON = 20000
LOOKUP = re.compile(r"\b(lookup|query|q)\s*\(")


# ---------------------------------------------------------------- shared by both children (stdlib only)


class Unknown(Exception):
    """A value that cannot be told statically on this side."""


def canon(value: Any) -> str:
    """The value as text that tells types apart (1, 1.0, "1", true differ); mappings in key order."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(int(value))
    if isinstance(value, float):
        return repr(float(value))
    if isinstance(value, str):
        return json.dumps(str(value), ensure_ascii=False)
    if isinstance(value, bytes):
        return "b" + json.dumps(value.decode("utf-8", "replace"), ensure_ascii=False)
    if isinstance(value, Mapping):
        items = sorted((canon(k), canon(v)) for k, v in value.items())
        return "{" + ", ".join(f"{k}: {v}" for k, v in items) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(canon(v) for v in value) + "]"
    if isinstance(value, (set, frozenset)):
        return "set[" + ", ".join(sorted(canon(v) for v in value)) + "]"
    if isinstance(value, (datetime.date, datetime.datetime)):
        return f"{type(value).__name__}({value.isoformat()})"
    name = type(value).__name__
    if "Undefined" in name or "Marker" in name:
        raise Unknown(f"undefined inside the value ({name})")
    return f"<{name}: {value!s}>"


def stored(text: str) -> dict[str, Any]:
    """A canonical value as kept in the results: whole when short, else its hash and a prefix."""
    if len(text) <= MAX_CANON:
        return {"canon": text}
    return {"canon": "sha256:" + hashlib.sha256(text.encode()).hexdigest(), "shown": text[:300] + "…"}


def picked(task_key: str, name: str, rate: float) -> bool:
    """Whether ``name`` is in the sample at this task: the same rule on both sides, so the union of the names
    either tool defines is sampled alike."""
    if rate >= 1:
        return True
    digest = hashlib.sha256(f"{task_key}\0{name}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2 ** 64 < rate


def spread(items: list[Any], limit: int) -> list[Any]:
    if limit <= 0 or len(items) <= limit:
        return list(items)
    return [items[index * len(items) // limit] for index in range(limit)]


def _raw_mentions_lookup(value: Any) -> bool:
    if isinstance(value, str):
        return "{" in value and LOOKUP.search(value) is not None
    if isinstance(value, Mapping):
        return any(_raw_mentions_lookup(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(_raw_mentions_lookup(v) for v in value)
    return False


# ---------------------------------------------------------------- the oracle child (ansible-core's Python)


def oracle(spec: dict[str, Any]) -> dict[str, Any]:
    """ansible-core's variables at a sample of the playbook's tasks, without running anything: the CLI's set-up
    (options, plugin loader, DataLoader, InventoryManager, VariableManager), then PlaybookExecutor's loop over the
    plays in listing mode, and for each task what the strategy asks of ``get_vars`` before running it."""
    from ansible._internal._templating._engine import TemplateEngine
    from ansible.cli import CLI
    from ansible.cli.playbook import PlaybookCLI
    from ansible.errors import AnsibleError
    from ansible.executor.playbook_executor import PlaybookExecutor
    from ansible.playbook import Playbook
    from ansible.plugins import loader as plugin_loader
    from ansible.template import Templar
    from ansible.utils.collection_loader import AnsibleCollectionConfig

    def no_lookup(*_args: Any, **_kwargs: Any) -> Any:
        raise AnsibleError("harness: lookups are not run")

    plugin_loader.lookup_loader.get = no_lookup  # nothing is executed to know a value

    argv = ["ansible-playbook", "--list-tasks", *spec["inventory_args"], spec["playbook"]]
    cli = PlaybookCLI(argv)
    CLI.run(cli)  # options parsed into context.CLIARGS, plugin loader initialised
    playbook_dir = os.path.dirname(os.path.abspath(spec["playbook"]))
    plugin_loader.add_all_plugin_dirs(playbook_dir.encode())
    AnsibleCollectionConfig.playbook_paths = [playbook_dir.encode()]
    loader, inventory, manager = cli._play_prereqs()
    executor = PlaybookExecutor(playbooks=[spec["playbook"]], inventory=inventory, variable_manager=manager,
                                loader=loader, passwords={})
    book = Playbook.load(spec["playbook"], variable_manager=manager, loader=loader)
    magic_base = set(NOT_PROJECT) | set(getattr(manager, "_options_vars", {}) or {})

    # every task of every play first, so that the sample spreads over the playbook
    plays = []
    for index, play in enumerate(book.get_plays()):
        loader.set_basedir(play._included_path if play._included_path is not None else book._basedir)
        inventory.remove_restriction()
        all_vars = manager.get_vars(play=play)
        engine = TemplateEngine(loader=loader, variables=all_vars)
        play.vars_prompt = engine.template(play.vars_prompt)
        for prompt in play.vars_prompt or []:
            if prompt["name"] not in manager.extra_vars:
                play.vars[prompt["name"]] = prompt.get("default")
        all_vars = manager.get_vars(play=play)
        play.post_validate(TemplateEngine(loader=loader, variables=all_vars))
        batches = executor._get_serialized_batches(play)
        if not batches or not batches[0]:
            plays.append({"index": index, "name": play.get_name(), "hosts": [], "tasks": 0})
            continue
        inventory.restrict_to_hosts(batches[0])
        hosts = [h.name for h in inventory.get_hosts(play.hosts, order=play.order)]
        pattern = play.hosts or "all"
        hosts_all = [h.name for h in inventory.get_hosts(pattern=pattern, ignore_restrictions=True)]
        inventory.remove_restriction()
        tasks: list[tuple[Any, bool, int]] = []
        seen: Counter[tuple[bool, str]] = Counter()
        _walk(play.compile(), False, tasks, seen)
        try:
            _walk(play.compile_roles_handlers() + play.handlers, True, tasks, seen)
        except AnsibleError:
            pass
        plays.append({"index": index, "name": play.get_name(), "hosts": hosts[: spec["hosts"]],
                      "tasks": len(tasks), "_play": play, "_tasks": spread(tasks, spec["tasks"]),
                      "_hosts": hosts, "_hosts_all": hosts_all,
                      "_basedir": play._included_path if play._included_path is not None else book._basedir})
    # at most one probe (task, host) per 4 values: the probes spread over the playbook's plays
    triples = [(entry, task, handler, occurrence, host) for entry in plays if "_play" in entry
               for task, handler, occurrence in entry["_tasks"] for host in entry["hosts"]]
    triples = spread(triples, max(1, spec["values"] // 4))
    per_probe = spec["values"] / max(1, len(triples))
    magic_count = MAGIC_PER_TASK if per_probe >= 6 else 1
    quota = max(1.0, per_probe - magic_count)
    probes = []
    turn = 0
    for entry, task, handler, occurrence, host_name in triples:
        play = entry["_play"]
        loader.set_basedir(entry["_basedir"])
        path, _, line = task.get_path().rpartition(":")
        host = inventory.get_host(host_name)
        probe: dict[str, Any] = {"play": entry["index"], "play_name": entry["name"], "host": host_name,
                                 "path": os.path.realpath(path), "line": int(line or 0),
                                 "task": task.get_name(), "handler": handler, "occurrence": occurrence,
                                 "implicit": bool(getattr(host, "implicit", False)), "values": {}}
        probes.append(probe)
        try:
            all_vars = manager.get_vars(play=play, host=host, task=task, _hosts=entry["_hosts"],
                                        _hosts_all=entry["_hosts_all"])
            magic = magic_base | set(manager._get_magic_variables(play, host, task, True, entry["_hosts"],
                                                                    entry["_hosts_all"]))
            magic |= set(host.get_magic_vars())
        except Exception as exc:  # a broken variable file stops only this probe
            probe["error"] = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
            continue
        implicit = getattr(host, "implicit", False)
        project = sorted(n for n in all_vars if n not in magic
                         and not (implicit and n in IMPLICIT_LOCALHOST) and not n.startswith("ansible_facts"))
        key = f"{probe['play']}:{probe['path']}:{probe['line']}:{host_name}:{handler}#{occurrence}"
        rate = min(1.0, quota / max(1, len(project)))
        probe["key"], probe["rate"] = key, rate
        probe["defined"] = project
        chosen = [n for n in project if picked(key, n, rate)]
        for k in range(magic_count):
            chosen.append(MAGIC_COMPARED[(turn + k) % len(MAGIC_COMPARED)])
        turn += magic_count
        templar = Templar(loader=loader, variables=all_vars)
        for name in chosen:
            probe["values"][name] = _oracle_value(templar, all_vars, name)
    return {"plays": [{k: v for k, v in p.items() if not k.startswith("_")} for p in plays], "probes": probes}


def _walk(blocks: list[Any], handler: bool, tasks: list[tuple[Any, bool, int]],
          seen: Counter[tuple[bool, str]]) -> None:
    """The tasks of compiled blocks, in order, each with how many times its file and line came before (a file
    imported twice gives the same task twice, in two contexts)."""
    from ansible.playbook.block import Block

    for block in blocks:
        if isinstance(block, Block):
            _walk(block.block, handler, tasks, seen)
            _walk(block.rescue, handler, tasks, seen)
            _walk(block.always, handler, tasks, seen)
        elif not block.implicit and block._origin is not None:  # no position: nothing to match
            where = block.get_path()
            tasks.append((block, handler, seen[handler, where]))
            seen[handler, where] += 1


def _oracle_value(templar: Any, all_vars: Mapping[str, Any], name: str) -> dict[str, Any]:
    if name not in all_vars:
        return {"undefined": True}
    raw = all_vars[name]
    result: dict[str, Any] = {}
    try:
        result["raw"] = stored(canon(raw))["canon"]
    except Unknown:
        pass
    if _raw_mentions_lookup(raw):
        return {**result, "unknown": "calls a lookup"}
    try:
        value = templar.template(raw)
        return {**result, **stored(canon(value))}
    except Unknown as exc:
        return {**result, "unknown": str(exc)}
    except RecursionError:
        return {**result, "unknown": "recursion"}
    except Exception as exc:
        text = str(exc).splitlines()[0] if str(exc) else ""
        return {**result, "unknown": f"{type(exc).__name__}: {text[:200]}"}


# ---------------------------------------------------------------- playbook-ls's child (its own Python)


def ours(spec: dict[str, Any]) -> dict[str, Any]:
    """playbook-ls's values at the oracle's probes: the same playbook, inventory and host, the task found by file
    and line; the names the oracle sampled, plus those only playbook-ls defines that the same rule samples."""
    from engine.flow.plan import PlanError, RunOptions, make_plan
    from engine.parsing.source import SourceCache
    from engine.variables.report import find_task, layers_at
    from engine.variables.sources import definitions
    from engine.variables.task_variables import variables_at

    inventory = spec["inventory_args"][1:] if spec["inventory_args"] else []
    options = RunOptions(playbook=spec["playbook"], inventory=inventory, extra_vars={})
    try:
        plan = make_plan(options, SourceCache.for_command(), dynamic_inventory=False, select_tasks=False)
    except PlanError as exc:
        return {"error": f"PlanError: {exc}"}
    realpaths: dict[str, str] = {}
    out = []
    for probe in spec["probes"]:
        if "key" not in probe:
            continue
        found: dict[str, Any] = {"key": probe["key"], "values": {}, "extra": {}}
        out.append(found)
        candidates = [p for p in plan.plays if plan.plays.index(p) == probe["play"]] + list(plan.plays)
        task = play_plan = host = None
        for candidate in candidates:
            task = _find(candidate.play, probe, realpaths) or find_task(candidate.play, probe["path"],
                                                                         probe["line"] - 1, realpaths)
            if task is not None:
                play_plan = candidate
                host = next((h for h in candidate.hosts if h.name == probe["host"]), None)
                break
        if task is None or play_plan is None:
            found["error"] = "no task at this file and line"
            continue
        if host is None:
            found["error"] = f"host {probe['host']} not in our play's hosts"
            continue
        try:
            layers, magic = layers_at(plan, play_plan, host, task)
            defined = definitions(layers[:-1])  # the magic variables' layer is last
            ours_only = sorted(n for n, defs in defined.items() if n not in probe["defined"] and defs
                               and not defs[0].runtime and n not in magic and n not in NOT_PROJECT
                               and not n.startswith("ansible_facts")
                               and not (probe.get("implicit") and n in IMPLICIT_LOCALHOST)
                               and picked(probe["key"], n, probe["rate"]))
            names = list(dict.fromkeys([*probe["values"], *ours_only]))
            report = variables_at(plan, play_plan, host, task, names)
        except Exception:
            found["error"] = "traceback: " + traceback.format_exc().strip().splitlines()[-1][:300]
            found["traceback"] = traceback.format_exc()[-3000:]
            continue
        for name in names:
            resolved = report.variables.get(name)
            entry: dict[str, Any] = {}
            if resolved is None or not resolved.definitions:
                entry["undefined"] = True
            else:
                winner = resolved.definitions[0]
                entry["level"], entry["label"], entry["runtime"] = winner.level, winner.label, winner.runtime
                if winner.path:
                    entry["where"] = f"{os.path.relpath(winner.path, spec['repo'])}:" \
                                     f"{winner.line + 1 if winner.line is not None else '?'}"
                entry["levels"] = []
                for definition in resolved.definitions:
                    try:
                        entry["levels"].append([definition.level, stored(canon(_plain(definition.value)))["canon"]])
                    except Unknown:
                        entry["levels"].append([definition.level, None])
                if resolved.unknown:
                    entry["unknown"] = resolved.unknown[:300]
                    entry["runtime_dep"] = _reaches_runtime(resolved.definitions[0].value, defined)
                else:
                    try:
                        entry.update(stored(canon(resolved.value)))
                    except Unknown as exc:
                        entry["unknown"] = str(exc)
            (found["extra"] if name in ours_only else found["values"])[name] = entry
    return {"probes": out}


def _find(play: Any, probe: dict[str, Any], realpaths: dict[str, str]) -> Any:
    """The task (or handler) that starts at the probe's line, the same occurrence of it as ansible's (a file
    imported twice gives a task twice, in two contexts); tasks only an include loads are not in ansible's list."""
    from engine.variables.report import tasks_in_order

    real, line = os.path.realpath(probe["path"]), probe["line"] - 1

    def handlers() -> Any:
        def walk(blocks: list[Any]) -> Any:
            for block in blocks:
                for task in block.tasks():
                    yield task
                    yield from walk(task.children or [])
        return walk(play.handlers)

    matches = [task for task in (handlers() if probe.get("handler") else tasks_in_order(play))
               if task.span is not None and task.span.line == line and not task.dynamic
               and realpaths.setdefault(task.span.file, os.path.realpath(task.span.file)) == real]
    if not matches:
        return None
    return matches[min(probe.get("occurrence", 0), len(matches) - 1)]


IDENTIFIER = re.compile(r"[A-Za-z_]\w*")


def _reaches_runtime(value: Any, defined: Mapping[str, Any], limit: int = 2000) -> bool:
    """Whether a value's templates name, directly or through other variables, one that only the run sets
    (facts, set_fact, register, include_vars): then an unknown value is right, not a difference."""
    pending, seen = [value], set()
    while pending and len(seen) < limit:
        item = pending.pop()
        if isinstance(item, Mapping):
            pending.extend(item.values())
        elif isinstance(item, (list, tuple)):
            pending.extend(item)
        elif isinstance(item, str) and ("{{" in item or "{%" in item):
            for name in IDENTIFIER.findall(item):
                if name in seen:
                    continue
                seen.add(name)
                defs = defined.get(name)
                if defs:
                    if defs[0].runtime:
                        return True
                    pending.append(defs[0].value)
    return False


def _plain(value: Any) -> Any:
    from engine.variables.sources import RUNTIME_RESULT

    return None if value is RUNTIME_RESULT else value


# ---------------------------------------------------------------- the harness


def _first_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    errors = [line for line in lines if "ERROR" in line or "Error" in line]
    return (errors or lines or [""])[0][:300]


def run_child(python: str, mode: str, spec: dict[str, Any], cwd: Path, env: dict[str, str],
              timeout: float) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="pls-vars-") as scratch:
        spec_file, result_file = Path(scratch) / "spec.json", Path(scratch) / "result.json"
        spec_file.write_text(json.dumps(spec))
        start = time.perf_counter()
        try:
            proc = subprocess.run([python, str(Path(__file__).resolve()), mode, str(spec_file), str(result_file)],
                                  cwd=cwd, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                                  timeout=timeout, start_new_session=True)
        except subprocess.TimeoutExpired:
            return {"error": f"timed out after {timeout:g} s", "seconds": timeout}
        seconds = time.perf_counter() - start
        if result_file.is_file():
            result = json.loads(result_file.read_text())
            result["seconds"] = seconds
            return result
        return {"error": _first_line(proc.stderr or proc.stdout) or f"exit {proc.returncode}", "seconds": seconds,
                "stderr": proc.stderr[-3000:]}


def child_main(mode: str, spec_path: str, result_path: str) -> int:
    spec = json.loads(Path(spec_path).read_text())
    try:
        result = oracle(spec) if mode == "--oracle" else ours(spec)
    except BaseException as exc:  # noqa: BLE001 - anything the tool raises is its answer
        if isinstance(exc, KeyboardInterrupt):
            raise
        result = {"error": f"{type(exc).__name__}: {(str(exc).splitlines() or [''])[0][:300]}",
                  "traceback": traceback.format_exc()[-3000:]}
    Path(result_path).write_text(json.dumps(result))
    return 0


def _hosts_words(playbook: Path, seen: set[Path] | None = None) -> set[str]:
    """Group names the plays target (plain words of their ``hosts``), imported playbooks included."""
    from realworld import load_yaml

    seen = seen if seen is not None else set()
    if playbook in seen or not playbook.is_file():
        return set()
    seen.add(playbook)
    words: set[str] = set()
    data = load_yaml(playbook)
    for entry in data if isinstance(data, list) else []:
        if not isinstance(entry, dict):
            continue
        hosts = entry.get("hosts")
        for item in hosts if isinstance(hosts, list) else [hosts]:
            if isinstance(item, str) and "{" not in item:
                words |= {w for w in re.split(r"[\s:,&!]+", item) if re.fullmatch(r"[A-Za-z_][\w.-]*", w)}
        for key in ("import_playbook", "ansible.builtin.import_playbook", "include"):
            target = entry.get(key)
            if isinstance(target, str) and "{" not in target:
                words |= _hosts_words((playbook.parent / target).resolve(), seen)
    return words - {"all", "localhost", "ungrouped"}


def synthetic_inventory(playbook: Path, directory: Path) -> Path:
    """Two hosts, h1 and h2, in every group the plays name."""
    groups = sorted(_hosts_words(playbook))
    text = "h1\nh2\n" + "".join(f"\n[{group}]\nh1\nh2\n" for group in groups)
    digest = hashlib.sha256(text.encode()).hexdigest()[:12]
    path = directory / f"inventory-{digest}.ini"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def usable_configured_inventory(directory: Path) -> bool:
    """The ansible.cfg's inventory, if it names files or directories that exist and no script (ansible would run
    a script, playbook-ls vars does not)."""
    import configparser

    from realworld import configured_inventory

    if not configured_inventory(directory):
        return False
    parser = configparser.ConfigParser(interpolation=None, strict=False, inline_comment_prefixes=(";", "#"))
    parser.read(directory / "ansible.cfg", encoding="utf-8")
    value = parser.get("defaults", "inventory", fallback=None) or parser.get("defaults", "hostfile", fallback="")
    for entry in value.split(","):
        path = directory / os.path.expanduser(entry.strip())
        if path.is_file() and os.access(path, os.X_OK):
            return False
    return True


def role_wrapper(repo: Path, workdir: Path) -> Path | None:
    """A repository that is one role (tasks/main.yml at its root): a playbook that applies it to all hosts, the
    role installed beside it under its Galaxy name (``roles/NAME``, a link), as ``ansible-galaxy`` would."""
    from realworld import load_yaml

    if not (repo / "tasks" / "main.yml").is_file() and not (repo / "tasks" / "main.yaml").is_file():
        return None
    meta = load_yaml(repo / "meta" / "main.yml")
    info = meta.get("galaxy_info") if isinstance(meta, dict) else None
    name = info.get("role_name") if isinstance(info, dict) else None
    name = str(name) if name else re.sub(r"^ansible-role-", "", repo.name)
    directory = workdir / "roles" / repo.name
    (directory / "roles").mkdir(parents=True, exist_ok=True)
    link = directory / "roles" / name
    if link.is_symlink() or link.exists():
        link.unlink()
    link.symlink_to(repo, target_is_directory=True)
    path = directory / "role.yml"
    path.write_text(f"- name: {name}\n  hosts: all\n  roles:\n    - role: {name}\n")
    return path


def playbook_jobs(repo: Path, args: argparse.Namespace) -> list[dict[str, Any]]:
    from realworld import evenly, find_playbooks, run_directory

    repo = repo.resolve()
    wrapper = role_wrapper(repo, Path(args.workdir).resolve())  # its own playbooks are tests that need it installed
    playbooks = [wrapper] if wrapper is not None else evenly(find_playbooks(repo), args.max_playbooks)
    jobs = []
    per_playbook = max(4, args.max_values // max(1, len(playbooks)))
    for playbook in playbooks:
        directory = wrapper.parent if wrapper is not None else run_directory(playbook, repo)
        if usable_configured_inventory(directory):
            inventory_args: list[str] = []
        else:
            inventory_args = ["-i", str(synthetic_inventory(playbook, Path(args.workdir).resolve() / "inventories"))]
        jobs.append({"repo": str(repo), "repo_name": repo.name, "cwd": str(directory),
                     "playbook": os.path.relpath(playbook, directory), "inventory_args": inventory_args,
                     "tasks": args.tasks, "hosts": args.hosts, "values": per_playbook})
    return jobs


def environment(extra: dict[str, str]) -> dict[str, str]:
    from realworld import fixed_environment

    return fixed_environment(extra)


def collections_root(python: str) -> str | None:
    try:
        out = subprocess.run([python, "-c", "import ansible_collections as a, os; "
                              "print(os.path.dirname(list(a.__path__)[0]))"], capture_output=True, text=True,
                             timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None


def evaluate(job: dict[str, Any], args: argparse.Namespace, ours_env: dict[str, str]) -> dict[str, Any]:
    cwd = Path(job["cwd"])
    theirs = run_child(args.ansible_python, "--oracle", job, cwd, environment({}), args.timeout)
    result: dict[str, Any] = {"job": job, "oracle": theirs}
    if "error" in theirs or not theirs.get("probes"):
        return result
    spec = {**job, "probes": [{k: p[k] for k in ("play", "host", "path", "line", "key", "rate", "defined", "values",
                                                 "handler", "occurrence", "implicit")
                               if k in p} for p in theirs["probes"]]}
    result["ours"] = run_child(sys.executable, "--ours", spec, cwd, ours_env, args.timeout)
    return result


# ---------------------------------------------------------------- judging


def judge(result: dict[str, Any]) -> list[dict[str, Any]]:
    """One record per sampled value: compared (identical or a cause) or not comparable (why)."""
    job, theirs, mine = result["job"], result["oracle"], result.get("ours") or {}
    records: list[dict[str, Any]] = []
    by_key = {p["key"]: p for p in mine.get("probes", [])}
    for probe in theirs.get("probes", []):
        where = f"{os.path.relpath(probe['path'], job['repo'])}:{probe['line']}"
        base = {"repo": job["repo_name"], "playbook": job["playbook"], "where": where, "host": probe["host"],
                "task": probe["task"]}
        if "key" not in probe:
            records.append({**base, "name": "*", "status": "not comparable", "why": "ansible: get_vars failed: "
                            + probe.get("error", "")})
            continue
        ours_probe = by_key.get(probe["key"])
        for name, their in probe["values"].items():
            record = {**base, "name": name, "ansible": their.get("canon") or their.get("unknown")}
            if their.get("undefined"):
                record.update(status="not comparable", why="ansible: undefined here")
            elif "unknown" in their:
                record.update(status="not comparable", why="ansible: unknown (" + _short_reason(their["unknown"]) + ")")
            elif "error" in mine or ours_probe is None or "error" in ours_probe:
                error = mine.get("error") or (ours_probe or {}).get("error") or "no result"
                record.update(status="differs", ours=error, cause=_error_cause(error))
            else:
                record.update(_compare(name, their, ours_probe["values"].get(name, {"undefined": True})))
            records.append(record)
        for name, entry in (ours_probe or {}).get("extra", {}).items():
            record = {**base, "name": name, "ansible": "(undefined)", "ours": entry.get("canon") or
                      entry.get("unknown"), "status": "differs",
                      "cause": f"ansible undefined, ours defined ({entry.get('level')})"}
            records.append(record)
    return records


def _short_reason(text: str) -> str:
    text = re.sub(r"'[^']*'", "'…'", text)
    text = re.sub(r"\"[^\"]*\"", "\"…\"", text)
    return text.split(":")[0][:80]


def _error_cause(error: str) -> str:
    if error.startswith("traceback"):
        return "our traceback: " + _short_reason(error[len("traceback: "):])
    return "ours: " + _short_reason(error)


# ansible builds these from sets: their order changes from run to run, so it is not compared
FROM_SETS = frozenset({"ansible_role_names", "ansible_dependent_role_names", "ansible_run_tags", "ansible_skip_tags"})


def _as_set(entry: dict[str, Any]) -> dict[str, Any]:
    try:
        items = json.loads(entry["canon"])
    except (KeyError, ValueError):
        return entry
    return {**entry, "canon": json.dumps(sorted(items))} if isinstance(items, list) else entry


def _compare(name: str, their: dict[str, Any], our: dict[str, Any]) -> dict[str, Any]:
    if name in FROM_SETS:
        their, our = _as_set(their), _as_set(our)
    out = _compare_values(their, our)
    if out["status"] == "differs" and name in MAGIC_COMPARED:
        out["cause"] = f"magic variable {name}: " + ("ours undefined" if our.get("undefined") else "differs")
    return out


def _compare_values(their: dict[str, Any], our: dict[str, Any]) -> dict[str, Any]:
    if our.get("undefined"):
        return {"status": "differs", "ours": "(undefined)", "cause": "ours undefined"}
    if our.get("runtime"):
        return {"status": "not comparable", "why": f"ours: set at run time ({our.get('level')})",
                "ours": our.get("unknown")}
    if "unknown" in our:
        reason = our["unknown"]
        if our.get("runtime_dep") or "run time" in reason or "registered" in reason or "fact" in reason:
            return {"status": "not comparable", "why": "ours: depends on a run-time value", "ours": reason}
        return {"status": "differs", "ours": reason, "cause": "ours unknown: " + _short_reason(reason),
                "level": our.get("level")}
    if our.get("canon") == their.get("canon"):
        return {"status": "identical", "ours": our.get("canon")}
    out = {"status": "differs", "ours": our.get("canon"), "level": our.get("level"), "label": our.get("label"),
           "ours_where": our.get("where")}
    mine, theirs = our.get("canon") or "", their.get("canon") or ""
    if _type_of(mine) != _type_of(theirs) and _loose(mine) == _loose(theirs):
        out["cause"] = f"type differs: ansible {_type_of(theirs)}, ours {_type_of(mine)}"
        return out
    levels = our.get("levels") or []
    raw = their.get("raw")
    if raw is not None and levels and levels[0][1] == raw:
        out["cause"] = f"same definition ({levels[0][0]}), rendered differently"
        return out
    taken = next((level for level, value in levels[1:] if raw is not None and value == raw), None)
    if taken is not None:
        out["cause"] = f"precedence: ansible took {taken}, ours {levels[0][0]}"
    else:
        out["cause"] = f"value differs (ansible's raw value is none of our definitions; ours from {levels[0][0]})" \
            if levels else "value differs"
    return out


def _type_of(text: str) -> str:
    if text in ("true", "false"):
        return "bool"
    if text == "null":
        return "null"
    if text.startswith('"'):
        return "str"
    if text.startswith("{"):
        return "dict"
    if text.startswith("["):
        return "list"
    if re.fullmatch(r"-?\d+", text):
        return "int"
    if re.fullmatch(r"-?[\d.e+-]+|inf|-inf|nan", text):
        return "float"
    return "other"


def _loose(text: str) -> str:
    """A canonical value with its scalars' types forgotten (to tell a type difference from a value one)."""
    text = text.strip('"').lower()
    try:
        return repr(float(text))
    except ValueError:
        return {"yes": "true", "no": "false", "1.0": "true"}.get(text, text)


# ---------------------------------------------------------------- report


def percent(part: int, whole: int) -> str:
    return f"{100.0 * part / whole:.1f}%" if whole else "-"


def report(results: list[dict[str, Any]], records: list[dict[str, Any]], examples: int, seconds: float) -> str:
    repos: dict[str, dict[str, Any]] = defaultdict(lambda: Counter())
    for result in results:
        stats = repos[result["job"]["repo_name"]]
        stats["playbooks"] += 1
        if "error" in result["oracle"]:
            stats["ansible refused"] += 1
        stats["tasks"] += len({(p["path"], p["line"]) for p in result["oracle"].get("probes", [])})
    for record in records:
        stats = repos[record["repo"]]
        stats[record["status"]] += 1
    lines = ["| repository | playbooks | ansible refused | tasks | compared | identical | identical % | "
             "not comparable |", "|---|---|---|---|---|---|---|---|"]
    total: Counter[str] = Counter()
    for name in sorted(repos, key=str.lower):
        stats = repos[name]
        compared = stats["identical"] + stats["differs"]
        total.update(stats)
        lines.append(f"| {name} | {stats['playbooks']} | {stats['ansible refused']} | {stats['tasks']} | {compared} | "
                     f"{stats['identical']} | {percent(stats['identical'], compared)} | {stats['not comparable']} |")
    compared = total["identical"] + total["differs"]
    kinds = Counter((r["name"] in MAGIC_COMPARED, r["status"]) for r in records)
    split = [f"{label}: {kinds[magic, 'identical']} of {kinds[magic, 'identical'] + kinds[magic, 'differs']} "
             f"identical ({percent(kinds[magic, 'identical'], kinds[magic, 'identical'] + kinds[magic, 'differs'])})"
             for magic, label in ((False, "the projects' variables"), (True, "the magic and option variables"))]
    lines.append(f"| **all** | {total['playbooks']} | {total['ansible refused']} | {total['tasks']} | {compared} | "
                 f"{total['identical']} | **{percent(total['identical'], compared)}** | {total['not comparable']} |")
    out = [f"# playbook-ls vars against ansible-core's variable manager ({seconds:.0f} s)", "", *lines, "",
           "Of the values compared, " + "; ".join(split) + ".", ""]
    causes: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for record in records:
        if record["status"] == "differs":
            causes[record["cause"]].append(record)
    out.append(f"## Differences by cause ({sum(len(v) for v in causes.values())} values)")
    out.append("")
    for cause, items in sorted(causes.items(), key=lambda item: -len(item[1])):
        repos_hit = Counter(r["repo"] for r in items)
        out.append(f"### {cause}: {len(items)} values ({', '.join(f'{k} {v}' for k, v in repos_hit.most_common())})")
        shown = []
        for record in items:  # one example per repository first
            if len(shown) < examples and all(s["repo"] != record["repo"] for s in shown):
                shown.append(record)
        shown += [r for r in items if r not in shown][: examples - len(shown)]
        for record in shown:
            out.append(f"- {record['repo']} `{record['where']}` host {record['host']} `{record['name']}`: "
                       f"ansible `{_clip(record.get('ansible'))}`, ours `{_clip(record.get('ours'))}`"
                       + (f" (ours from {record['label']} {record.get('ours_where') or ''})" if record.get("label")
                          else ""))
        out.append("")
    why = Counter(r["why"] for r in records if r["status"] == "not comparable")
    out.append("## Not comparable")
    out.append("")
    out += [f"- {count}: {reason}" for reason, count in why.most_common(15)]
    refused = Counter((r["job"]["repo_name"], _short_reason(r["oracle"]["error"])) for r in results
                      if "error" in r["oracle"])
    if refused:
        out += ["", "## Playbooks ansible refused", ""]
        out += [f"- {repo}: {count} x {reason}" for (repo, reason), count in refused.most_common(20)]
    return "\n".join(out) + "\n"


def _clip(value: Any, limit: int = 120) -> str:
    text = str(value)
    return (text if len(text) <= limit else text[: limit - 1] + "…").replace("`", "'")


# ---------------------------------------------------------------- checking the oracle with ansible-playbook


def verify_oracle(results: list[dict[str, Any]], count: int, args: argparse.Namespace) -> list[dict[str, Any]]:
    """Checks the oracle against a real run: for ``count`` probes (spread over the repositories), a copy of the
    repository gets a debug task, tagged pls_probe, inserted just before the probed task; ansible-playbook then
    runs only it (``--tags pls_probe --skip-tags always -c local``: every host of the play, as the oracle saw
    them) and prints the names the oracle knew a value of (the tag variables aside). A probe whose task is not
    written as ``- key:`` on its line, is a handler or a second occurrence, or does not run (a condition, a tag) is
    passed over."""
    import shutil

    candidates = []
    for result in results:
        for probe in result["oracle"].get("probes", []):
            known = {n: v["canon"] for n, v in probe.get("values", {}).items()
                     if "canon" in v and n not in ("ansible_run_tags", "ansible_skip_tags")}  # --tags pls_probe
            if known and not probe.get("handler") and not probe.get("occurrence") \
                    and probe["path"].startswith(result["job"]["repo"] + os.sep):
                candidates.append((result["job"], probe, known))
    by_repo: dict[str, list[Any]] = defaultdict(list)
    for candidate in candidates:
        by_repo[candidate[0]["repo_name"]].append(candidate)
    chosen = []
    while len(chosen) < 3 * count and any(by_repo.values()):
        for name in sorted(by_repo):
            if by_repo[name]:
                items = by_repo[name]
                chosen.append(items.pop(len(items) // 2))
    playbook_bin = str(Path(args.ansible_python).parent / "ansible-playbook")
    outcomes: list[dict[str, Any]] = []
    for job, probe, known in chosen:
        if sum(o["status"] in ("agree", "DISAGREE") for o in outcomes) >= count:
            break
        print(f"  verify {job['repo_name']} {os.path.relpath(probe['path'], job['repo'])}:{probe['line']}",
              file=sys.stderr, flush=True)
        scratch = Path(args.workdir).resolve() / "verify" / job["repo_name"]
        if scratch.exists():
            shutil.rmtree(scratch)
        shutil.copytree(job["repo"], scratch, symlinks=True, ignore=shutil.ignore_patterns(".git"))
        target = scratch / os.path.relpath(probe["path"], job["repo"])
        lines = target.read_text().splitlines(keepends=True)
        line = lines[probe["line"] - 1]
        match = re.match(r"(\s*)- ", line)
        outcome = {"repo": job["repo_name"], "where": f"{os.path.relpath(probe['path'], job['repo'])}:{probe['line']}",
                   "host": probe["host"], "names": len(known)}
        outcomes.append(outcome)
        if match is None:
            outcome["status"] = "passed over (task not written as '- key:' on its line)"
            continue
        indent = match.group(1)
        expression = "{{ {" + ", ".join(f"'{n}': {n}" for n in sorted(known)) + "} }}"
        lines.insert(probe["line"] - 1, f"{indent}- name: pls probe\n{indent}  ansible.builtin.debug:\n"
                                        f"{indent}    msg: {json.dumps(expression)}\n{indent}  tags: [pls_probe]\n")
        target.write_text("".join(lines))
        inside = (job["cwd"] + os.sep).startswith(job["repo"] + os.sep)
        cwd = scratch / os.path.relpath(job["cwd"], job["repo"]) if inside else \
            scratch.with_name(scratch.name + "-role")
        if not inside:  # a role wrapper: the same playbook, its role linked to the copy
            if cwd.exists():
                shutil.rmtree(cwd)
            (cwd / "roles").mkdir(parents=True)
            for link in (Path(job["cwd"]) / "roles").iterdir():
                (cwd / "roles" / link.name).symlink_to(scratch, target_is_directory=True)
            shutil.copy(Path(job["cwd"]) / job["playbook"], cwd / job["playbook"])
        playbook = job["playbook"]
        argv = [playbook_bin, playbook, *job["inventory_args"], "-c", "local",
                "--tags", "pls_probe", "--skip-tags", "always"]
        env = environment({"ANSIBLE_CALLBACK_RESULT_FORMAT": "json", "ANSIBLE_PYTHON_INTERPRETER": args.ansible_python})
        try:
            proc = subprocess.run(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                                  timeout=args.timeout, start_new_session=True)
        except subprocess.TimeoutExpired:
            outcome["status"] = "timed out"
            continue
        printed = proc.stdout
        at = printed.find("pls probe]")
        mark = f"ok: [{probe['host']}] => "
        at = printed.find(mark, at) if at >= 0 else -1
        if at < 0:
            tail = printed[printed.find("pls probe]"):] if "pls probe]" in printed else proc.stderr or printed
            outcome["status"] = "probe did not run: " + _first_line(tail)
            continue
        values = json.JSONDecoder().raw_decode(printed[at + len(mark):])[0]["msg"]
        same = [n for n in known if n in values and canon(values[n]) == known[n]]
        outcome["status"] = "agree" if len(same) == len(known) else "DISAGREE"
        outcome["differ"] = {n: [known[n], canon(values.get(n))] for n in known if n not in same}
        outcome["agree"] = len(same)
    return outcomes


def verify_report(outcomes: list[dict[str, Any]]) -> str:
    ran = [o for o in outcomes if o["status"] in ("agree", "DISAGREE")]
    lines = ["## The oracle against ansible-playbook", "",
             f"{len(ran)} probes ran, {sum(o['status'] == 'agree' for o in ran)} agree on every name "
             f"({sum(o.get('agree', 0) for o in ran)} of {sum(o['names'] for o in ran)} values); "
             f"{len(outcomes) - len(ran)} passed over.", ""]
    for outcome in outcomes:
        detail = "" if outcome["status"] == "agree" else " " + _clip(outcome.get("differ") or "", 300)
        lines.append(f"- {outcome['repo']} `{outcome['where']}` {outcome['host']}: {_clip(outcome['status'], 160)}"
                     f" ({outcome['names']} names){detail}")
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    if argv and argv[0] in ("--oracle", "--ours"):
        return child_main(*argv[:3])
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("repos", nargs="+", metavar="REPO_DIR")
    parser.add_argument("--ansible-python", default=sys.executable,
                        help="the Python of the reference ansible (e.g. ../ansible-ref/bin/python)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=240)
    parser.add_argument("--max-playbooks", type=int, default=12, help="playbooks per repository, spread (0: all)")
    parser.add_argument("--tasks", type=int, default=15, help="tasks per play, spread over it")
    parser.add_argument("--hosts", type=int, default=1, help="hosts per play (its first ones)")
    parser.add_argument("--max-values", type=int, default=300, help="about this many values per repository")
    parser.add_argument("--examples", type=int, default=3)
    parser.add_argument("--workdir", default=str(HERE / "out" / "vars-realworld"))
    parser.add_argument("--json", help="write every record here")
    parser.add_argument("--verify", type=int, default=0, metavar="N",
                        help="then check the oracle on N probes with ansible-playbook and a debug task")
    parser.add_argument("--from-json", metavar="FILE", help="judge and report a run kept with --json (no tool runs)")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(HERE))
    start = time.perf_counter()
    extra = {"PYTHONPATH": str(ROOT)}
    root = collections_root(args.ansible_python)
    if root:
        extra["ANSIBLE_COLLECTIONS_PATH"] = os.pathsep.join(
            [os.path.expanduser("~/.ansible/collections"), "/usr/share/ansible/collections", root])
    ours_env = environment(extra)
    jobs = [] if args.from_json else [job for repo in args.repos for job in playbook_jobs(Path(repo), args)]
    print(f"{len(jobs)} playbooks in {len(args.repos)} repositories", file=sys.stderr)
    results: list[dict[str, Any]] = []

    def one(job: dict[str, Any]) -> dict[str, Any]:
        result = evaluate(job, args, ours_env)
        probes = len(result["oracle"].get("probes", []))
        state = result["oracle"].get("error") or (result.get("ours") or {}).get("error") or f"{probes} probes"
        print(f"  {job['repo_name']}/{job['playbook']}: {_clip(state, 150)} "
              f"({result['oracle'].get('seconds', 0):.1f} s + {(result.get('ours') or {}).get('seconds', 0):.1f} s)",
              file=sys.stderr, flush=True)
        return result

    if args.from_json:
        kept = json.loads(Path(args.from_json).read_text())
        wanted = {Path(repo).resolve().name for repo in args.repos}
        results = [r for r in kept["results"] if r["job"]["repo_name"] in wanted]
    else:
        with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            results = list(pool.map(one, jobs))
    records = [record for result in results for record in judge(result)]
    seconds = kept["seconds"] if args.from_json else time.perf_counter() - start
    sys.stdout.write(report(results, records, args.examples, seconds))
    if args.verify:
        sys.stdout.write("\n" + verify_report(verify_oracle(results, args.verify, args)))
    if args.json:
        Path(args.json).write_text(json.dumps({"seconds": seconds, "results": results, "records": records},
                                              indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
