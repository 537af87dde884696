"""Seeded random playbooks for differential runs of the bundled engine against ansible-playbook.

``python tests/run_random/random_playbook.py SEED DIR`` writes scenario SEED into DIR (``site.yml``,
``hosts.ini``, included task files, ``case.json``) in the layout of ``tests/run/scenarios``.
Every playbook runs on two local hosts and only touches files below its own directory
(``{{ playbook_dir }}/out``); its outcome is deterministic: no timestamps, no randomness at
run time. The tasks mix what real playbooks do with the engine's modules and keywords: debug
with filters and tests, set_fact, command/shell with register, changed_when and failed_when,
assert, fail, copy, file, lineinfile, stat, loops with loop_control, blocks with rescue and
always, include_tasks with loops, handlers with notify, listen and flush_handlers, run_once,
ignore_errors, tags with a tag selection.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML

HOSTS = ("h1", "h2")
INVENTORY = "[g]\nh1 ansible_connection=local n=1 word=alpha\nh2 ansible_connection=local n=2 word=beta\n"
TAGS = ("a", "b", "c")
# expressions over the play's variables (nums: [3, 1, 2], names: [alpha, beta, gamma], conf: {...})
EXPRESSIONS = (
    "n + 1", "n * 10", "nums | sum", "nums | max", "nums | sort | list", "nums | map('string') | join('-')",
    "names | map('upper') | list", "names | select('match', '^a') | list", "names | reject('search', 'e') | list",
    "word ~ '-' ~ inventory_hostname", "word | upper", "word | replace('a', 'o')", "word | length",
    "conf | dict2items | map(attribute='key') | list", "conf.port | int + n", "conf.get('missing', 'none')",
    "missing_var | default('fallback')", "nums | unique | length", "names | first", "names | last",
    "(n is even) | ternary('even', 'odd')", "nums | zip(names) | list", "names | join(',') | b64encode",
    "conf | to_json", "'%s:%d' % (word, n)", "inventory_hostname in groups['g']", "range(n) | list",
    "nums | difference([1]) | sort", "[conf] | map(attribute='name') | first", "word is match('a')",
    "names | length > n", "lookup_x | default(n) | int", "conf | combine({'extra': n}) | dict2items | length",
)
CONDITIONS = (
    "n == 1", "n == 2", "word == 'alpha'", "inventory_hostname == 'h2'", "nums | length == 3",
    "'beta' in names", "n is odd", "conf.port > 8000", "true", "false",
)


class Builder:
    def __init__(self, seed: int) -> None:
        self.random = random.Random(seed)
        self.counter = 0
        self.registered: list[str] = []
        self.facts: list[str] = []
        self.handlers: list[str] = []
        self.files: dict[str, Any] = {}

    def name(self, kind: str) -> str:
        self.counter += 1
        return f"{kind} {self.counter}"

    def expression(self) -> str:
        pool = list(EXPRESSIONS) + [f"{fact} | string" for fact in self.facts]
        return self.random.choice(pool)

    def condition(self, registered: list[str] | None = None) -> str:
        """A condition over the play's variables and what earlier tasks registered."""
        known = self.registered if registered is None else registered
        pool = list(CONDITIONS) + [f"{reg} is changed" for reg in known] + [f"{reg}.rc == 0" for reg in known]
        return self.random.choice(pool)

    def maybe(self, task: dict[str, Any], *, failing: bool = False, registered: list[str] | None = None
              ) -> dict[str, Any]:
        """Some keywords on ``task``; ``registered``: the registers before it (a block's or an
        include's own tasks register after it is evaluated)."""
        r = self.random
        if r.random() < 0.25:
            task["when"] = self.condition(registered)
        if r.random() < 0.2:
            task["tags"] = r.sample(TAGS, r.randint(1, 2))
        if failing and r.random() < 0.5:
            task["ignore_errors"] = True
        if self.handlers and r.random() < 0.2 and "block" not in task and "ansible.builtin.include_tasks" not in task:
            task["notify"] = r.choice(self.handlers)
        return task

    def task(self, depth: int = 0) -> dict[str, Any]:
        r = self.random
        kind = r.choice(["debug", "debug", "set_fact", "command", "command", "assert", "fail", "copy", "file",
                         "lineinfile", "stat", "loop", "block", "include", "run_once", "flush"]
                        if depth == 0 else ["debug", "set_fact", "command", "assert", "copy", "fail"])
        name = self.name(kind)
        if kind == "debug":
            return self.maybe({"name": name, "ansible.builtin.debug": {"msg": "{{ " + self.expression() + " }}"}})
        if kind == "set_fact":
            fact = f"fact_{self.counter}"
            self.facts.append(fact)
            return self.maybe({"name": name, "ansible.builtin.set_fact": {fact: "{{ " + self.expression() + " }}"}})
        if kind == "command":
            register = f"r_{self.counter}"
            command = r.choice(["echo {{ word }}", "true", "false", "sh -c 'exit 3'", "printf '%s' {{ n }}"])
            module = "ansible.builtin.shell" if "sh -c" in command else "ansible.builtin.command"
            task: dict[str, Any] = {"name": name, module: command, "register": register}
            if r.random() < 0.4:
                task["changed_when"] = r.choice(["false", f"{register}.rc == 0", f"'{{{{ n }}}}' in {register}.stdout"])
            if r.random() < 0.3:
                task["failed_when"] = r.choice(["false", f"{register}.rc not in [0, 1]"])
            self.registered.append(register)
            return self.maybe(task, failing="false" in command or "exit" in command)
        if kind == "assert":
            return self.maybe({"name": name, "ansible.builtin.assert": {
                "that": [self.condition() for _ in range(r.randint(1, 2))],
                "fail_msg": "{{ word }} failed", "quiet": r.random() < 0.5}}, failing=True)
        if kind == "fail":
            return self.maybe({"name": name, "ansible.builtin.fail": {"msg": "stop {{ inventory_hostname }}"},
                               "when": r.choice(["inventory_hostname == 'h2'", "n > 5", "false"])}, failing=True)
        if kind == "copy":
            return self.maybe({"name": name, "ansible.builtin.copy": {
                "content": "{{ " + self.expression() + " }}\n",
                "dest": "{{ playbook_dir }}/out/{{ inventory_hostname }}-" + str(self.counter) + ".txt",
                "mode": r.choice(["0644", "0600"])}})
        if kind == "file":
            state = r.choice(["directory", "touch", "absent"])
            return self.maybe({"name": name, "ansible.builtin.file": {
                "path": "{{ playbook_dir }}/out/{{ inventory_hostname }}-d" + str(self.counter % 3), "state": state,
                **({"mode": "0755"} if state == "directory" else {})}})
        if kind == "lineinfile":
            return self.maybe({"name": name, "ansible.builtin.lineinfile": {
                "path": "{{ playbook_dir }}/out/{{ inventory_hostname }}-lines.txt", "create": True,
                "line": "{{ " + self.expression() + " }}", "mode": "0644"}})
        if kind == "stat":
            register = f"r_{self.counter}"
            self.registered.append(register)
            return self.maybe({"name": name, "ansible.builtin.stat": {"path": "{{ playbook_dir }}/out"},
                               "register": register, "changed_when": False})
        if kind == "loop":
            task = {"name": name, "ansible.builtin.debug": {"msg": "{{ item }} {{ idx }}"},
                    "loop": r.choice(["{{ nums }}", "{{ names }}", "{{ conf | dict2items }}", [1, "two", 3]]),
                    "loop_control": {"index_var": "idx", **({"label": "{{ idx }}"} if r.random() < 0.5 else {})}}
            if r.random() < 0.4:
                task["when"] = r.choice(["item != 1", "idx > 0", "item is string"])
            return self.maybe(task)
        before = list(self.registered)
        if kind == "block":
            block = {"name": name, "block": [self.task(1) for _ in range(r.randint(1, 3))]}
            if r.random() < 0.5:
                block["block"].append({"name": self.name("fail"), "ansible.builtin.fail": {"msg": "in block"},
                                       "when": self.condition()})
            if r.random() < 0.7:
                block["rescue"] = [{"name": self.name("rescue"), "ansible.builtin.debug": {
                    "msg": "{{ ansible_failed_task.name | default('none') }}"}}]
            if r.random() < 0.6:
                block["always"] = [{"name": self.name("always"), "ansible.builtin.debug": {"msg": "always"}}]
            return self.maybe(block, registered=before)
        if kind == "include":
            file = f"inc_{self.counter}.yml"
            self.files[file] = [self.task(1) for _ in range(r.randint(1, 3))]
            task = {"name": name, "ansible.builtin.include_tasks": file}
            if r.random() < 0.4:
                task["loop"] = [1, 2]
            return self.maybe(task, registered=before)
        if kind == "run_once":
            return self.maybe({"name": name, "ansible.builtin.debug": {"msg": "{{ inventory_hostname }}"},
                               "run_once": True})
        return {"name": name, "ansible.builtin.meta": "flush_handlers"}

    def playbook(self) -> tuple[list[dict[str, Any]], list[str]]:
        r = self.random
        handlers = []
        for index in range(r.randint(0, 2)):
            handler = f"handler {index}"
            entry: dict[str, Any] = {"name": handler, "ansible.builtin.debug": {"msg": f"ran {handler}"}}
            if r.random() < 0.4:
                entry["listen"] = "topic"
                self.handlers.append("topic")
            self.handlers.append(handler)
            handlers.append(entry)
        play: dict[str, Any] = {
            "name": "random play", "hosts": r.choice(["g", "all", "h1:h2"]), "gather_facts": False,
            "vars": {"nums": [3, 1, 2], "names": ["alpha", "beta", "gamma"],
                     "conf": {"name": "svc", "port": r.choice([80, 8080])}},
            "tasks": [self.task() for _ in range(r.randint(4, 9))],
        }
        if handlers:
            play["handlers"] = handlers
        if r.random() < 0.2:
            play["any_errors_fatal"] = True
        return [play], tag_selection(r, 0.2, TAGS)


def write(seed: int, directory: Path) -> dict[str, Any]:
    """Scenario ``seed`` in ``directory``; returns its case.json."""
    builder = Builder(seed)
    plays, args = builder.playbook()
    return write_scenario(directory, {"site.yml": plays, **builder.files}, INVENTORY, args,
                          f"random playbook, seed {seed} (tests/run_random/random_playbook.py)")


def tag_selection(r: random.Random, chance: float, tags: tuple[str, ...]) -> list[str]:
    """With probability ``chance``, ``--tags`` or ``--skip-tags`` with one of ``tags``."""
    return [r.choice(["--tags", "--skip-tags"]), r.choice(tags)] if r.random() < chance else []


def write_scenario(directory: Path, files: dict[str, Any], inventory: str, args: list[str],
                   description: str) -> dict[str, Any]:
    """A scenario in the layout of tests/run/scenarios: ``files`` (relative name: data) as YAML,
    ``hosts.ini`` and ``case.json`` (returned)."""
    yaml = YAML()
    yaml.default_flow_style = False
    yaml.width = 200
    for name, data in files.items():
        path = directory / name
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("w") as out:
            yaml.dump(data, out)
    (directory / "hosts.ini").write_text(inventory)
    case = {"description": description, "inventory": "hosts.ini", "args": args, "modes": ["run", "check"]}
    (directory / "case.json").write_text(json.dumps(case) + "\n")
    return case


if __name__ == "__main__":
    write(int(sys.argv[1]), Path(sys.argv[2]))
