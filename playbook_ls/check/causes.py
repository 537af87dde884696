"""One finding per cause: what ``check`` says when many findings have one cause outside the code.

A checkout is often linted without what its playbooks are run with: a roles path or a library set
in the control host's ansible.cfg, the directory the repository is deployed to, Galaxy roles
installed by a requirements file. Every use then gives a finding, true in the checkout and of
no use to its maintainers (2,043 missing roles in one infrastructure repository). When more than
:data:`MANY` findings share one such cause, they become one finding, at the first of them, that
names the cause, how many it explains, and the setting that resolves it; the places of the
others are kept as related locations (up to :data:`SHOWN`).

Causes are recognised from what the findings say and what the checkout holds:

- a role not found on the playbooks' roles path that the checkout has (a directory of that name
  below a ``roles/`` directory): the roles path is configured outside the repository;
- a role found neither there nor anywhere in the checkout: roles installed from Galaxy;
- a module not found that a ``library/`` directory of the checkout holds: the library setting;
- modules of collections that are not installed: installing them;
- requirements declared in one requirements file that are not installed (PLS123): installing them;
- an import by an absolute path that the checkout holds below its root: the directory the
  repository is deployed to;
- a template that cannot be resolved because one variable is undefined: the variable, and where
  the checkout sets it, if it does.

A role kept in two places (a copy with the same files) gives its findings once, with the copy's
place as a related location.
"""

from __future__ import annotations

import os
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable

from playbook_ls.rules.base import Finding, Related

MANY = 20  # more findings than this from one cause become one finding
SHOWN = 10  # related places a folded finding lists

_ROLE = re.compile(r"^the role '([^']+)' was not found in ")
_PLAYBOOK = re.compile(r"^could not find the imported playbook '(/[^']+)'")
_MODULE = re.compile(r"^couldn't resolve module/action '([^']+)'")
_DECLARED = re.compile(r"^the (role|collection) '([^']+)' is declared in (.+?), not installed here")
_UNDEFINED = re.compile(r"^cannot (?:resolve|template) .*?: '(\w+)' is undefined")
_VARIABLE_FILE_DIRS = ("group_vars", "host_vars", "vars", "defaults")


class Checkout:
    """What the checked tree holds, asked by the causes: its roles, libraries, variable files."""

    def __init__(self, root: str, roles: Iterable[str], files: list[str], read: Callable[[str], bytes],
                 installed: Callable[[str], bool] = lambda _collection: True) -> None:
        self.root = os.path.abspath(root)
        self.installed = installed  # whether a collection (namespace.name) is installed or in the checkout
        self._roles = roles
        self._roles_dirs: list[str] | None = None
        self.files = files  # sorted
        self._read = read
        self._libraries: list[str] | None = None

    @property
    def roles_dirs(self) -> list[str]:
        """Every ``roles/`` directory of the checkout (and every role's parent): a role is looked
        for by its name below each. Found on first use: most checks have no missing role."""
        if self._roles_dirs is None:
            prefix = self.root + os.sep
            found = {prefix + os.sep.join(parts[:at + 1])
                     for path in self.files if path.startswith(prefix)
                     for parts in [path[len(prefix):].split(os.sep)]
                     for at, part in enumerate(parts[:-1]) if part == "roles"}
            self._roles_dirs = sorted(found) + sorted(set(map(os.path.dirname, self._roles)) - found)
        return self._roles_dirs

    def role(self, name: str) -> list[str]:
        """The directories of the checkout that hold a role named ``name`` (``ipa/client`` too)."""
        if not name or name.startswith(("/", ".")) or "{" in name:
            return []
        return [d for d in self.roles_dirs if os.path.isdir(os.path.join(d, name, "tasks"))
                or os.path.isdir(os.path.join(d, name, "meta"))]

    def module_file(self, name: str) -> str | None:
        """A ``library/`` module of the checkout named ``name``, if any."""
        if self._libraries is None:
            self._libraries = sorted({os.path.join(dirpath, filename)
                                      for dirpath, _dirs, names in os.walk(self.root)
                                      if os.path.basename(dirpath) == "library" and "/." not in dirpath
                                      for filename in names})
        short = name.rpartition(".")[2]
        return next((p for p in self._libraries if os.path.splitext(os.path.basename(p))[0] == short), None)

    def under_root(self, absolute: str) -> str | None:
        """Where the checkout holds a file named by an absolute path from elsewhere: the longest
        tail of the path that exists below the root (``/srv/ansible/playbooks/x.yml`` ->
        ``playbooks/x.yml``), with the prefix it drops."""
        parts = absolute.strip(os.sep).split(os.sep)
        for start in range(1, len(parts)):
            candidate = os.path.join(self.root, *parts[start:])
            if len(parts) - start >= 2 and os.path.isfile(candidate):
                return os.sep + os.path.join(*parts[:start])
        return None

    def sets_variable(self, name: str) -> str | None:
        """A variable file of the checkout (group_vars, host_vars, vars, defaults) that sets ``name``."""
        key = re.compile(rf"^{re.escape(name)}\s*:", re.MULTILINE)
        for path in self.files:
            parts = os.path.relpath(path, self.root).split(os.sep)
            if _VARIABLE_FILE_DIRS and not set(_VARIABLE_FILE_DIRS).isdisjoint(parts[:-1]):
                try:
                    text = self._read(path).decode("utf-8", "replace")
                except OSError:
                    continue
                if key.search(text):
                    return os.path.relpath(path, self.root)
        return None


def cause_of(finding: Finding, checkout: Checkout) -> tuple[str, ...] | None:
    """The cause a finding shares with others, as a key, or None."""
    message = finding.message
    if finding.code == "PLS109":
        if match := _ROLE.match(message):
            name = match.group(1)
            if name.count(".") >= 2 and "/" not in name:
                return None  # a collection's role: PLS123 and the collection's absence say it
            return ("role-path",) if checkout.role(name) else ("role-missing",)
        if (match := _PLAYBOOK.match(message)) and (prefix := checkout.under_root(match.group(1))):
            return ("deployed-at", prefix)
    if finding.code == "PLS113" and (match := _MODULE.match(message)):
        name = match.group(1)
        if name.count(".") >= 2 and not checkout.installed(".".join(name.split(".")[:2])):
            return ("collections-missing",)
        if checkout.module_file(name):
            return ("library-path",)
    if finding.code == "PLS123" and (match := _DECLARED.match(message)):
        return ("requirements", match.group(3))
    if finding.code == "PLS115" and (match := _UNDEFINED.match(message)):
        return ("undefined", match.group(1))
    return None


def fold(findings: list[Finding], checkout: Checkout) -> list[Finding]:
    """``findings`` with each cause that explains more than :data:`MANY` of them made one finding."""
    by_cause: dict[tuple[str, ...], list[Finding]] = defaultdict(list)
    for finding in findings:
        cause = cause_of(finding, checkout)
        if cause is not None:
            by_cause[cause].append(finding)
    folded = {id(f) for group in by_cause.values() if len(group) > MANY for f in group}
    kept = [f for f in findings if id(f) not in folded]
    for cause, group in by_cause.items():
        if len(group) > MANY:
            group.sort(key=Finding.sort_key)
            first = group[0]
            related = [Related(f.span, f.message) for f in group[1:SHOWN + 1] if f.span is not None]
            kept.append(Finding(_message(cause, group, checkout), first.span, related, first.code,
                                first.severity, first.name))
    return kept


def _names(group: list[Finding], pattern: re.Pattern[str]) -> list[str]:
    return list(dict.fromkeys(m.group(1) for f in group if (m := pattern.match(f.message))))


def _some(items: list[str], shown: int = 4) -> str:
    return ", ".join(items[:shown]) + (f" and {len(items) - shown} more" if len(items) > shown else "")


def _message(cause: tuple[str, ...], group: list[Finding], checkout: Checkout) -> str:
    count = f"{len(group)} findings, one cause"
    kind = cause[0]
    if kind == "role-path":
        names = _names(group, _ROLE)
        holding = Counter(os.path.relpath(d, checkout.root) for name in names for d in checkout.role(name))
        parents = [directory for directory, _n in holding.most_common()]
        where = _some(parents, 3)
        return (f"{count}: {len(names)} roles ({_some(names)}) are not on the roles path of the playbooks that name "
                f"them, but the checkout has them in {where}: the roles path these playbooks run with is configured "
                f"outside the repository. Add {where} to roles_path in .playbook-ls.yml or in an ansible.cfg beside "
                "the playbooks")
    if kind == "role-missing":
        names = _names(group, _ROLE)
        return (f"{count}: {len(names)} roles ({_some(names)}) are neither on the roles path of the playbooks that "
                "name them nor anywhere in the checkout: they are installed separately (ansible-galaxy install -r "
                "requirements.yml). Install them, or add the directory they are installed in to roles_path in "
                ".playbook-ls.yml or ansible.cfg")
    if kind == "library-path":
        names = _names(group, _MODULE)
        where = sorted({os.path.relpath(os.path.dirname(path), checkout.root)
                        for name in names if (path := checkout.module_file(name))})
        return (f"{count}: {len(names)} modules ({_some(names)}) are not where these playbooks look for modules, "
                f"but the checkout has them in {_some(where, 3)}: the library path they run with is configured "
                "outside the repository. Add it to library in an ansible.cfg beside the playbooks")
    if kind == "collections-missing":
        names = _names(group, _MODULE)
        collections = list(dict.fromkeys(".".join(name.split(".")[:2]) for name in names))
        return (f"{count}: {len(names)} modules ({_some(names)}) belong to collections that are not installed "
                f"({_some(collections)}): install them (ansible-galaxy collection install -r requirements.yml), "
                "or add the directory they are installed in to collections_path in ansible.cfg")
    if kind == "requirements":
        kinds = sorted({m.group(1) for f in group if (m := _DECLARED.match(f.message))})
        names = list(dict.fromkeys(m.group(2) for f in group if (m := _DECLARED.match(f.message))))
        install = " and ".join(f"`ansible-galaxy {k} install -r {cause[1]}`" for k in kinds)
        return (f"{count}: {len(names)} {' and '.join(k + 's' for k in kinds)} declared in {cause[1]} ({_some(names)}) "
                f"are not installed here. Install them with {install}, where the playbooks look for them")
    if kind == "deployed-at":
        return (f"{count}: imports name files by absolute paths under {cause[1]}, which the checkout holds at its "
                f"root: the repository is written to be deployed at {cause[1]}. Check it there, or import by "
                "paths relative to the playbook ({{ playbook_dir }})")
    variable = cause[1]
    source = checkout.sets_variable(variable)
    if source is None:
        origin = "nothing in the checkout sets it"
    elif "group_vars" in source.split(os.sep) or "host_vars" in source.split(os.sep):
        origin = f"it comes from the inventory ({source}), which ansible does not read for a template resolved " \
                 "while the playbook loads"
    else:
        origin = f"the checkout sets it in {source}, which these playbooks do not load from there (vars_files " \
                 "by another path?)"
    return (f"{count}: '{variable}' is undefined where {len(group)} templates are resolved while the playbooks "
            f"load; {origin}. Define it in the play's vars or vars_files, or pass it with -e")


def without_missing_roles_modules(findings: list[dict[str, object]]) -> list[dict[str, object]]:
    """One playbook's findings without the modules it cannot resolve by a short name when one of
    its roles is missing: the missing role's ``library/`` may hold them (a Galaxy role's modules),
    and the role is the one cause, reported by PLS109."""
    if not any(f["code"] == "PLS109" and _ROLE.match(str(f["message"])) for f in findings):
        return findings
    return [f for f in findings if not (f["code"] == "PLS113" and (m := _MODULE.match(str(f["message"])))
                                        and "." not in m.group(1))]


def same_role_copies(findings: list[Finding], digest: Callable[[str], str | None],
                     role_of: Callable[[str], str | None]) -> list[Finding]:
    """A role kept in two places with the same files: its findings once, at the first place, with
    the copies' places related."""
    first: dict[tuple[object, ...], Finding] = {}
    kept: list[Finding] = []
    for finding in sorted(findings, key=Finding.sort_key):
        span = finding.span
        role = role_of(span.file) if span is not None else None
        if span is None or role is None:
            kept.append(finding)
            continue
        inside = os.path.relpath(span.file, role)
        name = os.path.basename(role)
        # the message names places in the role by a path of its own copy
        message = re.sub(rf"[^\s\"'(]*{re.escape(os.sep + name + os.sep)}", "<role>/", finding.message)
        key = (finding.code, name, inside, digest(span.file), tuple(span)[1:], message)
        original = first.get(key)
        if original is None:
            first[key] = finding
            kept.append(finding)
        else:
            original.related.append(Related(span, "the same finding in a copy of this role"))
    return kept
