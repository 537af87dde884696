"""Random playbooks whose probes print what earlier tasks set, run by ansible-playbook and compared
with ``playbook-ls vars`` value by value (var_values.measure).

    python tests/variables/random_vars.py --seeds 1-40 [--show] [--keep DIR]

Each seed writes a scenario (var_cases' layout): three hosts in two groups with their own
variables, two plays whose tasks chain ``set_fact`` values (under a ``when`` on the host's
variables, in loops with ``loop_var``/``index_var``/``extended``), register ``debug``, ``assert``,
``set_fact``, ``include_vars`` and skipped results, read a vars file named from a host variable,
loop an ``include_tasks`` with an index, and set facts from a command's output (only the run
knows those: the case's ``runtime``). Probes print every name set so far, some of them per loop
item. Needs ansible-core 2.19 beside this Python or on PATH.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

WORDS = ("red", "green", "blue")


class _Writer:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.known: list[str] = ["n", "word", "tier"]  # names every host has (inventory)
        self.runtime: list[str] = []
        self.count = 0
        self.files: dict[str, Any] = {}

    def name(self, prefix: str) -> str:
        self.count += 1
        return f"{prefix}_{self.count}"

    def expression(self) -> str:
        name = self.rng.choice(self.known)
        return self.rng.choice([
            f"{name} ~ '-' ~ n", f"[{name}, n] | length", f"{name} | string | length + n",
            f"{name} if n > 1 else word", f"{{'k': {name}}}", f"n * 2 + ({name} | string | length)"])

    def set_fact(self) -> dict[str, Any]:
        target = self.name("fact")
        task: dict[str, Any] = {"name": f"set {target}", "ansible.builtin.set_fact": {target: "{{ " +
                                                                                   self.expression() + " }}"}}
        if self.rng.random() < 0.4:
            task["when"] = self.rng.choice(["n > 1", "tier == 'front'", "word != 'blue'"])
            task["ansible.builtin.set_fact"][target] = "{{ " + f"{target} | default('unset') ~ 'x'" + " }}"
            return {**task, "_maybe": target}  # defined on some hosts only: probed with default()
        self.known.append(target)
        return task

    def looped_fact(self) -> dict[str, Any]:
        target = self.name("acc")
        loop_var = self.rng.choice(["item", "elem"])
        control: dict[str, Any] = {"loop_var": loop_var}
        if self.rng.random() < 0.5:
            control["index_var"] = "pos"
        value = f"{target} | default([]) + [{loop_var} ~ ({'pos' if 'index_var' in control else 0})]"
        self.known.append(target)
        return {"name": f"accumulate {target}", "ansible.builtin.set_fact": {target: "{{ " + value + " }}"},
                "loop": "{{ " + self.rng.choice(["[1, 2, 3]", "range(n) | list", "[word, tier]"]) + " }}",
                "loop_control": control}

    def register(self) -> dict[str, Any]:
        target = self.name("reg")
        self.known.append(target)
        kind = self.rng.choice(["debug", "var", "assert", "skipped", "set_fact"])
        if kind == "debug":
            return {"name": f"say {target}", "ansible.builtin.debug": {"msg": "{{ " + self.expression() + " }}"},
                    "register": target}
        if kind == "var":
            return {"name": f"show {target}", "ansible.builtin.debug": {"var": self.rng.choice(self.known[:-1])},
                    "register": target}
        if kind == "assert":
            return {"name": f"check {target}", "ansible.builtin.assert": {"that": ["n > 0"], "quiet": True},
                    "register": target}
        if kind == "skipped":
            return {"name": f"skip {target}", "ansible.builtin.debug": {"msg": "no"}, "when": "n > 100",
                    "register": target}
        fact = self.name("sf")
        self.known.append(fact)
        return {"name": f"set and register {target}", "ansible.builtin.set_fact": {fact: "{{ word | upper }}"},
                "register": target}

    def include_vars(self) -> dict[str, Any]:
        target = self.name("iv")
        for word in WORDS:
            self.files[f"vars/{word}_{target}.yml"] = {target: f"{word} file", f"{target}_n": len(word)}
        self.known += [target, f"{target}_n"]
        return {"name": f"read {target}", "ansible.builtin.include_vars": "vars/{{ word }}_" + target + ".yml"}

    def command(self) -> list[dict[str, Any]]:
        target, fact = self.name("cmd"), self.name("out")
        self.runtime += [target, fact]
        return [{"name": f"run {target}", "ansible.builtin.command": "echo {{ word }}", "changed_when": False,
                 "register": target},
                {"name": f"from {target}", "ansible.builtin.set_fact": {fact: "{{ " + target + ".stdout }}"}}]

    def include(self) -> dict[str, Any]:
        target = self.name("inc")
        self.files[f"tasks/{target}.yml"] = [
            {"name": f"in {target}", "ansible.builtin.set_fact": {target: "{{ entry }}-{{ entry_idx }}"}},
            {"name": f"probe {target}", "ansible.builtin.debug": {"msg": {
                "entry": "{{ entry }}", "entry_idx": "{{ entry_idx }}", target: "{{ " + target + " }}"}}}]
        self.known.append(target)
        return {"name": f"each {target}", "ansible.builtin.include_tasks": f"tasks/{target}.yml",
                # items equal on two hosts at other places run in an order only the run knows: not drawn
                "loop": self.rng.choice(["{{ [inventory_hostname, inventory_hostname ~ word] }}", "{{ ['a', 'b'] }}"]),
                "loop_control": {"loop_var": "entry", "index_var": "entry_idx"}}

    def probe(self, maybe: list[str]) -> dict[str, Any]:
        names = self.rng.sample(self.known, min(len(self.known), 6))
        msg = {name: "{{ " + name + " }}" for name in names}
        msg.update({name: "{{ " + name + " | default('undefined') }}" for name in maybe})
        msg.update({name: "{{ " + name + " }}" for name in self.runtime[-2:]})
        task: dict[str, Any] = {"name": f"probe {self.name('p')}", "ansible.builtin.debug": {"msg": msg}}
        if self.rng.random() < 0.3:
            msg.update({"thing": "{{ thing }}", "i": "{{ i }}", "ansible_loop": "{{ ansible_loop }}"})
            task.update({"loop": "{{ [n, word] }}", "loop_control": {"loop_var": "thing", "index_var": "i",
                                                                    "extended": True}})
        return task

    def tasks(self, length: int) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = []
        maybe: list[str] = []
        makers = [self.set_fact, self.set_fact, self.looped_fact, self.register, self.register, self.include_vars,
                  self.include]
        for _ in range(length):
            roll = self.rng.random()
            if roll < 0.1:
                found += self.command()
            elif roll < 0.35:
                found.append(self.probe(maybe))
            else:
                task = self.rng.choice(makers)()
                if "_maybe" in task:
                    maybe.append(task.pop("_maybe"))
                found.append(task)
        found.append(self.probe(maybe))
        return found


def write(seed: int, root: Path) -> dict[str, Any]:
    """Case ``seed`` in ``root``: its files and case.json; returns the case."""
    from ruamel.yaml import YAML

    writer = _Writer(seed)
    rng = writer.rng
    plays = [{"name": "first", "hosts": "all", "gather_facts": False, "tasks": writer.tasks(rng.randint(6, 12))},
             {"name": "second", "hosts": rng.choice(["front", "all"]), "gather_facts": False,
              "tasks": writer.tasks(rng.randint(3, 6))}]
    yaml = YAML(typ="safe", pure=True)
    yaml.default_flow_style = False
    root.mkdir(parents=True, exist_ok=True)
    hosts = [f"h{index} n={rng.randint(1, 3)} word={rng.choice(WORDS)}" for index in range(1, 4)]
    (root / "hosts.ini").write_text("[front]\n" + "\n".join(hosts[:2]) + "\n\n[back]\n" + hosts[2] +
                                    "\n\n[front:vars]\ntier=front\n\n[back:vars]\ntier=back\n")
    with (root / "site.yml").open("w") as out:
        yaml.dump(plays, out)
    for rel, data in writer.files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        with (root / rel).open("w") as out:
            yaml.dump(data, out)
    case = {"description": f"random variables, seed {seed} (tests/variables/random_vars.py)",
            "inventory": ["hosts.ini"], "runtime": writer.runtime}
    (root / "case.json").write_text(json.dumps(case) + "\n")
    return case


def one_seed(seed: int, tool: str, scratch: Path) -> tuple[int, list[str]]:
    from ansible_tools import HASH_SEEDS
    from var_cases import ansible_values
    from var_values import measure

    root = scratch / f"seed-{seed}"
    write(seed, root)
    # one hash seed: the generator writes nothing whose value is the order of a set of strings
    recorded = ansible_values(root, tool, HASH_SEEDS[:1])
    (root / "expected.json").write_text(json.dumps(recorded, indent=2, sort_keys=True) + "\n")
    return measure(root)


def main(argv: list[str]) -> int:
    from ansible_tools import find_tool

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", default="1-20")
    parser.add_argument("--show", action="store_true")
    parser.add_argument("--keep", help="write the scenarios here instead of a scratch directory")
    args = parser.parse_args(argv)
    tool = find_tool("ansible-playbook")
    if tool is None:
        print("ansible-playbook is not installed", file=sys.stderr)
        return 2
    first, _, last = args.seeds.partition("-")
    total, wrong = 0, 0
    with tempfile.TemporaryDirectory() as scratch:
        where = Path(args.keep) if args.keep else Path(scratch)
        for seed in range(int(first), int(last or first) + 1):
            try:
                compared, differences = one_seed(seed, tool, where)
            except Exception as exc:  # noqa: BLE001 - a crash is a finding too
                print(f"seed {seed}: ERROR {type(exc).__name__}: {exc}")
                wrong += 1
                continue
            total += compared
            wrong += len(differences)
            if differences:
                print(f"seed {seed}: {len(differences)} of {compared} differ")
                if args.show:
                    print("\n".join(f"  {line}" for line in differences))
    print(json.dumps({"seeds": args.seeds, "compared": total, "different": wrong,
                      "identical_share": round((total - wrong) / total, 4) if total else 1}))
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
