"""PLS124-PLS127 against ansible-playbook: the recorded corpus (tests/rules/data/module_args,
recorded by bench/record_module_args.py) holds tasks ansible-playbook 2.19 refused for their
arguments and tasks it accepted; the rules report exactly the refused ones, each with the rule
that matches ansible's reason, and none of the tasks they leave alone on purpose."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from ruletest import check

from engine.plugins.collection_search import CollectionFinder, collection_roots
from engine.plugins.names import find_ansible_core

DATA = Path(__file__).parent / "data" / "module_args"
# ansible's reason -> the rule that reports it
REASONS = {
    "PLS124": re.compile(r"^(Unsupported parameters for|Invalid options for)"),
    "PLS125": re.compile(r"^missing required arguments"),
    "PLS126": re.compile(r"^value of \w+ must be one (or more )?of"),
    "PLS127": re.compile(r"^argument '\w+' is of type \w+ and we were unable to convert"),
}

pytestmark = pytest.mark.skipif(find_ansible_core() is None, reason="needs ansible-core's modules")


def expected(verdict: str, name: str) -> list[str]:
    if name.endswith("(not judged)"):
        return []
    return [code for code, reason in REASONS.items() if reason.search(verdict)]


def task_lines(text: str) -> dict[int, str]:
    """0-based line of each task's ``- name:`` -> the task's name."""
    return {number: line.split("name:", 1)[1].strip() for number, line in enumerate(text.splitlines())
            if line.startswith("    - name:")}


def installed(*collections: str) -> bool:
    finder = CollectionFinder(collection_roots([], [], True))
    return all(finder.collection_dir(name) is not None for name in collections)


@pytest.mark.parametrize("corpus", [
    "playbook.yml",
    pytest.param("collections.yml", marks=pytest.mark.skipif(
        not installed("amazon.aws", "community.general", "awx.awx", "community.postgresql"),
        reason="needs the collections of the ansible package")),
])
def test_the_rules_report_exactly_what_ansible_refused(repo: Path, corpus: str) -> None:
    recorded = json.loads((DATA / "recorded.json").read_text())[corpus]
    text = (DATA / corpus).read_text()
    shutil.copy(DATA / corpus, repo / "playbook.yml")
    findings = [f for f in check(repo, {}) if f.code in REASONS]
    starts = sorted(task_lines(text).items())
    found: dict[str, list[str]] = {}
    for finding in findings:
        assert finding.span is not None
        name = [task for line, task in starts if line <= finding.span.line][-1]
        found.setdefault(name, []).append(finding.code)
    wanted = {name: expected(verdict, name) for name, verdict in recorded.items() if expected(verdict, name)}
    assert found == wanted
    if corpus == "playbook.yml":
        assert len(wanted) >= 20
        # every kind of refusal is in the corpus, and accepted tasks too
        assert {code for codes in wanted.values() for code in codes} == set(REASONS)
        assert sum(verdict in ("ok", "changed") for verdict in recorded.values()) >= 6
