"""Scenarios cut from the roles of public repositories, for the bundled engine's comparison with
ansible-playbook (see realroles.py).

A role's task file becomes one scenario: the role is copied with its defaults, vars, handlers,
templates and files, and every task file is rewritten so that it runs unprivileged on this
machine and touches nothing outside the scenario:

* a task whose module the comparison covers (template, copy, file, lineinfile, blockinfile,
  replace, stat, assert, set_fact, include_vars, debug, fail, find, slurp, assemble,
  ini_file, unarchive of a file, pause of a few seconds, set_stats, group_by, add_host, meta,
  command and shell with ``creates`` or ``removes`` or a line that only reads (read_only_commands.py),
  the role's own includes), written as ``module:``, ``action:`` or ``local_action:``, is kept, less
  what needs root (``owner``, ``group``, SELinux contexts, ``become``) or another host
  (``delegate_to`` anything but this one);
* any other task keeps its name and keywords (``when``, loops, ``register``, ``notify``...) with a
  ``debug`` in place of its module, so the conditions and loops around it still run;
* every absolute path under a system directory (``/etc/nginx/nginx.conf``), and any value (or
  free-form argument, ``path=/encrypted``) that is a whole path at the top (``/swap``), is made
  relative, ``root/etc/nginx/nginx.conf``, and so
  is a value that starts with a home directory (``~/.ssh``, ``~{{ item }}/.netrc``:
  ``root/root/.ssh``, ``root/home/{{ item }}/.netrc``), which modules expand on this machine, and
  one inside a kept command line (``cp a ~/b``, ``creates=~/b``: the shell expands it too):
  modules on the local connection run in the playbook's directory, so each tool writes into its
  own scratch copy. The parent directories of the literal paths are
  created in the scenario, as they exist on a real system;
* a path that starts with a variable the role defines empty (``vault_path: ""``, then
  ``{{ vault_path }}/etc/vault.d``) is moved too, ``root{{ vault_path }}/etc/vault.d``, and so is
  one under ``/`` a template names (``/{{ item }}``);
* the facts roles read (``ansible_os_family``...) are play variables of a fixed Ubuntu machine:
  both tools see the same values and gather nothing (the home directory of ``ansible_env`` is
  ``root/root``, inside the scenario);
* both tools run with a ``date`` that shows a fixed time (:data:`CLOCK`, ``"clock"`` in
  case.json): a release named after ``lookup('pipe', 'date ...')`` is the same in both runs.

What the cutting cannot make safe or repeatable leaves the scenario out, with the reason
(guards.py): a clock read no ``date`` fixes, a path a kept task writes that may be outside.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import read_only_commands
import yaml

COVERED = frozenset({
    "template", "copy", "file", "lineinfile", "blockinfile", "replace", "stat", "assert", "set_fact",
    "include_vars", "debug", "fail", "include_tasks", "import_tasks",
    # the engine's other modules that only touch what their (moved) paths name, and the
    # controller's actions on the run's own inventory and stats
    "find", "slurp", "assemble", "ini_file", "community.general.ini_file", "set_stats", "group_by",
    "add_host",
})
# kept with some arguments only: pause without a wait longer than PAUSE_SECONDS, unarchive of a
# file (no URL)
PAUSE_SECONDS = 5
# meta actions kept (refresh_inventory re-reads the scenario's inventory, the host list)
META = frozenset({"flush_handlers", "end_play", "end_host", "noop", "end_batch", "end_role", "clear_facts",
                  "clear_host_errors", "reset_connection", "refresh_inventory"})
# a delegation that stays on the machine the scenario runs on
LOCAL_HOSTS = frozenset({"localhost", "127.0.0.1", "{{ inventory_hostname }}"})
COMMANDS = frozenset({"command", "shell"})
PREFIXES = ("ansible.builtin.", "ansible.legacy.")
TASK_KEYWORDS = frozenset({
    "name", "when", "loop", "loop_control", "register", "notify", "tags", "ignore_errors", "changed_when",
    "failed_when", "vars", "args", "run_once", "no_log", "check_mode", "diff", "until", "retries", "delay",
    "environment", "listen", "any_errors_fatal", "throttle", "timeout", "collections", "module_defaults",
    "ignore_unreachable", "action", "local_action", "async", "poll", "delegate_to", "delegate_facts",
    "debugger", "connection", "port", "remote_user", "become", "become_user", "become_method",
    "become_flags", "become_exe", "block", "rescue", "always",
})
# keywords that need root, another host or another user: the scenario runs without them
DROPPED_KEYWORDS = frozenset({
    "become", "become_user", "become_method", "become_flags", "become_exe", "delegate_to", "delegate_facts",
    "remote_user", "connection", "port", "async", "poll", "local_action", "collections", "module_defaults",
})
ROOT_ONLY_ARGS = frozenset({"owner", "group", "seuser", "serole", "setype", "selevel", "attributes", "unsafe_writes"})
SYSTEM_DIRS = ("etc", "var", "usr", "opt", "srv", "home", "run", "tmp", "lib", "lib64", "boot", "root", "sbin",
               "bin", "mnt", "media", "data")
_ROOT_ONLY_FREE_FORM = re.compile(r"(?:^|\s+)(?:" + "|".join(sorted(ROOT_ONLY_ARGS)) +
                                  r")=(?:\"[^\"]*\"|'[^']*'|\S*\{\{.*?\}\}\S*|\S+)(?=\s|$)")
_SYSTEM_PATH = re.compile(r"(?<![\w./~-])(?<!}})/(" + "|".join(SYSTEM_DIRS) + r")(?=/|\b)")
_LITERAL_PATH = re.compile(r"^root/[\w./+@-]+$")
# a whole value that is a path at the top of the file system (a role's ``swapfile_file: /swap``):
# moved into the scenario too, but for the kernel's and devices' directories
_TOP_PATH = re.compile(r"^/(?!(?:dev|proc|sys)(?:/|$))([\w.+@-]+(?:/[\w.+@-]+)*)$")
# the same path as a free-form argument's value (``file: state=directory path=/encrypted``)
_TOP_ARGUMENT = re.compile(r"((?:^|\s)\w+=)/(?!(?:dev|proc|sys)(?:/|\s|$))([\w.+@-]+(?:/[\w.+@-]+)*)(?=\s|$)")
FACTS: dict[str, Any] = {
    "ansible_os_family": "Debian", "ansible_distribution": "Ubuntu", "ansible_distribution_release": "jammy",
    "ansible_distribution_major_version": "22", "ansible_distribution_version": "22.04",
    "ansible_architecture": "x86_64", "ansible_machine": "x86_64", "ansible_system": "Linux",
    "ansible_kernel": "5.15.0-91-generic", "ansible_hostname": "node1", "ansible_fqdn": "node1.example.com",
    "ansible_nodename": "node1", "ansible_domain": "example.com", "ansible_processor_vcpus": 2,
    "ansible_processor_count": 1, "ansible_processor_cores": 2, "ansible_memtotal_mb": 2048,
    "ansible_service_mgr": "systemd", "ansible_pkg_mgr": "apt", "ansible_python_version": "3.10.12",
    "ansible_default_ipv4": {"address": "10.0.0.2", "interface": "eth0", "gateway": "10.0.0.1"},
    "ansible_all_ipv4_addresses": ["10.0.0.2"], "ansible_interfaces": ["lo", "eth0"],
    "ansible_virtualization_type": "kvm", "ansible_virtualization_role": "guest",
    "ansible_selinux": {"status": "disabled"}, "ansible_env": {"HOME": "root/root", "PATH": "/usr/bin:/bin"},
    "ansible_user_id": "root", "ansible_mounts": [], "ansible_lsb": {"codename": "jammy", "id": "Ubuntu"},
}
MODES = ("run", "check", "diff")
CLOCK = 1767225600  # 2026-01-01T00:00:00Z: the time `date` shows in a role's scenario


@dataclass(frozen=True)
class RoleFile:
    repo: str
    role: Path  # the role's directory
    tasks_from: str  # the task file, relative to tasks/, without .yml

    @property
    def name(self) -> str:
        slug = re.sub(r"[^\w]+", "_", f"{self.repo}__{self.role.name}__{self.tasks_from}")
        return slug.strip("_")[:120]


def find_roles(repo_dir: Path) -> Iterator[Path]:
    """Each role of a checkout: a directory with tasks/main.yml (the checkout itself for a lone role)."""
    for main in sorted(repo_dir.rglob("tasks/main.y*ml")):
        role = main.parent.parent
        if not any(part.startswith(".") or part in ("molecule", "tests") for part in role.relative_to(repo_dir).parts):
            yield role


def role_files(repo: str, role: Path) -> Iterator[RoleFile]:
    for file in sorted((role / "tasks").glob("*.y*ml")):
        yield RoleFile(repo, role, file.stem)


def rewrite_paths(value: Any, empty: frozenset[str] = frozenset()) -> Any:
    """``value`` with its system paths moved under ``root/``; ``empty`` names the role's variables
    defined empty, a path that starts with one of them (``{{ prefix }}/etc``) moving too."""
    if isinstance(value, str):
        value = _HOME.sub(_home, value)
        value = _TOP_PATH.sub(r"root/\1", _SYSTEM_PATH.sub(r"root/\1", value))
        value = _TOP_ARGUMENT.sub(r"\1root/\2", value)
        if value.startswith("/{{"):  # a path under / that a template names (``/{{ item }}``)
            return "root" + value
        match = _EMPTY_PREFIX.match(value)
        return "root" + value if match and match.group(1) in empty else value
    if isinstance(value, list):
        return [rewrite_paths(v, empty) for v in value]
    if isinstance(value, dict):  # an interpreter is a program the machine runs, not a path the role writes
        return {k: v if isinstance(k, str) and _INTERPRETER.match(k) else rewrite_paths(v, empty)
                for k, v in value.items()}
    return value


_INTERPRETER = re.compile(r"^ansible_\w*_interpreter$")


# a value that starts with a home directory, ``~``, ``~user`` or ``~{{ user }}`` (modules expand it on
# the host, the local connection's being this machine's): the facts' home, or the user's under home/
_HOME = re.compile(r"^~(\w[\w.-]*|\{\{[^{}]*\}\})?(?=/|$)")


def _home(match: re.Match[str]) -> str:
    user = match.group(1)
    return "root/root" if user in (None, "root") else f"root/home/{user}"


# a home directory inside a command line (``cp x ~/y``, ``creates=~/y``, ``'~deploy/.ssh'``): the
# shell, or the command module's expansion of each argument, makes it a home on this machine
_COMMAND_HOME = re.compile(r"(?<=[\s='\"])~(\w[\w.-]*)?(?=[/\s'\"]|$)")
_JINJA = re.compile(r"(\{\{.*?\}\}|\{%.*?%\}|\{#.*?#\})", re.DOTALL)


def _command_homes(value: Any) -> Any:
    """A kept command's arguments with the homes inside its lines moved as a value's first ones
    are; a ``~`` inside a template (Jinja's concatenation) is left alone."""
    if isinstance(value, str):
        parts = _JINJA.split(value)
        return "".join(part if i % 2 else _COMMAND_HOME.sub(_home, part) for i, part in enumerate(parts))
    if isinstance(value, list):
        return [_command_homes(v) for v in value]
    if isinstance(value, dict):
        return {k: _command_homes(v) for k, v in value.items()}
    return value


_EMPTY_PREFIX = re.compile(r"^\{\{\s*(\w+)\s*\}\}/(?:" + "|".join(SYSTEM_DIRS) + r")(?=/|$)")


def empty_variables(role: Path) -> frozenset[str]:
    """The names the role's defaults and vars define as an empty string or null."""
    names = set()
    for sub in ("defaults", "vars"):
        for file in sorted((role / sub).rglob("*.y*ml")) if (role / sub).is_dir() else []:
            data = yaml.safe_load(file.read_text())
            if isinstance(data, dict):
                names.update(k for k, v in data.items() if isinstance(k, str) and v in ("", None))
    return frozenset(names)


def _module(task: dict[str, Any]) -> str | None:
    if "action" in task:
        action = task["action"]
        return (action.get("module") if isinstance(action, dict) else str(action).split()[0]) or None
    names = [k for k in task if k not in TASK_KEYWORDS and not k.startswith("with_")]
    return names[0] if len(names) == 1 else None


def short_name(module: str) -> str:
    for prefix in PREFIXES:
        if module.startswith(prefix):
            return module[len(prefix):]
    return module


def _has_guard(args: Any, task: dict[str, Any]) -> bool:
    extra = task.get("args") if isinstance(task.get("args"), dict) else {}
    if isinstance(args, dict):
        return bool({"creates", "removes"} & (set(args) | set(extra)))
    return isinstance(args, str) and bool(re.search(r"\b(creates|removes)=", args)) or bool(
        {"creates", "removes"} & set(extra))


def written(task: dict[str, Any]) -> tuple[str, str | None, Any]:
    """(the key the module is written under, the module, its arguments): ``copy: {...}``,
    ``action: copy src=a`` or ``local_action: {module: copy, src: a}``."""
    for key in ("action", "local_action"):
        if key in task:
            value = task[key]
            if isinstance(value, dict):
                module = value.get("module")
                return key, module if isinstance(module, str) else None, {
                    k: v for k, v in value.items() if k != "module"}
            words = str(value).split(None, 1)
            return key, (words[0] if words else None), (words[1] if len(words) > 1 else "")
    module = _module(task)
    return (module, module, task[module]) if module else ("", None, None)


def leaf_tasks(data: Any) -> Iterator[dict[str, Any]]:
    """The tasks of a task file's data, those inside blocks (block, rescue, always) included."""
    for task in data if isinstance(data, list) else []:
        if not isinstance(task, dict):
            continue
        if any(k in task for k in ("block", "rescue", "always")):
            for section in ("block", "rescue", "always"):
                yield from leaf_tasks(task.get(section))
        else:
            yield task


def _write_back(task: dict[str, Any], key: str, module: str, args: Any) -> None:
    if key == module:
        task[key] = args
    elif isinstance(task[key], dict):
        task[key] = {"module": module, **args}
    else:
        task[key] = f"{module} {args}".strip()


def free_form(args: str) -> dict[str, str]:
    return dict(m.groups() for m in re.finditer(r"(\w+)=(\S+)", args))


def _kept(short: str, args: Any, task: dict[str, Any]) -> bool:
    """Whether the scenario runs a task of module ``short``, as written (else a placeholder)."""
    given = free_form(args) if isinstance(args, str) else args if isinstance(args, dict) else {}
    if short in COMMANDS:
        return _has_guard(args, task) or read_only_commands.reads_only(args, task)
    if short == "meta":
        return args in META
    if short == "unarchive":  # a URL source is refused by the engine; a download is no local file
        return isinstance(given.get("src"), str) and "://" not in given["src"]
    if short == "pause":
        wait = given.get("seconds", 0)
        return "minutes" not in given and str(wait).isdigit() and int(wait) <= PAUSE_SECONDS
    return short in COVERED


def rewrite_task(task: Any) -> tuple[Any, int]:
    """The task as the scenario runs it, and how many covered modules it (and its blocks) run."""
    if not isinstance(task, dict):
        return task, 0
    task = {k: v for k, v in task.items() if k not in DROPPED_KEYWORDS
            or (k == "delegate_to" and v in LOCAL_HOSTS) or k == "local_action"}
    if any(k in task for k in ("block", "rescue", "always")):
        covered = 0
        for section in ("block", "rescue", "always"):
            if isinstance(task.get(section), list):
                pairs = [rewrite_task(t) for t in task[section]]
                task[section] = [t for t, _ in pairs]
                covered += sum(n for _, n in pairs)
        return task, covered
    key, module, args = written(task)
    if module is None:
        return _placeholder(task, "action"), 0
    short = short_name(module)
    if not _kept(short, args, task):
        return _placeholder(task, module), 0
    if short in COMMANDS:
        args = _command_homes(args)
        if "args" in task:
            task["args"] = _command_homes(task["args"])
    if isinstance(args, dict):
        args = {k: v for k, v in args.items() if k not in ROOT_ONLY_ARGS}
    elif isinstance(args, str) and short != "meta":  # free-form ``src=a dest=b owner=git group=git``
        args = _ROOT_ONLY_FREE_FORM.sub("", args).strip()
    _write_back(task, key, module, args)
    if isinstance(task.get("args"), dict):
        task["args"] = {k: v for k, v in task["args"].items() if k not in ROOT_ONLY_ARGS}
    return task, int(short not in ("debug", "include_tasks", "import_tasks", "meta"))


def _placeholder(task: dict[str, Any], module: str) -> dict[str, Any]:
    kept = {k: v for k, v in task.items() if k in TASK_KEYWORDS and k not in ("args", "action", "local_action")}
    kept.pop("until", None), kept.pop("retries", None), kept.pop("delay", None)
    kept["ansible.builtin.debug"] = {"msg": f"not run here: {module}"}
    return kept


def _rewrite_tasks_file(source: Path, dest: Path, empty: frozenset[str]) -> int:
    data = yaml.safe_load(source.read_text())
    if not isinstance(data, list):
        data = []
    pairs = [rewrite_task(t) for t in rewrite_paths(data, empty)]
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_text(yaml.safe_dump([t for t, _ in pairs], sort_keys=False, width=1000))
    return sum(n for _, n in pairs)


def _literal_paths(value: Any) -> Iterator[str]:
    if isinstance(value, str) and _LITERAL_PATH.match(value):
        yield value
    elif isinstance(value, list):
        for v in value:
            yield from _literal_paths(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from _literal_paths(v)


def write_scenario(item: RoleFile, dest: Path) -> bool:
    """The scenario of one role file in ``dest`` (False when it runs none of the covered modules,
    or a file of the role is not plain YAML)."""
    role_dir = dest / "roles" / item.role.name
    try:
        covered = 0
        empty = empty_variables(item.role)
        for sub in ("tasks", "handlers"):
            for file in sorted((item.role / sub).rglob("*.y*ml")) if (item.role / sub).is_dir() else []:
                n = _rewrite_tasks_file(file, role_dir / sub / file.relative_to(item.role / sub), empty)
                covered += n if sub == "tasks" and file.stem == item.tasks_from else 0
        literals: set[str] = set()
        for sub in ("defaults", "vars"):
            for file in sorted((item.role / sub).rglob("*.y*ml")) if (item.role / sub).is_dir() else []:
                data = rewrite_paths(yaml.safe_load(file.read_text()) or {}, empty)
                literals.update(_literal_paths(data))
                target = role_dir / sub / file.relative_to(item.role / sub)
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(yaml.safe_dump(data, sort_keys=False, width=1000))
        for file in sorted(role_dir.rglob("*.y*ml")):
            literals.update(_literal_paths(yaml.safe_load(file.read_text())))
    except (yaml.YAMLError, UnicodeDecodeError, RecursionError):
        shutil.rmtree(dest, ignore_errors=True)
        return False
    if not covered:
        shutil.rmtree(dest, ignore_errors=True)
        return False
    for sub in ("templates", "files"):
        if (item.role / sub).is_dir():
            shutil.copytree(item.role / sub, role_dir / sub, symlinks=False, dirs_exist_ok=True,
                            ignore=shutil.ignore_patterns("*.zip", "*.tar*", "*.gz"))
    for directory in (f"root/{d}" for d in SYSTEM_DIRS):
        (dest / directory).mkdir(parents=True, exist_ok=True)
    for path in literals:  # a file's directory, as on a system where the package is installed
        parent = Path(path).parent
        if ".." not in parent.parts:
            (dest / parent).mkdir(parents=True, exist_ok=True)
    entry: dict[str, Any] = {"name": item.role.name}
    if item.tasks_from != "main":
        entry["tasks_from"] = item.tasks_from
    play = {"name": f"{item.role.name} {item.tasks_from}", "hosts": "all", "gather_facts": False,
            "vars": FACTS, "tasks": [{"name": "the role's tasks", "ansible.builtin.import_role": entry}]}
    (dest / "site.yml").write_text(yaml.safe_dump([play], sort_keys=False, width=1000))
    (dest / "case.json").write_text(json.dumps({"description": f"{item.repo}: {item.role.name} "
                                                f"tasks/{item.tasks_from}", "modes": list(MODES), "clock": CLOCK}))
    return True
