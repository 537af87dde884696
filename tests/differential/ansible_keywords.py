"""Print, as JSON, the inherited keyword values ansible-core computes for each listed task.

Run by test_inherited_keywords.py in a subprocess (ansible-core keeps global state):
``python ansible_keywords.py INVENTORY PLAYBOOK...`` from the scenario directory.
"""

from __future__ import annotations

import json
import sys

KEYWORDS = ("when", "become", "become_user", "check_mode", "diff", "environment", "ignore_errors", "no_log",
            "any_errors_fatal", "run_once", "throttle", "delegate_to", "remote_user", "connection", "timeout")


def main(inventory: str, playbooks: list[str]) -> None:
    from ansible import context
    from ansible.inventory.manager import InventoryManager
    from ansible.module_utils.common.collections import ImmutableDict
    from ansible.module_utils.common.sentinel import Sentinel
    from ansible.parsing.dataloader import DataLoader
    from ansible.playbook import Playbook
    from ansible.playbook.block import Block
    from ansible.plugins.loader import init_plugin_loader
    from ansible.vars.manager import VariableManager

    init_plugin_loader([])
    import os

    from ansible.utils.collection_loader import AnsibleCollectionConfig

    # as ansible-playbook does: collections/ next to the playbooks are searched first
    AnsibleCollectionConfig.playbook_paths = [os.path.dirname(os.path.abspath(p)) for p in playbooks]

    context.CLIARGS = ImmutableDict(tags=["all"], skip_tags=[], listtasks=True, listtags=False, syntax=False)
    loader = DataLoader()
    variables = VariableManager(loader=loader, inventory=InventoryManager(loader=loader, sources=[inventory]))

    def plain(value: object) -> object:
        if value is Sentinel:
            return None
        if isinstance(value, list):
            return [plain(v) for v in value]
        if isinstance(value, dict):
            return {str(k): plain(v) for k, v in value.items()}
        return value if isinstance(value, (bool, int, float, type(None))) else str(value)

    def unset_as_none(task: object, keyword: str) -> object:
        """The task's value, or None where it equals the keyword's default (nobody set it)."""
        default = task.fattributes[keyword].default  # type: ignore[attr-defined]
        default = default() if callable(default) else default
        value = plain(getattr(task, keyword))
        return None if value == plain(default) or value == [] else value

    def walk(block: Block):
        for item in block.block:
            if isinstance(item, Block):
                yield from walk(item)
            elif not item.implicit:
                yield item

    result = []
    for path in playbooks:
        for play in Playbook.load(path, variable_manager=variables, loader=loader).get_plays():
            for block in play.compile():
                for task in walk(block):
                    values = {k: unset_as_none(task, k) for k in KEYWORDS}
                    result.append({"name": str(task.get_name() if task.name else task.action), **values})
    json.dump(result, sys.stdout)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
