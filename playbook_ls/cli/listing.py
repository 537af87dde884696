"""``list-tasks`` / ``list-tags``: resolve the playbooks and print ansible-playbook's listing."""

from __future__ import annotations

import os
import sys

from engine.config import AnsibleConfig
from engine.flow.tags import ListingAborted, Selection, render_listing, selected_tasks
from engine.loading.frames import EXIT_ERROR
from engine.loading.model import Frame, Play, Playbook, Problem, Task
from engine.loading.resolve import Resolver
from engine.loading.vaulted_vars import LOAD_TIME_MAGIC, first_stop
from engine.parsing.source import SourceCache, Span
from engine.variables.magic import RunOptions, command_line_sources, load_time_variables
from engine.vault import password_file_error, password_script_notes

TYPE_CHECKING = False
if TYPE_CHECKING:
    from argparse import Namespace
    from types import SimpleNamespace
    from typing import Any

    from engine.config import InventorySettings
    from engine.inventory.data import InventoryData

EXIT_OPTIONS = 5
"""ansible's exit code for a configuration value it refuses (``AnsibleOptionsError``)."""


class ExtraVarsProblem(str):
    """What is wrong with a ``-e`` value, and the exit code ansible-playbook stops with for it."""

    exit_code = EXIT_OPTIONS

    def __new__(cls, message: str, exit_code: int = EXIT_OPTIONS) -> ExtraVarsProblem:
        problem = super().__new__(cls, message)
        problem.exit_code = exit_code
        return problem


def parse_extra_vars(values: list[str], cache: SourceCache) -> tuple[dict[str, Any], ExtraVarsProblem | None]:
    """``-e`` values: ``@file``, YAML/JSON text, or ``key=value`` words."""
    from engine.loading.actions import ActionError, parse_kv
    from engine.parsing.source import parse_text
    from engine.vault import is_encrypted_text

    result: dict[str, Any] = {}
    for value in values:
        if value.startswith("@"):
            loaded = cache.load(value[1:])
            if loaded.error:  # a file it cannot read is AnsibleFileNotFound (1), bad YAML a parser error (4)
                unread = loaded.error.message.startswith("cannot read file")
                return result, ExtraVarsProblem(str(loaded.error), 1 if unread else 4)
            if is_encrypted_text(loaded.data):
                return result, _vaulted_extra_vars(value[1:])
            data = loaded.data
        elif value.lstrip().startswith(("{", "[")):
            loaded = parse_text(value, "<extra vars>")
            if loaded.error:
                return result, ExtraVarsProblem(f"invalid extra vars {value!r}: {loaded.error.message}")
            data = loaded.data
        else:
            try:
                data = parse_kv(value, check_raw=False)
            except ActionError as exc:
                return result, ExtraVarsProblem(f"invalid extra vars {value!r}: {exc}")
            data.pop("_raw_params", None)
        if isinstance(data, dict):
            result.update(_sourced_names(data, value))
    return result, None


def _vaulted_extra_vars(path: str) -> ExtraVarsProblem:
    """A ``-e @file`` ansible-vault encrypted whole: ansible-playbook decrypts it with its vault
    secrets or stops without them (exit 1); playbook-ls never decrypts, so with secrets configured
    its values are the run's only, and nothing is listed or planned on a guess."""
    from engine.vault import NO_SECRETS, configured_secrets

    secrets = configured_secrets()
    if secrets is None:
        return ExtraVarsProblem(f"{path}: {NO_SECRETS} Give ansible its vault secrets, or the file decrypted.", 1)
    return ExtraVarsProblem(f"{path} is vault-encrypted, and {secrets} gives ansible its secrets: playbook-ls never "
                            "decrypts, so it cannot know these extra vars; use ansible-playbook, or pass the "
                            "values it needs another way", 1)


CLI_EXTRA_VARS = "<CLI option '-e'>"
"""The origin ansible gives a variable of ``-e key=value``."""


def _sourced_names(data: dict[str, Any], value: str) -> dict[str, Any]:
    """``data`` with each name carrying where it was given, as ansible's tagged keys do (its
    warnings of a reserved name show it): a ``key=value`` word's the command line, a file's its
    place in the file (a YAML text's none)."""
    from engine.values import SourcedName

    if value.lstrip().startswith(("{", "[")):
        return data
    spans = getattr(data, "key_spans", {}) or {}
    return {SourcedName(key, spans.get(key) if value.startswith("@") else CLI_EXTRA_VARS)
            if isinstance(key, str) else key: item for key, item in data.items()}


def _error(message: str, code: int) -> int:
    print(f"playbook-ls: error: {message}", file=sys.stderr)
    return code


def _report(problem: Problem) -> None:
    print(f"playbook-ls: error: {problem}", file=sys.stderr)


def run_listing(args: Namespace | SimpleNamespace) -> int:
    cache = SourceCache.for_command()
    config = AnsibleConfig.load()
    if config.errors:  # ansible-playbook refuses such a value before it reads anything
        return _error(config.errors[0], EXIT_OPTIONS)
    if (vault_error := password_file_error()) is not None:  # and its vault secrets, before it reads anything
        return _error(vault_error, EXIT_ERROR)
    for note in password_script_notes():
        print(f"playbook-ls: note: {note}", file=sys.stderr)
    extra_vars, problem = parse_extra_vars(args.extra_vars, cache)
    if problem:
        return _error(problem, problem.exit_code)
    resolver = Resolver(sources=cache, config=config, extra_vars=extra_vars, follow_dynamic=False)
    # ansible-playbook looks a name up as a collection playbook (ns.coll.name) first, in the
    # configured collections only; a file's directory then offers its collections/ to all
    in_collections = resolver.finder([])
    playbooks: list[str] = []
    playbook_dirs: list[str] = []
    for path in args.playbooks:
        found = in_collections.find_playbook(path)
        if found is not None:
            playbooks.append(found[0])
            continue
        if not os.path.exists(path):
            return _error(f"the playbook: {path} could not be found", EXIT_ERROR)
        if not os.path.isfile(path):
            return _error(f"the playbook: {path} does not appear to be a file", EXIT_ERROR)
        playbooks.append(path)
        if in_collections.collection_of(path) is None:
            playbook_dirs.append(os.path.dirname(os.path.abspath(path)))
    resolver.playbook_dirs = list(dict.fromkeys(playbook_dirs))
    from engine.inventory.manager import InventoryAborted, load_inventory

    sources = command_line_sources(args.inventory, config.inventory.sources)
    try:  # scripts are not run: static analysis; ansible.cfg's plugins and failure settings apply
        inventory = load_inventory(sources, cache, settings=config.inventory,
                                   playbook_dir=playbook_dirs[0] if playbook_dirs else None)
    except InventoryAborted as aborted:
        return _error(str(aborted), EXIT_ERROR)
    tags, skip_tags = config.command_line_tags(args.tags, args.skip_tags)
    options = RunOptions(inventory_sources=sources, tags=tags, skip_tags=skip_tags, limit=args.limit,
                         list_tags=args.mode == "list-tags")
    resolver.magic = load_time_variables(options, inventory.data.get_groups_dict(), config.path)
    # with a dynamic source not run, the hosts are unknown: nothing to check them against
    targets = None if inventory.notes else _Targets(inventory.data, args.limit, config.inventory)
    for note in inventory.notes:
        print(f"playbook-ls: note: {note}; the plays' hosts and --limit are not checked against the inventory",
              file=sys.stderr)
    if targets is not None and (problem := targets.check_limit()):
        return _error(problem, EXIT_ERROR)
    books: list[Playbook] = []
    for path in playbooks:
        book = resolver.load_playbook(path)
        stop = first_stop(book, {*resolver.extra_vars, *resolver.magic, *LOAD_TIME_MAGIC})
        if stop is not None:
            _report(stop)
            return stop.exit_code
        books.append(book)
    if targets is not None and (problem := targets.check_plays(books)):
        return _error(problem, EXIT_ERROR)
    if resolver.unchecked_modules:
        print("playbook-ls: note: module names were not checked: no ansible-core was found beside playbook-ls or "
              "on PATH (install ansible-core, or put ansible-playbook on PATH)", file=sys.stderr)
    selection = Selection.from_options(tags, skip_tags,
                                       listing_tags=args.mode == "list-tags")
    if args.format == "json":
        import json

        print(json.dumps(listing_data(books, selection), indent=2, default=str))
        return 0
    try:
        sys.stdout.write(render_listing(books, selection, args.mode == "list-tasks", args.mode == "list-tags"))
    except ListingAborted as aborted:
        sys.stdout.write(aborted.output)  # what ansible-playbook prints before it stops
        _report(aborted.problem)
        return aborted.problem.exit_code
    return 0


class _Targets:
    """The host checks ansible-playbook makes before it lists anything: ``--limit`` as
    ``CLI.get_host_list`` checks it, then each play's ``hosts:`` as its magic variables evaluate
    them. Warnings are printed as they come, each once, as ansible's display does."""

    def __init__(self, inventory: InventoryData, limit: str | None, settings: InventorySettings) -> None:
        self.inventory, self.limit, self.settings = inventory, limit, settings
        self.warnings: list[str] = []
        self._shown: set[str] = set()

    def _show_warnings(self) -> None:
        for message in self.warnings:
            if message not in self._shown:
                self._shown.add(message)
                print(f"playbook-ls: warning: {message}", file=sys.stderr)

    def check_limit(self) -> str | None:
        """The error that stops ansible-playbook (a limit selecting no host), if any."""
        from engine.inventory.patterns import HostPatternError, hosts_to_target

        try:
            hosts_to_target(self.inventory, "all", self.limit, self.warnings, self.settings.host_pattern_mismatch,
                            self.settings.localhost_warning)
        except HostPatternError as problem:
            return str(problem)
        finally:
            self._show_warnings()
        return None

    def check_plays(self, books: list[Playbook]) -> str | None:
        """A play's pattern that fails (a subscript out of range, a mismatch under
        ``host_pattern_mismatch = error``) stops ansible-playbook before it lists anything; one
        that matches nothing warns. A templated pattern is evaluated as ``all``, as ansible does."""
        from engine.inventory.patterns import HostPatternError, select_hosts

        for play in (play for book in books for play in book.plays):
            pattern = play.hosts if play.hosts and not any("{{" in part for part in play.hosts) else "all"
            try:
                select_hosts(self.inventory, pattern, self.limit, warnings=self.warnings,
                             mismatch=self.settings.host_pattern_mismatch)
            except HostPatternError as problem:
                return str(problem)
            finally:
                self._show_warnings()
        return None


def span_data(span: Span | None) -> dict[str, Any] | None:
    if span is None:
        return None
    return {"file": span.file, "line": span.line + 1, "column": span.col + 1,
            "end_line": span.end_line + 1, "end_column": span.end_col + 1}


def frame_data(frame: Frame) -> dict[str, Any]:
    return {"kind": frame.kind, "label": frame.label, "span": span_data(frame.span)}


def task_data(task: Task) -> dict[str, Any]:
    return {
        "name": task.display_name(),
        "action": task.action,
        "span": span_data(task.span),
        "tags": sorted({str(t) for t in task.tag_set()}),
        "tag_origins": [{"tag": s.value, "from": frame_data(s.frame), "span": span_data(s.span)}
                        for s in task.effective_tags()],
        "when": [{"condition": s.value, "from": frame_data(s.frame)} for s in task.effective_when()],
        "chain": [frame_data(frame) for frame in task.chain],
    }


def play_data(play: Play, selection: Selection) -> dict[str, Any]:
    return {"name": play.name, "hosts": play.hosts, "tags": play.tags, "span": span_data(play.span),
            "tasks": [task_data(task) for task in selected_tasks(play, selection)]}


def listing_data(books: list[Playbook], selection: Selection) -> dict[str, Any]:
    return {
        "selection": {"tags": sorted(selection.only_tags), "skip_tags": sorted(selection.skip_tags)},
        "playbooks": [{"path": book.path, "plays": [play_data(play, selection) for play in book.plays]}
                      for book in books],
    }
