"""``--format sarif`` against the official SARIF 2.1.0 schema, and what a schema cannot check.

The schema is vendored next to this file; SARIF_SCHEMA.md says where it comes from.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

import pytest

from playbook_ls import rules
from playbook_ls.check.runner import run_check
from playbook_ls.config import load_settings

jsonschema = pytest.importorskip("jsonschema")

SCHEMA_PATH = Path(__file__).parent / "sarif-schema-2.1.0.json"
SCHEMA_ID = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"


@pytest.fixture(scope="module")
def validator() -> Any:
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    assert schema["id"] == SCHEMA_ID
    assert schema["$schema"] == "http://json-schema.org/draft-04/schema#"
    cls = jsonschema.validators.validator_for(schema)
    assert cls is jsonschema.Draft4Validator
    cls.check_schema(schema)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


def sarif(cli, *argv: str) -> dict[str, Any]:
    rc, out, err = cli("check", "--format", "sarif", *argv)
    assert err == "" and rc in (0, 1)
    return json.loads(out)


def assert_valid(validator: Any, log: dict[str, Any]) -> None:
    errors = sorted(validator.iter_errors(log), key=lambda e: list(e.absolute_path))
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors[:10])


def all_locations(log: dict[str, Any]) -> list[dict[str, Any]]:
    return [loc for result in log["runs"][0]["results"]
            for loc in (*result.get("locations", []), *result.get("relatedLocations", []))]


def test_output_validates_against_the_official_schema(golden_repo: Path, cli, validator) -> None:
    log = sarif(cli)
    assert log["version"] == "2.1.0"
    assert log["runs"][0]["results"], "the fixture must have findings for this test to mean something"
    assert_valid(validator, log)


def test_schema_validation_catches_a_broken_log(golden_repo: Path, cli, validator) -> None:
    """The validator is not vacuous: 0-based lines and unknown levels are rejected."""
    log = sarif(cli)
    result = log["runs"][0]["results"][0]
    result["locations"][0]["physicalLocation"]["region"]["startLine"] = 0
    result["level"] = "info"
    paths = {tuple(e.absolute_path) for e in validator.iter_errors(log)}
    assert ("runs", 0, "results", 0, "level") in paths
    assert ("runs", 0, "results", 0, "locations", 0, "physicalLocation", "region", "startLine") in paths


def test_rule_index_points_at_the_rule_descriptor(golden_repo: Path, cli) -> None:
    log = sarif(cli)
    driver = log["runs"][0]["tool"]["driver"]
    ids = [descriptor["id"] for descriptor in driver["rules"]]
    assert ids == list(rules.RULES)
    for result in log["runs"][0]["results"]:
        descriptor = driver["rules"][result["ruleIndex"]]
        assert descriptor["id"] == result["ruleId"]
        assert descriptor["name"] == rules.RULES[result["ruleId"]].NAME
    levels = {d["id"]: d["defaultConfiguration"]["level"] for d in driver["rules"]}
    assert levels["PLS116"] == "note" and levels["PLS106"] == "error" and levels["PLS101"] == "warning"


def test_levels_follow_the_effective_severity(golden_repo: Path, cli) -> None:
    results = sarif(cli)["runs"][0]["results"]
    by_code = {r["ruleId"]: r["level"] for r in results}
    assert by_code["PLS116"] == "note"
    assert by_code["PLS114"] == "note"  # warning by default, 'info' in the fixture's settings
    assert by_code["PLS112"] == "error" and by_code["PLS101"] == "warning"


def test_locations_are_one_based_and_match_the_source(golden_repo: Path, cli) -> None:
    log = sarif(cli)
    results = log["runs"][0]["results"]
    settings = load_settings(None, ".")
    findings = run_check(["."], settings, use_cache=False).findings
    assert [f.code for f in findings] == [r["ruleId"] for r in results]
    for finding, result in zip(findings, results, strict=True):
        region = result["locations"][0]["physicalLocation"]["region"]
        assert (region["startLine"], region["startColumn"]) == (finding.span.line + 1, finding.span.col + 1)
        assert region["startLine"] >= 1 and region["startColumn"] >= 1
        related = result.get("relatedLocations", [])
        assert [loc["physicalLocation"]["region"]["startLine"] for loc in related] == [
            r.span.line + 1 for r in finding.related]
        assert [loc["id"] for loc in related] == list(range(len(related)))
    # Independently of the spans: the PLS105 region covers the quoted condition in site.yml.
    pls105 = next(r for r in results if r["ruleId"] == "PLS105")
    location = pls105["locations"][0]["physicalLocation"]
    assert location["artifactLocation"] == {"uri": "site.yml", "uriBaseId": "%SRCROOT%"}
    region = location["region"]
    line = (golden_repo / "site.yml").read_text().splitlines()[region["startLine"] - 1]
    assert line[region["startColumn"] - 1:region["endColumn"] - 1] == '"{{ deploy_enabled }}"'
    # PLS101's related locations are the play's and the roles: entry's tags.
    pls101 = next(r for r in results if r["ruleId"] == "PLS101")
    related = [(loc["physicalLocation"]["artifactLocation"]["uri"], loc["physicalLocation"]["region"]["startLine"],
                loc["message"]["text"]) for loc in pls101["relatedLocations"]]
    assert related == [("site.yml", 3, "'web' is inherited from here"), ("site.yml", 6, "'app' is inherited from here")]


def test_columns_count_unicode_code_points(write, cli, validator) -> None:
    write({"site.yml": """
        - hosts: all
          tasks:
            - {name: "déjà vu ✓", ansible.builtin.debug: {msg: x}, when: "{{ ok }}"}
        """})
    log = sarif(cli)
    assert_valid(validator, log)
    assert log["runs"][0]["columnKind"] == "unicodeCodePoints"
    (result,) = log["runs"][0]["results"]
    region = result["locations"][0]["physicalLocation"]["region"]
    line = Path("site.yml").read_text(encoding="utf-8").splitlines()[region["startLine"] - 1]
    assert line[region["startColumn"] - 1:region["endColumn"] - 1] == '"{{ ok }}"'


def test_clean_repository_gives_a_valid_log_without_results(write, cli, validator) -> None:
    write({"site.yml": "- hosts: all\n  tasks:\n    - ansible.builtin.debug:\n        msg: hi\n"})
    rc, out, _ = cli("check", "--format", "sarif")
    log = json.loads(out)
    assert rc == 0 and log["runs"][0]["results"] == []
    assert_valid(validator, log)


def test_uris_are_percent_encoded_relative_references(write, cli, validator) -> None:
    write({"dir with space/pläy #1.yml": """
        - hosts: all
          tasks:
            - ansible.builtin.debug:
                msg: x
              tags: all
        """})
    log = sarif(cli)
    assert_valid(validator, log)
    (location,) = all_locations(log)
    artifact = location["physicalLocation"]["artifactLocation"]
    assert artifact["uriBaseId"] == "%SRCROOT%"
    assert " " not in artifact["uri"] and "#" not in artifact["uri"]
    assert unquote(artifact["uri"]) == "dir with space/pläy #1.yml"
    base = log["runs"][0]["originalUriBaseIds"]["%SRCROOT%"]["uri"]
    assert base == Path.cwd().resolve().as_uri() + "/"


def test_files_outside_the_cwd_get_absolute_file_uris(write, cli, validator, monkeypatch) -> None:
    root = write({"site.yml": """
        - hosts: all
          tasks:
            - ansible.builtin.debug:
                msg: x
              tags: all
        """, "sub/notes.txt": "not YAML\n"})
    monkeypatch.chdir(root / "sub")
    log = sarif(cli, "..")
    assert_valid(validator, log)
    (location,) = all_locations(log)
    artifact = location["physicalLocation"]["artifactLocation"]
    assert "uriBaseId" not in artifact
    parsed = urlparse(artifact["uri"])
    assert parsed.scheme == "file" and Path(unquote(parsed.path)).resolve() == (root / "site.yml").resolve()
