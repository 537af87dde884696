"""Handlers notified before one flush run in the order their play defines them, whatever order
the notifications came in (ansible-playbook 2.19 runs ``reload proxy`` before ``restart app``
when the play's handlers list them so, though the task notifies ``restart app`` first): a change
of that order changes the run, and the review says which handlers moved."""

from __future__ import annotations

from pathlib import Path

import pytest
from review_cases import write_tree

HANDLERS = {"restart app": "app", "reload proxy": "proxy", "clear cache": "cache"}


def _site(order: list[str]) -> str:
    handlers = "".join(f"    - name: {name}\n      debug: msg={HANDLERS[name]}\n" for name in order)
    return ("- name: web\n  hosts: all\n  gather_facts: false\n  tasks:\n    - name: deploy\n      debug: msg=x\n"
            "      changed_when: true\n      notify: [restart app, reload proxy, clear cache]\n"
            "  handlers:\n" + handlers)


def _review(tmp_path: Path, old: list[str], new: list[str], fmt: str = "text") -> tuple[object, str]:
    from engine.flow.plan import RunOptions
    from engine.parsing.source import files_changed
    from playbook_ls.review.build import build_review
    from playbook_ls.review.report import FORMATS

    write_tree(tmp_path / "old", {"site.yml": _site(old)})
    write_tree(tmp_path / "new", {"site.yml": _site(new)})
    files_changed()
    review = build_review(str(tmp_path / "old"), str(tmp_path / "new"), ["site.yml"],
                          RunOptions(playbook="", inventory=[]), None, str(tmp_path / "new"))
    return review.playbooks[0], FORMATS[fmt](review)


def test_a_handler_defined_elsewhere_is_said_to_run_in_another_order(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    playbook, text = _review(tmp_path, ["restart app", "reload proxy", "clear cache"],
                             ["reload proxy", "restart app", "clear cache"])
    # of the three, the longest run kept in order is (restart app, clear cache): reload proxy moved
    assert [entry.task.name for entry in playbook.handler_order] == ["reload proxy"]  # type: ignore[attr-defined]
    assert "handlers in another order 1" in text
    assert "↕ reload proxy  site.yml:10 — now first (was after 'restart app')" in text
    assert not playbook.empty()  # type: ignore[attr-defined]


def test_handlers_in_the_same_order_are_no_change(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    playbook, _ = _review(tmp_path, ["restart app", "reload proxy"], ["restart app", "reload proxy", "clear cache"])
    assert playbook.handler_order == []  # type: ignore[attr-defined]


def test_the_github_format_notes_each_handler_moved(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    _, out = _review(tmp_path, ["restart app", "reload proxy"], ["reload proxy", "restart app"], "github")
    assert "::notice file=site.yml,line=" in out and "handler runs in another order" in out
