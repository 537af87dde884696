"""Run by the reference ansible's Python (bench/claims.py starts it): how many of the tasks an include
loads does ``--tags X`` run, as ansible-core's own code decides it.

Reads a JSON request on stdin: ``{"playbook", "inventory", "targets": [{"file", "line", "tag"}]}``.
Loads the playbook with ``Playbook.load``, walks every play's tasks (following includes the way the strategy
does: ``IncludedFile.process_include_results``, ``StrategyBase._load_included_file``,
``IncludeRole.get_block_list``), and for the include task whose ``tags:`` is written at ``file``,
``line``, gives ``[[selected, total], ...]``: of the tasks its loaded blocks hold (``total``), how
many ``Block.filter_tagged_tasks`` keeps under ``--tags TAG`` (``selected``), once per time the include is
met. Prints ``{target index: answers}``. Nothing runs on a
host: an include's result is what the task executor returns for it (``{"include": name}``), and an
include whose name cannot be templated without a host's facts is not followed.
"""

from __future__ import annotations

import json
import os
import sys

from ansible import constants as C  # noqa: N812
from ansible import context
from ansible.errors import AnsibleError
from ansible.executor.task_result import _RawTaskResult
from ansible.inventory.manager import InventoryManager
from ansible.module_utils.common.collections import ImmutableDict
from ansible.parsing.dataloader import DataLoader
from ansible.playbook import Playbook
from ansible.playbook.block import Block
from ansible.playbook.included_file import IncludedFile
from ansible.playbook.role_include import IncludeRole
from ansible.plugins.loader import init_plugin_loader
from ansible.plugins.strategy import StrategyBase
from ansible.template import Templar
from ansible.vars.manager import VariableManager

MAX_DEPTH = 6


def leaves(blocks: list) -> list:
    found = []
    for block in blocks:
        for attr in ("block", "rescue", "always"):
            for item in getattr(block, attr, None) or []:
                if isinstance(item, Block):
                    found += leaves([item])
                elif not item.implicit:  # a role's closing meta task, tagged always, is no task of the file's
                    found.append(item)
    return found


class Probe:
    _copy_included_file = StrategyBase._copy_included_file
    def __init__(self, request: dict) -> None:
        context.CLIARGS = ImmutableDict(tags=[], skip_tags=[], check=False, diff=False, forks=1,
                                        verbosity=0, start_at_task=None)
        self._loader = DataLoader()
        self.inventory = InventoryManager(loader=self._loader, sources=request["inventory"])
        self._variable_manager = VariableManager(loader=self._loader, inventory=self.inventory)
        self.targets = [(os.path.realpath(t["file"]), t["line"], t["tag"]) for t in request["targets"]]
        self.answers: dict[int, list[list[int]]] = {}

    def run(self, playbook: str) -> None:
        book = Playbook.load(playbook, variable_manager=self._variable_manager, loader=self._loader)
        for play in book.get_plays():
            hosts = self.inventory.get_hosts(play.hosts) if play.hosts else []
            host = hosts[0] if hosts else self.inventory.localhost or self.inventory.get_hosts("localhost")[0]
            self.play, self.host = play, host
            self._play = play
            for block in play.compile():
                self.visit(leaves([block]), 0)

    def targets_of(self, task: object) -> list[int]:
        """The targets placed at this task's ``tags:`` (a finding points at the keyword or its value)."""
        from ansible._internal._datatag._tags import Origin

        data = getattr(task, "_ds", None) or {}
        key = next((k for k in data if k == "tags"), None) if isinstance(data, dict) else None
        where = Origin.get_tag(key) if key is not None else None
        if where is None or not where.path:
            return []
        path, first = os.path.realpath(where.path), where.line_num
        value = data[key]
        last = first + (len(value) if isinstance(value, list) else 1)
        return [i for i, (file, line, _tag) in enumerate(self.targets) if file == path and first <= line <= last]

    def visit(self, tasks: list, depth: int) -> None:
        for task in tasks:
            if task.action not in C._ACTION_ALL_INCLUDES or depth > MAX_DEPTH:
                continue
            try:
                blocks = self.load(task)
            except (AnsibleError, KeyError, TypeError, ValueError):
                continue
            loaded = leaves(blocks)
            for index in self.targets_of(task) if loaded else []:  # nothing loaded: no answer
                all_vars = self._variable_manager.get_vars(play=self.play, host=self.host, task=task)
                self.play.only_tags = {self.targets[index][2]}  # what --tags TAG sets on every play
                kept = leaves([block.filter_tagged_tasks(all_vars) for block in blocks])
                if os.environ.get("CLAIMS_DEBUG"):
                    print([(t.get_name(), sorted(t.tags)) for t in kept], file=sys.stderr)
                self.answers.setdefault(index, []).append([len(kept), len(loaded)])
            self.visit(loaded, depth + 1)

    def load(self, task: object) -> list:
        if isinstance(task, IncludeRole):
            blocks, _handlers = task.get_block_list(play=self.play, variable_manager=self._variable_manager,
                                                    loader=self._loader)
            return blocks
        task_vars = self._variable_manager.get_vars(play=self.play, host=self.host, task=task)
        templar = Templar(loader=self._loader, variables=task_vars)
        name = templar.template(task.args.get("_raw_params") or task.args.get("file"))
        data = {"include": name, "include_args": {}}
        # a looped include's result is its items' results (one is enough to know what it loads)
        result = _RawTaskResult(host=self.host, task=task, return_data={"results": [data]} if task.loop else data,
                                task_fields={})
        included = IncludedFile.process_include_results([result], self, self._loader, self._variable_manager)
        blocks = []
        for one in included:
            blocks += StrategyBase._load_included_file(self, one, self, handle_stats_and_callbacks=False)
        return blocks


def main() -> None:
    init_plugin_loader()
    request = json.loads(sys.stdin.read())
    probe = Probe(request)
    probe.run(request["playbook"])
    print(json.dumps(probe.answers))


if __name__ == "__main__":
    main()
