"""``playbook-ls check``: discover, resolve, run the rules, apply settings and ``# noqa``.

Nothing from the checked repository is executed: files are read and parsed, templates are
rendered in a sandbox for display only, inventories and vault files are not opened.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterator
from typing import Any

from engine import files
from engine.config import ProjectConfigs
from engine.loading import paths as fs
from engine.plugins import names as plugin_names
from engine.span import Span
from playbook_ls import __version__, rules
from playbook_ls.check import causes, discover
from playbook_ls.check.cache import CheckCache, code_identity, content_hash
from playbook_ls.check.inputs import Probes, run_inputs
from playbook_ls.config import Settings
from playbook_ls.rules.base import Finding, Severity
from playbook_ls.rules.ruleset import Checked, RuleSet, playbook_summary

MODULES_NOT_CHECKED = (
    "module names were not checked (PLS113 \"couldn't resolve module/action\"): no ansible-core was found "
    "beside playbook-ls or on PATH, so a misspelt or missing module goes unreported here, where a machine with "
    "ansible-core reports it. Install ansible-core where check runs; --require-module-check (or "
    "require-module-check = true) makes this an error")
NOT_KEPT = frozenset({rules.pls109_unresolved_import.CODE, rules.pls123_requirement_not_installed.CODE})


class CheckResult:
    """Findings after settings and ``# noqa``, sorted; plus what was looked at."""

    def __init__(self) -> None:
        self.findings: list[Finding] = []
        self.files = 0
        self.playbooks = 0
        self.roles = 0
        self.parsed = 0  # YAML files parsed in this run (0 on a fully cached run)
        self.internal_errors: list[str] = []
        # False when PLS113 could not check module names (no ansible-core here): a machine with
        # ansible-core reports more, so every output format says so (``notices``)
        self.modules_checked = True
        self.notices: list[str] = []

    def failed(self, fail_level: str) -> bool:
        return any(Severity.rank(f.severity) >= Severity.rank(fail_level) for f in self.findings)


class UnitResult:
    """What checking one playbook (or one role no playbook uses) produced; cached as is."""

    __slots__ = ("findings", "tags", "roles", "deps", "probes", "errors")

    def __init__(self, findings: list[dict[str, Any]], tags: set[str], roles: set[str],
                 deps: dict[str, str | None], probes: dict[str, str], errors: list[str]) -> None:
        self.findings, self.tags, self.roles, self.deps = findings, tags, roles, deps
        self.probes = probes  # what it depends on outside the files it read (see check.inputs)
        self.errors = errors  # rules that crashed on this unit

    def to_json(self) -> dict[str, Any]:
        return {"findings": self.findings, "tags": sorted(self.tags), "roles": sorted(self.roles), "deps": self.deps,
                "probes": self.probes}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> UnitResult:
        return cls(data["findings"], set(data["tags"]), set(data["roles"]), dict(data["deps"]), dict(data["probes"]),
                   [])


class Checker:
    def __init__(self, settings: Settings, use_cache: bool = True, jobs: int = 1) -> None:
        self.settings, self.jobs = settings, jobs
        self.configs = ProjectConfigs(settings.root, [os.path.join(settings.root, p) for p in settings.roles_path])
        self.ansible = self.configs.default
        self.probes = Probes(self.configs.for_path)
        self.use_cache = use_cache
        self.rules = RuleSet(settings, self.ansible.skip_tags, self.ansible.path)
        self._sources: Any = None
        self.hashes: dict[str, str | None] = {}
        self.texts: dict[str, bytes] = {}
        self.lines: dict[str, list[str]] = {}
        self.result = CheckResult()
        self._playbook_dirs: list[str] = []

    # -- entry point ------------------------------------------------------------------------
    def run(self, paths: list[str]) -> CheckResult:
        settings = self.settings
        fs.clear_cache()  # the tree is taken as unchanging from here on
        left_out: list[str] | None = None if settings.molecule else []
        files = discover.yaml_files(paths, settings.exclude, settings.root, settings.respect_gitignore, left_out)
        self.configs.find_collection_sources(files, lambda path: self.sources.load(path).data, paths)
        cache = CheckCache.open(repr(sorted(map(os.path.abspath, paths))), self._fingerprint(), self.use_cache)
        file_set = content_hash("\n".join(files).encode("utf-8", "surrogateescape"))  # names need not be UTF-8
        if cache.file_set != file_set:
            cache.units, cache.file_set, cache.dirty = {}, file_set, True
        facts = {path: self._file_facts(path, cache) for path in files}
        roles = {role for path in files if (role := discover.role_of(path))}
        playbooks = [path for path in files if not discover.role_of(path) and (
            facts[path]["playbook"] or discover.matches(path, settings.root, settings.include))]
        found_playbooks = len(playbooks)
        playbooks = discover.standalone_playbooks(playbooks, lambda p: facts[p]["plain_imports"],
                                                 settings.profile_playbooks())
        units = self._units(cache, {f"playbook:{p}": (self._check_playbook, p) for p in playbooks})
        tags_by_playbook = {fs.realpath(key.split(":", 1)[1]): unit.tags for key, unit in units.items()}
        reached = set().union(*(unit.roles for unit in units.values()))
        lone_roles = sorted(role for role in roles if fs.realpath(role) not in reached)
        self._playbook_dirs = sorted({os.path.dirname(os.path.abspath(p)) for p in playbooks})
        self.__dict__.pop("_dirs_searching", None)  # searched anew for these playbooks
        units |= self._units(cache, {f"role:{r}": (self._check_role, r) for r in lone_roles})
        found = [Finding.from_dict(data) for unit in units.values()
                 for data in causes.without_missing_roles_modules(unit.findings)]
        all_tags = set().union(*(unit.tags for unit in units.values()))
        named = {os.path.abspath(path) for path in paths if os.path.isfile(path)}
        found += self._syntax_findings(facts, named)
        found += self.rules.project_findings(all_tags, tags_by_playbook)
        found = causes.same_role_copies(list({f.key(): f for f in found}.values()), self._hash, discover.role_of)
        found = causes.fold(found, causes.Checkout(settings.root, roles, files, self._read, self._installed()))
        cache.save()
        result = self.result
        result.files, result.playbooks, result.roles = len(files), found_playbooks, len(roles)
        result.parsed = self._sources.parsed if self._sources else 0
        if left_out:
            result.notices.append(molecule_notice(left_out, settings.root))
        if (found_playbooks or roles) and "PLS113" in self.rules.enabled and not self._checks_modules():
            result.modules_checked = False
            result.notices.append(MODULES_NOT_CHECKED)
        texts = [(path, self.texts[path].decode("utf-8", "replace")) for path in files
                 if b"noqa" in self.texts.get(path, b"").lower()]
        result.findings = sorted(self.rules.settle_with_noqa(found, self._line, texts, has_noqa=self._has_noqa),
                                 key=Finding.sort_key)
        if self.jobs == 1:
            result.internal_errors += self.rules.errors
        return result

    @staticmethod
    def _checks_modules() -> bool:
        """Whether PLS113 can tell a module name that resolves from one that does not."""
        return plugin_names.find_ansible_core() is not None

    def _fingerprint(self) -> str:
        config = self.ansible.path
        config_hash = self._hash(config) if config else None
        settings_hash = self._hash(self.settings.path) if self.settings.path else None  # positions in findings
        return repr((__version__, code_identity(), self.settings.fingerprint(), settings_hash, config, config_hash,
                     sorted(self.configs.collection_sources.items()), run_inputs(os.getcwd())))

    @property
    def sources(self) -> Any:
        """The YAML cache, created (and ruamel.yaml imported) only when something must be parsed."""
        if self._sources is None:
            from engine.loading.shared_plays import SharedPlays
            from engine.parsing.source import SourceCache

            self._sources = SourceCache()
            self._sources.shared_plays = SharedPlays()  # a play several playbooks import is resolved once
        return self._sources

    # -- files ------------------------------------------------------------------------------
    def _hash(self, path: str) -> str | None:
        if path not in self.hashes:
            try:
                data = files.read_bytes(path)
                self.texts[path] = data
                self.hashes[path] = content_hash(data)
            except OSError:
                self.hashes[path] = None
        return self.hashes[path]

    def _file_facts(self, path: str, cache: CheckCache) -> dict[str, Any]:
        digest = self._hash(path)
        facts = cache.files.get(digest) if digest else None
        if facts is None:
            loaded = self.sources.load(path)
            error = loaded.error
            facts = {"playbook": discover.looks_like_playbook(loaded.data),
                     "plain_imports": discover.plain_imports(loaded.data),
                     "error": [error.message, list(error.span)[1:]] if error else None,
                     "ansible_text": bool(error) and discover.ansible_text(
                         self.texts.get(path, b"").decode("utf-8", "replace"))}
            if digest:
                cache.files[digest], cache.dirty = facts, True
        return facts

    def _syntax_findings(self, facts: dict[str, dict[str, Any]], named: set[str]) -> Iterator[Finding]:
        """PLS111 for the files that do not load: Ansible's, and any file named on the command line."""
        settings = self.settings
        for path, fact in facts.items():
            if fact["error"] and (os.path.abspath(path) in named or discover.syntax_error_matters(
                    path, settings.root, discover.role_of(path) is not None, fact.get("ansible_text", True),
                    settings.include)):
                message, position = fact["error"]
                yield self.rules.syntax_error(message, Span(path, *position))

    # -- units ------------------------------------------------------------------------------
    def _units(self, cache: CheckCache, wanted: dict[str, tuple[Any, str]]) -> dict[str, UnitResult]:
        """Results for ``{key: (check, path)}``: cached ones whose files are unchanged, the others
        computed, on both cores when there are several (the parsed files are inherited)."""
        results: dict[str, UnitResult] = {}
        todo = []
        for key, (compute, path) in wanted.items():
            unit = _cached_unit(cache.units.get(key))
            if unit is not None and all(self._hash(p) == digest for p, digest in unit.deps.items()) and \
                    self.probes.unchanged(unit.probes):
                results[key] = unit
            else:
                todo.append((key, compute, path))
        if self.jobs > 1 and len(todo) >= MIN_PARALLEL_UNITS:
            computed = _in_parallel(self, [(compute.__name__, path) for _key, compute, path in todo], self.jobs)
        else:
            computed = [compute(path) for _key, compute, path in todo]
        for (key, _compute, _path), unit in zip(todo, computed, strict=True):
            results[key] = unit
            if unit.errors:  # a crashed rule's result is not worth keeping
                if self.jobs > 1:
                    self.result.internal_errors += unit.errors
            elif not any(f["code"] in NOT_KEPT for f in unit.findings):
                # A missing file may appear anywhere on a search path (a role installed from a
                # requirements file, too): such results are not kept.
                cache.units[key], cache.dirty = unit.to_json(), True
        return {key: results[key] for key in wanted}

    def _check_playbook(self, path: str) -> UnitResult:
        errors_before = len(self.rules.errors)
        playbook_dirs = [os.path.dirname(os.path.abspath(path))]
        self.probes.of_unit(path, playbook_dirs, ())  # as they are before, not after, it is resolved
        checked = self.rules.check_playbook(self.sources, self.configs.for_path(path), path)
        return self._unit_result(checked, errors_before, path, playbook_dirs)

    def _check_role(self, role: str) -> UnitResult:
        errors_before = len(self.rules.errors)
        reaching = self._reaching_dirs(role)
        playbook_dirs = [os.path.dirname(os.path.abspath(discover.role_playbook_path(role))), *reaching]
        self.probes.of_unit(role, playbook_dirs, ())
        checked = self.rules.check_lone_role(self.sources, self.configs.for_path(role), role, reaching)
        return self._unit_result(checked, errors_before, role, playbook_dirs)

    def _reaching_dirs(self, role: str) -> list[str]:
        """The directories of the checked playbooks whose role search finds ``role``: one of
        them may run it through an include no static analysis can follow, and ansible then
        gives the role that playbook's ``library/`` and ``collections/``."""
        parent = fs.realpath(os.path.dirname(os.path.abspath(role)))
        return self._dirs_searching.get(parent, [])

    @functools.cached_property
    def _dirs_searching(self) -> dict[str, list[str]]:
        """Each role search directory (real path) and the playbook directories that search it,
        built once per check rather than once per role."""
        searching: dict[str, list[str]] = {}
        for directory in self._playbook_dirs:
            config = self.configs.for_path(os.path.join(directory, "playbook.yml"))
            search = [os.path.join(directory, "roles"), directory,
                      *(os.path.join(directory, entry) for entry in config.roles_path)]
            for entry in dict.fromkeys(fs.realpath(os.path.normpath(entry)) for entry in search):
                searching.setdefault(entry, []).append(directory)
        return searching

    def _unit_result(self, checked: Checked, errors_before: int, path: str, playbook_dirs: list[str]) -> UnitResult:
        """The result of the unit of ``path``, resolved with ``playbook_dirs`` as the playbooks'
        directories. It depends on the files it read, on the ansible.cfg files that decided (or,
        created, would decide) its configuration, and on the places outside them it searched."""
        tags, roles = playbook_summary(checked.context)
        read = [p for p in checked.read if p not in self.sources.overlay]
        deps = {p: self._hash(p) for p in {*read, *self.configs.candidates(path)}}
        probes = self.probes.of_unit(path, playbook_dirs, read)
        errors = self.rules.errors[errors_before:]
        return UnitResult([f.to_dict() for f in checked.findings], tags, roles, deps, probes, errors)

    def _installed(self) -> Any:
        """Whether a collection is installed where the checked tree's configuration looks, or is
        the source of one in the tree."""
        from engine.plugins.collection_search import CollectionFinder, collection_roots

        config = self.ansible
        roots = collection_roots([self.settings.root], config.collections_path, config.collections_scan_sys_path)
        finder = CollectionFinder(roots, self.configs.collection_sources)
        return lambda name: finder.collection_dir(name) is not None

    def _read(self, path: str) -> bytes:
        if path not in self.texts:
            self._hash(path)
        if path not in self.texts:
            raise OSError(path)
        return self.texts[path]

    def _has_noqa(self, path: str) -> bool:
        """Whether the file may hold a ``# noqa`` (one that cannot be read is looked at as before)."""
        if path not in self.texts:
            self._hash(path)
        text = self.texts.get(path)
        return text is None or b"noqa" in text.lower()

    def _line(self, path: str, number: int) -> str:
        lines = self.lines.get(path)
        if lines is None:
            if path not in self.texts:
                self._hash(path)
            lines = self.lines[path] = self.texts.get(path, b"").decode("utf-8", "replace").splitlines()
        return lines[number] if 0 <= number < len(lines) else ""


def molecule_notice(directories: list[str], root: str) -> str:
    """What ``check`` says of the ``molecule/`` directories it left out."""
    shown = sorted(os.path.relpath(d, root) for d in directories)
    named = ", ".join(shown[:3]) + (f" and {len(shown) - 3} more" if len(shown) > 3 else "")
    return (f"molecule scenarios were not checked ({named}): molecule runs them with roles and collections paths "
            "of its own, which check does not know. Set molecule: true in .playbook-ls.yml to check them as "
            "playbooks, or name a scenario's directory on the command line")


def _cached_unit(data: Any) -> UnitResult | None:
    try:
        return UnitResult.from_json(data) if data is not None else None
    except (TypeError, KeyError, ValueError):
        return None  # written by another version, or damaged


def run_check(paths: list[str], settings: Settings, use_cache: bool = True, jobs: int = 1) -> CheckResult:
    """Check ``paths``. ``jobs`` > 1 resolves playbooks in that many processes (where fork is
    available); the language server keeps the default."""
    return Checker(settings, use_cache, jobs).run(paths)


_WORKER: Checker | None = None
# Starting the worker processes costs about as much as resolving a dozen playbooks: a warm run
# that re-checks only the few units a cache cannot keep (an unresolved import) does them here.
MIN_PARALLEL_UNITS = 16


def _in_parallel(checker: Checker, work: list[tuple[str, str]], jobs: int) -> list[UnitResult]:
    import multiprocessing

    if "fork" not in multiprocessing.get_all_start_methods():
        return [getattr(checker, method)(path) for method, path in work]
    import gc

    global _WORKER
    _WORKER = checker  # forked workers inherit it, with every file parsed so far
    gc.freeze()  # so the workers' collections do not touch, and thereby copy, the inherited objects
    try:
        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            return pool.starmap(_work, work, chunksize=1)
    finally:
        _WORKER = None
        gc.unfreeze()


def _work(method: str, path: str) -> UnitResult:
    assert _WORKER is not None
    return getattr(_WORKER, method)(path)
