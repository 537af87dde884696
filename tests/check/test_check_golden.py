"""Golden files: every output format of ``playbook-ls check`` on fixtures/golden_repo.

The fixture has findings of several rules (PLS101 with related locations, profile rules on
.playbook-ls.yml, an error, info findings, a ``# noqa``'d line). Its output is compared with
tests/check/golden/. After an intended change of the output, regenerate them with

    PLAYBOOK_LS_UPDATE_GOLDEN=1 python -m pytest tests/check/test_check_golden.py

and review the diff. Three things are normalised before the comparison, so that the goldens
hold no machine-specific or churning text:

* SARIF ``originalUriBaseIds["%SRCROOT%"]`` is the ``file:`` URI of the cwd: it is checked to
  be exactly that, then replaced by ``file:///SRCROOT/``. (formats.py keeps printing the real
  directory: it is what lets a SARIF viewer resolve the relative result URIs.)
* The tool version (JSON ``version``, SARIF driver ``version``/``semanticVersion``) is checked
  and replaced by ``<version>``.
* The SARIF rule descriptors' texts are checked against the rule docstrings, then replaced by
  placeholders, so that editing a rule's documentation does not churn this golden.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

from playbook_ls import __version__, rules

GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("PLAYBOOK_LS_UPDATE_GOLDEN") == "1"

CASES: dict[str, list[str]] = {
    "text.txt": ["--format", "text"],
    "json.json": ["--format", "json"],
    "sarif.json": ["--format", "sarif"],
    "github.txt": ["--format", "github"],
    "statistics.txt": ["--statistics"],
    "statistics.json": ["--statistics", "--format", "json"],
}
SRCROOT = "file:///SRCROOT/"
VERSION = "<version>"
# An absolute POSIX path, a Windows drive path or a file: URI (but the SRCROOT placeholder).
ABSOLUTE = re.compile(r"""(?:^|[\s"'(=,])"""
                      r"""(?:/(?:tmp|home|root|work|Users|var|private)/|[A-Za-z]:\\|file:/(?!//SRCROOT/))""")


def _normalise_json(out: str) -> str:
    data = json.loads(out)
    assert data["version"] == __version__
    data["version"] = VERSION
    return json.dumps(data, indent=2) + "\n"


def _normalise_sarif(out: str, root: Path) -> str:
    log = json.loads(out)
    run = log["runs"][0]
    base = run["originalUriBaseIds"]["%SRCROOT%"]
    assert base["uri"] == root.resolve().as_uri() + "/"
    base["uri"] = SRCROOT
    driver = run["tool"]["driver"]
    assert driver["version"] == driver["semanticVersion"] == __version__
    driver["version"] = driver["semanticVersion"] = VERSION
    for descriptor in driver["rules"]:
        _check_and_stub_descriptor(descriptor)
    return json.dumps(log, indent=2) + "\n"


def _check_and_stub_descriptor(descriptor: dict[str, Any]) -> None:
    module = rules.RULES[descriptor["id"]]
    doc = (module.__doc__ or "").strip()
    assert descriptor["help"] == {"text": doc, "markdown": doc}
    summary = descriptor["shortDescription"]["text"]
    assert summary and "\n" not in summary and summary == descriptor["fullDescription"]["text"]
    assert summary.split()[:3] == doc.split("## What it does", 1)[1].split()[:3]
    placeholder = f"<{descriptor['id']} docstring>"
    descriptor["shortDescription"] = descriptor["fullDescription"] = {"text": placeholder}
    descriptor["help"] = {"text": placeholder, "markdown": placeholder}


def normalise(name: str, out: str, root: Path) -> str:
    if name == "json.json":
        return _normalise_json(out)
    if name == "sarif.json":
        return _normalise_sarif(out, root)
    return out


def assert_no_absolute_paths(text: str, root: Path) -> None:
    for forbidden in {str(root), str(root.resolve()), str(Path.home())}:
        assert forbidden not in text
    assert ABSOLUTE.search(text) is None, ABSOLUTE.search(text)


def compare(name: str, out: str) -> None:
    path = GOLDEN / name
    if UPDATE:
        GOLDEN.mkdir(exist_ok=True)
        path.write_text(out, encoding="utf-8", newline="\n")
        return
    assert path.exists(), f"{path} is missing: run with PLAYBOOK_LS_UPDATE_GOLDEN=1 to create it"
    assert out == path.read_text(encoding="utf-8"), (
        f"{name} differs from the golden file; if the change is intended, regenerate with "
        "PLAYBOOK_LS_UPDATE_GOLDEN=1 python -m pytest tests/check/test_check_golden.py")


@pytest.mark.parametrize("name", CASES)
def test_golden_output(name: str, golden_repo: Path, cli) -> None:
    rc, out, err = cli("check", *CASES[name])
    assert (rc, err) == (1, "")
    out = normalise(name, out, golden_repo)
    assert_no_absolute_paths(out, golden_repo)
    compare(name, out)


def test_goldens_hold_no_absolute_paths_and_no_stale_files() -> None:
    assert sorted(p.name for p in GOLDEN.iterdir()) == sorted(CASES)
    for path in GOLDEN.iterdir():
        text = path.read_text(encoding="utf-8")
        assert ABSOLUTE.search(text) is None, (path.name, ABSOLUTE.search(text))


def test_golden_repo_covers_what_the_goldens_are_for(golden_repo: Path, cli) -> None:
    """Guards the fixture: several rules, PLS101 with related locations, info, an error, a noqa."""
    rc, out, _ = cli("check", "--format", "json")
    findings = json.loads(out)["findings"]
    codes = {f["code"] for f in findings}
    assert {"PLS101", "PLS103", "PLS105", "PLS106", "PLS107", "PLS112", "PLS114", "PLS116"} <= codes
    pls101 = next(f for f in findings if f["code"] == "PLS101")
    assert [(r["path"], r["line"]) for r in pls101["related"]] == [("site.yml", 3), ("site.yml", 6)]
    severities = {f["severity"] for f in findings}
    assert severities == {"error", "warning", "info"}
    assert next(f for f in findings if f["code"] == "PLS114")["severity"] == "info"  # severity override
    # the PLS105 line of site.yml that has a noqa comment is silenced, the other one is not
    assert [f["line"] for f in findings if f["code"] == "PLS105"] == [12]
    assert rc == 1
