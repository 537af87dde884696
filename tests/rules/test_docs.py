"""Every rule is documented, and its documented examples behave as documented."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from ruletest import check

from playbook_ls import rules
from playbook_ls.rules.docs import examples, missing_sections

ROOT = Path(__file__).resolve().parents[2]
CODES = list(rules.RULES)


@pytest.mark.parametrize("code", CODES)
def test_docstring_has_every_section(code: str) -> None:
    module = rules.RULES[code]
    assert missing_sections(module) == []
    assert module.__doc__.strip().splitlines()[0] == module.NAME
    assert module.SEVERITY in ("info", "warning", "error")
    assert module.SCOPE in ("playbook", "project", "noqa")


def _files(blocks: list) -> dict[str, str]:
    files = {}
    for block in blocks:
        name = block.title or ("playbook.yml" if block.lang == "yaml" else "pyproject.toml")
        files[name] = block.body
    return files


@pytest.mark.parametrize("code", CODES)
def test_example_is_reported(code: str, repo: Path) -> None:
    bad, _good = examples(rules.RULES[code])
    assert bad, f"{code} has no example code"
    assert [f for f in check(repo, _files(bad)) if f.code == code], f"{code}: its Example raised nothing"


@pytest.mark.parametrize("code", CODES)
def test_use_instead_is_clean(code: str, repo: Path) -> None:
    _bad, good = examples(rules.RULES[code])
    assert good, f"{code} has no 'Use instead' code"
    found = [f for f in check(repo, _files(good)) if f.code == code]
    assert found == [], f"{code}: its 'Use instead' example raised {found}"


def test_rule_pages_are_up_to_date() -> None:
    script = ROOT / "scripts" / "gen_rule_docs.py"
    result = subprocess.run([sys.executable, str(script), "--check"], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr


def test_codes_and_names_are_unique() -> None:
    assert len({m.NAME for m in rules.RULES.values()}) == len(rules.RULES)
    assert all(code == module.CODE for code, module in rules.RULES.items())
