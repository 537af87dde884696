"""The enabled rules with their settings, shared by ``check`` and the language server.

Runs each rule guarded (a crash is recorded, never propagated), stamps findings with code,
name and severity, and settles them: drops disabled codes and duplicates (the same finding
reached from two playbooks) and applies ``# noqa``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any, NamedTuple

from engine.loading.model import Play, Playbook
from engine.span import Span
from playbook_ls import rules
from playbook_ls.rules.base import Finding, NoqaComment, NoqaContext, PlaybookContext, ProjectContext

if TYPE_CHECKING:
    from playbook_ls.config import Settings

# a name may be ansible-lint's, with brackets (noqa: name[missing] PLS105 names PLS105 too)
_NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[\w\[\]-]+(?:[\s,]+[\w\[\]-]+)*))?", re.IGNORECASE)


class Checked(NamedTuple):
    """One resolved playbook with its findings, and every file the resolution read.

    ``by_play`` holds each play's own findings (keyed by the play's id; the plays are alive
    as long as ``context`` is), so a later check can take them over for the plays it reuses.
    """

    context: PlaybookContext
    findings: list[Finding]
    read: list[str]
    by_play: dict[int, list[Finding]]
    complete: bool = True  # False: resolved only, the rules are still to run (see RuleSet.complete)


class RuleSet:
    def __init__(self, settings: Settings, config_skip_tags: list[str], config_path: str | None) -> None:
        self.settings = settings
        self.enabled = settings.enabled()
        self.config_skip_tags, self.config_path = config_skip_tags, config_path
        self.errors: list[str] = []
        # (file, 0-based line) of each # noqa that silenced a finding -> the codes it silenced
        self.noqa_used: dict[tuple[str, int], set[str]] = {}

    def check_playbook(self, sources: Any, ansible: Any, path: str, previous: Checked | None = None,
                       stale: Callable[[frozenset[str]], bool] | None = None, rules: bool = True,
                       playbook_dirs: list[str] | None = None,
                       skip: Callable[[tuple[tuple[str, int], ...]], bool] | None = None) -> Checked:
        """Resolve ``path`` with ``sources`` (a SourceCache) and run the playbook rules on it,
        play by play. With ``previous`` (an earlier check of the same playbook) and ``stale``
        (whether any of these files changed since), the plays whose reads did not change are
        taken over with their findings instead of being resolved and checked again. With
        ``rules=False`` it only resolves; :meth:`complete` runs the rules later.
        ``playbook_dirs``: the directories whose plugins and collections the playbook sees
        (ansible's: the playbook's own). ``skip``: the positions of plays to leave out for now
        (a later check with this one as ``previous`` resolves them); only with ``rules=False``."""
        from engine.loading.resolve import Resolver

        earlier = {play.position: play for play in previous.context.playbook.plays} if previous is not None else {}
        left_out = Play("", [], None, None, path, "", [], {})  # type: ignore[arg-type] - removed below

        def reuse(position: tuple[tuple[str, int], ...]) -> Play | None:
            if skip is not None and skip(position):
                return left_out
            play = earlier.get(position)
            return play if play is not None and stale is not None and not stale(play.reads) else None

        with sources.tracking() as read:
            resolver = Resolver(sources, ansible)
            if playbook_dirs:
                resolver.playbook_dirs = [os.path.dirname(os.path.abspath(path)), *playbook_dirs]
            playbook = resolver.load_playbook(path, refresh=False, reuse=reuse if earlier or skip else None)
        playbook.plays = [play for play in playbook.plays if play is not left_out]
        read += [p for play in playbook.plays for p in play.reads]
        context = PlaybookContext(playbook, self.settings.profiles, {})
        resolved = Checked(context, [], read, {}, complete=False)
        if not rules:
            return resolved
        return self.complete(resolved, previous.by_play if previous is not None else {})

    def complete(self, checked: Checked, taken_over: dict[int, list[Finding]] | None = None) -> Checked:
        """Run the rules on a playbook resolved with ``rules=False`` (or take the findings of
        plays over from ``taken_over``, an earlier ``by_play``)."""
        if checked.complete:
            return checked
        taken_over = taken_over or {}
        playbook = checked.context.playbook
        errors_before = len(self.errors)
        by_play = {id(play): taken_over[id(play)] if id(play) in taken_over else self._play_findings(playbook, play)
                   for play in playbook.plays}
        in_plays = {id(problem) for play in playbook.plays for problem in play.problems}
        outside = Playbook(playbook.path)
        outside.problems = [problem for problem in playbook.problems if id(problem) not in in_plays]
        findings = [f for play in playbook.plays for f in by_play[id(play)]]
        findings += self.playbook_findings(PlaybookContext(outside, self.settings.profiles, {}))
        # a rule that crashes does so on every play: say it once per playbook
        self.errors[errors_before:] = dict.fromkeys(self.errors[errors_before:])
        return checked._replace(findings=findings, by_play=by_play, complete=True)

    def _play_findings(self, playbook: Playbook, play: Play) -> list[Finding]:
        """The findings of one play, with the problems met while resolving it."""
        alone = Playbook(playbook.path)
        alone.plays, alone.problems, alone.plugins = [play], play.problems, playbook.plugins
        return list(self.playbook_findings(PlaybookContext(alone, self.settings.profiles, {})))

    def check_lone_role(self, sources: Any, ansible: Any, role: str, reaching_dirs: list[str] | None = None) -> Checked:
        """A role no playbook uses, checked as the only role of a play that exists only in memory.
        ``reaching_dirs``: the directories of the playbooks that could run it (their role search
        finds it); a module or collection any of them provides resolves."""
        from playbook_ls.check import discover

        synthetic = discover.role_playbook_path(role)
        sources.overlay[synthetic] = discover.role_playbook_text(role)
        try:
            checked = self.check_playbook(sources, ansible, synthetic, playbook_dirs=reaching_dirs)
        finally:
            del sources.overlay[synthetic]
        def real(findings: list[Finding]) -> list[Finding]:
            return [f for f in findings if not f.span or f.span.file != synthetic]

        return checked._replace(findings=real(checked.findings), read=[p for p in checked.read if p != synthetic],
                                by_play={key: real(found) for key, found in checked.by_play.items()})

    def playbook_findings(self, context: PlaybookContext) -> Iterator[Finding]:
        for code in self.enabled:
            module = rules.RULES[code]
            if module.SCOPE == "playbook":
                yield from self._guarded(module, context.with_options(self.settings.options_for(code)))

    def project_findings(self, tags: set[str], by_playbook: dict[str, set[str]]) -> Iterator[Finding]:
        for code in self.enabled:
            module = rules.RULES[code]
            if module.SCOPE == "project":
                context = ProjectContext(dict.fromkeys(tags), self.settings.profiles, self.settings.options_for(code),
                                         self.config_skip_tags, self.config_path, by_playbook)
                yield from self._guarded(module, context)

    def _guarded(self, module: Any, context: Any) -> Iterator[Finding]:
        try:
            found = list(module.check(context))
        except Exception as exc:  # noqa: BLE001 - one broken rule must not stop the others
            self.errors.append(f"{module.CODE} crashed: {type(exc).__name__}: {exc}")
            return
        for finding in found:
            yield self.stamp(finding, module)

    def stamp(self, finding: Finding, module: Any) -> Finding:
        finding.code, finding.name = module.CODE, module.NAME
        finding.severity = self.settings.severity_of(module.CODE)
        return finding

    def syntax_error(self, message: str, span: Span) -> Finding:
        """The PLS111 finding for a file that does not parse, worded as the resolver words it."""
        from engine.loading.model import YAML_SYNTAX_HINT, join_sentences

        # a file that cannot be read says what to do itself (save it as UTF-8, exclude it)
        hint = "" if message.startswith("cannot read file") else YAML_SYNTAX_HINT
        return self.stamp(Finding(join_sentences(message, hint), span), rules.pls111_yaml_syntax)

    def settle(self, found: Iterable[Finding], line_of: Callable[[str, int], str],
               has_noqa: Callable[[str], bool] = lambda path: True) -> Iterator[Finding]:
        """Enabled, de-duplicated findings not silenced by ``# noqa`` on their line, by
        ``per-file-ignores`` or by the ignore file. ``has_noqa`` says whether a file has any
        ``noqa`` at all: looking for the comment costs up to a task's lines per finding, which a
        generated file (a 17 MB job template export) with thousands of findings makes quadratic."""
        enabled = set(self.enabled)
        seen: set[tuple[Any, ...]] = set()
        noqa_in: dict[str, bool] = {}  # has_noqa of each file, asked once
        for finding in found:
            if finding.code not in enabled or finding.key() in seen:
                continue
            seen.add(finding.key())
            finding.severity = self.settings.severity_of(finding.code)
            if finding.span is not None:
                if self.settings.accepts(finding):
                    continue
                used = next((number for number, line in noqa_lines(finding.span, line_of)
                             if silenced(finding, line)), None) if _memo(noqa_in, finding.span.file, has_noqa) else None
                if used is not None:
                    self.noqa_used.setdefault((finding.span.file, used), set()).add(finding.code)
                    continue
            yield finding

    def settle_with_noqa(self, found: Iterable[Finding], line_of: Callable[[str, int], str],
                         texts: Iterable[tuple[str, str]], same_file: Callable[[str], str] = str,
                         has_noqa: Callable[[str], bool] = lambda path: True) -> list[Finding]:
        """:meth:`settle` every finding of the project, then add the findings about the ``# noqa``
        comments of ``texts`` ((path, text) pairs), settled too. Only after settling everything
        is it known which comments silenced something, so this is the one place both ``check``
        and the editor get PLS118 from. ``same_file`` maps a path to the form that identifies a
        file (the editor's buffer paths and the findings' paths may differ by symlinks)."""
        self.noqa_used = {}
        settled = list(self.settle(found, line_of, has_noqa))
        used: dict[tuple[str, int], set[str]] = {}
        for (path, line), codes in self.noqa_used.items():
            used.setdefault((same_file(path), line), set()).update(codes)
        comments = [comment for path, text in texts if "noqa" in text.lower()
                    for comment in noqa_comments(same_file(path), text, used)]
        settled += self.settle(self.noqa_findings(comments), line_of)
        return settled

    def noqa_findings(self, comments: Iterable[NoqaComment]) -> Iterator[Finding]:
        """Findings about the ``# noqa`` comments themselves (after :meth:`settle` has used them)."""
        for code in self.enabled:
            module = rules.RULES[code]
            if module.SCOPE == "noqa":
                yield from self._guarded(module, NoqaContext(list(comments), set(self.enabled)))


def _memo(known: dict[str, bool], path: str, ask: Callable[[str], bool]) -> bool:
    if path not in known:
        known[path] = ask(path)
    return known[path]


# the first line of a list item that is a mapping: "- name: x", "- 'quoted key': x"
_MAPPING_ITEM = re.compile(r"""-\s+(?:[^\s#'"\[{][^#]*?|'[^']*'|"[^"]*"):(?:\s|$)""")
MAX_TASK_LINES = 500  # how far up the first line of the enclosing task is looked for


def noqa_lines(span: Span, line_of: Callable[[str, int], str]) -> Iterator[tuple[int, str]]:
    """The lines whose ``# noqa`` covers a finding at ``span``: its own, then the first line of the
    list item it is in (``- name: ...`` of its task, or of its play), so that one comment there
    covers the whole task, wherever in it the finding points."""
    line = line_of(span.file, span.line)
    yield span.line, line
    if _MAPPING_ITEM.match(line.lstrip(" ")):
        return  # the finding is on an item's first line: the task's, already looked at
    # (an item of a list of tags or conditions, "- configure", is not: its task is further up)
    indent = len(line) - len(line.lstrip(" "))
    for number in range(span.line - 1, max(-1, span.line - MAX_TASK_LINES), -1):
        above = line_of(span.file, number)
        stripped = above.lstrip(" ")
        if not stripped or stripped.startswith("#"):
            continue
        above_indent = len(above) - len(stripped)
        if above_indent < indent and stripped.startswith("- "):
            yield number, above
            return
        if above_indent == 0:
            return


def noqa_comments(path: str, text: str, used: dict[tuple[str, int], set[str]]) -> Iterator[NoqaComment]:
    """The ``# noqa: CODES`` comments of a file, each with the codes it silenced."""
    for number, line in enumerate(text.splitlines()):
        found = _noqa(line)
        if found is not None and found[1]:
            match, names = found
            yield NoqaComment(Span(path, number, match.start(), number, match.end()), names,
                              used.get((path, number), set()))


def _noqa(line: str) -> tuple[re.Match[str], list[str]] | None:
    """The ``# noqa`` on ``line`` and the names it lists as written (none: a bare ``# noqa``)."""
    match = _NOQA.search(line) if "noqa" in line.lower() else None
    if match is None:
        return None
    return match, [name for name in re.split(r"[\s,]+", match["codes"] or "") if name]


def silenced(finding: Finding, line: str) -> bool:
    """Whether ``line`` carries a ``# noqa`` (bare, or naming the finding's code or rule name)."""
    found = _noqa(line)
    if found is None:
        return False
    names = {name.lower() for name in found[1]}
    return not names or finding.code.lower() in names or finding.name.lower() in names


def playbook_summary(context: PlaybookContext) -> tuple[set[str], set[str]]:
    """The tags the playbook's tasks carry and the real paths of the roles it uses."""
    return play_summary([task for _play, task in context.tasks()])


def play_summary(tasks: list[Any]) -> tuple[set[str], set[str]]:
    """The tags these tasks carry (handlers left out: tags do not select them) and the real
    paths of the roles they come from."""
    from engine.loading import paths

    tasks = [task for task in tasks if not task.handler]
    frames = {id(frame): frame for task in tasks for frame in task.chain}
    tags = {tag for frame in frames.values() for tag in frame.tags if isinstance(tag, str)}
    roles = {paths.realpath(role.path) for role in {id(t.role): t.role for t in tasks if t.role}.values()
             if role.path}
    return tags, roles
