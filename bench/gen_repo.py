"""Deterministic generator of a realistic Ansible repository, for benchmarks.

Usage: python bench/gen_repo.py OUTDIR [--roles 100] [--seed 1] [--extras] [--force]

Roles have tasks/ (main.yml importing other files, some in subdirectories), handlers/,
defaults/ and meta/ (dependencies form a DAG); playbooks use pre_tasks/roles/tasks/post_tasks,
blocks with rescue/always, tags (including always and never), import_role/include_role and
import_tasks/include_tasks; site.yml imports every playbook. With --extras it also writes files
that hold no tasks, as real repositories do: each role's vars/main.yml and meta/argument_specs.yml,
group_vars/, host_vars/ and a YAML inventory. The other files are the same with or without it.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from string import Template
from typing import Any

Task = dict[str, Any]

AREAS = ["base", "web", "db", "app", "mon", "sec", "net", "log", "cache", "mq", "storage", "ci"]
COMPONENTS = """nginx apache postgres mysql redis memcached rabbitmq kafka zookeeper haproxy keepalived
    prometheus grafana node_exporter filebeat rsyslog chrony sshd fail2ban auditd docker containerd java
    python nodejs php_fpm tomcat jenkins minio nfs postfix dnsmasq unbound openvpn wireguard vault consul
    elasticsearch logrotate cron sysctl limits firewalld certbot etcd varnish""".split()
PLAYBOOKS = """base webservers databases monitoring logging security cache queues storage ci_runners bastion
    loadbalancers dns mail vpn backup k8s_nodes api workers frontend""".split()
ROLE_FILES = """install.yml configure.yml service.yml users.yml firewall.yml upgrade.yml os/debian.yml
    os/redhat.yml config/main.yml config/tls.yml checks/validate.yml checks/health.yml""".split()
# tag -> weight: 'always' and 'never' are rare, as in real repositories
TAGS = {"install": 8, "config": 10, "packages": 5, "service": 6, "security": 4, "monitoring": 3}
TAGS |= {"users": 3, "network": 3, "debug": 2, "always": 1, "never": 1}
WHENS = [
    "ansible_os_family == 'Debian'",
    "ansible_os_family == 'RedHat'",
    "${v}_enabled | bool",
    "${v}_manage_config | default(true) | bool",
    "not (${v}_skip_checks | default(false))",
    "inventory_hostname in groups['all']",
    "${v}_version is defined",
]
# (weight, task template): '@mod' keys become the module (FQCN or short); $c component, $v variable
# prefix, $conf a config file, $key a setting; Jinja's {{ }} is left alone by string.Template.
TASKS: list[tuple[int, Task]] = [
    (8, {"name": "Install $c packages", "@package": {"name": "{{ ${v}_packages }}", "state": "present"},
         "register": "${v}_pkg_result", "retries": 3, "until": "${v}_pkg_result is succeeded"}),
    (4, {"name": "Write $c $conf", "@copy": {"dest": "{{ ${v}_config_dir }}/$conf", "owner": "root",
         "content": "# Managed by Ansible\n$key = {{ ${v}_$key | default('auto') }}\n", "mode": "0644"}}),
    (4, {"name": "Copy $c $conf", "@copy": {"src": "$conf", "dest": "/etc/$c/$conf", "owner": "root",
                                             "group": "root", "mode": "0644", "backup": True}}),
    (10, {"name": "Deploy $c $conf from template", "@template": {"src": "$conf.j2", "mode": "0640",
          "dest": "{{ ${v}_config_dir }}/$conf", "owner": "{{ ${v}_user }}"}}),
    (4, {"name": "Create $c directories", "@file": {"path": "{{ item }}", "state": "directory",
                                                     "owner": "{{ ${v}_user }}", "mode": "0755"},
         "loop": ["/var/lib/$c", "/var/log/$c", "{{ ${v}_config_dir }}/conf.d"]}),
    (6, {"name": "Ensure $c $conf permissions", "@file": {"path": "/etc/$c/$conf", "mode": "0600"}}),
    (6, {"name": "Ensure $c is started and enabled",
         "@service": {"name": "{{ ${v}_service }}", "state": "started", "enabled": True}}),
    (5, {"name": "Check $c version", "@command": "$c --version", "register": "${v}_version_out",
         "changed_when": False}),
    (5, {"name": "Validate $c configuration",
         "@command": {"cmd": "$c -t -c {{ ${v}_config_dir }}/$conf", "chdir": "/etc/$c"},
         "register": "${v}_validate", "changed_when": False,
         "failed_when": "${v}_validate.rc not in [0, 2]"}),
    (8, {"name": "Set $key in $c $conf",
         "@lineinfile": {"path": "/etc/$c/$conf", "regexp": "^#?\\s*$key\\s*=",
                         "line": "$key = {{ ${v}_$key }}", "create": True}}),
    (3, {"name": "Show {{ item }}", "@debug": {"var": "item"}, "loop": ["${v}_version", "${v}_config_dir"],
         "loop_control": {"label": "{{ item }}"}}),
    (5, {"name": "Report $c settings",
         "@debug": {"msg": "$c listens on {{ ${v}_port }} as {{ ${v}_user }}", "verbosity": 1}}),
    (8, {"name": "Compute $c facts",
         "@set_fact": {"${v}_url": "http://{{ inventory_hostname }}:{{ ${v}_port }}",
                       "${v}_${key}_effective": "{{ ${v}_$key | default(omit) }}"}}),
    (4, {"name": "Check whether $c $conf exists", "@stat": {"path": "/etc/$c/$conf"},
         "register": "${v}_conf_stat"}),
    (3, {"name": "Validate $c variables",
         "@assert": {"that": ["${v}_port | int > 0", "${v}_user | length > 0"],
                     "fail_msg": "$c settings are invalid", "quiet": True}}),
]  # fmt: skip
RESCUE: Task = {"name": "Report $c failure",
                "@debug": {"msg": "{{ ansible_failed_result | default('failed') }}"}}  # fmt: skip
ALWAYS: Task = {"name": "Clean up $c temp files", "@file": {"path": "/tmp/$c.tmp", "state": "absent"}}
NOTIFYING = ("@copy", "@template", "@lineinfile")
NETWORKS = ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10"]  # for --extras


# --- minimal YAML emitter (block style, as Ansible content is written by hand) ---------------------

_PLAIN = re.compile(r"[A-Za-z_/.][\w ./|()=!<>,'\[\]{}*+~-]*")
_FLOW_ITEM = re.compile(r"[A-Za-z_][\w.-]*")
_RESERVED = {"yes", "no", "true", "false", "on", "off", "null", "y", "n"}


def _scalar(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, list):  # only empty or short flow lists get here
        return "[" + ", ".join(map(_scalar, v)) + "]"
    s = str(v)
    plain = _PLAIN.fullmatch(s) and ": " not in s and " #" not in s and not s.startswith("{")
    return s if plain and s.lower() not in _RESERVED and s[-1] not in " :" else json.dumps(s)


def _entry(head: str, v: Any, indent: int) -> list[str]:
    if isinstance(v, list) and 0 < len(v) <= 4 and all(_FLOW_ITEM.fullmatch(_scalar(i)) for i in v):
        return [f"{head} {_scalar(v)}"]
    if isinstance(v, dict | list) and v:
        return [head, *_lines(v, indent)]
    if isinstance(v, str) and "\n" in v:
        return [f"{head} |", *((" " * indent + line).rstrip() for line in v.rstrip("\n").split("\n"))]
    return [f"{head} {_scalar(v)}"]


def _lines(value: dict[str, Any] | list[Any], indent: int) -> list[str]:
    pad = " " * indent
    out: list[str] = []
    if isinstance(value, dict):
        for k, v in value.items():
            out += _entry(f"{pad}{k}:", v, indent + 2)
        return out
    for item in value:
        if isinstance(item, dict) and item:
            sub = _lines(item, indent + 2)
            out += [f"{pad}- {sub[0].lstrip()}", *sub[1:]]
        else:
            out += _entry(f"{pad}-", item, indent + 2)
    return out


def to_yaml(doc: dict[str, Any] | list[Any]) -> str:
    return "---\n" + "\n".join(_lines(doc, 0)) + "\n"


# --- content ----------------------------------------------------------------------------------------


@dataclass
class Role:
    name: str
    comp: str
    files: tuple[str, ...] = ()  # task files under tasks/, besides main.yml

    @property
    def handlers(self) -> list[str]:
        return [f"restart {self.comp}", f"reload {self.comp}", f"{self.comp} config changed"]


class Gen:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.roles: list[Role] = []

    def fill(self, node: Any, subs: dict[str, str]) -> Any:
        """Substitute $placeholders in a template and pick a module name for each '@mod' key."""
        if isinstance(node, dict):
            return {self.mod(k[1:]) if k[0] == "@" else Template(k).substitute(subs): self.fill(v, subs)
                    for k, v in node.items()}  # fmt: skip
        if isinstance(node, list):
            return [self.fill(v, subs) for v in node]
        return Template(node).substitute(subs) if isinstance(node, str) else node

    def mod(self, name: str) -> str:
        return name if self.rng.random() < 0.15 else f"ansible.builtin.{name}"

    def tags(self, p: float, pool: dict[str, int] = TAGS) -> Task:
        if self.rng.random() >= p:
            return {}
        picked = self.rng.choices(list(pool), weights=list(pool.values()), k=self.rng.choice([1, 1, 2]))
        return {"tags": sorted(set(picked))}

    def when(self, r: Role, p: float) -> Task:
        if self.rng.random() >= p:
            return {}
        conds = [self.fill(c, {"v": r.name}) for c in self.rng.sample(WHENS, self.rng.choice([1, 1, 1, 2]))]
        return {"when": conds if len(conds) > 1 else conds[0]}

    def task(self, r: Role, template: Task | None = None) -> Task:
        rng = self.rng
        if template is None:
            template = rng.choices([t for _, t in TASKS], weights=[w for w, _ in TASKS])[0]
        subs = {
            "c": r.comp,
            "v": r.name,
            "conf": rng.choice(["main", "server", "local", "tuning"]) + ".conf",
            "key": rng.choice(["max_connections", "listen", "log_level", "timeout", "port", "workers"]),
        }
        t = {**self.fill(template, subs), **self.when(r, 0.2), **self.tags(0.2)}
        if any(k in template for k in NOTIFYING) and rng.random() < 0.6:
            t["notify"] = rng.choice(r.handlers)
        return t | ({"become": True} if rng.random() < 0.15 else {})

    def tasks(self, r: Role, n: int) -> list[Task]:
        out = [self.task(r) for _ in range(n)]
        if n >= 4 and self.rng.random() < 0.45:  # turn a slice into a block
            i, size = self.rng.randrange(n - 2), self.rng.randint(2, 4)
            block: Task = {"name": f"Configure {r.comp} safely", "block": out[i : i + size]}
            if self.rng.random() < 0.7:
                block["rescue"] = [self.task(r, RESCUE), self.task(r)]
            if self.rng.random() < 0.5:
                block["always"] = [self.task(r, ALWAYS)]
            out[i : i + size] = [{**block, **self.when(r, 0.3), **self.tags(0.3)}]
        return out

    def import_tasks(self, r: Role, path: str, dynamic: bool = False) -> Task:
        stem = path.removesuffix(".yml").replace("/", " ")
        key = "ansible.builtin.include_tasks" if dynamic else self.mod("import_tasks")
        verb = "Include" if dynamic else "Import"
        return {"name": f"{verb} {stem} tasks", key: path, **self.when(r, 0.25), **self.tags(0.35)}

    def role_ref(self, r: Role, target: Role, dynamic: bool) -> Task:
        ref: Task = {"name": target.name}
        if target.files and self.rng.random() < 0.8:
            ref["tasks_from"] = self.rng.choice(target.files).removesuffix(".yml")
        key = "ansible.builtin.include_role" if dynamic else self.mod("import_role")
        verb = "Include" if dynamic else "Import"
        return {"name": f"{verb} {target.name} role", key: ref, **self.when(r, 0.3), **self.tags(0.3)}

    def role_files(self, r: Role, idx: int) -> dict[str, Any]:
        rng, v = self.rng, r.name
        r.files = tuple(rng.sample(ROLE_FILES, rng.randint(3, 6)))
        cut = max(2, len(r.files) - 2)
        direct, nested = r.files[:cut], r.files[cut:]
        out: dict[str, Any] = {f"tasks/{f}": self.tasks(r, rng.randint(2, 6)) for f in r.files}
        for f in nested:  # imported from another (possibly nested) file, by role-relative path
            out[f"tasks/{rng.choice(direct)}"].append(self.import_tasks(r, f))
        os_vars = {"file": "{{ ansible_os_family | lower }}.yml"}
        main = [{"name": f"Load {r.comp} OS variables", self.mod("include_vars"): os_vars, "ignore_errors": True}]
        main += self.tasks(r, 2) + [self.import_tasks(r, f) for f in direct]
        if rng.random() < 0.25:
            out["tasks/optional.yml"] = self.tasks(r, rng.randint(2, 4))
            main.append(self.import_tasks(r, "optional.yml", dynamic=True))
        if idx and rng.random() < 0.2:
            main.append(self.role_ref(r, rng.choice(self.roles[:idx]), dynamic=rng.random() < 0.3))
        out["tasks/main.yml"] = main
        service = {"name": f"{{{{ {v}_service }}}}"}
        out["handlers/main.yml"] = [
            {"name": f"restart {r.comp}", self.mod("service"): service | {"state": "restarted"}},
            {"name": f"reload {r.comp}", self.mod("service"): service | {"state": "reloaded"},
             "listen": f"{r.comp} config changed"},
        ]  # fmt: skip
        out["defaults/main.yml"] = {
            f"{v}_enabled": True, f"{v}_packages": [r.comp.replace("_", "-"), f"{r.comp}-common"],
            f"{v}_service": r.comp, f"{v}_user": r.comp, f"{v}_port": 8000 + idx,
            f"{v}_config_dir": f"/etc/{r.comp}", f"{v}_manage_config": True,
            f"{v}_version": f"{rng.randint(1, 9)}.{rng.randint(0, 20)}",
        }  # fmt: skip
        platforms = [{"name": "Debian", "versions": ["bookworm"]}, {"name": "EL", "versions": ["9"]}]
        out["meta/main.yml"] = {
            "galaxy_info": {"author": "platform-team", "description": f"Install and configure {r.comp}",
                            "license": "MIT", "min_ansible_version": "2.15", "platforms": platforms},
            "dependencies": self.deps(idx),
        }  # fmt: skip
        return out

    def role_entry(self, r: Role, p_string: float) -> str | Task:
        """A role as listed in `roles:` or meta dependencies: a bare name, or with tags and/or when."""
        form = self.rng.random()
        if form < p_string:
            return r.name
        if form < (1 + p_string) / 2:
            return {"role": r.name, **self.tags(1.0)}
        return {"role": r.name, **self.when(r, 1.0), **self.tags(0.5)}

    def deps(self, idx: int) -> list[str | Task]:
        """Dependencies only point to lower-index roles (a DAG), within the 'base' fifth of all roles."""
        if idx == 0 or self.rng.random() > 0.25:
            return []
        pool = self.roles[: max(1, min(idx, len(self.roles) // 5))]
        picked = self.rng.sample(pool, min(len(pool), self.rng.choice([1, 1, 2])))
        return [self.role_entry(d, 0.5) for d in picked]

    def play(self, name: str, roles: list[Role]) -> Task:
        rng, anchor, group = self.rng, roles[0], name.split()[0]
        tasks = self.tasks(anchor, rng.randint(2, 5)) + [self.role_ref(anchor, rng.choice(self.roles), False)]
        if rng.random() < 0.4:
            tasks.append(self.role_ref(anchor, rng.choice(self.roles), dynamic=True))
        if rng.random() < 0.3:
            tasks.append({"name": "Send notifications", "ansible.builtin.include_tasks": "tasks/notify.yml"})
        preflight = {"name": "Run preflight checks", self.mod("import_tasks"): "tasks/preflight.yml"}
        play: Task = {
            "name": f"Configure {name.replace('_', ' ')}",
            "hosts": rng.choice([group, group, "all"]),
            "gather_facts": rng.random() < 0.5,
            "become": True,
            **self.tags(0.3),
            "vars": {"deploy_env": rng.choice(["prod", "staging"]), "serial_batch": rng.randint(1, 5)},
            "pre_tasks": [preflight, *self.tasks(anchor, rng.randint(1, 3))],
            "roles": [self.role_entry(r, 0.5) for r in roles],
            "tasks": tasks,
            "post_tasks": self.tasks(anchor, rng.randint(1, 3)),
        }
        if rng.random() < 0.15:  # the play header then shows the host pattern
            del play["name"]
        return play

    # --- files without tasks (--extras); drawn after everything else, so the rest stays the same ---

    def argument_specs(self, r: Role, defaults: dict[str, Any]) -> dict[str, Any]:
        kinds = {bool: "bool", int: "int", list: "list", str: "str"}
        options: dict[str, Any] = {}
        for var, value in defaults.items():
            what = var.removeprefix(f"{r.name}_").replace("_", " ")
            description = [f"The {what} setting of {r.comp}.",
                           f"Override it in group_vars or host_vars to change how {r.comp} is set up."]  # fmt: skip
            option: Task = {"type": kinds[type(value)], "required": False, "default": value, "description": description}
            if isinstance(value, list):
                option["elements"] = "str"
            options[var] = option
        options[f"{r.name}_log_level"] = {"type": "str", "default": "info", "choices": ["debug", "info", "warn"],
                                          "description": f"How much {r.comp} logs."}  # fmt: skip
        main = {"short_description": f"Install and configure {r.comp}",
                "description": [f"Installs {r.comp}, writes its configuration and keeps its service running.",
                                "Every variable has a default; none is required."],
                "author": ["platform-team"], "options": options}  # fmt: skip
        return {"argument_specs": {"main": main}}

    def role_vars(self, r: Role) -> dict[str, Any]:
        rng, v, c = self.rng, r.name, r.comp
        pkg = c.replace("_", "-")
        return {
            f"{v}_os_packages": {"Debian": [pkg, f"{pkg}-common", f"lib{pkg}-dev"], "RedHat": [pkg, f"{pkg}-libs"]},
            f"{v}_settings": {"max_connections": rng.choice([128, 256, 512, 1024]), "listen": "0.0.0.0",
                              "log_level": f"{{{{ {v}_log_level | default('info') }}}}",
                              "timeout": rng.choice([10, 30, 60]), "workers": rng.randint(1, 16)},
            f"{v}_directories": [{"path": f"/var/lib/{c}", "mode": "0750"}, {"path": f"/var/log/{c}", "mode": "0755"},
                                 {"path": f"{{{{ {v}_config_dir }}}}/conf.d", "mode": "0755"}],
            f"{v}_environment": {f"{c.upper()}_HOME": f"/opt/{c}", f"{c.upper()}_CONF": f"/etc/{c}/main.conf"},
            f"{v}_limits": {"nofile": rng.choice([4096, 65536]), "nproc": rng.choice([2048, 4096]),
                            "memlock": "unlimited"},
            f"{v}_firewall_rules": [{"port": f"{{{{ {v}_port }}}}", "proto": "tcp", "source": src,
                                     "comment": f"{c} from {src}"} for src in rng.sample(NETWORKS, rng.randint(1, 3))],
        }  # fmt: skip

    def host_vars(self, host: str, n: int) -> dict[str, Any]:
        picked = self.rng.sample(self.roles, min(len(self.roles), self.rng.randint(1, 3)))
        return {"ansible_host": f"10.{n // 250 % 250}.{n % 250}.{self.rng.randint(2, 250)}",
                "host_role": host.rsplit("-", 1)[0], **{f"{r.name}_port": 9000 + n for r in picked},
                **{f"{r.name}_enabled": self.rng.random() < 0.8 for r in picked}}  # fmt: skip

    def extras(self, files: dict[str, Any], books: list[str]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for r in self.roles:
            out[f"roles/{r.name}/vars/main.yml"] = self.role_vars(r)
            defaults = files[f"roles/{r.name}/defaults/main.yml"]
            out[f"roles/{r.name}/meta/argument_specs.yml"] = self.argument_specs(r, defaults)
        groups = sorted(books)  # the play of each playbook targets the group of its name, or all
        hosts = [f"{groups[i % len(groups)]}-{i // len(groups) + 1:02d}" for i in range(len(self.roles))]
        out["group_vars/all.yml"] = {"ntp_servers": ["0.pool.ntp.org", "1.pool.ntp.org"],
                                     "dns_servers": ["10.0.0.2", "10.0.0.3"], "deploy_user": "deploy",
                                     "admin_users": [{"name": f"admin{i}", "shell": "/bin/bash",
                                                      "groups": ["sudo", "adm"]} for i in range(4)]}  # fmt: skip
        for group in groups:
            picked = self.rng.sample(self.roles, min(len(self.roles), 3))
            out[f"group_vars/{group}.yml"] = {
                f"{r.name}_{k}": val
                for r in picked
                for k, val in [("enabled", True), ("manage_config", self.rng.random() < 0.7),
                               ("port", 7000 + self.rng.randrange(999))]
            }  # fmt: skip
        for n, host in enumerate(hosts):
            out[f"host_vars/{host}.yml"] = self.host_vars(host, n)
        members = {g: {"hosts": {h: None for h in hosts if h.rsplit("-", 1)[0] == g}} for g in groups}
        out["inventory/hosts.yml"] = {"all": {"children": members}}
        return out


def count_tasks(tasks: list[Task]) -> int:
    sections = ("block", "rescue", "always")
    return sum(count_tasks([x for s in sections for x in t.get(s, [])]) if "block" in t else 1 for t in tasks)


def generate(outdir: Path, n_roles: int = 100, seed: int = 1, extras: bool = False) -> dict[str, int]:
    """Write the repository into outdir; return its size figures. ``extras`` adds files without tasks."""
    g = Gen(seed)
    combos = [f"{a}_{c}" for a in AREAS for c in COMPONENTS]
    names = g.rng.sample(combos, min(n_roles, len(combos)))
    names += [f"{names[i % len(combos)]}{i}" for i in range(n_roles - len(names))]  # beyond 552 roles
    g.roles = [Role(n, n.split("_", 1)[1]) for n in names]
    files: dict[str, Any] = {}
    for i, r in enumerate(g.roles):
        files |= {f"roles/{r.name}/{p}": doc for p, doc in g.role_files(r, i).items()}
    common = Role("common", "common")
    files["tasks/preflight.yml"] = g.tasks(common, 4)
    files["tasks/notify.yml"] = g.tasks(common, 2)
    n_books = max(1, n_roles // 5)
    books = [PLAYBOOKS[i % len(PLAYBOOKS)] + (f"_{i}" if i >= len(PLAYBOOKS) else "") for i in range(n_books)]
    order = g.rng.sample(g.roles, len(g.roles))  # every role is used by at least one play
    plays: list[Task] = []
    for i, book in enumerate(books):
        mine = [g.play(book, order[i::n_books])]
        if g.rng.random() < 0.3:
            mine.append(g.play(f"{book} extras", g.rng.sample(g.roles, 2)))
        files[f"{book}.yml"] = mine
        plays += mine
    no_special = {t: w for t, w in TAGS.items() if t not in ("always", "never")}
    files["site.yml"] = [{"import_playbook": f"{b}.yml", **g.tags(0.2, no_special)} for b in books]
    if extras:
        files |= g.extras(files, books)

    total_bytes = 0
    for rel, doc in files.items():
        path = outdir / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        total_bytes += path.write_bytes(to_yaml(doc).encode())
    task_files = [doc for rel, doc in files.items() if "/tasks/" in f"/{rel}"]
    play_tasks = [p[s] for p in plays for s in ("pre_tasks", "tasks", "post_tasks")]
    return {
        "roles": len(g.roles),
        "task files": len(task_files),
        "tasks": sum(map(count_tasks, task_files + play_tasks)),
        "playbooks (+ site.yml)": len(books),
        "YAML files": len(files),
        "YAML bytes": total_bytes,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("outdir", type=Path)
    ap.add_argument("--roles", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--extras", action="store_true", help="also write files without tasks (see above)")
    ap.add_argument("--force", action="store_true", help="delete OUTDIR first if it is not empty")
    args = ap.parse_args()
    if args.outdir.exists() and any(args.outdir.iterdir()):
        if not args.force:
            sys.exit(f"{args.outdir} is not empty (use --force to replace it)")
        shutil.rmtree(args.outdir)
    for k, v in generate(args.outdir, args.roles, args.seed, args.extras).items():
        print(f"{k}: {v}")


if __name__ == "__main__":
    main()
