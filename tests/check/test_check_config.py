"""Settings of ``playbook-ls check`` from ``.playbook-ls.yml`` or ``[tool.playbook-ls]`` in pyproject.toml."""

from __future__ import annotations

import json

import pytest


def tagged(tag: str = "all", hosts: bool = True) -> str:
    """A playbook with one task tagged ``tag`` (line 6)."""
    head = "- hosts: all\n" if hosts else "- name: no hosts\n"
    return f"{head}  tasks:\n    - name: t\n      ansible.builtin.debug:\n        msg: x\n      tags: {tag}\n"


# PLS114 (warning) at line 6, PLS105 (warning) at line 7, PLS116 (info) at line 8.
MIXED = """\
- hosts: all
  tasks:
    - name: t
      ansible.builtin.debug:
        msg: x
      tags: all
      when: "{{ x }}"
    - ansible.builtin.include_tasks: "{{ ansible_facts.os }}.yml"
"""


def findings(cli, *argv: str) -> list[tuple[str, str, int, str]]:
    rc, out, err = cli("check", "--format", "json", *argv)
    assert rc in (0, 1), err
    return [(f["path"], f["code"], f["line"], f["severity"]) for f in json.loads(out)["findings"]]


def codes(cli, *argv: str) -> list[str]:
    return [code for _path, code, _line, _severity in findings(cli, *argv)]


def config_error(cli, *argv: str) -> str:
    rc, out, err = cli("check", *argv)
    assert (rc, out) == (2, ""), err
    assert err.startswith("playbook-ls: config error: ")
    return err


# -- the two file formats ---------------------------------------------------------------------

EQUIVALENT = [
    ("pyproject.toml", """
        [tool.playbook-ls]
        select = ["PLS1"]
        ignore = ["when-with-jinja-delimiters"]
        fail-level = "error"
        exclude = ["vendor"]

        [tool.playbook-ls.severity]
        PLS116 = "warning"
        reserved-tag-name = "error"
        """),
    (".playbook-ls.yml", """
        select: [PLS1]
        ignore: [when-with-jinja-delimiters]
        fail_level: error
        exclude: vendor
        severity:
          PLS116: warning
          reserved-tag-name: error
        """),
    (".playbook-ls.yaml", """
        select: PLS1
        ignore: PLS105
        fail-level: error
        exclude: [vendor]
        severity: {PLS116: warning, PLS114: error}
        """),
]


@pytest.mark.parametrize(("name", "text"), EQUIVALENT, ids=[name for name, _ in EQUIVALENT])
def test_toml_and_yaml_settings_mean_the_same(write, cli, name: str, text: str) -> None:
    write({"site.yml": MIXED, "vendor/v.yml": tagged(), name: text})
    assert findings(cli) == [("site.yml", "PLS114", 6, "error"), ("site.yml", "PLS116", 8, "warning")]
    assert cli("check")[0] == 1


def test_defaults_without_a_config_file(write, cli) -> None:
    write({"site.yml": MIXED})
    assert findings(cli) == [("site.yml", "PLS114", 6, "warning"), ("site.yml", "PLS105", 7, "warning"),
                             ("site.yml", "PLS116", 8, "info")]


def test_yaml_config_wins_over_pyproject_in_the_same_directory(write, cli) -> None:
    write({"site.yml": MIXED, ".playbook-ls.yml": "select: [PLS114]\n",
           "pyproject.toml": "[tool.playbook-ls]\nselect = ['PLS105']\n"})
    assert codes(cli) == ["PLS114"]


def test_pyproject_without_the_table_is_skipped_and_lookup_goes_up(write, cli, monkeypatch) -> None:
    root = write({"pyproject.toml": "[tool.playbook-ls]\nselect = ['PLS105']\n",
                  "sub/pyproject.toml": "[project]\nname = 'sub'\n", "sub/site.yml": MIXED})
    monkeypatch.chdir(root / "sub")
    assert codes(cli) == ["PLS105"]
    monkeypatch.chdir(root)
    assert codes(cli, "sub") == ["PLS105"]


def test_explicit_config_option(write, cli) -> None:
    write({"site.yml": MIXED, "conf/lint.yml": "select: [PLS116]\n", ".playbook-ls.yml": "select: [PLS114]\n"})
    assert codes(cli, "--config", "conf/lint.yml") == ["PLS116"]


# -- errors, with their position ----------------------------------------------------------------

@pytest.mark.parametrize(("name", "text", "where", "message"), [
    (".playbook-ls.yml", "select: [PLS114]\nexlude: [x]\n", "2:1",
     "unknown setting 'exlude'; did you mean 'exclude'?; the settings are: select, ignore, severity"),
    (".playbook-ls.yml", "roles_paths: [x]\n", "1:1", "did you mean 'roles_path'?"),
    (".playbook-ls.yml", "frobnicate: 1\n", "1:1", "unknown setting 'frobnicate'; the settings are"),
    ("pyproject.toml", "[tool.playbook-ls]\nselect = ['PLS1']\nfail_levle = 'error'\n", "3:1",
     "unknown setting 'fail_levle'; did you mean 'fail_level'?"),
    ("pyproject.toml", "[tool.playbook-ls.severty]\nPLS101 = 'error'\n", "1:1",
     "unknown setting 'severty'; did you mean 'severity'?"),
])
def test_unknown_key_has_did_you_mean_and_position(write, cli, name, text, where, message) -> None:
    write({"site.yml": MIXED, name: text})
    err = config_error(cli)
    assert f"{name}:{where}: " in err and message in err


@pytest.mark.parametrize(("name", "text", "where", "message"), [
    (".playbook-ls.yml", "severity:\n  PLS114: fatal\n", "2:3",
     "'severity.PLS114' must be one of info, warning, error, not 'fatal'"),
    (".playbook-ls.yml", "severity:\n  PLS999: error\n", "2:3", "no rule matches 'PLS999'"),
    (".playbook-ls.yml", "severity: error\n", "1:1", "'severity' must be a table"),
    (".playbook-ls.yml", "fail-level: critical\n", "1:1", "'fail-level' must be one of info, warning, error"),
    ("pyproject.toml", "[tool.playbook-ls.severity]\nPLS101 = 'warning'\nPLS114 = 'WARN'\n", "3:1",
     "'severity.PLS114' must be one of info, warning, error, not 'WARN'"),
    (".playbook-ls.yml", "select: [reserved-tag-nam]\n", "1:1",
     "'select': no rule matches 'reserved-tag-nam'; did you mean 'reserved-tag-name'?"),
    (".playbook-ls.yml", "ignore: [{a: 1}]\n", "1:1", "'ignore' must be a list of strings"),
])
def test_bad_values_have_position(write, cli, name, text, where, message) -> None:
    write({"site.yml": MIXED, name: text})
    err = config_error(cli)
    assert f"{name}:{where}: " in err and message in err


@pytest.mark.parametrize(("name", "text", "where", "message"), [
    (".playbook-ls.yml", "profiles:\n  web:\n    playbook: site.yml\n    job_tag: web\n", "4:5",
     "profile 'web': unknown field 'job_tag'; did you mean 'job_tags'?"),
    (".playbook-ls.yml", "profiles:\n  web:\n    job_type: walk\n", "3:5",
     "profile 'web': job_type must be 'run' or 'check', not 'walk'"),
    (".playbook-ls.yml", "profiles:\n  web:\n    verbosity: 9\n", "3:5", "verbosity must be between 0 and 5"),
    (".playbook-ls.yml", "profiles:\n  web:\n    skip_tags: {a: 1}\n", "3:5",
     "skip_tags must be a comma-separated string or a list of strings"),
    (".playbook-ls.yml", "profiles:\n  web:\n    playbook:\n", "3:5", "playbook is null"),
    (".playbook-ls.yml", "profiles:\n  web: site.yml\n", "2:3", "'profiles.web' must be a table"),
    ("pyproject.toml", "[tool.playbook-ls.profiles.web]\nplaybook = 'site.yml'\nplaybok = 'x'\n", "3:1",
     "profile 'web': unknown field 'playbok'; did you mean 'playbook'?"),
    ("pyproject.toml", "[tool.playbook-ls.profiles.web]\nforks = -1\n", "2:1", "forks must be a whole number"),
])
def test_bad_profile_fields_have_position(write, cli, name, text, where, message) -> None:
    write({"site.yml": MIXED, name: text})
    err = config_error(cli)
    assert f"{name}:{where}: " in err and message in err


@pytest.mark.parametrize(("text", "where", "message"), [
    ("rules:\n  PLS103:\n    wen: true\n", "3:5", "PLS103 has no option 'wen' (its options: when)"),
    ("rules:\n  PLS103:\n    when: 1\n", "3:5", "PLS103 option 'when' must be a bool"),
    ("rules:\n  PLS999: {}\n", "2:3", "'rules': no rule 'PLS999'"),
    ("rules:\n  PLS114:\n    strict: true\n", "3:5", "PLS114 has no option 'strict' (its options: none)"),
])
def test_bad_rule_options_have_position(write, cli, text, where, message) -> None:
    write({"site.yml": MIXED, ".playbook-ls.yml": text})
    err = config_error(cli)
    assert f".playbook-ls.yml:{where}: " in err and message in err


@pytest.mark.xfail(strict=True, reason="config._read_toml takes the position from 'line N, column M' in the "
                                       "tomllib message; an error 'at end of document' has none and is put at 1:1")
def test_toml_error_at_end_of_document_points_at_the_end(write, cli) -> None:
    write({"site.yml": MIXED, "pyproject.toml": "[project]\nname = 'x'\n[tool.playbook-ls]\nselect = [\n"})
    err = config_error(cli)
    assert "pyproject.toml:1:1:" not in err


# -- select / ignore / severity -------------------------------------------------------------------

def test_select_and_ignore(write, cli) -> None:
    write({"site.yml": MIXED})
    assert codes(cli, "--select", "PLS105,PLS116") == ["PLS105", "PLS116"]
    assert codes(cli, "--select", "PLS105", "--select", " PLS116 ,") == ["PLS105", "PLS116"]
    write({".playbook-ls.yml": "select: [PLS114, PLS105]\nignore: [PLS105]\n"})
    assert codes(cli) == ["PLS114"]  # ignore wins over select
    assert codes(cli, "--select", "PLS116") == ["PLS116"]  # the command line replaces the file's select
    assert codes(cli, "--select", "PLS105") == []  # ... but the file's ignore still applies
    assert codes(cli, "--ignore", "PLS114") == []  # --ignore adds to the file's
    write({".playbook-ls.yml": "select: [ALL]\nignore: [PLS11]\n"})
    assert codes(cli) == ["PLS105"]


def test_severity_by_prefix_and_name(write, cli) -> None:
    write({"site.yml": MIXED, ".playbook-ls.yml": "severity:\n  PLS1: error\n  PLS116: info\n"})
    assert [s for *_rest, s in findings(cli)] == ["error", "error", "info"]


def test_rule_options_reach_the_rule(write, cli) -> None:
    write({"site.yml": """
        - hosts: all
          tasks:
            - ansible.builtin.include_tasks: setup.yml
              when: ready
        """, "setup.yml": "- ansible.builtin.debug:\n    msg: x\n"})
    assert codes(cli) == []
    write({".playbook-ls.yml": "rules:\n  include-tags-not-inherited:\n    when: true\n"})
    assert codes(cli) == ["PLS103"]


# -- exclude / include / roles-path ------------------------------------------------------------------

TREE = {"site.yml": tagged(), "a/top.yml": tagged(), "a/b/c/deep.yml": tagged(), "vendor/x/v.yml": tagged(),
        "old.bak.yml": tagged()}


def paths(cli, *argv: str) -> list[str]:
    return [path for path, *_rest in findings(cli, *argv)]


@pytest.mark.parametrize(("patterns", "left"), [
    ([], ["a/b/c/deep.yml", "a/top.yml", "old.bak.yml", "site.yml", "vendor/x/v.yml"]),
    (["vendor"], ["a/b/c/deep.yml", "a/top.yml", "old.bak.yml", "site.yml"]),
    (["vendor/"], ["a/b/c/deep.yml", "a/top.yml", "old.bak.yml", "site.yml"]),
    (["a"], ["old.bak.yml", "site.yml", "vendor/x/v.yml"]),
    (["*.bak.yml"], ["a/b/c/deep.yml", "a/top.yml", "site.yml", "vendor/x/v.yml"]),
    (["**/deep.yml"], ["a/top.yml", "old.bak.yml", "site.yml", "vendor/x/v.yml"]),
    (["a/**/*.yml"], ["old.bak.yml", "site.yml", "vendor/x/v.yml"]),
    (["**/c", "vendor/x"], ["a/top.yml", "old.bak.yml", "site.yml"]),
    (["a/b/c/deep.yml", "site.yml"], ["a/top.yml", "old.bak.yml", "vendor/x/v.yml"]),
])
def test_exclude_globs(write, cli, patterns: list[str], left: list[str]) -> None:
    write({**TREE, ".playbook-ls.yml": f"exclude: {json.dumps(patterns)}\n"})
    assert paths(cli) == left


@pytest.mark.parametrize(("patterns", "left"), [
    (["vendor/**"], ["a/b/c/deep.yml", "a/top.yml", "old.bak.yml", "site.yml"]),
    (["**/c/**"], ["a/top.yml", "old.bak.yml", "site.yml", "vendor/x/v.yml"]),
    (["a/**"], ["old.bak.yml", "site.yml", "vendor/x/v.yml"]),
])
def test_exclude_globs_with_trailing_double_star(write, cli, patterns: list[str], left: list[str]) -> None:
    write({**TREE, ".playbook-ls.yml": f"exclude: {json.dumps(patterns)}\n"})
    assert paths(cli) == left


def test_exclude_single_star_stays_in_one_directory(write, cli) -> None:
    write({**TREE, ".playbook-ls.yml": "exclude: ['a/*.yml']\n"})
    assert paths(cli) == ["a/b/c/deep.yml", "old.bak.yml", "site.yml", "vendor/x/v.yml"]


def test_include_single_star_stays_in_one_directory(write, cli) -> None:
    write({"ci/nohosts.yml": tagged(hosts=False), "ci/other/nohosts.yml": tagged(hosts=False),
           ".playbook-ls.yml": "include: ['ci/*.yml']\n"})
    assert paths(cli) == ["ci/nohosts.yml"]


def test_exclude_is_relative_to_the_config_file(write, cli, monkeypatch) -> None:
    root = write({**TREE, ".playbook-ls.yml": "exclude: ['a/top.yml']\n"})
    monkeypatch.chdir(root / "a")
    assert paths(cli) == ["b/c/deep.yml"]


def test_include_checks_files_not_detected_as_playbooks(write, cli) -> None:
    write({"site.yml": tagged(), "ci/nohosts.yml": tagged(hosts=False), "ci/other/nohosts.yml": tagged(hosts=False)})
    assert paths(cli) == ["site.yml"]
    write({".playbook-ls.yml": "include: ['ci/*.yml']\n"})
    assert "ci/nohosts.yml" in paths(cli)
    write({".playbook-ls.yml": "include: ['**/nohosts.yml']\n"})
    assert {"ci/nohosts.yml", "ci/other/nohosts.yml"} <= set(paths(cli))


def test_roles_path_setting(write, cli) -> None:
    write({
        "site.yml": "- hosts: all\n  roles:\n    - common\n",
        "shared/roles/common/tasks/main.yml": "- ansible.builtin.debug:\n    msg: x\n  tags: all\n",
        "shared/roles/common/meta/main.yml": "dependencies: []\n",
    })
    # not found by the play; checked on its own as a role no playbook uses
    assert sorted(codes(cli)) == ["PLS109", "PLS114"]
    write({".playbook-ls.yml": "roles-path: [shared/roles]\n"})
    assert findings(cli) == [("shared/roles/common/tasks/main.yml", "PLS114", 3, "warning")]
    write({".playbook-ls.yml": "roles_path: shared/roles\n"})
    assert codes(cli) == ["PLS114"]
