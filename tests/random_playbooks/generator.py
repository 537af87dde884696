"""Seeded random Ansible repositories for differential testing of ``list-tasks`` / ``list-tags``.

``python -m tests.random_playbooks.generator SEED OUTDIR`` writes case SEED into OUTDIR and prints
the selection arguments. Every repository is valid for ansible: roles only reference roles with a
higher index (so meta dependencies, ``import_role`` and ``include_role`` form a DAG) and task files
only import files later in a fixed order, so there are no cycles, and every referenced file exists.
Decoy files (leaf tasks only) share names with referenced files elsewhere, so that ansible's
search order for relative imports decides which one is listed. Tags are drawn from a small pool,
sometimes as the template ``{{ tg }}`` (every play defines ``tg``).
"""

from __future__ import annotations

import random
import shlex
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML

TAG_POOL = ("a", "b", "c", "d", "always", "never")
SPECIAL = ("all", "tagged", "untagged")
PLAYBOOK = "site.yml"
# Task files of a role (relative to its tasks/) and of the playbook; a file only imports later ones.
ROLE_FILES = ("main.yml", "sub/more.yml", "extra.yml")
PLAY_FILES = ("tasks/t0.yml", "tasks/sub/t1.yml")
ROLE_DECOY = "sub/extra.yml"
PLAY_DECOYS = ("tasks/extra.yml", "sub/t1.yml", "extra.yml", "tasks/sub/more.yml")

Task = dict[str, Any]


def decoy(path: str) -> Task:
    return {"name": f"DECOY {path}", "debug": {"msg": "decoy"}}


@dataclass
class Scope:
    """Where a task list lives: which files and roles it may reference without creating a cycle."""

    prefix: str  # used to make task names unique
    role: int | None = None  # the role whose tasks/ holds the file; it may import its own later files
    where: str = ""  # directory of the file, relative to the playbook dir (play-level files only)
    files: tuple[str, ...] = ()  # task files (relative to the role's tasks/ or the playbook dir) it may import
    roles: range = range(0)  # role indices it may import / include


@dataclass
class Case:
    seed: int
    files: dict[str, Any] = field(default_factory=dict)
    selection: list[str] = field(default_factory=list)

    def write(self, root: Path) -> None:
        yaml = YAML(typ="safe", pure=True)
        yaml.default_flow_style = False
        yaml.sort_base_mapping_type_on_output = False  # type: ignore[assignment]
        for rel, data in self.files.items():
            path = root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            with path.open("w") as fh:
                yaml.dump(data, fh)


class Generator:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.case = Case(seed)
        self.n_roles = self.rng.randint(2, 6)
        self.decoys = [self.chance(0.3) for _ in range(self.n_roles)]
        self.counter = 0

    # -- small pieces -------------------------------------------------------------------------
    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def tags(self) -> str | list[str]:
        if self.chance(0.12):
            return "{{ tg }}"  # every play defines tg
        picked = self.rng.sample(TAG_POOL, self.rng.choice((1, 1, 1, 2, 2, 3)))
        form = self.rng.random()
        if form < 0.3 and len(picked) == 1:
            return picked[0]
        if form < 0.5:
            return self.rng.choice((",", ", ")).join(picked)
        return picked

    def maybe_tags(self, node: dict[str, Any], p: float = 0.4, when: bool = True) -> dict[str, Any]:
        if self.chance(p):
            node["tags"] = self.tags()
        if when and self.chance(0.1):
            node["when"] = self.rng.choice(("true", "1 == 1", "x is not defined"))
        return node

    def name(self, scope: Scope, kind: str) -> str:
        self.counter += 1
        return f"{scope.prefix} {kind}{self.counter}"

    def module(self) -> str:
        return self.rng.choice(("debug", "ansible.builtin.debug", "command", "ansible.builtin.command",
                                "set_fact", "ansible.builtin.set_fact"))

    def kv(self, args: dict[str, Any]) -> str:
        return " ".join(f"{k}={v}" for k, v in args.items())

    def short(self, action: str) -> str:
        return action.rsplit(".", 1)[-1]

    # -- tasks --------------------------------------------------------------------------------
    def leaf(self, scope: Scope) -> Task:
        action = self.module()
        args: Any = {"debug": {"msg": "hi"}, "command": "echo hi", "set_fact": {"x": 1}}[self.short(action)]
        task: Task = {"name": self.name(scope, "t")} if self.chance(0.7) else {}
        if self.chance(0.1):  # the `action:` form, free-form arguments
            task["action"] = f"{action} {args}" if isinstance(args, str) else f"{action} {self.kv(args)}"
        else:
            task[action] = args
        if self.chance(0.15):
            task["notify"] = "h"
        return self.maybe_tags(task)

    def can_self(self, scope: Scope) -> bool:
        """A role may import its own later task files with import_role tasks_from."""
        return scope.role is not None and bool(scope.files)

    def role_ref(self, scope: Scope) -> tuple[str, str | None]:
        if self.can_self(scope) and (not scope.roles or self.chance(0.1)):
            return f"r{scope.role}", self.rng.choice(scope.files).removesuffix(".yml")
        role = self.rng.choice(scope.roles)
        choices = [None, None, "extra", "extra.yml", "sub/more", "sub/more.yml"] + ["sub/extra"] * self.decoys[role]
        return f"r{role}", self.rng.choice(choices)

    def file_ref(self, scope: Scope) -> str:
        target = self.rng.choice(scope.files)
        if scope.where and self.chance(0.5):  # also resolves relative to the including file's dir
            return target.removeprefix(scope.where + "/")
        return target

    def importer(self, scope: Scope) -> Task:
        kinds = [k for k, ok in (("import_tasks", scope.files), ("include_tasks", scope.files),
                                 ("import_role", scope.roles or self.can_self(scope) and self.chance(0.3)),
                                 ("include_role", scope.roles)) if ok]
        kind = self.rng.choice(kinds)
        action = self.rng.choice((kind, f"ansible.builtin.{kind}"))
        task: Task = {"name": self.name(scope, kind)} if self.chance(0.5) else {}
        if kind.endswith("tasks"):
            ref = self.file_ref(scope)
            if kind == "include_tasks" and self.chance(0.25):
                task[action] = {"file": ref, "apply": {"tags": self.tags()}}
            else:
                task[action] = ref if self.chance(0.7) else {"file": ref}
        else:
            role, tasks_from = self.role_ref(scope)
            args: dict[str, Any] = {"name": role}
            if tasks_from:
                args["tasks_from"] = tasks_from
            if kind == "include_role" and self.chance(0.4):
                args["apply"] = {"tags": self.tags()}
            task[action] = args
        return self.maybe_tags(task, 0.5)

    def block(self, scope: Scope, depth: int) -> Task:
        task: Task = {"name": self.name(scope, "block")} if self.chance(0.4) else {}
        task["block"] = self.tasks(scope, depth + 1, 1, 2)
        for section in ("rescue", "always"):
            if self.chance(0.3):
                task[section] = self.tasks(scope, depth + 1, 1, 1)
        return self.maybe_tags(task, 0.5)

    def tasks(self, scope: Scope, depth: int = 0, low: int = 1, high: int = 3) -> list[Task]:
        out = []
        for _ in range(self.rng.randint(low, high)):
            roll = self.rng.random()
            if roll < 0.2 and depth < 2:
                out.append(self.block(scope, depth))
            elif roll < 0.45 and (scope.files or scope.roles):
                out.append(self.importer(scope))
            else:
                out.append(self.leaf(scope))
        return out

    # -- roles and plays ----------------------------------------------------------------------
    def role(self, i: int) -> None:
        later = range(i + 1, self.n_roles)
        base = f"roles/r{i}"
        for k, rel in enumerate(ROLE_FILES):
            scope = Scope(f"r{i}{rel[0]}", role=i, files=ROLE_FILES[k + 1:], roles=later)
            self.case.files[f"{base}/tasks/{rel}"] = self.tasks(scope) if self.chance(0.8) else [self.leaf(scope)]
        if self.decoys[i]:
            self.case.files[f"{base}/tasks/{ROLE_DECOY}"] = [decoy(f"r{i}/tasks/{ROLE_DECOY}")]
        if later and self.chance(0.6):
            deps: list[Any] = []
            for dep in self.rng.sample(later, self.rng.randint(1, min(2, len(later)))):
                entry = {self.rng.choice(("role", "role", "name")): f"r{dep}"}
                if self.chance(0.2):
                    entry["p"] = self.rng.randint(1, 2)  # role params
                deps.append(f"r{dep}" if self.chance(0.4) else self.maybe_tags(entry, 0.6))
            meta: dict[str, Any] = {"dependencies": deps}
            if self.chance(0.2):
                meta["allow_duplicates"] = True
            self.case.files[f"{base}/meta/main.yml"] = meta
        elif self.chance(0.2):
            self.case.files[f"{base}/meta/main.yml"] = {"allow_duplicates": True}
        if self.chance(0.15):  # adds an implicit validate_argument_spec task tagged always
            points = self.rng.sample(("main", "extra"), self.rng.randint(1, 2))
            self.case.files[f"{base}/meta/argument_specs.yml"] = {
                "argument_specs": {p: {"options": {"p": {"type": "int"}}} for p in points}}
        if self.chance(0.3):
            self.case.files[f"{base}/handlers/main.yml"] = [{"name": "h", "debug": {"msg": "h"}}]

    def roles_entry(self) -> Any:
        role = f"r{self.rng.randrange(self.n_roles)}"
        if self.chance(0.35):
            return role
        entry: dict[str, Any] = {self.rng.choice(("role", "role", "name")): role}
        if self.chance(0.2):
            entry["p"] = self.rng.randint(1, 2)  # role params
        return self.maybe_tags(entry, 0.6)

    def play(self, index: int, top: Scope) -> dict[str, Any]:
        play: dict[str, Any] = {}
        if self.chance(0.5):
            play["name"] = f"play {index}"
        play["hosts"] = self.rng.choice(("localhost", "all", ["localhost"]))
        play["vars"] = {"tg": self.rng.choice(TAG_POOL)}
        play["gather_facts"] = self.chance(0.3)
        self.maybe_tags(play, 0.4, when=False)
        for section in ("pre_tasks", "roles", "tasks", "post_tasks"):
            if section == "roles" and self.chance(0.6):
                play["roles"] = [self.roles_entry() for _ in range(self.rng.randint(1, 3))]
            elif section != "roles" and self.chance(0.7 if section == "tasks" else 0.3):
                play[section] = self.tasks(Scope(f"p{index}{section[:3]}", files=top.files, roles=top.roles))
        if self.chance(0.3):
            play["handlers"] = [{"name": "h", "debug": {"msg": "h"}}]
        if not any(s in play for s in ("pre_tasks", "roles", "tasks", "post_tasks")):
            play["tasks"] = [self.leaf(top)]
        return play

    def selection(self) -> list[str]:
        argv: list[str] = []
        for option, p_special in (("--tags", 0.3), ("--skip-tags", 0.1)):
            values = self.rng.sample(TAG_POOL, self.rng.randint(0, 2))
            if self.chance(p_special):
                values.append(self.rng.choice(SPECIAL))
            if values and self.chance(0.5):
                argv += [option, self.rng.choice((",", ", ")).join(values)]
            else:
                for value in values:
                    argv += [option, value]
        return argv

    def generate(self) -> Case:
        for i in range(self.n_roles):
            self.role(i)
        roles = range(self.n_roles)
        for k, rel in enumerate(PLAY_FILES):
            self.case.files[rel] = self.tasks(
                Scope(f"f{k}", where=rel.rsplit("/", 1)[0], files=PLAY_FILES[k + 1:], roles=roles))
        for rel in PLAY_DECOYS:
            if self.chance(0.3):
                self.case.files[rel] = [decoy(rel)]
        top = Scope("top", files=PLAY_FILES, roles=roles)
        plays: list[dict[str, Any]] = [self.play(i, top) for i in range(self.rng.randint(1, 3))]
        if self.chance(0.25):
            self.case.files["other.yml"] = [self.play(9, top)]
            entry: dict[str, Any] = {"import_playbook": "other.yml"}
            if self.chance(0.4):
                entry["tags"] = self.rng.choice(TAG_POOL)
            plays.insert(self.rng.randint(0, len(plays)), entry)
        self.case.files[PLAYBOOK] = plays
        self.case.selection = self.selection()
        return self.case


def generate(seed: int) -> Case:
    return Generator(seed).generate()


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python -m tests.random_playbooks.generator SEED OUTDIR", file=sys.stderr)
        return 2
    case = generate(int(argv[0]))
    case.write(Path(argv[1]))
    print(shlex.join(case.selection))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
