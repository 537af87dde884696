"""``constructed`` and ``generator`` followed where no code may run (engine.inventory.templated_sources):
their templates run in the bounded sandbox, so the hosts, groups and variables they make are read as
ansible makes them, unless they need what only running code gives (a lookup, a filter or test the
sandbox lacks, a source before a ``constructed`` that was not run, a fact cache it cannot read)."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.inventory.manager import load_inventory


def _write(path: Path, text: str, mode: int = 0o644) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(mode)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    for name in ("ANSIBLE_CONFIG", "ANSIBLE_CACHE_PLUGIN", "ANSIBLE_CACHE_PLUGIN_CONNECTION"):
        monkeypatch.delenv(name, raising=False)
    _write(tmp_path / "inv" / "1-hosts.yml", "all:\n  hosts:\n    a: {dc: east, load: 9}\n    b: {dc: west}\n")
    return tmp_path


def test_constructed_is_followed_without_running_code(project: Path) -> None:
    _write(project / "inv" / "2-constructed.yml",
           "plugin: ansible.builtin.constructed\nstrict: false\ncompose:\n  fqdn: inventory_hostname ~ '.' ~ dc\n"
           "groups:\n  busy: load | default(0) > 5\nkeyed_groups:\n  - key: dc\n    prefix: dc\n")
    inventory = load_inventory([str(project / "inv")])
    assert inventory.unrun == [] and inventory.notes == []
    groups = inventory.data.get_groups_dict()
    assert groups["busy"] == ["a"] and groups["dc_east"] == ["a"] and groups["dc_west"] == ["b"]
    assert inventory.data.hosts["b"].get_vars()["fqdn"] == "b.west"


def test_constructed_reads_the_jsonfile_fact_cache(project: Path) -> None:
    import json

    _write(project / "ansible.cfg", "[defaults]\nfact_caching = jsonfile\nfact_caching_connection = facts\n"
                                    "fact_caching_timeout = 0\n")
    _write(project / "facts" / "s1_a", json.dumps({"__payload__": json.dumps({"ansible_distribution": "Rocky"})}))
    _write(project / "inv" / "2-constructed.yml",
           "plugin: ansible.builtin.constructed\nkeyed_groups:\n  - key: ansible_distribution | default('none')\n"
           "    prefix: os\n")
    groups = load_inventory([str(project / "inv")]).data.get_groups_dict()
    assert groups["os_Rocky"] == ["a"] and groups["os_none"] == ["b"]


@pytest.mark.parametrize(("text", "why"), [
    ("compose:\n  who: lookup('env', 'USER')\n", "a lookup (lookup)"),
    ("groups:\n  odd: dc is acme.infra.odd\n", "the test 'acme.infra.odd'"),
    ("keyed_groups:\n  - key: dc | site_code\n", "the filter 'site_code'"),
])
def test_constructed_that_needs_code_is_not_run(project: Path, text: str, why: str) -> None:
    _write(project / "inv" / "2-constructed.yml", "plugin: ansible.builtin.constructed\n" + text)
    inventory = load_inventory([str(project / "inv")])
    assert [unrun.plugin for unrun in inventory.unrun] == ["constructed"]
    assert why in inventory.notes[0]


def test_constructed_after_a_source_not_run_is_not_run(project: Path) -> None:
    _write(project / "inv" / "1-cmdb.py", "#!/bin/sh\necho '{}'\n", 0o755)
    _write(project / "inv" / "2-constructed.yml", "plugin: ansible.builtin.constructed\ngroups:\n  all_of_them: true\n")
    inventory = load_inventory([str(project / "inv")])
    assert [unrun.plugin for unrun in inventory.unrun] == ["script", "constructed"]


def test_constructed_with_a_fact_cache_it_cannot_read_is_not_run(project: Path) -> None:
    _write(project / "ansible.cfg", "[defaults]\nfact_caching = redis\n")
    _write(project / "inv" / "2-constructed.yml",
           "plugin: ansible.builtin.constructed\ngroups:\n  all_of_them: true\n")
    inventory = load_inventory([str(project / "inv")])
    assert "'redis' fact cache" in inventory.notes[0]


def test_generator_is_followed(project: Path) -> None:
    _write(project / "inv" / "3-gen.yml",
           "plugin: ansible.builtin.generator\nhosts:\n  name: \"{{ app }}-{{ env }}\"\n  parents:\n"
           "    - name: \"{{ env }}\"\n      vars:\n        tier: \"{{ env }}\"\n"
           "layers:\n  app: [web]\n  env: [dev, prod]\n")
    inventory = load_inventory([str(project / "inv")])
    assert inventory.unrun == []
    groups = inventory.data.get_groups_dict()
    assert groups["dev"] == ["web-dev"] and groups["prod"] == ["web-prod"]
    assert inventory.data.groups["prod"].get_vars()["tier"] == "prod"
