"""The order of a play's hosts, as ``plan`` and ``run --dry`` print them: the order
ansible-playbook 2.19 runs them in (``InventoryManager.get_hosts`` with the play's ``order``),
recorded with ``ansible-playbook -c local -f 1`` on this inventory. ansible-playbook's own
``--list-hosts`` is no reference for it: it prints ``set(inventory.get_hosts(...))``, whose order
follows the hash of each name and changes from one process to the next (PYTHONHASHSEED)."""

from __future__ import annotations

from pathlib import Path

import pytest

INVENTORY = """\
all:
  hosts:
    zz0:
  children:
    prod:
      children:
        web:
          hosts:
            w2:
            w1:
        db:
          hosts:
            db2:
            w1:
    staging:
      hosts:
        s1:
        db2:
    ungrouped:
      hosts:
        lone:
"""

# play pattern, order -> the hosts in the order ansible ran them
RECORDED = [
    ("all", None, ["zz0", "lone", "s1", "db2", "w2", "w1"]),
    ("staging:prod", None, ["s1", "db2", "w2", "w1"]),
    ("all:!web", "reverse_inventory", ["db2", "s1", "lone", "zz0"]),
    ("db:staging", "reverse_sorted", ["w1", "s1", "db2"]),
    ("web:db", "sorted", ["db2", "w1", "w2"]),
]


@pytest.fixture()
def plays(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[object]:
    from engine.flow.host_plan import plan_hosts
    from engine.flow.plan import make_plan
    from engine.parsing.source import SourceCache
    from playbook_ls.cli.main import build_parser
    from playbook_ls.cli.vars import launch_options

    (tmp_path / "hosts.yml").write_text(INVENTORY)
    (tmp_path / "site.yml").write_text("".join(
        f"- hosts: {pattern!r}\n  gather_facts: false\n" + (f"  order: {order}\n" if order else "")
        + "  tasks:\n    - ansible.builtin.debug: {msg: x}\n" for pattern, order, _ in RECORDED))
    monkeypatch.chdir(tmp_path)
    options, _ = launch_options(build_parser().parse_args(["plan", "site.yml", "-i", "hosts.yml"]), SourceCache())
    return plan_hosts(make_plan(options, dynamic_inventory=False))


def test_play_hosts_in_ansible_run_order(plays: list[object]) -> None:
    assert [play.hosts for play in plays] == [hosts for _, _, hosts in RECORDED]  # type: ignore[attr-defined]
