"""Compare `playbook-ls inventory` with `ansible-inventory` and `ansible --list-hosts` on real repositories.

Usage: python bench/inventory_realworld.py REPO_DIR [REPO_DIR ...] [--per-repo 8] [--hosts 2] [--jobs 1]
                                           [--timeout 120] [--cache DIR] [--json FILE] [--list-sources]

Finds the inventory sources of each repository (see `find_sources`): the inventory an ansible.cfg names,
directories called `inventory`/`inventories/*`, and files that read as an inventory (`hosts`, `*.ini` beside
them, YAML with `all:` or `plugin:` at the top). A source that is or holds an executable file is left out:
the harness never runs a repository's code. Each source is asked, by both tools and from the directory
ansible would be run in (the nearest ansible.cfg's, else the repository's root), the queries of `queries`:
`--list`, `--graph`, `--graph --vars`, `--host` for the first and last hosts ansible lists, and
`ansible PATTERN --list-hosts` for `all` and for the first group. A query is identical when stdout and exit
code are; one whose answer ansible itself changes from run to run (it orders some hosts by iterating a set)
is left out and counted apart. A source beside an `inventory_plugins/` directory is asked with that directory's
parent as `--playbook-dir`, so that ansible (and playbook-ls) find the plugins. ansible's outcomes are cached
on disk (keyed by the ansible version, the repository's revision and the command), so a rerun only runs
playbook-ls.
"""

from __future__ import annotations

import argparse
import configparser
import hashlib
import json
import os
import sys
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path

import realworld
from realworld import (
    ROOT,
    SKIPPED_DIRS,
    Outcome,
    ansible_version,
    command,
    evenly,
    execute,
    first_difference,
    fixed_environment,
    load_yaml,
    revision,
    run_all,
)

INVENTORY_DIRS = ("inventory", "inventories", "hosts", "inventory_dir")
INVENTORY_NAMES = frozenset({"hosts", "inventory", "hosts.ini", "inventory.ini", "hosts.yml", "hosts.yaml",
                             "inventory.yml", "inventory.yaml", "hosts.toml"})
IGNORED_SUFFIXES = (".md", ".txt", ".retry", ".cfg", ".j2", ".py", ".sh", ".json", ".orig", ".rst", ".example")
MAX_BYTES = 1_000_000


@dataclass(frozen=True)
class Source:
    repo: Path
    cwd: Path
    source: str  # the -i value relative to cwd; "" when ansible.cfg names the inventory
    playbook_dir: str = ""  # given as --playbook-dir when inventory_plugins/ is beside the source


@dataclass(frozen=True)
class Query:
    source: Source
    tool: str  # "inventory" or "list-hosts"
    args: tuple[str, ...]

    def label(self) -> str:
        return " ".join(("ansible" if self.tool == "list-hosts" else "ansible-inventory", *self.args))


def _executable_inside(path: Path) -> bool:
    if path.is_file():
        return os.access(path, os.X_OK)
    return any(os.access(p, os.X_OK) for p in path.rglob("*") if p.is_file() and ".git" not in p.parts)


def _reads_as_inventory(path: Path) -> bool:
    """A file whose content looks like an inventory: INI sections with host lines, or YAML whose top level
    is a group tree or a plugin configuration."""
    try:
        if path.stat().st_size > MAX_BYTES or path.suffix in IGNORED_SUFFIXES:
            return False
    except OSError:
        return False
    if path.suffix in (".yml", ".yaml"):
        data = load_yaml(path)
        return isinstance(data, dict) and ("plugin" in data or any(
            isinstance(v, dict) and {"hosts", "children", "vars"} & set(v) for v in data.values()))
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return path.name in INVENTORY_NAMES or any(line.startswith("[") for line in text.splitlines())


def configured_sources(directory: Path) -> bool:
    parser = configparser.ConfigParser(interpolation=None, strict=False, inline_comment_prefixes=(";", "#"))
    try:
        parser.read(directory / "ansible.cfg", encoding="utf-8")
        value = parser.get("defaults", "inventory", fallback=None)
    except (configparser.Error, UnicodeDecodeError, OSError):
        return False
    entries = [entry.strip() for entry in (value or "").split(",") if entry.strip()]
    return bool(entries) and all((directory / os.path.expanduser(e)).exists() and
                                 not _executable_inside(directory / os.path.expanduser(e)) for e in entries)


def _run_directory(path: Path, repo: Path) -> Path:
    directory = path if path.is_dir() else path.parent
    while True:
        if (directory / "ansible.cfg").is_file():
            return directory
        if directory == repo or directory == directory.parent:
            return repo
        directory = directory.parent


def find_sources(repo: Path, per_repo: int) -> list[Source]:
    found: list[Source] = []
    candidates: list[Path] = []
    for directory, dirs, files in os.walk(repo):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and not d.startswith("."))
        here = Path(directory)
        if (here / "ansible.cfg").is_file() and configured_sources(here):
            found.append(Source(repo, here, ""))
        inside_inventory = any(part in INVENTORY_DIRS or "inventor" in part for part in here.relative_to(repo).parts)
        if here.name in ("inventory", "inventories") or here.parent.name == "inventories":
            candidates.append(here)
        for name in sorted(files):
            path = here / name
            if (name in INVENTORY_NAMES or (inside_inventory and not name.startswith("."))) \
                    and _reads_as_inventory(path):
                candidates.append(path)
    kept = [path for path in candidates if not _executable_inside(path)]
    for path in evenly(kept, max(0, per_repo - len(found))):
        cwd = _run_directory(path, repo)
        beside = path if path.is_dir() else path.parent
        plugins = os.path.relpath(beside, cwd) if (beside / "inventory_plugins").is_dir() else ""
        found.append(Source(repo, cwd, os.path.relpath(path, cwd), plugins))
    return found[:per_repo]


def _source_args(source: Source) -> list[str]:
    given = ["--playbook-dir", source.playbook_dir] if source.playbook_dir else []
    return (["-i", source.source] if source.source else []) + given


def ansible_argv(tools: dict[str, list[str]], query: Query) -> list[str]:
    if query.tool == "list-hosts":
        return [*tools["ansible"], query.args[0], *_source_args(query.source), "--list-hosts"]
    return [*tools["ansible-inventory"], *_source_args(query.source), *query.args]


def ours_argv(binary: list[str], query: Query) -> list[str]:
    if query.tool == "list-hosts":
        return [*binary, "inventory", *_source_args(query.source), "--list-hosts", query.args[0]]
    return [*binary, "inventory", *_source_args(query.source), *query.args]


def queries(source: Source, listed: Outcome) -> list[Query]:
    """The questions asked of one source, the hosts and groups chosen from ansible's own `--list`."""
    asked = [Query(source, "inventory", ("--list",)), Query(source, "inventory", ("--graph",)),
             Query(source, "inventory", ("--graph", "--vars")), Query(source, "list-hosts", ("all",))]
    try:
        data = json.loads(listed.stdout) if listed.rc == 0 else {}
    except ValueError:
        data = {}
    hosts = sorted(data.get("_meta", {}).get("hostvars", {}))
    hosts = list(dict.fromkeys(hosts[:1] + hosts[-1:]))
    groups = [g for g in data.get("all", {}).get("children", []) if g != "ungrouped"]
    asked += [Query(source, "inventory", ("--host", host)) for host in hosts]
    asked += [Query(source, "list-hosts", (group,)) for group in groups[:1]]
    return asked


class Cache(realworld.Cache):
    """ansible's outcomes on disk, one JSON file per (ansible version, revision, directory, argv)."""

    def _file(self, query: Query, revision: str, argv: list[str]) -> Path | None:  # type: ignore[override]
        if self.directory is None:
            return None
        key = json.dumps([self.ansible_version, revision, str(query.source.cwd.relative_to(query.source.repo)),
                          argv[1:]])
        return self.directory / (hashlib.sha256(key.encode()).hexdigest() + ".json")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("repos", nargs="+", type=Path)
    ap.add_argument("--ansible-inventory", help="command for ansible-inventory (default: next to this Python)")
    ap.add_argument("--per-repo", type=int, default=8, help="at most this many sources per repository (default 8)")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--cache", type=Path, default=ROOT / "bench" / "out" / "inventory-realworld-cache")
    ap.add_argument("--json", type=Path, help="write every query's outcomes to this file")
    ap.add_argument("--list-sources", action="store_true", help="only print the sources found")
    args = ap.parse_args(argv)

    inventory = command(args.ansible_inventory, "ansible-inventory")
    if inventory is None:
        print("ansible-inventory not found: give --ansible-inventory", file=sys.stderr)
        return 2
    tools = {"ansible-inventory": inventory, "ansible": [str(Path(inventory[-1]).with_name("ansible"))]}
    ours = [sys.executable, "-m", "playbook_ls"]
    env, ours_env = fixed_environment({}), fixed_environment({"PYTHONPATH": str(ROOT)})
    cache = Cache(args.cache if str(args.cache) else None, ansible_version(inventory))
    sources = [s for repo in args.repos if repo.is_dir() for s in find_sources(repo.resolve(), args.per_repo)]
    for source in sources:
        print(f"{source.repo.name}: cd {source.cwd.relative_to(source.repo) or '.'}; -i {source.source or '(cfg)'}",
              file=sys.stderr)
    if args.list_sources:
        return 0
    revisions = {repo: revision(repo) for repo in {s.repo for s in sources}}

    def run_ansible(query: Query) -> Outcome:
        argv_ = ansible_argv(tools, query)
        if (hit := cache.get(query, revisions[query.source.repo], argv_)) is not None:
            return hit
        outcome = execute(argv_, query.source.cwd, env, args.timeout)
        cache.put(query, revisions[query.source.repo], argv_, outcome)
        return outcome

    firsts = run_all([Query(s, "inventory", ("--list",)) for s in sources], run_ansible, args.jobs, "ansible --list")
    asked = [q for s in sources for q in queries(s, firsts[Query(s, "inventory", ("--list",))])]
    expected = run_all(asked, run_ansible, args.jobs, "ansible")
    actual = run_all(asked, lambda q: execute(ours_argv(ours, q), q.source.cwd, ours_env, args.timeout),
                     args.jobs, "playbook-ls")
    same = [q for q in asked if expected[q].same_as(actual[q])]
    # ansible orders some hosts by iterating a set of groups (hashed by identity): an answer that
    # changes between two of its own runs is no reference; it is left out and counted apart
    unstable = {q for q in asked if q not in same and any(
        not execute(ansible_argv(tools, q), q.source.cwd, env, args.timeout).same_as(expected[q]) for _ in range(2))}
    asked = [q for q in asked if q not in unstable]
    by_repo: Counter[str] = Counter(q.source.repo.name for q in asked)
    same_by_repo: Counter[str] = Counter(q.source.repo.name for q in same)
    for repo in sorted(by_repo):
        print(f"{repo:<28} {same_by_repo[repo]:>4}/{by_repo[repo]:<4} identical")
    print(f"{'total':<28} {len(same):>4}/{len(asked):<4} identical "
          f"({100 * len(same) / max(1, len(asked)):.1f}%) over {len(sources)} sources; "
          f"{len(unstable)} left out: ansible's own answer varies between runs")
    for q in sorted(unstable, key=lambda q: (str(q.source.cwd), q.source.source, q.label())):
        print(f"VARIES {q.source.repo.name}/{q.source.cwd.relative_to(q.source.repo)} -i {q.source.source or '(cfg)'}: "
              f"{q.label()}")
    for q in asked:
        if q not in same:
            where = f"{q.source.repo.name}/{q.source.cwd.relative_to(q.source.repo)} -i {q.source.source or '(cfg)'}"
            diff = first_difference(expected[q].stdout, actual[q].stdout) if expected[q].rc == actual[q].rc else \
                f"exit {expected[q].rc} vs {actual[q].rc}: {actual[q].stderr.strip().splitlines()[-1:]}"
            print(f"DIFF {where}: {q.label()}: {diff}")
    if args.json:
        args.json.write_text(json.dumps([{"query": q.label(), "repo": q.source.repo.name, "cwd": str(q.source.cwd),
                                          "source": q.source.source, "ansible": asdict(expected[q]),
                                          "ours": asdict(actual[q])} for q in asked], indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
