"""engine.loading.keywords mirrors ansible-core's FieldAttribute declarations."""

from __future__ import annotations

import pytest

from engine.loading import keywords as kw

pytest.importorskip("ansible")
from ansible.playbook.attribute import NonInheritableFieldAttribute  # noqa: E402
from ansible.playbook.block import Block  # noqa: E402
from ansible.playbook.handler import Handler  # noqa: E402
from ansible.playbook.play import Play  # noqa: E402
from ansible.playbook.playbook_include import PlaybookInclude  # noqa: E402
from ansible.playbook.role.include import RoleInclude  # noqa: E402
from ansible.playbook.task import Task  # noqa: E402

INTERNAL = {"async_val", "loop_with"}  # attribute names that are not written in playbooks


@pytest.mark.parametrize(
    ("cls", "ours"),
    [(Play, kw.PLAY_KEYWORDS), (Block, kw.BLOCK_KEYWORDS), (Task, kw.TASK_KEYWORDS - {"local_action"}),
     (Handler, kw.HANDLER_KEYWORDS - {"local_action"}), (RoleInclude, kw.ROLE_ENTRY_KEYWORDS),
     (PlaybookInclude, kw.IMPORT_PLAYBOOK_KEYWORDS)],
)
def test_valid_keywords_match(cls: type, ours: frozenset[str]) -> None:
    assert set(cls.fattributes) - INTERNAL == set(ours)


def test_inheritance_and_merge_rules_match() -> None:
    inherited: dict[str, str] = {}
    for cls in (Play, Block, Task, RoleInclude):
        for name, attribute in cls.fattributes.items():
            if isinstance(attribute, NonInheritableFieldAttribute) or name == "vars":
                continue
            merge = kw.Merge.PREPEND if attribute.prepend else kw.Merge.EXTEND if attribute.extend else kw.Merge.REPLACE
            inherited[name] = merge
    assert inherited == kw.INHERITED
