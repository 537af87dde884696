"""``playbook-ls launch PROFILE``: text and JSON output (goldens) and error texts."""

from __future__ import annotations

import json
import os
import textwrap
from pathlib import Path

import pytest

from playbook_ls.cli.main import main

GOLDEN = Path(__file__).resolve().parent / "golden"
UPDATE = os.environ.get("PLAYBOOK_LS_UPDATE_GOLDEN") == "1"  # re-write the goldens instead of comparing

PLAYBOOK = """\
- name: Web servers
  hosts: web
  tags: web
  tasks:
    - name: deploy app
      debug: msg=deploy
      tags: deploy
    - name: drop database
      command: drop
      tags: never
- name: Everything
  hosts: all
  gather_facts: false
  tasks:
    - name: ping
      ping:
      tags: [deploy, always]
"""
SETTINGS = """\
profiles:
  nightly:
    playbook: site.yml
    inventory: hosts.ini
    job_tags: deploy
    ask_limit_on_launch: true
    ask_job_type_on_launch: true
    extra_vars:
      env: prod
    survey:
      - variable: replicas
        type: integer
        min: 1
        max: 5
        default: 2
      - variable: token
        type: password
        required: true
"""


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "site.yml").write_text(PLAYBOOK)
    (tmp_path / "hosts.ini").write_text("[web]\nweb1\nweb2\n[db]\ndb1\n")
    (tmp_path / ".playbook-ls.yml").write_text(SETTINGS)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run(repo: Path, capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["launch", *argv])
    out, err = capsys.readouterr()
    return code, out.replace(str(repo), "<repo>"), err.replace(str(repo), "<repo>")


def golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if UPDATE:
        path.write_text(text)
    assert text == path.read_text()


def test_show_text(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(repo, capsys, "nightly", "--show", "-l", "web1,db1", "--check", "--diff", "--skip-tags",
                         "always", "-e", '{"token": "s3cret", "replicas": 3, "other": 1}')
    assert (code, err) == (0, "")
    assert "s3cret" not in out
    golden("show.txt", out)


def test_show_json(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(repo, capsys, "nightly", "--show", "--format", "json", "-e", "token=abc", "-vv")
    assert (code, err) == (0, "")
    data = json.loads(out)
    assert data["option_vars"]["ansible_check_mode"] is False
    assert data["plan"]["plays"][0]["hosts"] == ["web1", "web2"]
    assert "abc" not in out
    golden("show.json", out)


def test_every_launch_problem_is_listed_with_its_position(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(repo, capsys, "nightly", "--show", "-e", "replicas=9", "-e", '{"verbosity": 1}')
    assert (code, out) == (2, "")
    assert err == (
        "playbook-ls: error: launch 'nightly' cannot start (2 problems):\n"
        "  .playbook-ls.yml:11:9: Value 9 for 'replicas' expected to be an integer.\n"
        "  .playbook-ls.yml:16:9: 'token' value missing\n"
        "  hint: -e key=value gives strings; give numbers as YAML/JSON, e.g. -e '{\"count\": 3}'\n")


def test_launch_errors_in_json(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(repo, capsys, "nightly", "--show", "--format", "json")
    assert code == 2
    assert json.loads(out)["errors"] == [{"field": "extra_vars", "message": "'token' value missing", "span": {
        "file": ".playbook-ls.yml", "line": 16, "column": 9, "end_line": 19, "end_column": 1}}]


def test_unknown_profile(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(repo, capsys, "nigthly", "--show")
    assert code == 2
    assert err == "playbook-ls: error: no launch profile 'nigthly'; did you mean 'nightly'?\n"


def test_bad_profile_names_the_position(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / ".playbook-ls.yml").write_text(SETTINGS.replace("job_tags: deploy", "job_type: scan"))
    code, _, err = run(repo, capsys, "nightly", "--show")
    assert code == 2
    assert err == "playbook-ls: error: .playbook-ls.yml:5:5: profile 'nightly': job_type must be 'run' or " \
                  "'check', not 'scan'\n"


def test_missing_playbook(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "site.yml").unlink()
    code, _, err = run(repo, capsys, "nightly", "--show", "-e", "token=x")
    assert code == 2
    assert err == "playbook-ls: error: .playbook-ls.yml:3:5: the playbook site.yml could not be found\n"


def test_an_invalid_host_pattern_mismatch_stops_the_launch(repo: Path, capsys: pytest.CaptureFixture[str],
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANSIBLE_HOST_PATTERN_MISMATCH", "bogus")
    code, _, err = run(repo, capsys, "nightly", "--show", "-e", "token=x")
    assert code == 2
    assert err == ("playbook-ls: error: Invalid value 'bogus' for config 'HOST_PATTERN_MISMATCH'. "
                   "Valid values are: error, warning, ignore\n")


def test_showing_is_the_default(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    shown = run(repo, capsys, "nightly", "--show", "-e", "token=abc")
    assert shown[0] == 0 and "launch: nightly" in shown[1]
    assert run(repo, capsys, "nightly", "-e", "token=abc") == shown


def test_settings_are_unchanged_by_the_docs_example() -> None:
    """docs/profiles.md's example profile is valid."""
    from playbook_ls.config import Settings, _apply, _read_yaml

    docs = (Path(__file__).resolve().parents[2] / "docs" / "profiles.md").read_text()
    example = docs.split("```yaml\n", 1)[1].split("```", 1)[0]
    settings = Settings("/")
    _apply(settings, *_read_yaml(textwrap.dedent(example), ".playbook-ls.yml"))
    assert [p.name for p in settings.profiles] == ["nightly"]


def test_every_launch_request_field_has_a_flag(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A template that checks by default runs on demand, a diff mode or verbosity is lowered, and
    any other field of a launch request goes through --set, all under AWX's prompt rules."""
    settings = repo / ".playbook-ls.yml"
    settings.write_text(settings.read_text().replace("    ask_job_type_on_launch: true\n", (
        "    ask_job_type_on_launch: true\n    job_type: check\n    diff_mode: true\n    verbosity: 3\n"
        "    ask_diff_mode_on_launch: true\n    ask_verbosity_on_launch: true\n")))
    code, out, err = run(repo, capsys, "nightly", "--format", "json", "-e", "token=t", "--job-type", "run",
                         "--diff-mode", "false", "--verbosity", "0", "--set", "scm_branch=main", "--set", "limit=")
    assert (code, err) == (0, ""), err
    data = json.loads(out)
    assert (data["fields"]["job_type"], data["fields"]["diff_mode"], data["fields"]["verbosity"]) == ("run", False, 0)
    assert data["option_vars"]["ansible_check_mode"] is False
    assert data["ignored_fields"] == {"scm_branch": "main"}
    code, out, _ = run(repo, capsys, "nightly", "--format", "json", "-e", "token=t", "--set", "diff_mode=false",
                       "--set", "forks=3")
    assert code == 0 and json.loads(out)["fields"]["diff_mode"] is False
    assert json.loads(out)["ignored_fields"] == {"forks": 3}
    code, _, err = run(repo, capsys, "nightly", "--set", "jobtype=run")
    assert code == 2 and "'jobtype' is not a launch field; did you mean 'job_type'?" in err
    code, _, err = run(repo, capsys, "nightly", "--set", "job_type")
    assert code == 2 and "--set 'job_type': expected FIELD=VALUE" in err


@pytest.mark.parametrize(("hosts", "guessed"), [("web", False), ("'{{ target_group | default(\"web\") }}'", True)])
def test_a_vault_encrypted_vars_file_is_the_jobs_to_read_and_what_loading_read_of_it_is_not_shown(
        repo: Path, capsys: pytest.CaptureFixture[str], hosts: str, guessed: bool) -> None:
    """A job reads a play's vault-encrypted vars file with its template's vault credential, which a
    profile does not hold: the plan says so, and a play whose hosts were templated from names the
    file may set shows no hosts (never the guess loading made without the file)."""
    (repo / "secrets.yml").write_text("$ANSIBLE_VAULT;1.1;AES256\n6162\n")
    (repo / "site.yml").write_text(f"- hosts: {hosts}\n  vars_files: [secrets.yml]\n  tasks:\n    - debug: msg=x\n")
    code, out, err = run(repo, capsys, "nightly", "--limit", "web1", "--job-type", "run", "-e", "token=x")
    assert code == 0, err
    assert "note: play #1 reads the vault-encrypted vars file secrets.yml: the job decrypts it with a vault " \
           "credential of its job template" in out
    if guessed:
        assert "(the play reads target_group while loading, which that file may set)" in out
        assert "hosts (1)" not in out
    else:
        assert "hosts (1): web1" in out
