"""Per-host includes at fleet scale (engine.flow.host_includes, engine.variables.walk_classes):

- an include whose file names a fact only the run gathers (``os_{{ flavour }}_{{ ansible_os_family | lower }}.yml``
  in a play that gathers facts) is unknown on every host, in the same words for the hosts of a class:
  they take the first host's words instead of each host's variables at the include being worked out
  (a host whose own inventory line sets a name its arguments read is still worked out on its own:
  the words name its line);
- the setters of a file a per-host include loaded on some hosts only no longer make each host walk
  them on its own: which tasks per-host includes loaded on a host is part of its walk's class key.

The plan is the one loading and walking each host on its own."""

from __future__ import annotations

from pathlib import Path

import pytest
from plan_cases import fleet_planned_alone, hosts_asked, planned_rows

from engine.variables import change_classes, host_runtime, task_variables, walk_classes

PLAYBOOK = """
- name: per-host includes
  hosts: all
  tasks:
    - {name: by a gathered fact, ansible.builtin.include_tasks: "os_{{ flavour }}_{{ ansible_os_family | lower }}.yml"}
    - {name: by kind, ansible.builtin.include_tasks: "kind_{{ kind }}.yml"}
    - {name: on the size, ansible.builtin.debug: {msg: s}, when: size | int > 1}
    - {name: on the size again, ansible.builtin.debug: {msg: t}, when: size | int == 3}
"""


def _fleet(root: Path) -> None:
    lines = []
    for group in ("web", "db"):
        lines.append(f"[{group}]")
        for n in range(20):
            lines.append(f"{group}{n:02d} b={1 + n % 3}" + (" flavour=custom" if n == 7 else ""))
        lines.append("")
    (root / "inventory.ini").write_text("\n".join(lines))
    (root / "group_vars").mkdir()
    (root / "group_vars" / "all.yml").write_text("flavour: plain\n")
    (root / "group_vars" / "web.yml").write_text("kind: front\n")
    (root / "group_vars" / "db.yml").write_text("kind: back\n")
    (root / "os_plain_debian.yml").write_text("- {name: debian, ansible.builtin.debug: {msg: d}}\n")
    for kind, size in (("front", "{{ b }}"), ("back", "2")):
        (root / f"kind_{kind}.yml").write_text(f"- {{name: size of {kind}, "
                                               f"ansible.builtin.set_fact: {{size: \"{size}\"}}}}\n")
    (root / "site.yml").write_text(PLAYBOOK)


_ALONE: dict[str, list] = {}  # type: ignore[type-arg]


@pytest.fixture()
def fleet(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, list]:  # type: ignore[type-arg]
    return fleet_planned_alone(tmp_path, _fleet, _ALONE, monkeypatch, (change_classes, "SHARING", False),
                               (walk_classes, "SHARING", False), planned=planned_rows)


def test_an_include_only_the_run_names_is_unknown_class_by_class(fleet: tuple[Path, list],  # type: ignore[type-arg]
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    root, alone = fleet
    at_include = hosts_asked(monkeypatch, task_variables, "variables_at", 2,
                             lambda args: args[3].name == "by a gathered fact")
    shared = planned_rows(root)
    assert shared == alone
    assert {outcome for task, _, outcome, _ in shared if task == "debian"} == {"depends"}
    assert "web07" in at_include  # its own line sets flavour: worked out on its own
    assert 0 < len(at_include) < 10  # not each of the 40 hosts


def test_walks_shared_past_what_per_host_includes_loaded(fleet: tuple[Path, list],  # type: ignore[type-arg]
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    root, alone = fleet
    walks = hosts_asked(monkeypatch, host_runtime.Follower, "earlier_layers", 2)
    shared = planned_rows(root)
    assert shared == alone
    assert {outcome for task, _, outcome, _ in shared if task.startswith("on the size")} == {"runs", "skipped"}
    assert 0 < len(walks) < 40
