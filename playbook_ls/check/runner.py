"""``playbook-ls check``: discover, resolve, run the rules, apply settings and ``# noqa``.

Nothing from the checked repository is executed: files are read and parsed, templates are
rendered in a sandbox for display only, inventories and vault files are not opened.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterable, Iterator
from typing import Any

from engine import paths as fs
from engine.config import AnsibleConfig
from engine.model import YAML_SYNTAX_HINT, join_sentences
from engine.span import Span
from playbook_ls import __version__, rules
from playbook_ls.check import discover
from playbook_ls.check.cache import CheckCache, content_hash
from playbook_ls.config import Settings
from playbook_ls.rules.base import Finding, PlaybookContext, ProjectContext, Severity, profile_playbook

ENVIRONMENT = ("ANSIBLE_CONFIG", "ANSIBLE_ROLES_PATH", "ANSIBLE_RUN_TAGS", "ANSIBLE_SKIP_TAGS",
               "ANSIBLE_COLLECTIONS_PATH", "ANSIBLE_COLLECTIONS_PATHS", "ANSIBLE_HOME")
_NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[\w-]+(?:\s*,\s*[\w-]+)*))?", re.IGNORECASE)


class CheckResult:
    """Findings after settings and ``# noqa``, sorted; plus what was looked at."""

    def __init__(self) -> None:
        self.findings: list[Finding] = []
        self.files = 0
        self.playbooks = 0
        self.roles = 0
        self.parsed = 0  # YAML files parsed in this run (0 on a fully cached run)
        self.internal_errors: list[str] = []

    def failed(self, fail_level: str) -> bool:
        return any(Severity.rank(f.severity) >= Severity.rank(fail_level) for f in self.findings)


class UnitResult:
    """What checking one playbook (or one role no playbook uses) produced; cached as is."""

    __slots__ = ("findings", "tags", "roles", "deps", "covered")

    def __init__(self, findings: list[dict[str, Any]], tags: set[str], roles: set[str],
                 deps: dict[str, str | None], covered: set[str]) -> None:
        self.findings, self.tags, self.roles, self.deps = findings, tags, roles, deps
        self.covered = covered  # playbooks this one imports plainly: checking them alone adds nothing


class Checker:
    def __init__(self, settings: Settings, use_cache: bool = True) -> None:
        self.settings = settings
        self.ansible = AnsibleConfig.load(settings.root)
        self.ansible.roles_path = [*self.ansible.roles_path,
                                   *(os.path.join(settings.root, p) for p in settings.roles_path)]
        self.use_cache = use_cache
        self.enabled = settings.enabled()
        self._sources: Any = None
        self.hashes: dict[str, str | None] = {}
        self.texts: dict[str, bytes] = {}
        self.lines: dict[str, list[str]] = {}
        self.result = CheckResult()

    # -- entry point ------------------------------------------------------------------------
    def run(self, paths: list[str]) -> CheckResult:
        settings = self.settings
        fs.clear_cache()  # the tree is taken as unchanging from here on
        files = discover.yaml_files(paths, settings.exclude, settings.root)
        cache = CheckCache.open(repr(sorted(map(os.path.abspath, paths))), self._fingerprint(), self.use_cache)
        file_set = content_hash("\n".join(files).encode())
        if cache.file_set != file_set:
            cache.units, cache.file_set, cache.dirty = {}, file_set, True
        facts = {path: self._file_facts(path, cache) for path in files}
        roles = {role for path in files if (role := discover.role_of(path))}
        playbooks = [path for path in files if not discover.role_of(path) and (
            facts[path]["playbook"] or discover.matches(path, settings.root, settings.include))]
        found: list[Finding] = []
        tags_by_playbook: dict[str, set[str]] = {}
        reached: set[str] = set()
        covered: set[str] = set()
        named = {target for profile in settings.profiles if (target := profile_playbook(profile))}
        # Importers first: a playbook they import plainly (and no profile names) is checked with them.
        for path in sorted(playbooks, key=lambda p: not facts[p]["imports"]):
            real = fs.realpath(path)
            if real in covered and real not in named:
                continue
            unit = self._unit(cache, f"playbook:{path}", lambda p=path: self._check_playbook(p))
            tags_by_playbook[real] = unit.tags
            reached |= unit.roles
            covered |= unit.covered
            found += map(Finding.from_dict, unit.findings)
        lone_roles = sorted(role for role in roles if fs.realpath(role) not in reached)
        all_tags = set().union(*tags_by_playbook.values()) if tags_by_playbook else set()
        for role in lone_roles:
            unit = self._unit(cache, f"role:{role}", lambda r=role: self._check_role(r))
            all_tags |= unit.tags
            found += map(Finding.from_dict, unit.findings)
        found += self._syntax_findings(facts)
        found += self._project_findings(all_tags, tags_by_playbook)
        cache.save()
        result = self.result
        result.files, result.playbooks, result.roles = len(files), len(playbooks), len(roles)
        result.parsed = self._sources.parsed if self._sources else 0
        result.findings = sorted(self._settle(found), key=Finding.sort_key)
        return result

    def _fingerprint(self) -> str:
        config = self.ansible.path
        config_hash = self._hash(config) if config else None
        environment = [(name, os.environ.get(name)) for name in ENVIRONMENT]
        return repr((__version__, self.settings.fingerprint(), config, config_hash, environment, sys.version_info[:2]))

    @property
    def sources(self) -> Any:
        """The YAML cache, created (and ruamel.yaml imported) only when something must be parsed."""
        if self._sources is None:
            from engine.source import SourceCache

            self._sources = SourceCache()
        return self._sources

    # -- files ------------------------------------------------------------------------------
    def _hash(self, path: str) -> str | None:
        if path not in self.hashes:
            try:
                with open(path, "rb") as handle:
                    data = handle.read()
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
                     "imports": discover.imports_playbooks(loaded.data),
                     "error": (error.message, tuple(error.span)[1:]) if error else None}
            if digest:
                cache.files[digest], cache.dirty = facts, True
        return facts

    def _syntax_findings(self, facts: dict[str, dict[str, Any]]) -> Iterator[Finding]:
        for path, fact in facts.items():
            if fact["error"]:
                message, position = fact["error"]
                finding = Finding(join_sentences(message, YAML_SYNTAX_HINT), Span(path, *position))
                yield self._stamp(finding, rules.pls111_yaml_syntax)

    # -- units ------------------------------------------------------------------------------
    def _unit(self, cache: CheckCache, key: str, compute: Any) -> UnitResult:
        unit = cache.units.get(key)
        if unit is not None and all(self._hash(path) == digest for path, digest in unit.deps.items()):
            return unit
        unit = compute()
        cache.units[key], cache.dirty = unit, True
        return unit

    def _check_playbook(self, path: str) -> UnitResult:
        self.sources.requested.clear()
        from engine.resolve import Resolver

        book = Resolver(self.sources, self.ansible).load_playbook(path, refresh=False)
        context = PlaybookContext(book, self.settings.profiles, {})
        findings = list(self._playbook_findings(context))
        tasks = [task for _play, task in context.tasks() if not task.handler]
        frames = {id(frame): frame for task in tasks for frame in task.chain}
        tags = {tag for frame in frames.values() for tag in frame.tags if isinstance(tag, str)}
        roles = {fs.realpath(role.path) for role in {id(t.role): t.role for t in tasks if t.role}.values()
                 if role.path}
        deps = {p: self._hash(p) for p in set(self.sources.requested) if p not in self.sources.overlay}
        covered = {path for path, plain in book.imported if plain}
        return UnitResult([f.to_dict() for f in findings], tags, roles, deps, covered)

    def _check_role(self, role: str) -> UnitResult:
        """A role no playbook uses, checked as the only role of a play of its own."""
        import json

        parent = os.path.dirname(role)
        synthetic = os.path.join(parent, f".playbook-ls-check-{os.path.basename(role)}.yml")
        self.sources.overlay[synthetic] = (
            f"- hosts: all\n  gather_facts: false\n  roles:\n    - role: {json.dumps(role)}\n")
        try:
            unit = self._check_playbook(synthetic)
        finally:
            del self.sources.overlay[synthetic]
        unit.findings = [f for f in unit.findings if not f["span"] or f["span"][0] != synthetic]
        return unit

    def _playbook_findings(self, context: PlaybookContext) -> Iterator[Finding]:
        for code in self.enabled:
            module = rules.RULES[code]
            if module.SCOPE == "playbook":
                yield from self._guarded(module, context.with_options(self.settings.options_for(code)))

    def _project_findings(self, tags: set[str], by_playbook: dict[str, set[str]]) -> Iterator[Finding]:
        for code in self.enabled:
            module = rules.RULES[code]
            if module.SCOPE == "project":
                context = ProjectContext(dict.fromkeys(tags), self.settings.profiles, self.settings.options_for(code),
                                         self.ansible.skip_tags, self.ansible.path, by_playbook)
                yield from self._guarded(module, context)

    def _guarded(self, module: Any, context: Any) -> Iterator[Finding]:
        """Run one rule; a crash in a rule is reported and never stops the others."""
        try:
            found = list(module.check(context))
        except Exception as exc:  # noqa: BLE001 - one broken rule must not stop the check
            self.result.internal_errors.append(f"{module.CODE} crashed: {type(exc).__name__}: {exc}")
            return
        for finding in found:
            yield self._stamp(finding, module)

    def _stamp(self, finding: Finding, module: Any) -> Finding:
        finding.code, finding.name = module.CODE, module.NAME
        finding.severity = self.settings.severity_of(module.CODE)
        return finding

    # -- settings and noqa ------------------------------------------------------------------
    def _settle(self, found: Iterable[Finding]) -> Iterator[Finding]:
        enabled = set(self.enabled)
        seen: set[tuple[Any, ...]] = set()
        for finding in found:
            if finding.code not in enabled or finding.key() in seen:
                continue
            seen.add(finding.key())
            finding.severity = self.settings.severity_of(finding.code)
            if not self._silenced(finding):
                yield finding

    def _silenced(self, finding: Finding) -> bool:
        span = finding.span
        if span is None:
            return False
        line = self._line(span.file, span.line)
        match = _NOQA.search(line) if "noqa" in line.lower() else None
        if match is None:
            return False
        codes = match["codes"]
        if not codes:
            return True
        names = {c.strip().upper() for c in codes.split(",")} | {c.strip() for c in codes.split(",")}
        return finding.code in names or finding.name in names

    def _line(self, path: str, number: int) -> str:
        lines = self.lines.get(path)
        if lines is None:
            if path not in self.texts:
                self._hash(path)
            lines = self.lines[path] = self.texts.get(path, b"").decode("utf-8", "replace").splitlines()
        return lines[number] if 0 <= number < len(lines) else ""


def run_check(paths: list[str], settings: Settings, use_cache: bool = True) -> CheckResult:
    return Checker(settings, use_cache).run(paths)
