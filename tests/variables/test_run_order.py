"""Magic lists whose order ansible decides only while it runs are said to be unknown, not guessed:
the batch of a play with ``order: shuffle`` (recordings cannot hold them: ansible's value changes
from run to run)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from var_values import values_at

PLAY = """\
- hosts: grp
  gather_facts: false
  order: {order}
  tasks:
    - name: probe
      ansible.builtin.debug:
        msg: "{{{{ ansible_play_batch }}}}"
"""


@pytest.mark.parametrize(("order", "known"), [("shuffle", False), ("reverse_sorted", True)])
def test_batch_of_a_shuffled_play_is_unknown(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, order: str,
                                            known: bool) -> None:
    (tmp_path / "site.yml").write_text(PLAY.format(order=order))
    (tmp_path / "hosts.ini").write_text("[grp]\na\nb\nc\n")
    (tmp_path / "case.json").write_text(json.dumps({"inventory": ["hosts.ini"]}))
    monkeypatch.chdir(tmp_path)
    values = values_at(tmp_path, "site.yml:5", "a", 0, ["ansible_play_batch", "play_hosts", "ansible_play_hosts"])
    assert values["ansible_play_hosts"] == ["a", "b", "c"]  # inventory order whatever the play's order
    for name in ("ansible_play_batch", "play_hosts"):
        if known:
            assert values[name] == ["c", "b", "a"]
        else:
            assert str(values[name]).startswith("unknown: "), values[name]


GROUPED = """\
- hosts: grp
  gather_facts: false
  tasks:
    - name: By tier
      ansible.builtin.group_by:
        key: "tier_{{ tier }}"
    - name: probe
      ansible.builtin.debug:
        msg: "{{ groups['tier_web'] }}"
"""


def test_a_group_group_by_fills_names_the_task(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The hosts group_by puts in one group come in the order of their results: unknown, naming
    the group and the task."""
    (tmp_path / "site.yml").write_text(GROUPED)
    (tmp_path / "hosts.ini").write_text("[grp]\na tier=web\nb tier=web\nc tier=db\n")
    (tmp_path / "case.json").write_text(json.dumps({"inventory": ["hosts.ini"]}))
    monkeypatch.chdir(tmp_path)
    values = values_at(tmp_path, "site.yml:7", "a", 0, ["groups"])
    assert values["groups"] == "unknown: not known before the run: the hosts of group 'tier_web' in the order " \
                               "the results of task 'By tier' (group_by) came in"


PARENTS = """\
- hosts: grp
  gather_facts: false
  tasks:
    - name: By tier
      ansible.builtin.group_by:
        key: "tier_{{ tier }}"
        parents: [tiers, grp, "{{ tier }}_side"]
    - name: probe
      ansible.builtin.debug:
        msg: x
      vars:
        tiers: "{{ groups['tiers'] }}"
        grp: "{{ groups['grp'] }}"
        web_side: "{{ groups['web_side'] }}"
"""


def test_a_parent_group_by_fills_through_two_new_children_names_the_task(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A group_by's parent gains its child groups, and they their hosts, in the order the hosts'
    results come in (the strategy's _add_group): where it gains two hosts, through two children or
    one, their order is the run's; a parent that had the hosts already keeps its known order."""
    (tmp_path / "site.yml").write_text(PARENTS)
    (tmp_path / "hosts.ini").write_text("[grp]\na tier=web\nb tier=web\nc tier=db\n")
    (tmp_path / "case.json").write_text(json.dumps({"inventory": ["hosts.ini"]}))
    monkeypatch.chdir(tmp_path)
    values = values_at(tmp_path, "site.yml:9", "a", 0, ["tiers", "grp", "web_side"])
    assert values["tiers"] == "unknown: not known before the run: the hosts of group 'tiers' in the order " \
                              "the results of task 'By tier' (group_by) came in"
    assert values["grp"] == ["a", "b", "c"]
    assert values["web_side"] == "unknown: not known before the run: the hosts of group 'web_side' in the " \
                                 "order the results of task 'By tier' (group_by) came in"


READS = """\
- hosts: grp
  gather_facts: false
  vars:
    others: "{{ groups['grp'] | difference([inventory_hostname]) }}"
    names: "{{ ['web', 'Web', 'db'] | union([]) }}"
  tasks:
    - name: probe
      ansible.builtin.debug:
        msg: "{{ others }}"
"""


def test_what_reads_no_order_of_a_set_made_list_is_known(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The count, membership, and sort of a list in the order of a set of strings are known; sort, min
    and max of items equal ignoring case are not (Jinja keeps equal items in the order they came); a
    list made from it by a filter names the same reason."""
    (tmp_path / "site.yml").write_text(READS)
    (tmp_path / "hosts.ini").write_text("[grp]\na\nb\nc\n")
    (tmp_path / "case.json").write_text(json.dumps({"inventory": ["hosts.ini"]}))
    monkeypatch.chdir(tmp_path)
    exprs = {"n": "others | length", "in": "'b' in others", "sorted": "others | sort", "top": "others | max",
             "shown": "others", "upper": "others | map('upper')", "names_sorted": "names | sort",
             "names_cased": "names | sort(case_sensitive=true)", "names_min": "names | min",
             "names_max": "names | max", "names_count": "names | count"}
    (tmp_path / "site.yml").write_text(READS.replace('msg: "{{ others }}"', "msg: x\n      vars:\n" + "".join(
        f'        {name}: "{{{{ {expr} }}}}"\n' for name, expr in exprs.items())))
    values = values_at(tmp_path, "site.yml:7", "a", 0, list(exprs))
    assert (values["n"], values["in"], values["sorted"], values["top"]) == (2, True, ["b", "c"], "c")
    assert values["names_cased"] == ["Web", "db", "web"] and values["names_count"] == 3
    for name in ("names_sorted", "names_min", "names_max"):
        assert "compare equal" in str(values[name]), values[name]
    for name in ("shown", "upper"):
        assert str(values[name]).startswith("unknown: ") and "the difference filter" in str(values[name]), values[name]
