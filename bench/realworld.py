"""Compare `playbook-ls list-tasks/list-tags` with `ansible-playbook --list-tasks/--list-tags` on real repositories.

Usage: python bench/realworld.py REPO_DIR [REPO_DIR ...] [--ansible-playbook CMD] [--playbook-ls CMD]
                                 [--jobs 2] [--timeout 120] [--tags-per-repo 2] [--cache DIR] [--json FILE]

Finds the playbooks of each repository (see `find_playbooks`), runs both tools on each in every mode from the
directory ansible would be run in (see `run_directory`) and prints, per repository, how many playbooks ansible
lists and how many of those both tools list identically (stdout and exit code) in every mode; then the distinct
causes of difference, grouped by the normalised first error line of each tool, with the playbooks they affect;
then the timings of both tools. ansible's results are cached on disk (keyed by the ansible version, the
repository's revision, the playbook and the mode), so a rerun only runs playbook-ls. bench/README.md says more.
"""

from __future__ import annotations

import argparse
import configparser
import hashlib
import json
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

import yaml
from list_tasks import play_tags_sorted

ROOT = Path(__file__).resolve().parent.parent
ENV = {
    "ANSIBLE_NOCOLOR": "1",
    "ANSIBLE_FORCE_COLOR": "0",
    "ANSIBLE_LOCALHOST_WARNING": "False",
    "ANSIBLE_INVENTORY_UNPARSED_WARNING": "False",
    "LANG": "C.UTF-8",
    "LC_ALL": "C.UTF-8",
}
# Directories whose YAML is not a playbook to run from there: roles and collections (their own test playbooks
# need the role installed), molecule scenarios, CI files, variable files and what roles ship to hosts.
SKIPPED_DIRS = frozenset({
    ".git", ".github", ".gitlab", ".tox", ".venv", "venv", "node_modules", "__pycache__",
    "roles", "collections", "ansible_collections", "molecule",
    "vars", "defaults", "group_vars", "host_vars", "templates", "files",
})
PLAY_KEYS = frozenset({"hosts", "import_playbook", "ansible.builtin.import_playbook", "ansible.legacy.import_playbook"})
SPECIAL_TAGS = frozenset({"always", "never", "all", "tagged", "untagged"})
MAX_YAML_BYTES = 2_000_000
TRACEBACK = "Traceback (most recent call last)"


# ---------------------------------------------------------------- discovery


class _TolerantLoader(yaml.SafeLoader):
    """Safe loading that takes any local tag (`!vault`, `!unsafe`) as its plain value instead of failing."""


def _untagged(loader: yaml.SafeLoader, _suffix: str, node: yaml.Node) -> object:
    if isinstance(node, yaml.MappingNode):
        return loader.construct_mapping(node)
    if isinstance(node, yaml.SequenceNode):
        return loader.construct_sequence(node)
    return loader.construct_scalar(node)


_TolerantLoader.add_multi_constructor("!", _untagged)


def load_yaml(path: Path) -> object:
    """The file's first document, or None when it is not readable YAML (harness input is anything)."""
    try:
        if path.stat().st_size > MAX_YAML_BYTES:
            return None
        return yaml.load(path.read_text(encoding="utf-8"), Loader=_TolerantLoader)  # noqa: S506 (safe loader)
    except (OSError, UnicodeDecodeError, yaml.YAMLError, ValueError, TypeError, RecursionError):
        return None


def is_playbook(data: object) -> bool:
    """A non-empty list of mappings, each a play (`hosts`) or a playbook import."""
    return (
        isinstance(data, list)
        and bool(data)
        and all(isinstance(item, dict) and any(key in item for key in PLAY_KEYS) for item in data)
    )


def yaml_files(repo: Path, skipped: frozenset[str] = frozenset()) -> Iterator[Path]:
    for directory, dirs, files in os.walk(repo):  # never follows directory symlinks: no loops
        dirs[:] = sorted(d for d in dirs if d not in skipped)
        for name in sorted(files):
            if name.endswith((".yml", ".yaml")):
                yield Path(directory, name)


def find_playbooks(repo: Path) -> list[Path]:
    """The repository's playbooks, outside the directories in SKIPPED_DIRS, decided by content."""
    found = []
    for path in yaml_files(repo, SKIPPED_DIRS):
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        if ("hosts" in text or "import_playbook" in text) and is_playbook(load_yaml(path)):
            found.append(path)
    return found


def _tags_in(node: object) -> Iterator[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "tags":
                values = value if isinstance(value, list) else str(value).split(",") if value is not None else []
                for tag in values:
                    if isinstance(tag, str | int) and "{" not in str(tag) and str(tag).strip():
                        yield str(tag).strip()
            else:
                yield from _tags_in(value)
    elif isinstance(node, list):
        for item in node:
            yield from _tags_in(item)


def most_used_tags(repo: Path, count: int) -> list[str]:
    """The `count` tags written most often in the repository's YAML (roles included), special tags aside."""
    counter: Counter[str] = Counter()
    for path in yaml_files(repo, frozenset({".git", ".github", "node_modules"})):
        try:
            if "tags" not in path.read_text(encoding="utf-8", errors="replace"):
                continue
        except OSError:
            continue
        counter.update(tag for tag in _tags_in(load_yaml(path)) if tag not in SPECIAL_TAGS)
    return [tag for tag, _ in sorted(counter.items(), key=lambda item: (-item[1], item[0]))[:count]]


def run_directory(playbook: Path, repo: Path) -> Path:
    """Where ansible would be run: the nearest directory from the playbook's up to the repository's root that
    holds an ansible.cfg (ansible reads only the one in the current directory), else the playbook's own."""
    directory = playbook.parent
    while True:
        if (directory / "ansible.cfg").is_file():
            return directory
        if directory == repo or directory == directory.parent:
            return playbook.parent
        directory = directory.parent


def configured_inventory(directory: Path) -> bool:
    """Whether the ansible.cfg in `directory` names an inventory that exists (then it is used instead of -i)."""
    parser = configparser.ConfigParser(interpolation=None, strict=False, inline_comment_prefixes=(";", "#"))
    try:
        parser.read(directory / "ansible.cfg", encoding="utf-8")
        value = parser.get("defaults", "inventory", fallback=None) or parser.get("defaults", "hostfile", fallback=None)
    except (configparser.Error, UnicodeDecodeError, OSError):
        return False
    entries = [os.path.expanduser(entry.strip()) for entry in (value or "").split(",") if entry.strip()]
    return bool(entries) and all((directory / entry).exists() for entry in entries)


def revision(repo: Path) -> str:
    """The commit checked out, else a fingerprint of the files (a checkout made with `git archive`)."""
    if (repo / ".git").exists():
        try:
            out = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True,
                                 timeout=30, check=True)
            return out.stdout.strip()
        except (OSError, subprocess.SubprocessError):
            pass
    digest = hashlib.sha256()
    for directory, dirs, files in os.walk(repo):
        dirs.sort()
        for name in sorted(files):
            try:
                st = os.lstat(os.path.join(directory, name))
            except OSError:
                continue
            digest.update(f"{os.path.relpath(os.path.join(directory, name), repo)}\0{st.st_size}\0{st.st_mtime_ns}\n"
                          .encode())
    return "files-" + digest.hexdigest()[:16]


# ---------------------------------------------------------------- modes and comparison


@dataclass(frozen=True)
class Mode:
    listing: str  # "tasks" or "tags"
    selection: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        return " ".join([self.listing, *self.selection])

    @property
    def kind(self) -> str:
        """The mode with the tag names left out, to group differences."""
        if not self.selection:
            return f"{self.listing} (plain)"
        option, value = self.selection
        return f"{self.listing} {option} {'never,TAG' if value.startswith('never,') else 'TAG'}"


PLAIN_MODES = (Mode("tasks"), Mode("tags"))


def selection_modes(tags: list[str]) -> list[Mode]:
    """`--tags X` for each tag, then `--skip-tags X` and `--tags never,X` for the most used one."""
    modes = [Mode("tasks", ("--tags", tag)) for tag in tags]
    if tags:
        modes += [Mode("tasks", ("--skip-tags", tags[0])), Mode("tasks", ("--tags", f"never,{tags[0]}"))]
    return modes


@dataclass
class Outcome:
    rc: int
    stdout: str
    stderr: str
    wall: float

    def same_as(self, other: Outcome) -> bool:
        return self.rc == other.rc and play_tags_sorted(self.stdout) == play_tags_sorted(other.stdout)


_QUOTED = re.compile(r"(?<!\w)'[^']*'|\"[^\"]*\"|`[^`]*`")
_PATH = re.compile(r"(?<![\w.])(?:/|\./|\.\./)[^\s:,;)]*")
_NUMBER = re.compile(r"\d+")
_FILE = re.compile(r"[\w./-]+\.ya?ml\b")
_UNDEFINED = re.compile(r"'(\w+)' is undefined")


def first_error_line(stderr: str) -> str:
    """The line that says why a run failed: the first error line, else the last line (a traceback's exception),
    else the first line that is not a warning."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    for line in lines:
        if line.startswith(("[ERROR]", "ERROR!", "error:", "playbook-ls: error")) or ": error:" in line:
            return line
    if any(TRACEBACK in line for line in lines):
        return lines[-1]
    rest = [line for line in lines if not line.startswith(("[WARNING]", "[DEPRECATION WARNING]", "WARNING"))]
    return rest[0] if rest else ""


def normalise(line: str) -> str:
    """The line with what varies between playbooks (quoted names, paths, numbers) replaced, to group by cause."""
    undefined = _UNDEFINED.findall(line)  # which variable is missing tells causes apart: keep its name
    line = _QUOTED.sub("'…'", _FILE.sub("FILE", line))
    for name in undefined:
        line = line.replace("'…' is undefined", f"{name!r} is undefined", 1)
    line = re.sub(r"PATH(?::PATH)+", "PATH", _PATH.sub("PATH", line))  # a search path is one path
    return _NUMBER.sub("N", line)[:160]


def first_difference(expected: str, actual: str) -> str:
    """The first differing line of two listings, as `ansible | playbook-ls`."""
    exp, act = expected.splitlines(), actual.splitlines()
    for index in range(max(len(exp), len(act))):
        a = exp[index].strip() if index < len(exp) else "<end>"
        b = act[index].strip() if index < len(act) else "<end>"
        if a != b:
            return f"{a[:100]} | {b[:100]}"
    return ""


@dataclass
class Verdict:
    status: str  # identical, differs, both-refuse, we-list, refuse-rc-differs
    first_mode: str = ""
    cause: tuple[str, str] = ("", "")
    detail: str = ""
    traceback: bool = False


def compare(ansible: dict[Mode, Outcome], ours: dict[Mode, Outcome]) -> Verdict:
    """Judge one playbook from both tools' outcomes per mode (modes only ansible ran count as missing)."""
    traceback = any(TRACEBACK in outcome.stderr for outcome in ours.values())
    listed = ansible.get(PLAIN_MODES[0]) is not None and ansible[PLAIN_MODES[0]].rc == 0
    for mode, expected in ansible.items():
        actual = ours.get(mode)
        if actual is None or expected.same_as(actual):
            continue
        if expected.rc == 0 and actual.rc == 0:
            cause = ("rc=0", f"rc=0: listing differs in {mode.kind}")
            detail = first_difference(expected.stdout, actual.stdout)
        else:
            why = [first_error_line(o.stderr) if o.rc else "" for o in (expected, actual)]  # rc 0: warnings only
            cause = (f"rc={expected.rc}: {normalise(why[0])}", f"rc={actual.rc}: {normalise(why[1])}")
            detail = f"{why[0][:200]} | {why[1][:200]}"
        if listed:
            status = "differs"
        else:
            status = "we-list" if actual.rc == 0 else "refuse-rc-differs" if actual.rc != expected.rc else "differs"
        return Verdict(status, mode.name, cause, detail, traceback)
    missing = [mode for mode in ansible if mode not in ours]
    if missing:
        return Verdict("differs", missing[0].name, ("", "not run"), "", traceback)
    return Verdict("identical" if listed else "both-refuse", traceback=traceback)


# ---------------------------------------------------------------- running


@dataclass(frozen=True)
class Job:
    repo: Path
    playbook: Path
    cwd: Path
    inventory: tuple[str, ...]  # ("-i", "localhost,") or () when ansible.cfg names one
    mode: Mode

    @property
    def playbook_arg(self) -> str:
        return os.path.relpath(self.playbook, self.cwd)


def ansible_argv(binary: list[str], job: Job) -> list[str]:
    return [*binary, *job.inventory, job.playbook_arg, f"--list-{job.mode.listing}", *job.mode.selection]


def ours_argv(binary: list[str], job: Job) -> list[str]:
    return [*binary, f"list-{job.mode.listing}", *job.inventory, job.playbook_arg, *job.mode.selection]


def fixed_environment(extra: dict[str, str]) -> dict[str, str]:
    """The caller's environment without any ANSIBLE_* or PLAYBOOK_LS_* setting, plus ENV and `extra`."""
    base = {k: v for k, v in os.environ.items() if not k.startswith(("ANSIBLE_", "PLAYBOOK_LS", "PYTHONPATH"))}
    return {**base, **ENV, **extra}


def execute(argv: list[str], cwd: Path, env: dict[str, str], timeout: float) -> Outcome:
    start = time.perf_counter()
    try:
        proc = subprocess.run(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, capture_output=True,
                              timeout=timeout, start_new_session=True)
    except subprocess.TimeoutExpired as exc:
        stderr = (exc.stderr or b"").decode(errors="replace")
        message = f"[ERROR]: harness: timed out after {timeout:g} s"
        return Outcome(-1, "", f"{message}\n{stderr}", time.perf_counter() - start)
    except OSError as exc:
        return Outcome(127, "", f"[ERROR]: harness: cannot run {argv[0]}: {exc}", 0.0)
    return Outcome(proc.returncode, proc.stdout.decode(errors="replace"), proc.stderr.decode(errors="replace"),
                   time.perf_counter() - start)


class Cache:
    """ansible's outcomes on disk, one JSON file per (ansible version, revision, playbook, cwd, argv)."""

    def __init__(self, directory: Path | None, ansible_version: str) -> None:
        self.directory = directory
        self.ansible_version = ansible_version
        if directory:
            directory.mkdir(parents=True, exist_ok=True)

    def _file(self, job: Job, revision: str, argv: list[str]) -> Path | None:
        if self.directory is None:
            return None
        key = json.dumps([self.ansible_version, revision, str(job.playbook.relative_to(job.repo)),
                          str(job.cwd.relative_to(job.repo)), argv[1:]])
        return self.directory / (hashlib.sha256(key.encode()).hexdigest() + ".json")

    def get(self, job: Job, revision: str, argv: list[str]) -> Outcome | None:
        path = self._file(job, revision, argv)
        try:
            return Outcome(**json.loads(path.read_text())) if path else None
        except (OSError, ValueError, TypeError):
            return None

    def put(self, job: Job, revision: str, argv: list[str], outcome: Outcome) -> None:
        path = self._file(job, revision, argv)
        if path and outcome.rc != -1:  # a timeout may be the machine's fault: try again next time
            tmp = path.with_suffix(".tmp")
            tmp.write_text(json.dumps(asdict(outcome)))
            tmp.replace(path)


def run_all(jobs: list[Job], run_one: Callable[[Job], Outcome], workers: int, label: str) -> dict[Job, Outcome]:
    results: dict[Job, Outcome] = {}
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        for done, (job, outcome) in enumerate(zip(jobs, pool.map(run_one, jobs), strict=True), 1):
            results[job] = outcome
            if done % 50 == 0 or done == len(jobs):
                print(f"  {label}: {done}/{len(jobs)}", file=sys.stderr, flush=True)
    return results


# ---------------------------------------------------------------- one repository


@dataclass
class PlaybookResult:
    repo: str
    playbook: str  # relative to the repository
    cwd: str  # relative to the repository
    ansible: dict[str, Outcome]
    ours: dict[str, Outcome]
    verdict: Verdict


@dataclass
class RepoPlan:
    path: Path
    revision: str
    tags: list[str]
    playbooks: list[Path]
    base_jobs: dict[Path, list[Job]] = field(default_factory=dict)

    def jobs(self, playbook: Path, modes: Iterable[Mode]) -> list[Job]:
        cwd = run_directory(playbook, self.path)
        inventory = () if configured_inventory(cwd) else ("-i", "localhost,")
        return [Job(self.path, playbook, cwd, inventory, mode) for mode in modes]


def evenly(items: list[Path], limit: int) -> list[Path]:
    """At most `limit` of `items` (0: all), spread evenly over the list, so that a sample is the same every run."""
    if limit <= 0 or len(items) <= limit:
        return items
    return [items[index * len(items) // limit] for index in range(limit)]


def plan(repo: Path, tags_per_repo: int, max_playbooks: int = 0) -> RepoPlan:
    repo = repo.resolve()
    return RepoPlan(repo, revision(repo), most_used_tags(repo, tags_per_repo),
                    evenly(find_playbooks(repo), max_playbooks))


@dataclass
class Tools:
    ansible: list[str]
    ours: list[str]
    ansible_env: dict[str, str]
    ours_env: dict[str, str]
    timeout: float
    cache: Cache

    def run_ansible(self, job: Job, revision: str) -> Outcome:
        argv = ansible_argv(self.ansible, job)
        cached = self.cache.get(job, revision, argv)
        if cached is not None:
            return cached
        outcome = execute(argv, job.cwd, self.ansible_env, self.timeout)
        self.cache.put(job, revision, argv, outcome)
        return outcome

    def run_ours(self, job: Job) -> Outcome:
        return execute(ours_argv(self.ours, job), job.cwd, self.ours_env, self.timeout)


def evaluate(plans: list[RepoPlan], tools: Tools, jobs: int) -> list[PlaybookResult]:
    """ansible in `jobs` parallel processes: the plain modes of every playbook, then the selections for those it
    lists; then playbook-ls, one process at a time (its timings are not shared with another process)."""
    revisions = {p.path: p.revision for p in plans}
    plain = [job for p in plans for pb in p.playbooks for job in p.jobs(pb, PLAIN_MODES)]
    ansible = run_all(plain, lambda job: tools.run_ansible(job, revisions[job.repo]), jobs, "ansible-playbook")
    listed = {job.playbook for job, outcome in ansible.items() if job.mode == PLAIN_MODES[0] and outcome.rc == 0}
    selected = [job for p in plans for pb in p.playbooks if pb in listed
                for job in p.jobs(pb, selection_modes(p.tags))]
    ansible |= run_all(selected, lambda job: tools.run_ansible(job, revisions[job.repo]), jobs,
                       "ansible-playbook selections")
    ours = run_all(list(ansible), tools.run_ours, 1, "playbook-ls")
    by_playbook: dict[Path, list[Job]] = defaultdict(list)
    for job in ansible:
        by_playbook[job.playbook].append(job)
    results = []
    for p in plans:
        for pb in p.playbooks:
            pb_jobs = by_playbook[pb]
            verdict = compare({j.mode: ansible[j] for j in pb_jobs}, {j.mode: ours[j] for j in pb_jobs})
            results.append(PlaybookResult(
                p.path.name, str(pb.relative_to(p.path)), str(pb_jobs[0].cwd.relative_to(p.path)),
                {j.mode.name: ansible[j] for j in pb_jobs}, {j.mode.name: ours[j] for j in pb_jobs}, verdict))
    return results


# ---------------------------------------------------------------- report


def percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "-"


def summary_rows(plans: list[RepoPlan], results: list[PlaybookResult]) -> list[list[str]]:
    rows = []
    totals = Counter()
    for p in [*plans, None]:
        mine = [r for r in results if p is None or r.repo == p.path.name]
        status = Counter(r.verdict.status for r in mine)
        counts = {
            "found": len(mine),
            "lists": status["identical"] + status["differs"],
            "identical": status["identical"],
            "differs": status["differs"],
            "refuses": status["both-refuse"] + status["we-list"] + status["refuse-rc-differs"],
            "we-list": status["we-list"],
            "rc": status["refuse-rc-differs"],
            "tracebacks": sum(r.verdict.traceback for r in mine),
        }
        if p is not None:
            totals.update(counts)
        name, rev, tags = (p.path.name, p.revision[:12], ",".join(p.tags)) if p else ("all", "", "")
        c = counts if p is not None else totals
        rows.append([name, rev, tags, str(c["found"]), str(c["lists"]), str(c["identical"]), str(c["differs"]),
                     percent(c["identical"], c["lists"]), str(c["refuses"]), str(c["we-list"]), str(c["rc"]),
                     str(c["tracebacks"])])
    return rows


def markdown(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return "\n".join(lines + ["| " + " | ".join(row) + " |" for row in rows])


def causes(results: list[PlaybookResult]) -> list[tuple[tuple[str, str], list[PlaybookResult]]]:
    groups: dict[tuple[str, str], list[PlaybookResult]] = defaultdict(list)
    for r in results:
        if r.verdict.status not in ("identical", "both-refuse"):
            groups[r.verdict.cause].append(r)
    return sorted(groups.items(), key=lambda item: (-len(item[1]), item[0]))


def timings(results: list[PlaybookResult]) -> list[list[str]]:
    rows = []
    for label, side in (("ansible-playbook", "ansible"), ("playbook-ls", "ours")):
        walls = [o.wall for r in results for o in getattr(r, side).values()]
        plain = [getattr(r, side)[PLAIN_MODES[0].name].wall for r in results if PLAIN_MODES[0].name in r.ours]
        rows.append([label, str(len(walls)), f"{sum(walls):.1f}", f"{statistics.median(plain):.3f}" if plain else "-",
                     f"{max(plain):.2f}" if plain else "-"])
    return rows


def largest_speedup(results: list[PlaybookResult]) -> str:
    """ansible's time over ours on the playbook both list that ansible takes longest to list."""
    both = [r for r in results if r.verdict.status == "identical"]
    if not both:
        return "no playbook both list identically"
    key = PLAIN_MODES[0].name
    slowest = max(both, key=lambda r: r.ansible[key].wall)
    a, o = slowest.ansible[key].wall, slowest.ours[key].wall
    return f"{slowest.repo}/{slowest.playbook}: ansible-playbook {a:.2f} s, playbook-ls {o:.2f} s, {a / o:.1f}x"


def report(plans: list[RepoPlan], results: list[PlaybookResult], examples: int) -> str:
    header = ["repository", "revision", "most used tags", "playbooks", "ansible lists", "identical (all modes)",
              "differ", "identical %", "ansible refuses", "we list those", "other exit code", "our tracebacks"]
    out = ["## Playbooks", "", markdown(header, summary_rows(plans, results)), "", "## Causes of difference", ""]
    for number, ((ansible_line, our_line), group) in enumerate(causes(results), 1):
        repos = Counter(r.repo for r in group)
        out.append(f"{number}. **{len(group)} playbooks** ({', '.join(f'{k} {v}' for k, v in repos.most_common())})")
        out.append(f"   - ansible-playbook {ansible_line}")
        out.append(f"   - playbook-ls {our_line}")
        for r in group[:examples]:
            out.append(f"   - e.g. `{r.repo}/{r.playbook}` [{r.verdict.first_mode}] {r.verdict.detail}")
    out += ["", "## Timings", "", markdown(["tool", "invocations", "total wall (s)", "median list-tasks (s)",
                                             "max list-tasks (s)"], timings(results)), "",
            "Largest playbook both list identically: " + largest_speedup(results)]
    return "\n".join(out)


# ---------------------------------------------------------------- command line


def command(value: str | None, name: str) -> list[str] | None:
    if value:
        return shlex.split(value)
    local = Path(sys.executable).parent / name
    found = str(local) if os.access(local, os.X_OK) else shutil.which(name)
    return [found] if found else None


def ansible_version(binary: list[str]) -> str:
    try:
        out = subprocess.run([*binary, "--version"], capture_output=True, text=True, timeout=120,
                             env=fixed_environment({}))
        return out.stdout.splitlines()[0] if out.stdout else "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def ansible_collections_root(binary: list[str]) -> str | None:
    """The directory holding the `ansible_collections` that the reference ansible imports (the `ansible`
    package installs them into its site-packages), to show playbook-ls the same collections."""
    script = Path(binary[-1]) if len(binary) == 1 else None
    python = script.parent / "python" if script else None
    if python is None or not python.exists():
        return None
    try:
        out = subprocess.run([str(python), "-c", "import ansible_collections as a, os; "
                              "print(os.path.dirname(list(a.__path__)[0]))"], capture_output=True, text=True,
                             timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("repos", nargs="+", type=Path, help="directories of repositories")
    ap.add_argument("--ansible-playbook", help="command for ansible-playbook (default: next to this Python, or PATH)")
    ap.add_argument("--playbook-ls", help="command for playbook-ls (default: next to this Python, or PATH, "
                                          "or `python -m playbook_ls` from this checkout)")
    ap.add_argument("--jobs", type=int, default=2, help="parallel ansible-playbook processes (default 2)")
    ap.add_argument("--timeout", type=float, default=120, help="seconds per invocation (default 120)")
    ap.add_argument("--tags-per-repo", type=int, default=2, help="most used tags to select with (default 2)")
    ap.add_argument("--max-playbooks", type=int, default=0,
                    help="at most this many playbooks per repository, spread evenly over them (default 0: all)")
    ap.add_argument("--cache", type=Path, default=ROOT / "bench" / "out" / "realworld-cache",
                    help="where ansible's outcomes are kept ('' for none)")
    ap.add_argument("--no-shared-collections", action="store_true",
                    help="do not show playbook-ls the collections installed next to the reference ansible")
    ap.add_argument("--json", type=Path, help="write every outcome and verdict to this file")
    ap.add_argument("--examples", type=int, default=3, help="example playbooks per cause (default 3)")
    args = ap.parse_args(argv)

    ansible = command(args.ansible_playbook, "ansible-playbook")
    if ansible is None:
        print("ansible-playbook not found: give --ansible-playbook", file=sys.stderr)
        return 2
    ours_env: dict[str, str] = {}
    ours = command(args.playbook_ls, "playbook-ls")
    if ours is None:
        ours = [sys.executable, "-m", "playbook_ls"]
        ours_env["PYTHONPATH"] = str(ROOT)
    root = None if args.no_shared_collections else ansible_collections_root(ansible)
    if root:
        default = "~/.ansible/collections:/usr/share/ansible/collections"
        ours_env["ANSIBLE_COLLECTIONS_PATH"] = f"{default}:{root}"
    version = ansible_version(ansible)
    print(f"reference: {' '.join(ansible)} ({version}); playbook-ls: {' '.join(ours)}"
          + (f"; collections shown to playbook-ls: {root}" if root else ""), file=sys.stderr)
    tools = Tools(ansible, ours, fixed_environment({}), fixed_environment(ours_env), args.timeout,
                  Cache(args.cache if str(args.cache) else None, version))
    plans = []
    for repo in args.repos:
        if not repo.is_dir():
            print(f"skipping {repo}: not a directory", file=sys.stderr)
            continue
        plans.append(plan(repo, args.tags_per_repo, args.max_playbooks))
        print(f"{repo}: {len(plans[-1].playbooks)} playbooks, tags {plans[-1].tags}", file=sys.stderr)
    results = evaluate(plans, tools, args.jobs)
    if args.json:
        args.json.write_text(json.dumps([asdict(r) for r in results], indent=1))
    print(report(plans, results, args.examples))
    return 0


if __name__ == "__main__":
    sys.exit(main())
