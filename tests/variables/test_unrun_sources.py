"""Inventory sources the plan and the values do not run (engine.inventory.unrun): an inventory
script, and a ``constructed`` configuration that needs code (a lookup), recorded from
ansible-playbook, which runs them. What only they give is the run's: names they may set are
unknown (not undefined, not guessed from a ``default``), the groups they may fill and a play on
them hold hosts only maybe, and no outcome on such a host is decided. A ``constructed`` source
that needs no code is followed (``ipa_clients``, a project of the values22 held-out set)."""

from __future__ import annotations

from pathlib import Path

import pytest
from var_values import measure, plan_against_recording

HERE = Path(__file__).resolve().parent / "unrun_sources"


@pytest.mark.parametrize("name", ["ipa_clients", "cmdb_script", "script_hosts"])
def test_values(name: str) -> None:
    compared, wrong = measure(HERE / name, as_written=True)
    assert compared > 0
    assert wrong == []


def test_plan_of_a_script_not_run(monkeypatch: pytest.MonkeyPatch) -> None:
    result = plan_against_recording(HERE / "cmdb_script", "inventory", monkeypatch)
    assert result.wrong == []
    assert result.depends.get("an inventory source not run", 0) > 0


def test_play_lists_where_a_script_may_add_hosts_of_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    """``script_hosts``: a play on ``all`` runs on a host only the script lists, so its host lists
    are the run's (never the hosts read: a length of 3 where ansible has 4). The plan cannot name
    such a host; it says the play may have more, so what ansible ran there depends on the script."""
    from engine.flow.host_plan import plan_hosts
    from engine.flow.plan import RunOptions, make_plan

    result = plan_against_recording(HERE / "script_hosts", "inventory", monkeypatch)
    assert result.wrong == []
    assert result.depends.get("an inventory source not run", 0) >= 2  # bk-1's two runs among them
    monkeypatch.chdir(HERE / "script_hosts")
    plan = make_plan(RunOptions(playbook="site.yml", inventory=["inventory"]), dynamic_inventory=False)
    assert all("02-cmdb.py (not run here) may add hosts of its own" in (play.more_hosts or "")
               for play in plan_hosts(plan))


def test_plan_of_a_constructed_source_followed(monkeypatch: pytest.MonkeyPatch) -> None:
    """``ipa_clients``'s constructed source needs no code (engine.inventory.templated_sources): its
    groups and composed variables are the inventory's before the run, every outcome decided."""
    result = plan_against_recording(HERE / "ipa_clients", "inventory", monkeypatch)
    assert result.wrong == []
    assert result.decided == result.compared


def test_groups_nested_in_a_set_s_order_under_a_constructed_source(tmp_path: Path) -> None:
    """``groups`` where constructed was not run and ansible walks nested child groups in a set's
    order: a group it may fill is unknown, a nested group's order the run's, the others read."""
    from var_values import values_at

    inventory = tmp_path / "inventory"
    inventory.mkdir()
    (inventory / "1-hosts.yml").write_text(
        "all:\n  children:\n    dc:\n      children:\n"
        "        east: {children: {e1: {hosts: {a: {site: x}}}}}\n"
        "        west: {children: {w1: {hosts: {b: {site: y}}}}}\n"
        "    web:\n      hosts:\n        a: {}\n")
    (inventory / "2-constructed.yml").write_text(
        "plugin: ansible.builtin.constructed\nkeyed_groups:\n"
        "  - key: site ~ lookup('env', 'SUFFIX')\n    prefix: site\n")
    (tmp_path / "site.yml").write_text(
        "- hosts: web\n  gather_facts: false\n  tasks:\n    - name: probe\n      ansible.builtin.debug:\n"
        "        msg:\n          p_web: \"{{ groups['web'] }}\"\n          p_site: \"{{ groups['site_x'] }}\"\n"
        "          p_names: \"{{ group_names }}\"\n"
        "          p_dc: \"{{ groups['dc'] | sort }}\"\n          p_dc_order: \"{{ groups['dc'] }}\"\n")
    (tmp_path / "case.json").write_text('{"inventory": ["inventory"]}')
    found = values_at(tmp_path, "site.yml:4", "a", 0, ["p_web", "p_site", "p_names", "p_dc", "p_dc_order"],
                      as_written=True)
    assert found["p_web"] == ["a"]
    assert found["p_site"].startswith("unknown: ") and "(not run here)" in found["p_site"]
    assert found["p_names"].startswith("unknown: ")
    assert found["p_dc"] == ["a", "b"]
    assert "Python set" in found["p_dc_order"]


def test_a_host_only_a_script_may_add_is_unknown_in_hostvars(tmp_path: Path) -> None:
    from var_values import values_at

    inventory = tmp_path / "inventory"
    inventory.mkdir()
    (inventory / "1-hosts.ini").write_text("[web]\nw1\n")
    (inventory / "2-cmdb.py").write_text("#!/bin/sh\necho '{}'\n")
    (inventory / "2-cmdb.py").chmod(0o755)
    (tmp_path / "site.yml").write_text(
        "- hosts: web\n  gather_facts: false\n  tasks:\n    - name: probe\n      ansible.builtin.debug:\n"
        "        msg:\n          p_other: \"{{ hostvars['sink-1'].kind | default('none') }}\"\n"
        "          p_self: \"{{ hostvars['w1'].inventory_hostname }}\"\n")
    (tmp_path / "case.json").write_text('{"inventory": ["inventory"]}')
    found = values_at(tmp_path, "site.yml:4", "w1", 0, ["p_other", "p_self"], as_written=True)
    assert found["p_self"] == "w1"
    assert found["p_other"].startswith("unknown: ") and "may add the host" in found["p_other"]


def test_play_lists_under_a_limit_naming_only_hosts_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Under ``--limit web-1`` (a host read), a host only the script may add is left out of the play
    (ansible applies the limit to every host, the script's too): the play's hosts are web-1 alone,
    so a condition on their number is decided, as the play's own ``more_hosts`` says (None)."""
    import shutil

    from engine.flow.host_plan import plan_hosts
    from engine.flow.plan import RunOptions, make_plan

    shutil.copytree(HERE / "script_hosts" / "inventory", tmp_path / "inventory")
    (tmp_path / "site.yml").write_text(
        "- hosts: all\n  gather_facts: false\n  tasks:\n"
        "    - name: one host\n      ansible.builtin.debug:\n        msg: alone\n"
        "      when: ansible_play_hosts | length == 1\n")
    monkeypatch.chdir(tmp_path)
    plan = make_plan(RunOptions(playbook="site.yml", inventory=["inventory"], limit="web-1"), dynamic_inventory=False)
    plays = plan_hosts(plan)
    assert [play.more_hosts for play in plays] == [None]
    assert {host: outcome.outcome for host, outcome in plays[0].tasks[0].hosts.items()} == {"web-1": "runs"}
