"""Seeded random playbooks for the plan that stress run semantics the task generator
(tests/run_random/random_playbook.py) leaves out: four hosts in two groups, plays with ``order``
and ``serial``, ``meta`` actions decided once per batch (``end_batch``, ``end_play``) or per host
(``end_host``), ``changed_when`` deciding notified handlers, conditions on ``ansible_play_batch`` /
``ansible_play_hosts``, and blocks whose rescue a certain failure runs. Mixed in with the task
generator's own tasks (registered results, loops, includes), so the plan also meets what it
cannot decide."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from random_playbook import Builder, write_scenario

INVENTORY = ("[web]\nh1 ansible_connection=local n=1 word=alpha\nh2 ansible_connection=local n=2 word=beta\n"
             "[db]\nh3 ansible_connection=local n=3 word=gamma\nh4 ansible_connection=local n=4 word=alpha\n"
             "[g:children]\nweb\ndb\n")
HOST_CONDITIONS = (
    "inventory_hostname == 'h2'", "'db' in group_names", "n > 2", "n is odd", "word == 'alpha'",
    "inventory_hostname == ansible_play_batch[0]", "inventory_hostname == ansible_play_hosts[0]",
    "inventory_hostname == ansible_play_hosts_all | last", "ansible_play_batch | length > 1",
    "ansible_play_hosts | length == 4", "count | default(0) > 1",
)


class SemanticsBuilder(Builder):
    def host_condition(self) -> str:
        return self.random.choice(HOST_CONDITIONS)

    def task(self, depth: int = 0) -> dict[str, Any]:
        r = self.random
        if depth > 0 or r.random() < 0.45:
            return super().task(depth)
        kind = r.choice(["meta", "changed", "changed", "rescued", "batch_debug"])
        name = self.name(kind)
        if kind == "meta":
            action = r.choice(["end_batch", "end_batch", "end_play", "end_host"])
            # not the extra var: a meta action whose condition fails stops ansible-playbook before
            # it reports anything to compare with
            return {"name": name, "ansible.builtin.meta": action, "when": r.choice(HOST_CONDITIONS[:-1])}
        if kind == "changed":
            module = r.choice(["ansible.builtin.command", "ansible.builtin.debug"])
            task: dict[str, Any] = {"name": name, module: "true" if module.endswith("command") else {"msg": "x"}}
            if r.random() < 0.8:
                task["changed_when"] = r.choice([True, False, self.host_condition(), "n > 1 and word != 'beta'"])
            if self.handlers:
                task["notify"] = r.choice(self.handlers)
            if r.random() < 0.3:
                task["when"] = self.host_condition()
            return task
        if kind == "rescued":
            failing = r.choice([
                {"name": self.name("fail"), "ansible.builtin.fail": {"msg": "x"}, "when": self.host_condition()},
                {"name": self.name("assert"), "ansible.builtin.assert": {"that": [self.host_condition()]}},
                {"name": self.name("undefined"), "ansible.builtin.debug": {"msg": "x"}, "when": "nowhere_set > 1"},
            ])
            block: dict[str, Any] = {"name": name, "block": [failing, {"name": self.name("after"),
                                                                       "ansible.builtin.debug": {"msg": "after"}}]}
            if r.random() < 0.8:
                block["rescue"] = [{"name": self.name("rescue"), "ansible.builtin.debug": {"msg": "rescued"},
                                    **({"when": self.host_condition()} if r.random() < 0.3 else {})}]
            if r.random() < 0.6:
                block["always"] = [{"name": self.name("always"), "ansible.builtin.debug": {"msg": "always"}}]
            return block
        return {"name": name, "ansible.builtin.debug": {"msg": "{{ ansible_play_batch }}"},
                "when": self.host_condition()}

    def playbook(self) -> tuple[list[dict[str, Any]], list[str]]:
        plays, args = super().playbook()
        r = self.random
        for play in plays:
            play["hosts"] = r.choice(["g", "all", "web:db", "db:web"])
            if r.random() < 0.6:
                play["order"] = r.choice(["sorted", "reverse_sorted", "reverse_inventory", "inventory"])
            if r.random() < 0.6:
                play["serial"] = r.choice([1, 2, 3, "50%"])
        if r.random() < 0.4:
            args = [*args, "-e", f"count={r.choice([1, 3])}"]
        return plays, args


def write(seed: int, directory: Path) -> dict[str, Any]:
    """Scenario ``seed`` in ``directory``; returns its case.json."""
    builder = SemanticsBuilder(seed)
    plays, args = builder.playbook()
    return write_scenario(directory, {"site.yml": plays, **builder.files}, INVENTORY, args,
                          f"random plan semantics, seed {seed} (tests/plan/random_semantics.py)")

