"""Ask ansible whether each finding of `playbook-ls check` is true, on public repositories.

Usage: python bench/claims.py REPO_DIR [REPO_DIR ...] [--ansible-playbook CMD] [--playbook-ls CMD]
                              [--json FILE] [--show-false]

Every rule's finding is a claim about what ansible does, and each claim is put to ansible in the
form it can answer (see ``CLAIMS``):

- load claims (PLS109 a role or file is not found, PLS111 the YAML does not load, PLS112 a play
  keyword is invalid, PLS113 a module does not resolve or a task is malformed, PLS115 an import's
  name cannot be templated): ansible-playbook
  ``--syntax-check`` must stop with an error at the finding's lines. A playbook is checked as it
  is; a task, handler or meta file is checked through a wrapper playbook that imports it (through
  its role, with ``import_role``, so the role's ``library/`` and collections count), written in the
  directory ansible would be run from (the nearest ``ansible.cfg`` above it, else the repository's
  root). ansible stops at the first error, so each error is neutralised in a scratch copy of the
  repository (the module key becomes ``ansible.builtin.debug``, a missing role an empty one, the
  removed ``include:`` an import) and the check runs again, until it passes.
  An ``include_role`` / ``include_tasks`` at a finding's line is made an import in the copy first:
  ansible looks the role or file up the same way, at load time instead of when the task runs.
- tag claims (PLS103: ``--tags X`` runs none, or only k of n, of the tasks an include loads):
  ansible-core's own strategy code loads the included file the way a run does
  (``IncludedFile`` / ``load_list_of_blocks`` / ``filter_tagged_tasks``) under ``--tags X``, in a
  child process with the reference ansible, and the count of tasks that run must be the one stated.

- module-argument claims (PLS124 an option the module does not take, PLS125 a required option
  not given, PLS126 a value outside the option's choices): the module's own argument spec,
  taken from the module as it builds it and validated by ansible's ``ModuleArgumentSpecValidator``
  against the task's arguments as ansible's ``ModuleArgsParser`` splits them
  (``claims_module_probe.py``), must refuse them for the stated reason. PowerShell modules are
  not asked.

A claim ansible does not confirm is false. Findings of other rules are listed as not asked.
Prints a table per rule (findings, asked, confirmed, false, precision) and, with --show-false,
every false finding with ansible's answer. The scratch copies live in a temporary directory.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from realworld import ENV, command, configured_inventory, find_playbooks, is_playbook, load_yaml  # noqa: E402

LOAD_RULES = frozenset({"PLS109", "PLS111", "PLS112", "PLS113", "PLS115"})
TAG_RULES = frozenset({"PLS103"})
REQUIREMENT_RULES = frozenset({"PLS123"})
MODULE_RULES = frozenset({"PLS124", "PLS125", "PLS126"})
CLAIMS = {
    "PLS109": "ansible-playbook --syntax-check fails here (role or file not found)",
    "PLS111": "ansible-playbook --syntax-check fails here (YAML)",
    "PLS112": "ansible-playbook --syntax-check fails here (invalid play keyword)",
    "PLS113": "ansible-playbook --syntax-check fails here (module or task)",
    "PLS115": "ansible-playbook --syntax-check fails here (a name it cannot template)",
    "PLS103": "under --tags X, ansible's include loading runs the number of tasks stated",
    "PLS123": "ansible-galaxy role/collection list, run where the requirements file is, does not find it",
    "PLS124": "the module's own argument spec, validated by ansible, refuses the argument (Unsupported parameters)",
    "PLS125": "the module's own argument spec, validated by ansible, misses the option (missing required arguments)",
    "PLS126": "the module's own argument spec, validated by ansible, refuses the value (must be one of)",
}
ROLE_DIRS = frozenset({"tasks", "handlers", "meta"})
ORIGIN = re.compile(r"^Origin: (.+?):(\d+):(\d+)\s*$", re.MULTILINE)
MAX_PEELS = 80
SYNTAX_TIMEOUT = 180


@dataclass
class AnsibleError:
    message: str
    file: str | None  # relative to the scratch copy's root
    line: int


@dataclass
class Verdict:
    finding: dict
    asked: bool
    confirmed: bool = False
    answer: str = ""


@dataclass
class Scratch:
    """A copy of a repository where errors are neutralised; every change is undone after a unit."""

    root: Path
    undo: list[tuple[Path, bytes | None]] = field(default_factory=list)

    def write(self, path: Path, text: str) -> None:
        missing = [d for d in [path.parent, *path.parent.parents] if not d.exists()]
        self.undo.append((path, path.read_bytes() if path.exists() else None))
        self.undo += [(d, None) for d in reversed(missing)]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")

    def edit_line(self, path: Path, line: int, change) -> bool:
        try:
            lines = path.read_text(encoding="utf-8").split("\n")
        except (OSError, UnicodeDecodeError):
            return False
        if not 0 < line <= len(lines):
            return False
        changed = change(lines, line - 1)
        if changed:
            self.write(path, "\n".join(lines))
        return changed

    def restore(self) -> None:
        for path, data in reversed(self.undo):
            if data is None and path.is_dir():
                shutil.rmtree(path, ignore_errors=True)
            elif data is None:
                path.unlink(missing_ok=True)
            else:
                path.write_bytes(data)
        self.undo.clear()


def copy_repository(repo: Path, into: Path) -> Path:
    target = into / repo.name
    shutil.copytree(repo, target, symlinks=True, ignore=shutil.ignore_patterns(".git"))
    return target


# ---------------------------------------------------------------- findings


def check_findings(repo: Path, playbook_ls: list[str], env: dict[str, str]) -> list[dict]:
    out = subprocess.run([*playbook_ls, "check", "--no-cache", "--format", "json", "."], cwd=repo, env=env,
                         capture_output=True, text=True, timeout=1800)
    try:
        return json.loads(out.stdout)["findings"]
    except (json.JSONDecodeError, KeyError):
        raise SystemExit(f"{repo}: playbook-ls check gave no JSON: {out.stderr[-2000:]}") from None


# ---------------------------------------------------------------- load claims


def first_error(stderr: str, root: Path) -> AnsibleError | None:
    at = stderr.find("[ERROR]: ")
    if at < 0:
        return None
    text = stderr[at + len("[ERROR]: "):]
    origin = ORIGIN.search(text)
    message = text[:origin.start()].strip() if origin else text.strip().split("\n\n")[0]
    if not origin:
        return AnsibleError(message, None, 0)
    path = Path(origin.group(1))
    try:
        relative = str(path.resolve().relative_to(root.resolve()))
    except ValueError:
        relative = None
    return AnsibleError(message, relative, int(origin.group(2)))


def _replace_key(pattern: str, replacement: str):
    key = re.compile(pattern)

    def change(lines: list[str], index: int) -> bool:
        for i in range(index, min(index + 40, len(lines))):
            if key.search(lines[i]):
                lines[i] = key.sub(replacement, lines[i], count=1)
                return True
        return False
    return change


def _line(path: Path, number: int) -> str:
    try:
        lines = path.read_text(encoding="utf-8").split("\n")
    except (OSError, UnicodeDecodeError):
        return ""
    return lines[number - 1] if 0 < number <= len(lines) else ""


def neutralise(error: AnsibleError, scratch: Scratch) -> bool:
    """Change the copy so that ansible gets past ``error``; False when it cannot be done."""
    path = scratch.root / error.file if error.file else None
    module = re.search(r"couldn't resolve module/action '([^']+)'", error.message)
    if module and path:
        name = re.escape(module.group(1))
        debug = _replace_key(rf"(?<![\w.]){name}(\s*):", r"ansible.builtin.debug\1:")
        return scratch.edit_line(path, error.line, debug)
    if "action plugin has been removed" in error.message and path:
        # an import takes every keyword the old include did (become, tags, when); at the top of a
        # playbook the old include was a playbook's
        play_level = re.match(r"- +(?:ansible\.builtin\.)?include\s*:", _line(path, error.line))
        replacement = "ansible.builtin.import_playbook" if play_level else "ansible.builtin.import_tasks"
        return scratch.edit_line(path, error.line, _replace_key(
            r"(?<![\w.])(?:ansible\.builtin\.)?include(\s*):", replacement + r"\1:"))
    missing = re.search(r"Could not find or access '([^']+)'", error.message)
    if missing and Path(missing.group(1)).is_absolute():
        target = Path(missing.group(1))
        if scratch.root.resolve() in target.parent.resolve().parents and not target.exists():
            scratch.write(target, "[]\n")
            return True
        return False
    attribute = re.search(r"'(\w+)' is not a valid attribute for a (?:TaskInclude|Task|Handler|Block)", error.message)
    if attribute and path:  # the keyword's value (a mapping, mostly) goes where any mapping may be
        return scratch.edit_line(path, error.line, _replace_key(rf"(?<![\w.]){attribute.group(1)}(\s*):", r"vars\1:"))
    role = ROLE_NOT_FOUND.search(error.message)
    if role:
        for entry in role.group(2).split(":"):
            candidate = Path(entry)
            root = scratch.root.resolve()
            if candidate.is_dir() and (candidate.resolve() == root or root in candidate.resolve().parents):
                main = candidate / role.group(1) / "tasks" / "main.yml"
                if main.exists():
                    return False
                scratch.write(main, "[]\n")
                return True
    return False


def imports_instead_of_includes(scratch: Scratch, relative: str, lines: list[int]) -> None:
    """An include at a finding's line becomes the import that looks its role or file up at load time."""
    pattern = r"(?<![\w.])((?:ansible\.builtin\.)?)include_(role|tasks)(\s*):"
    for line in lines:
        scratch.edit_line(scratch.root / relative, line, _replace_key(pattern, r"\1import_\2\3:"))
        scratch.edit_line(scratch.root / relative, line, _drop_key("loop"))


def _drop_key(name: str):
    def change(lines: list[str], index: int) -> bool:
        indent = None
        for i in range(index, min(index + 40, len(lines))):
            stripped = lines[i].lstrip(" -")
            if i > index and lines[i].lstrip().startswith("- "):
                return False
            if stripped.startswith(f"{name}:") and (indent is None or len(lines[i]) - len(lines[i].lstrip()) >= indent):
                lines[i] = lines[i].replace(f"{name}:", f"#{name}:", 1)
                return True
            indent = indent if indent is not None else len(lines[i]) - len(lines[i].lstrip())
        return False
    return change


def run_directory(path: Path, root: Path) -> Path:
    directory = path.parent
    while True:
        if (directory / "ansible.cfg").is_file() or directory == root or directory == directory.parent:
            return directory
        directory = directory.parent


def role_of(path: Path, root: Path) -> Path | None:
    directory = path.parent
    while directory != root and directory != directory.parent:
        if directory.name in ROLE_DIRS and (directory.parent / "tasks").is_dir():
            return directory.parent
        directory = directory.parent
    return None


def wrapper_text(path: Path) -> str | None:
    role = role_of(path, Path("/"))
    if role is None:
        return ("- hosts: localhost\n  gather_facts: false\n  tasks:\n"
                f"    - ansible.builtin.import_tasks: {json.dumps(str(path))}\n")
    kind = path.relative_to(role).parts[0]
    inner = str(path.relative_to(role / kind))
    if kind == "meta":
        return f"- hosts: localhost\n  gather_facts: false\n  roles:\n    - role: {json.dumps(str(role))}\n"
    key = "tasks_from" if kind == "tasks" else "handlers_from"
    return ("- hosts: localhost\n  gather_facts: false\n  tasks:\n    - ansible.builtin.import_role:\n"
            f"        name: {json.dumps(str(role))}\n        {key}: {json.dumps(inner)}\n")


def syntax_errors(scratch: Scratch, playbook: Path, ansible: list[str], env: dict[str, str]) -> list[AnsibleError]:
    directory = run_directory(playbook, scratch.root)
    inventory = [] if configured_inventory(directory) else ["-i", "localhost,"]
    errors = []
    for _ in range(MAX_PEELS):
        try:
            out = subprocess.run([*ansible, "--syntax-check", *inventory, str(playbook)], cwd=directory, env=env,
                                 capture_output=True, text=True, timeout=SYNTAX_TIMEOUT)
        except subprocess.TimeoutExpired:
            break
        if out.returncode == 0:
            break
        error = first_error(out.stderr, scratch.root)
        if error is None:
            break
        errors.append(error)
        if not neutralise(error, scratch):
            break
    return errors


ROLE_NOT_FOUND = re.compile(r"the role '([^']+)' was not found in (\S+)")


def _same_role_search(finding: dict, error: AnsibleError, repo_name: str) -> bool:
    """Both say the same role is not found in the same search path (in the repository and in its
    copy): once ansible met it, the empty stand-in the copy gets hides its other uses."""
    ours, theirs = ROLE_NOT_FOUND.search(finding["message"]), ROLE_NOT_FOUND.search(error.message)
    if not ours or not theirs or ours.group(1) != theirs.group(1):
        return False
    if ours.group(1).count(".") >= 2 and "/" not in ours.group(1):
        return True  # a collection's role: looked up by the collection, wherever the play is
    inside = re.compile(rf"^.*?/{re.escape(repo_name)}(?=/|$)")

    def directories(found: str) -> list[str]:  # the collections searched first are named only where they apply
        return [inside.sub("", p) for p in found.rstrip(".").split(":") if "/" in p]
    return directories(ours.group(2)) == directories(theirs.group(2))


def _same_place(finding: dict, relative: str, error: AnsibleError, repo_name: str = "") -> bool:
    """The error is at the finding's lines; or, when ansible gives no position (a file it
    cannot read), it names the file the finding names; or it is the same role missing from
    the same search path."""
    if repo_name and _same_role_search(finding, error, repo_name):
        return True
    if error.file is not None:
        end = max(finding.get("end_line") or finding["line"], finding["line"])
        if error.file == relative and finding["line"] <= error.line <= end:
            return True
        # ansible places some errors at the task, the finding at the value it names (a role's name)
        names = re.findall(r"'([^']+)'", finding["message"])[:1]
        return error.file == relative and abs(error.line - finding["line"]) <= 3 and bool(names) and \
            f"'{names[0]}'" in error.message
    named = [re.sub(r"^(?:\.\.?/)+", "", name) for name in re.findall(r"'([^']{4,})'", finding["message"])]
    return any(f"/{name}'" in error.message or f"'{name}'" in error.message for name in named)


def load_verdicts(repo: Path, scratch: Scratch, findings: list[dict], ansible: list[str],
                  env: dict[str, str]) -> list[Verdict]:
    by_file: dict[str, list[dict]] = defaultdict(list)
    for finding in findings:
        by_file[finding["path"]].append(finding)
    verdicts = []
    for relative, found in sorted(by_file.items()):
        path = scratch.root / relative
        include_lines = [f["line"] for f in found if f["code"] == "PLS109"]
        imports_instead_of_includes(scratch, relative, include_lines)
        if is_playbook(load_yaml(path)) or any(f["code"] in {"PLS111", "PLS112"} for f in found):
            target = path
        else:
            text = wrapper_text(path)
            target = run_directory(path, scratch.root) / ".claims-wrapper.yml"
            scratch.write(target, text)
        errors = syntax_errors(scratch, target, ansible, env)
        scratch.restore()
        for finding in found:
            match = next((e for e in errors if _same_place(finding, relative, e, repo.name)), None)
            answer = match.message.split("\n")[0] if match else (
                "; ".join(e.message.split("\n")[0] for e in errors)[:300] or "syntax check passes")
            verdicts.append(Verdict(finding, True, match is not None, answer))
    return verdicts


# ---------------------------------------------------------------- tag claims

TAG_CLAIM = re.compile(r"--tags (\S+) runs (none|only (\d+) of its (\d+) tasks)")
TAG_PROBE = Path(__file__).resolve().parent / "claims_tag_probe.py"


def probe_tags(playbook: Path, directory: Path, targets: list[dict], answers: dict[int, list], python: str,
               env: dict[str, str]) -> None:
    request = {"targets": targets, "playbook": str(playbook),
               "inventory": None if configured_inventory(directory) else "localhost,"}
    try:
        out = subprocess.run([python, str(TAG_PROBE)], input=json.dumps(request), cwd=directory, env=env,
                             capture_output=True, text=True, timeout=600)
        for index, found in json.loads(out.stdout.strip().splitlines()[-1]).items():
            answers[int(index)] += found
    except (subprocess.TimeoutExpired, json.JSONDecodeError, IndexError):
        pass


def probe_everywhere(repo: Path, targets: list[dict], python: str, env: dict[str, str]) -> dict[int, list]:
    """Each target asked of every playbook of the repository; a role no playbook meets is asked
    through a play that applies it, as check analyses it."""
    answers: dict[int, list] = defaultdict(list)
    for playbook in find_playbooks(repo):
        probe_tags(playbook, run_directory(playbook, repo), targets, answers, python, env)
    unmet_roles = {role_of(Path(t["file"]), repo) for i, t in enumerate(targets) if i not in answers}
    for role in sorted(r for r in unmet_roles if r is not None):
        wrapper = role.parent / f".claims-role-{role.name}.yml"
        play = f"- hosts: localhost\n  gather_facts: false\n  roles:\n    - role: {json.dumps(str(role))}\n"
        wrapper.write_text(play)
        probe_tags(wrapper, run_directory(wrapper, repo), targets, answers, python, env)
        wrapper.unlink()
    return answers


def tag_verdicts(repo: Path, findings: list[dict], python: str, env: dict[str, str]) -> list[Verdict]:
    """Each claim is put to every playbook of the repository (a role's own when it has no other)."""
    targets = []
    for finding in findings:
        claim = TAG_CLAIM.search(finding["message"])
        if claim:
            targets.append({"file": str(repo / finding["path"]), "line": finding["line"], "tag": claim.group(1)})
    answers = probe_everywhere(repo, targets, python, env)
    verdicts, index = [], 0
    for finding in findings:
        claim = TAG_CLAIM.search(finding["message"])
        if not claim:
            verdicts.append(Verdict(finding, False, answer="no count stated"))
            continue
        runs, index = answers.get(index, []), index + 1
        if not runs:
            verdicts.append(Verdict(finding, False, answer="ansible meets this include in no playbook statically"))
            continue
        stated = 0 if claim.group(2) == "none" else int(claim.group(3))
        # "none": no task runs; "only k of n": k run and not all of them (a nested include counts once)
        confirmed = all(selected == stated if stated == 0 else 0 < selected < total for selected, total in runs)
        verdicts.append(Verdict(finding, True, confirmed, ", ".join(f"{s} of {t}" for s, t in runs)))
    return verdicts


# ---------------------------------------------------------------- requirement claims

REQUIREMENT = re.compile(r"the (role|collection) '([^']+)' is declared in (\S+), not installed here")


_MODULE_CLAIM = {
    "PLS124": re.compile(r"^'(?P<name>[^']+)' is not an option of (?P<module>[\w.]+)"),
    "PLS125": re.compile(r"^(?P<module>[\w.]+) requires '(?P<name>[^']+)'"),
    "PLS126": re.compile(r"is not a choice of '(?P<name>[^']+)' of (?P<module>[\w.]+),"),
}


def module_verdicts(repo: Path, findings: list[dict], python: str, env: dict[str, str]) -> list[Verdict]:
    """PLS124-PLS126: the module's argument spec, taken from the module and validated by ansible
    (``claims_module_probe.py``, run by the reference ansible's Python), refuses the task's
    arguments for the reason stated."""
    targets, asked = [], []
    for finding in findings:
        match = _MODULE_CLAIM[finding["code"]].search(finding["message"])
        if match:
            targets.append({"file": str(repo / finding["path"]), "line": finding["line"], "code": finding["code"],
                            **match.groupdict()})
            asked.append(finding)
    verdicts = [Verdict(f, False, answer="message not understood") for f in findings if f not in asked]
    if not targets:
        return verdicts
    probe = Path(__file__).resolve().parent / "claims_module_probe.py"
    out = subprocess.run([python, str(probe)], input=json.dumps({"targets": targets}), cwd=repo, env=env,
                         capture_output=True, text=True, timeout=1800)
    try:
        answers = json.loads(out.stdout.strip().splitlines()[-1])
    except (json.JSONDecodeError, IndexError):
        return verdicts + [Verdict(f, False, answer=f"probe failed: {out.stderr[-300:]}") for f in asked]
    for index, finding in enumerate(asked):
        was_asked, confirmed, text = answers.get(str(index), [False, False, "no answer"])
        verdicts.append(Verdict(finding, bool(was_asked), bool(confirmed), str(text)))
    return verdicts


def requirement_verdicts(repo: Path, findings: list[dict], galaxy: list[str], env: dict[str, str]) -> list[Verdict]:
    """``ansible-galaxy role list NAME`` / ``collection list NAME`` from where ansible would run
    (the nearest ansible.cfg above the requirements file) must not find what is declared."""
    verdicts = []
    for finding in findings:
        claim = REQUIREMENT.search(finding["message"])
        if not claim:
            verdicts.append(Verdict(finding, False, answer="no requirement named"))
            continue
        kind, name = claim.group(1), claim.group(2)
        directory = run_directory(repo / finding["path"], repo)
        out = subprocess.run([*galaxy, kind, "list", name], cwd=directory, env=env, capture_output=True, text=True,
                             timeout=SYNTAX_TIMEOUT)
        text = out.stdout + out.stderr
        installed = (f"- {name}," in text or f"- {name} " in text) if kind == "role" else \
            re.search(rf"^{re.escape(name)}\s+\S+", out.stdout, re.MULTILINE) is not None
        verdicts.append(Verdict(finding, True, not installed, " ".join(text.split())[:200] or "nothing listed"))
    return verdicts


# ---------------------------------------------------------------- fixes

HUNK = re.compile(r"^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@")


def line_shifts(diff: str) -> dict[str, list[tuple[int, int]]]:
    """Per file, (old line, new line) of every line a unified diff keeps, in order: anchors that
    say where any unchanged line went."""
    anchors: dict[str, list[tuple[int, int]]] = defaultdict(list)
    current, old, new = "", 0, 0
    for line in diff.splitlines():
        if line.startswith("--- a/"):
            current = line[len("--- a/"):]
        elif line.startswith("+++ "):
            continue
        elif hunk := HUNK.match(line):
            old, new = int(hunk.group(1)), int(hunk.group(2))
        elif line.startswith("+"):
            new += 1
        elif line.startswith("-"):
            old += 1
        elif line.startswith(" ") or line == "":
            anchors[current].append((old, new))
            old, new = old + 1, new + 1
    return anchors


def moved(line: int, anchors: list[tuple[int, int]]) -> int:
    """Where an unchanged line went: after the last kept line at or before it, as far below."""
    before = [(old, new) for old, new in anchors if old <= line]
    if not before:
        return line
    old, new = before[-1]
    return new + (line - old)


def listings(root: Path, ansible: list[str], env: dict[str, str], tags: list[str]) -> dict[tuple[str, str], str]:
    """ansible-playbook --list-tasks of every playbook, with no selection and with each tag."""
    found = {}
    for playbook in find_playbooks(root):
        directory = run_directory(playbook, root)
        inventory = [] if configured_inventory(directory) else ["-i", "localhost,"]
        for tag in ["", *tags]:
            selection = ["--tags", tag] if tag else []
            out = subprocess.run([*ansible, "--list-tasks", *inventory, *selection, str(playbook)], cwd=directory,
                                 env=env, capture_output=True, text=True, timeout=SYNTAX_TIMEOUT)
            found[(str(playbook.relative_to(root)), tag)] = f"{out.returncode}\n{out.stdout}"
    return found


def verify_fixes(root: Path, confirmed: list[dict], ansible: list[str], playbook_ls: list[str], python: str,
                 env: dict[str, str]) -> dict[str, int]:
    """Apply ``check --fix`` to the copy and ask ansible what changed: every playbook must list the
    same tasks (with no selection and under each tag the fixes name) before and after, and under
    --tags X the includes PLS103 fixed must now run every task they load (the stated change)."""
    tags = sorted({TAG_CLAIM.search(f["message"]).group(1) for f in confirmed})[:4]
    before = listings(root, ansible, env, tags)
    diff = subprocess.run([*playbook_ls, "check", "--no-cache", "--diff", "."], cwd=root, env=env,
                          capture_output=True, text=True, timeout=1800).stdout
    subprocess.run([*playbook_ls, "check", "--no-cache", "--fix", "."], cwd=root, env=env, capture_output=True,
                   text=True, timeout=1800)
    after = listings(root, ansible, env, tags)
    shifts = line_shifts(diff)
    targets = [{"file": str(root / f["path"]), "line": moved(f["line"], shifts.get(f["path"], [])),
                "tag": TAG_CLAIM.search(f["message"]).group(1)} for f in confirmed if f["path"] in shifts]
    answers = probe_everywhere(root, targets, python, env)
    now_all = sum(1 for i in range(len(targets)) if answers.get(i) and all(s == t for s, t in answers[i]))
    return {"files fixed": len(shifts), "fixed includes": len(targets), "asked after": len(answers),
            "now run all they load": now_all, "listings": len(before),
            "listings changed": sum(before[key] != after.get(key) for key in before)}


# ---------------------------------------------------------------- report


def table(verdicts: list[Verdict]) -> str:
    rows = Counter()
    for v in verdicts:
        code = v.finding["code"]
        rows[(code, "findings")] += 1
        rows[(code, "asked")] += v.asked
        rows[(code, "confirmed")] += v.asked and v.confirmed
        rows[(code, "false")] += v.asked and not v.confirmed
    lines = ["| rule | findings | asked | confirmed | false | precision | how ansible is asked |", "|---" * 7 + "|"]
    codes = sorted({c for c, _ in rows})
    for code in [*codes, "all"]:
        get = (lambda k, c=code: rows[(c, k)]) if code != "all" else (lambda k: sum(rows[(c, k)] for c in codes))
        asked = get("asked")
        precision = f"{100 * get('confirmed') / asked:.1f}%" if asked else "-"
        lines.append(f"| {code} | {get('findings')} | {asked} | {get('confirmed')} | {get('false')} | {precision} | "
                     f"{CLAIMS.get(code, 'not asked') if code != 'all' else ''} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("repos", nargs="+", type=Path)
    parser.add_argument("--ansible-playbook", help="the reference ansible-playbook (default: beside this Python, "
                        "then on PATH)")
    parser.add_argument("--playbook-ls", help="how to start playbook-ls (default: beside this Python)")
    parser.add_argument("--json", type=Path, help="write every verdict here")
    parser.add_argument("--show-false", action="store_true")
    parser.add_argument("--no-tags", action="store_true", help="skip the tag claims (the slowest)")
    parser.add_argument("--fixes", action="store_true", help="also apply check --fix to a copy and ask ansible "
                        "whether anything but the stated change changed")
    args = parser.parse_args(argv)
    ansible = command(args.ansible_playbook, "ansible-playbook")
    playbook_ls = command(args.playbook_ls, "playbook-ls") or [sys.executable, "-m", "playbook_ls"]
    if ansible is None:
        parser.error("no ansible-playbook found")
    python = str(Path(ansible[-1]).parent / "python")
    env = {**os.environ, **ENV, "PATH": f"{Path(ansible[-1]).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    verdicts: list[Verdict] = []
    per_repo = []
    with tempfile.TemporaryDirectory(prefix="claims-") as scratch_dir:
        for repo in args.repos:
            repo = repo.resolve()
            findings = check_findings(repo, playbook_ls, env)
            scratch = Scratch(copy_repository(repo, Path(scratch_dir)))
            found = load_verdicts(repo, scratch, [f for f in findings if f["code"] in LOAD_RULES], ansible, env)
            tagged = [f for f in findings if f["code"] in TAG_RULES]
            if tagged and not args.no_tags:
                found += tag_verdicts(scratch.root, tagged, python, env)
            else:
                found += [Verdict(f, False, answer="tag claims skipped") for f in tagged]
            galaxy = [str(Path(ansible[-1]).parent / "ansible-galaxy")]
            found += requirement_verdicts(repo, [f for f in findings if f["code"] in REQUIREMENT_RULES], galaxy, env)
            found += module_verdicts(repo, [f for f in findings if f["code"] in MODULE_RULES], python, env)
            found += [Verdict(f, False, answer="not asked") for f in findings
                      if f["code"] not in LOAD_RULES | TAG_RULES | REQUIREMENT_RULES | MODULE_RULES]
            if args.fixes:
                confirmed = [v.finding for v in found if v.confirmed and v.finding["code"] == "PLS103"]
                report = verify_fixes(scratch.root, confirmed, ansible, playbook_ls, python, env)
                print(f"{repo.name}: fixes: {report}", flush=True)
            shutil.rmtree(scratch.root, ignore_errors=True)
            for v in found:
                v.finding["repo"] = repo.name
            asked = [v for v in found if v.asked]
            per_repo.append((repo.name, len(found), len(asked), sum(v.confirmed for v in asked)))
            print(f"{repo.name}: {len(found)} findings, {len(asked)} asked, "
                  f"{sum(v.confirmed for v in asked)} confirmed", flush=True)
            if args.show_false:  # as it goes: a long run stopped half-way still tells
                for v in asked:
                    if not v.confirmed:
                        print(f"  false: {v.finding['path']}:{v.finding['line']} {v.finding['code']} "
                              f"{v.finding['message'][:160]}\n    ansible: {v.answer[:300]}", flush=True)
            verdicts += found
    print()
    print(table(verdicts))
    if args.show_false:
        print("\nfalse findings:")
        for v in verdicts:
            if v.asked and not v.confirmed:
                f = v.finding
                print(f"- {f['repo']}/{f['path']}:{f['line']} {f['code']} {f['message'][:160]}")
                print(f"    ansible: {v.answer}")
    if args.json:
        args.json.write_text(json.dumps([{**v.finding, "asked": v.asked, "confirmed": v.confirmed,
                                          "ansible": v.answer} for v in verdicts], indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
