"""Which files under the checked paths are playbooks, roles, or other YAML.

Detection is by content: a YAML file whose top level is a list of mappings with at least one
play (``hosts:``) or ``import_playbook`` is a playbook. A role is a directory with
``tasks/main.yml`` that sits in a ``roles/`` directory or has ``meta/main.yml``. Files inside
a role are never taken for playbooks. Hidden directories and virtualenvs are skipped, as are
a role's ``templates/`` and ``files/`` (Jinja2 and arbitrary files, not YAML to check).
Files git ignores are skipped too (see :mod:`playbook_ls.check.gitignore`), unless named.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Iterator
from functools import cache
from typing import Any

from engine import files
from engine.loading import paths
from engine.loading.keywords import IMPORT_PLAYBOOK
from playbook_ls.check.gitignore import GitIgnore
from playbook_ls.rules.base import LONE_ROLE_PLAYBOOK

YAML_SUFFIXES = (".yml", ".yaml")
SKIPPED_DIRS = frozenset({"node_modules", "__pycache__", "venv", "site-packages"})
ROLE_DATA_DIRS = frozenset({"templates", "files"})
PLAY_KEYS = frozenset({"hosts", *IMPORT_PLAYBOOK})


def yaml_files(paths: Iterable[str], exclude: list[str], root: str, respect_gitignore: bool = True,
               left_out: list[str] | None = None) -> list[str]:
    """Absolute paths of the YAML files under ``paths``, sorted, minus ``exclude`` globs
    (matched against the path relative to ``root``, ``**`` spanning directories) and, with
    ``respect_gitignore``, minus what git ignores below a named directory. A named directory
    is walked even when ignored, and a named file is kept even when ignored, as ruff does:
    naming it is asking for it.

    With ``left_out`` (a list), ``molecule/`` directories are not walked unless named, and are
    appended to it: molecule runs their playbooks with roles and collections paths of its own
    (the scenario's ``provisioner.env``, the project's parent, the collection it installs), so
    checked as plain playbooks they would report every role as missing."""
    patterns = [_glob_regex(pattern) for pattern in exclude]
    gitignore = GitIgnore() if respect_gitignore else None
    found: set[str] = set()
    for path in paths:
        path = os.path.abspath(path)
        if os.path.isfile(path):
            found.add(path)
        else:
            found.update(_walk(path, gitignore, left_out))
    return sorted(p for p in found if not _excluded(p, root, patterns))


MOLECULE_DIR = "molecule"


def _walk(directory: str, gitignore: GitIgnore | None, left_out: list[str] | None = None) -> Iterator[str]:
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return
    for entry in entries:
        name = entry.name
        if entry.is_dir(follow_symlinks=False):
            if name.startswith(".") or name in SKIPPED_DIRS or name.endswith(".egg-info"):
                continue
            if name in ROLE_DATA_DIRS and is_role_dir(directory):
                continue
            # pruned, not filtered: git never re-includes anything inside an ignored directory
            if gitignore is not None and gitignore.ignored(entry.path, is_dir=True):
                continue
            if left_out is not None and name == MOLECULE_DIR:
                left_out.append(entry.path)
                continue
            yield from _walk(entry.path, gitignore, left_out)
        elif name.endswith(YAML_SUFFIXES) and files.is_file(entry):
            if gitignore is None or not gitignore.ignored(entry.path, is_dir=False):
                yield entry.path


def _excluded(path: str, root: str, patterns: list[re.Pattern[str]]) -> bool:
    if not patterns:
        return False
    relative = os.path.relpath(path, root).replace(os.sep, "/")
    return any(p.match(relative) or p.match(os.path.basename(path)) for p in patterns)


def matches(path: str, root: str, globs: list[str]) -> bool:
    return _excluded(path, root, [_glob_regex(g) for g in globs])


@cache
def _glob_regex(pattern: str) -> re.Pattern[str]:
    """A glob where ``*`` and ``?`` stay within one directory, ``**`` spans any number of
    them (``a/**``, ``**/b``, ``a/**/b``), and a pattern naming a directory covers its files."""
    pattern = pattern.strip().rstrip("/")
    regex, i = "", 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            regex, i = regex + "(?:.*/)?", i + 3
        elif pattern.startswith("**", i):
            regex, i = regex + ".*", i + 2
        elif pattern[i] == "*":
            regex, i = regex + "[^/]*", i + 1
        elif pattern[i] == "?":
            regex, i = regex + "[^/]", i + 1
        elif pattern[i] == "[" and "]" in pattern[i + 2:]:
            end = pattern.index("]", i + 2)
            body = pattern[i + 1:end]
            regex += "[" + ("^" + body[1:] if body.startswith("!") else body).replace("\\", "\\\\") + "]"
            i = end + 1
        else:
            regex, i = regex + re.escape(pattern[i]), i + 1
    return re.compile(f"{regex}(?:/.*)?\\Z", re.DOTALL)


@cache
def is_role_dir(directory: str) -> bool:
    tasks = os.path.join(directory, "tasks")
    if not (paths.isfile(os.path.join(tasks, "main.yml")) or paths.isfile(os.path.join(tasks, "main.yaml"))):
        return False
    return os.path.basename(os.path.dirname(directory)) == "roles" or any(
        paths.isfile(os.path.join(directory, "meta", name)) for name in ("main.yml", "main.yaml"))


def role_of(path: str) -> str | None:
    """The role directory a file belongs to, if any (nearest first)."""
    directory = os.path.dirname(path)
    for _ in range(4):  # role files sit at most a few levels below the role directory
        parent = os.path.dirname(directory)
        if parent == directory:
            return None
        if is_role_dir(parent) and os.path.basename(directory) in ROLE_SUBDIRS:
            return parent
        directory = parent
    return None


ROLE_SUBDIRS = frozenset({"tasks", "handlers", "meta", "defaults", "vars", "library", "tests", "molecule"})


# Where a file that does not parse is still taken for Ansible content (its YAML error is then
# reported): a role's files, the usual Ansible directories, the usual playbook names.
ANSIBLE_DIRS = frozenset({"roles", "tasks", "handlers", "playbooks", "group_vars", "host_vars", "vars", "defaults",
                          "meta", "inventory", "inventories"})
PLAYBOOK_NAME = re.compile(r"(site|main|playbook[\w.-]*)\.ya?ml")
ANSIBLE_KEY = re.compile(
    r"^[ \t]*(?:-[ \t]+)?(?:hosts|(?:ansible\.builtin\.)?import_playbook|pre_tasks|post_tasks|tasks|handlers|roles|"
    r"(?:ansible\.builtin\.)?(?:import|include)_(?:tasks|role)|block)[ \t]*:", re.MULTILINE)
KUBERNETES_KEYS = (re.compile(r"^apiVersion:", re.MULTILINE), re.compile(r"^kind:", re.MULTILINE))


INI_SECTION = re.compile(r"^\[[^\]\s]+\][ \t]*(?:[#;].*)?$")
YAML_MAPPING_LINE = re.compile(r"^[ \t]*(?:-[ \t]+)?[^\s#=\[][^=]*?:(?:[ \t]|$)")

def ini_inventory_text(text: str) -> bool:
    """Whether text is an INI inventory (``[group]`` headers, ``host key=value`` lines), which
    ansible's ini plugin reads whatever the file's extension: it is no YAML to report."""
    lines = [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith(("#", ";"))]
    return bool(lines) and INI_SECTION.match(lines[0]) is not None and not any(
        YAML_MAPPING_LINE.match(line) for line in lines)


def ansible_text(text: str) -> bool | None:
    """Whether YAML text that may not parse reads like Ansible: a play, task or role keyword
    starts a line, and it is not a Kubernetes manifest (whose Ingress rules have ``- hosts:``).
    None when it is no YAML at all but an INI inventory."""
    if ini_inventory_text(text):
        return None
    if all(key.search(text) for key in KUBERNETES_KEYS):
        return False
    # a playbook or a task file is a list: a mapping with a hosts: key somewhere (a tool's config,
    # a documentation example) is not one
    first = next((line for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")
                  and not line.startswith(("---", "...", "%"))), "")
    return first.lstrip().startswith("-") and ANSIBLE_KEY.search(text) is not None


def syntax_error_matters(path: str, root: str, in_role: bool, reads_like_ansible: bool | None,
                         include: list[str]) -> bool:
    """Whether a YAML syntax error in ``path`` is reported (PLS111). A repository also holds YAML
    that is not Ansible's (Kubernetes manifests with several documents, Helm templates, CI
    workflows, examples in a role's files/), and INI inventories named .yml; errors there are
    none of playbook-ls's business. ``reads_like_ansible`` is :func:`ansible_text`'s answer."""
    if reads_like_ansible is None:
        return False
    parts = os.path.relpath(path, root).replace(os.sep, "/").split("/")[:-1]
    if "roles" in parts and not ROLE_DATA_DIRS.isdisjoint(parts[parts.index("roles"):]):
        return reads_like_ansible
    if in_role or reads_like_ansible or PLAYBOOK_NAME.fullmatch(os.path.basename(path)):
        return True
    # below roles/ but in no role (documentation, examples): ansible loads it only if it is a play
    # or a task list, which reads_like_ansible said it does not read like
    return not (ANSIBLE_DIRS - {"roles"}).isdisjoint(parts) or (bool(include) and matches(path, root, include))


def looks_like_playbook(data: Any) -> bool:
    return isinstance(data, list) and any(
        isinstance(item, dict) and not PLAY_KEYS.isdisjoint(item) for item in data)


def plain_imports(data: Any) -> list[str]:
    """Static targets of ``import_playbook`` entries that carry no tags, when or vars: the
    imported playbook then runs exactly as it does on its own."""
    if not isinstance(data, list):
        return []
    targets = []
    for item in data:
        if not isinstance(item, dict):
            continue
        key = next((k for k in item if k in IMPORT_PLAYBOOK), None)
        if key is not None and set(item) <= {key, "name"} and isinstance(item[key], str) and "{{" not in item[key]:
            targets.append(item[key])
    return targets


def role_playbook_path(role: str) -> str:
    """Where the play that checks a role no playbook uses pretends to live (never written)."""
    return os.path.join(os.path.dirname(role), f"{LONE_ROLE_PLAYBOOK}{os.path.basename(role)}.yml")


def role_playbook_text(role: str) -> str:
    """A play using the role by name: the play sits next to the role, where ansible looks too."""
    import json

    return f"- hosts: all\n  gather_facts: false\n  roles:\n    - role: {json.dumps(os.path.basename(role))}\n"


def standalone_playbooks(playbooks: list[str], imports_of: Callable[[str], list[str]], keep: set[str]) -> list[str]:
    """The playbooks worth resolving on their own. One that another imports plainly (no tags,
    when or vars on the import) runs there exactly as on its own, so it is resolved only
    there, unless it is in ``keep`` (real paths, e.g. those a launch profile names).

    "There" must itself be resolved: a playbook that imports itself, or playbooks that import
    each other, are imported but reachable from no playbook resolved on its own. The first of
    each such group is resolved on its own, which reports the cycle and checks the rest."""
    real = {p: paths.realpath(p) for p in playbooks}
    imported: dict[str, list[str]] = {
        real[p]: [paths.realpath(os.path.join(os.path.dirname(p), target)) for target in imports_of(p)]
        for p in playbooks}
    covered = {target for targets in imported.values() for target in targets}
    chosen = [p for p in playbooks if real[p] not in covered or real[p] in keep]
    reached: set[str] = set()

    def reach(start: str) -> None:
        pending = [start]
        while pending:
            current = pending.pop()
            if current not in reached:
                reached.add(current)
                pending.extend(imported.get(current, ()))

    for playbook in chosen:
        reach(real[playbook])
    for playbook in playbooks:
        if real[playbook] not in reached:
            chosen.append(playbook)
            reach(real[playbook])
    resolved = set(chosen)
    return [p for p in playbooks if p in resolved]
