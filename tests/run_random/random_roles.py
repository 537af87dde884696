"""Seeded random playbooks built from roles, for differential runs of the bundled engine
against ansible-playbook (``fuzz.py --roles``).

``python tests/run_random/random_roles.py SEED DIR`` writes scenario SEED into DIR in the layout of
``tests/run/scenarios``: ``site.yml``, ``hosts.ini``, ``roles/``, ``vars/`` and ``case.json``.
Like random_playbook.py, two local hosts, files only below ``{{ playbook_dir }}/out``, and a
deterministic outcome. What varies is what roles do: defaults, vars and role params that
shadow each other; handlers notified by name, by ``role : name`` and by ``listen`` topics
shared across roles (``handlers_from`` too); meta dependencies, with and without
``allow_duplicates``, a role listed again or depended on twice; ``import_role`` and
``include_role`` (``public``, ``apply``, ``tasks_from``, ``vars_from``, a loop);
``meta: flush_handlers`` inside roles; ``vars_files`` with alternatives chosen per host;
``force_handlers``; tags on roles and imports with a tag selection.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Any

from random_playbook import tag_selection, write_scenario

INVENTORY = "[g]\nh1 ansible_connection=local n=1 flavor=alpha\nh2 ansible_connection=local n=2 flavor=beta\n"
TAGS = ("a", "b", "web")
TOPICS = ("restart stack", "reload all")


class RoleBuilder:
    def __init__(self, seed: int) -> None:
        self.random = random.Random(seed)
        self.count = self.random.randint(2, 4)
        self.names = [f"r{i}" for i in range(self.count)]
        self.files: dict[str, Any] = {}
        self.counter = 0
        self.handlers: dict[str, list[str]] = {}  # role -> handler names (main.yml)
        # the roles of the play's roles: section, whose handlers every task can notify (a
        # notification no handler answers ends the playbook, which leaves nothing to compare)
        self.listed = self.random.sample(self.names, self.random.randint(1, min(3, self.count)))

    def name(self, kind: str) -> str:
        self.counter += 1
        return f"{kind} {self.counter}"

    # -- what a task says ---------------------------------------------------------------------
    def message(self, role: str | None) -> str:
        """A value over variables whose level decides the result: ``shared`` is set by every
        role's defaults, some vars and the play; ``<role>_def`` only by that role's defaults."""
        pool = ["{{ shared }}", "{{ n }} {{ flavor }}", "{{ shared | default('none') }}",
                "{{ inventory_hostname }}", "{{ play_var | default('no play var') }}",
                "{{ r0_def | default('r0 private') }}", "{{ r1_var | default('r1 private') }}",
                "{{ inc_var | default('no inc var') }}", "{{ picked | default('nothing picked') }}"]
        if role is not None:
            pool += ["{{ role_name }}", f"{{{{ {role}_def }}}}", "{{ param | default('no param') }}"]
        return self.random.choice(pool)

    def later(self, role: str) -> list[str]:
        """The roles ``role`` may use: those after it (no cycles)."""
        return self.names[self.names.index(role) + 1:]

    def notification(self, role: str | None) -> str:
        """A topic, the play's handler, the role's own handlers (by name or ``role : name``:
        they come with the role however it is brought in) or those of a listed role."""
        options = list(TOPICS) + ["play handler"]
        for other, handlers in self.handlers.items():
            if other == role or other in self.listed:
                options += [f"{other} : {h}" for h in handlers]
            if other == role:
                options += handlers
        return self.random.choice(options)

    def task(self, role: str | None, depth: int = 0) -> dict[str, Any]:
        r = self.random
        kinds = ["debug", "debug", "change", "change", "set_fact", "copy", "fail", "flush"]
        if role is not None and depth == 0 and self.later(role):
            kinds += ["include_role", "import_role"]
        kind = r.choice(kinds)
        name = self.name(kind)
        task: dict[str, Any]
        if kind == "debug":
            task = {"name": name, "ansible.builtin.debug": {"msg": self.message(role)}}
        elif kind == "change":
            task = {"name": name, "ansible.builtin.command": "echo {{ inventory_hostname }}",
                    "changed_when": r.choice(["true", "true", "inventory_hostname == 'h1'", "n == 2"]),
                    "notify": self.notification(role)}
        elif kind == "set_fact":
            task = {"name": name, "ansible.builtin.set_fact": {"fact_" + str(self.counter): self.message(role)}}
        elif kind == "copy":
            task = {"name": name, "ansible.builtin.copy": {
                "content": self.message(role) + "\n",
                "dest": "{{ playbook_dir }}/out/{{ inventory_hostname }}-" + str(self.counter) + ".txt"},
                "notify": self.notification(role)}
        elif kind == "fail":
            task = {"name": name, "ansible.builtin.fail": {"msg": "stop {{ inventory_hostname }}"},
                    "when": r.choice(["inventory_hostname == 'h2'", "n > 5"])}
            if r.random() < 0.5:
                task["ignore_errors"] = True
        elif kind == "flush":
            return {"name": name, "ansible.builtin.meta": "flush_handlers"}
        else:
            task = self.role_task(kind, r.choice(self.later(role or "")), name)
        if r.random() < 0.2:
            task["tags"] = r.sample(TAGS, r.randint(1, 2))
        if r.random() < 0.15 and "when" not in task:
            task["when"] = r.choice(["n == 1", "flavor == 'beta'", "shared is defined"])
        return task

    def role_task(self, kind: str, target: str, name: str) -> dict[str, Any]:
        r = self.random
        args: dict[str, Any] = {"name": target}
        if r.random() < 0.3 and f"roles/{target}/tasks/extra.yml" in self.files:
            args["tasks_from"] = "extra"
        if r.random() < 0.3 and f"roles/{target}/handlers/extra.yml" in self.files:
            args["handlers_from"] = "extra"
        if r.random() < 0.2:
            args["vars_from"] = "other"
        if kind == "include_role":
            if r.random() < 0.4:
                args["public"] = r.choice([True, False])
            if r.random() < 0.3:
                args["apply"] = {"tags": [r.choice(TAGS)]}
        task: dict[str, Any] = {"name": name, f"ansible.builtin.{kind}": args}
        if r.random() < 0.3:
            task["vars"] = {"inc_var": "from " + name}
        if kind == "include_role" and r.random() < 0.2:
            task["loop"] = [1, 2]
        if r.random() < 0.25:
            task["tags"] = [r.choice(TAGS)]
        return task

    # -- the roles ----------------------------------------------------------------------------
    def roles(self) -> None:
        r = self.random
        # the last roles first: a role's tasks may use the roles after it, whose files must exist
        for index in reversed(range(self.count)):
            role = self.names[index]
            base = f"roles/{role}"
            self.files[f"{base}/defaults/main.yml"] = {"shared": f"{role} default", f"{role}_def": f"{role} def"}
            if r.random() < 0.5:
                self.files[f"{base}/vars/main.yml"] = {f"{role}_var": f"{role} var",
                                                       **({"shared": f"{role} var"} if r.random() < 0.4 else {})}
            self.files[f"{base}/vars/other.yml"] = {"shared": f"{role} other vars"}
            handlers = []
            for h in range(r.randint(0, 2)):
                handler: dict[str, Any] = {"name": f"{role} handler {h}",
                                           "ansible.builtin.debug": {"msg": f"{role} handler {h} " + "{{ shared }}"}}
                if r.random() < 0.4:
                    handler["listen"] = r.choice(TOPICS)
                handlers.append(handler)
            if handlers:
                self.files[f"{base}/handlers/main.yml"] = handlers
                self.handlers[role] = [str(h["name"]) for h in handlers]
            if r.random() < 0.4:  # handlers_from: the same names (its tasks notify them), and one more
                self.files[f"{base}/handlers/extra.yml"] = [
                    *({**h, "ansible.builtin.debug": {"msg": f"extra {h['name']}"}} for h in handlers),
                    {"name": f"{role} extra handler", "listen": TOPICS[0], "ansible.builtin.debug": {"msg": "extra"}}]
            later = self.later(role)
            if later and r.random() < 0.6:
                deps: list[Any] = []
                for dep in r.sample(later, r.randint(1, len(later))):
                    deps.append(dep if r.random() < 0.6 else {"role": dep, "param": f"from {role}"})
                meta: dict[str, Any] = {"dependencies": deps}
                if r.random() < 0.3:
                    meta["allow_duplicates"] = True
                self.files[f"{base}/meta/main.yml"] = meta
            elif r.random() < 0.2:
                self.files[f"{base}/meta/main.yml"] = {"allow_duplicates": True}
            if r.random() < 0.4:
                self.files[f"{base}/tasks/extra.yml"] = [self.task(role, depth=1) for _ in range(r.randint(1, 2))]
            self.files[f"{base}/tasks/main.yml"] = [self.task(role) for _ in range(r.randint(1, 3))]

    def role_entry(self, role: str) -> Any:
        r = self.random
        if r.random() < 0.5:
            return role
        entry: dict[str, Any] = {"role": role}
        if r.random() < 0.4:
            entry["tags"] = [r.choice(TAGS)]
        if r.random() < 0.3:
            entry["param"] = "entry param"
        if r.random() < 0.2:
            entry["when"] = r.choice(["n == 1", "flavor == 'beta'"])
        if r.random() < 0.2:
            entry["vars"] = {"shared": "entry vars"}
        return entry

    def playbook(self) -> tuple[list[dict[str, Any]], list[str]]:
        r = self.random
        self.roles()
        play: dict[str, Any] = {"name": "random roles", "hosts": "g", "gather_facts": False}
        if r.random() < 0.5:
            play["vars"] = {"play_var": "play", **({"shared": "play vars"} if r.random() < 0.3 else {})}
        if r.random() < 0.5:
            self.files["vars/h1.yml"] = {"picked": "h1 file"}
            self.files["vars/default.yml"] = {"picked": "default file"}
            self.files["vars/common.yml"] = {"common": "c"}
            play["vars_files"] = ["vars/common.yml",
                                  r.choice([["vars/{{ inventory_hostname }}.yml", "vars/default.yml"],
                                            ["vars/{{ flavor }}.yml", "vars/default.yml"],
                                            ["vars/missing.yml", "vars/default.yml"]])]
        if r.random() < 0.3:
            play["pre_tasks"] = [self.task(None) for _ in range(r.randint(1, 2))]
        listed = self.listed + ([r.choice(self.names)] if r.random() < 0.4 else [])  # one maybe twice
        play["roles"] = [self.role_entry(role) for role in listed]
        tasks = [self.task(None) for _ in range(r.randint(0, 2))]
        for _ in range(r.randint(1, 3)):
            tasks.insert(r.randint(0, len(tasks)), self.role_task(r.choice(["include_role", "import_role"]),
                                                                   r.choice(self.names), self.name("use")))
        play["tasks"] = tasks
        if r.random() < 0.3:
            play["post_tasks"] = [self.task(None)]
        # every topic has a listener: a notification nothing answers is an error of its own
        play["handlers"] = [{"name": "play handler", "ansible.builtin.debug": {"msg": "play handler"},
                             "listen": list(TOPICS)}]
        if r.random() < 0.2:
            play["force_handlers"] = True
        return [play], tag_selection(r, 0.3, TAGS)


def write(seed: int, directory: Path) -> dict[str, Any]:
    """Scenario ``seed`` in ``directory``; returns its case.json."""
    builder = RoleBuilder(seed)
    plays, args = builder.playbook()
    (directory / "out").mkdir(parents=True, exist_ok=True)  # the copies' destination exists
    (directory / "out" / ".keep").write_text("")
    return write_scenario(directory, {"site.yml": plays, **builder.files}, INVENTORY, args,
                          f"random role playbook, seed {seed} (tests/run_random/random_roles.py)")


if __name__ == "__main__":
    write(int(sys.argv[1]), Path(sys.argv[2]))
