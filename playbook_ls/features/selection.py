"""Why a task runs or not under a tag selection, step by step, in each context that reaches it;
and which tasks a selection runs in no context (the editor greys them out).

The decision follows ansible-core's ``Taggable.evaluate_tags`` in its exact order: ``--tags``
first (``always``; ``all`` unless ``never``; a named tag; ``tagged`` unless ``never``), then
``--skip-tags`` if the task is still selected (``all``, sparing ``always`` unless ``always`` is
skipped too, and then nothing else is looked at; a named tag; ``tagged``). The tags compared
are the ones :class:`engine.flow.tags.TagEvaluator` computes, as ansible does while filtering. A task
an include loads at run time runs only if every include on its way runs too; ``when``
conditions are named, never evaluated. Pure functions, no LSP types.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

from engine.flow.tags import Selection, TagEvaluator, TagTemplateError
from engine.loading.model import UNTAGGED, Block, Frame, Play, Task
from playbook_ls.rules.base import display_path, keyword_span, never_exposure, where

if TYPE_CHECKING:
    from engine.launch.profiles import LaunchProfile
    from engine.span import Span
    from playbook_ls.features.workspace import Reach, WorkspaceIndex


class Preview(NamedTuple):
    """A selection as the user gave it (tags, skip tags, a launch profile) and as ansible reads it."""

    tags: tuple[str, ...]
    skip_tags: tuple[str, ...]
    profile: LaunchProfile | None
    selection: Selection
    notes: tuple[str, ...] = ()  # e.g. a profile that does not take --tags at launch

    @property
    def label(self) -> str:
        """'--tags deploy --skip-tags never', 'profile nightly: --tags deploy', '--tags all'."""
        parts = [f"--tags {','.join(self.tags)}" if self.tags else "--tags all"]
        if self.skip_tags:
            parts.append(f"--skip-tags {','.join(self.skip_tags)}")
        text = " ".join(parts)
        return f"profile {self.profile.name}: {text}" if self.profile is not None else text

    def to_json(self) -> dict[str, Any]:
        return {"tags": list(self.tags), "skip_tags": list(self.skip_tags),
                "profile": self.profile.name if self.profile is not None else None,
                "label": self.label, "notes": list(self.notes)}


def make_preview(tags: Iterable[str] | None, skip_tags: Iterable[str] | None,
                 profile: LaunchProfile | None = None,
                 defaults: tuple[Iterable[str], Iterable[str]] = ((), ())) -> Preview:
    """The selection of ``--tags``/``--skip-tags`` (None: not given, so ansible.cfg's
    ``defaults``), or of a launch profile with those as launch-time overrides (AWX's prompting
    rules: an override the profile does not ask for is ignored, and said so)."""
    notes: list[str] = []
    if profile is not None:
        from engine.launch.prompting import resolve_launch

        overrides = {key: ",".join(value) for key, value in (("job_tags", tags), ("skip_tags", skip_tags))
                     if value is not None}
        launch = resolve_launch(profile, overrides)
        notes += [f"profile {profile.name} does not ask for {name} on launch: {value!r} is ignored"
                  for name, value in launch.ignored_fields.items()]
        notes += [problem.message for problem in launch.errors]
        tags, skip_tags = launch.job_tags, launch.skip_tags
    else:
        tags = defaults[0] if tags is None else tags
        skip_tags = defaults[1] if skip_tags is None else skip_tags
    given = tuple(_split(tags)), tuple(_split(skip_tags))
    return Preview(given[0], given[1], profile, Selection.from_options(given[0], given[1]), tuple(notes))


def preview_from_request(request: Mapping[str, Any], profiles: list[LaunchProfile],
                         defaults: tuple[Iterable[str], Iterable[str]] = ((), ())) -> Preview:
    """``{tags?, skip_tags?, profile?}`` as an editor sends it (tags: "a,b" or a list). Raises
    ValueError saying what is wrong (a value of the wrong type, an unknown profile)."""
    unknown = sorted(set(request) - {"tags", "skip_tags", "skipTags", "profile"})
    if unknown:
        raise ValueError(f"unknown key '{unknown[0]}': the selection takes tags, skip_tags and profile")
    values = {key: _tag_option(request.get(key, request.get(alias)), key)
              for key, alias in (("tags", "tags"), ("skip_tags", "skipTags"))}
    name = request.get("profile")
    profile = None
    if name is not None:
        if not isinstance(name, str):
            raise ValueError(f"'profile' must be a profile's name, not {type(name).__name__}")
        profile = next((p for p in profiles if p.name == name), None)
        if profile is None:
            known = ", ".join(p.name for p in profiles) or "none defined"
            raise ValueError(f"no launch profile '{name}' (the profiles: {known})")
    return make_preview(values["tags"], values["skip_tags"], profile, defaults)


def _tag_option(value: Any, name: str) -> list[str] | None:
    if value is None:
        return None
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return value
    raise ValueError(f"'{name}' must be a string (a,b) or a list of strings")


def _split(values: Iterable[str]) -> list[str]:
    return [item.strip() for value in values for item in str(value).split(",") if item.strip()]


class Decision(NamedTuple):
    """``evaluate_tags``'s answer for one set of tags: the steps it takes, and the rule that decided."""

    runs: bool
    rule: str
    steps: list[str]


def _names(tags: Iterable[object]) -> str:
    return ", ".join(f"`{tag}`" for tag in sorted(tags, key=str))


def decide(tags: set[object] | frozenset[object], selection: Selection) -> Decision:
    """Ansible's ``Taggable.evaluate_tags`` on ``tags``, explained in its own order."""
    only, skip = selection.only_tags, selection.skip_tags
    untagged = tags == UNTAGGED
    steps = ["its tags are compared as `untagged` (it has none)" if untagged
             else f"its tags are compared as {_names(tags)}"]
    runs, rule = True, "no --tags restricts it"
    if only:
        asked = ",".join(sorted(only))
        named = only & tags
        if "always" in tags:
            rule = "tagged `always`, which every --tags selects"
        elif "all" in only and "never" not in tags:
            rule = f"`--tags {asked}` selects every task not tagged `never`"
        elif named:
            rule = f"`--tags {asked}` names {_names(named)}"
        elif "tagged" in only and not untagged and "never" not in tags:
            rule = "`--tags tagged` selects every tagged task not tagged `never`"
        else:
            runs = False
            if "never" in tags and only & {"all", "tagged"}:
                rule = f"tagged `never`: `--tags {asked}` selects it only by naming one of its tags"
            else:
                rule = f"none of its tags is in `--tags {asked}`"
        steps.append(f"--tags: {'selected' if runs else 'not selected'}: {rule}")
    if runs and skip:
        asked = ",".join(sorted(skip))
        named = skip & tags
        if "all" in skip:
            if "always" not in tags:
                runs, rule = False, f"`--skip-tags {asked}` skips every task not tagged `always`"
            elif "always" in skip:
                runs, rule = False, f"`--skip-tags {asked}` skips `always` tasks too"
            else:
                also = f" (with `all` among them ansible looks at no other: {_names(named)} does not count)" \
                    if named - {"all"} else ""
                steps.append(f"--skip-tags: kept: `--skip-tags {asked}` spares tasks tagged `always`{also}")
        elif named:
            runs, rule = False, f"`--skip-tags {asked}` names {_names(named)}"
        elif "tagged" in skip and not untagged:
            runs, rule = False, "`--skip-tags tagged` skips every tagged task"
        else:
            steps.append(f"--skip-tags: kept: none of its tags is in `--skip-tags {asked}`")
        if not runs:
            steps.append(f"--skip-tags: skipped: {rule}")
    elif skip:
        steps.append("--skip-tags: not looked at (the task is not selected)")
    else:
        steps.append("--skip-tags: none given")
    return Decision(runs, rule, steps)


class Verdict:
    """One task in one play under a selection: the tags compared with where each comes from, the
    decision, the includes it depends on (a task an include loads at run time), its ``when``."""

    __slots__ = ("task", "tags", "compared", "decision", "gates", "problem")

    def __init__(self, task: Task, tags: list[tuple[Any, Frame]], compared: set[Any] | frozenset[Any],
                 decision: Decision, gates: tuple[Verdict, ...], problem: str | None) -> None:
        self.task, self.tags, self.compared, self.decision = task, tags, compared, decision
        self.gates, self.problem = gates, problem

    @property
    def blocking(self) -> Verdict | None:
        """The outermost include that does not run, if any."""
        return next((gate for gate in self.gates if not gate.decision.runs), None)

    @property
    def runs(self) -> bool:
        return self.decision.runs and self.blocking is None

    @property
    def rule(self) -> str:
        gate = self.blocking
        if gate is not None:
            return f"the {gate.task.action} that loads it ({where(gate.task.span)}) does not run: {gate.decision.rule}"
        return self.decision.rule

    @property
    def conditions(self) -> list[tuple[Any, str]]:
        """The ``when`` conditions on its way, each with where it comes from: the includes'
        first (checked once, by the include), then its own chain."""
        from engine.flow.on_the_way import conditions_on_the_way

        return conditions_on_the_way(self.task, [gate.task for gate in self.gates])


def play_verdicts(play: Play, selection: Selection) -> dict[int, Verdict]:
    """Every task of ``play`` (blocks, rescue, always, what includes load; not handlers, which
    tags do not select) by ``id``, with its verdict, evaluated in ansible's order."""
    evaluator, verdicts = TagEvaluator.for_play(play), {}

    def visit(blocks: Iterable[Block], gates: tuple[Verdict, ...]) -> None:
        for block in blocks:
            evaluated = []
            for task in block.tasks():  # the whole block first, as filter_tagged_tasks does
                try:
                    evaluated.append((task, evaluator.evaluate(task), None))
                except TagTemplateError as exc:
                    evaluated.append((task, task.tag_set() or UNTAGGED, f"its tags cannot be templated: {exc}"))
            for task, compared, problem in evaluated:
                if task.implicit:
                    continue
                tags = [(tag, frame) for frame in task.chain for tag in evaluator.frame_tags(frame)]
                decision = decide(compared, selection)
                exposure = never_exposure(task)
                if exposure is not None and decision.runs and not decide(exposure.own, selection).runs:
                    through = ", ".join(f"`{tag}`" for tag in sorted(exposure.inherited, key=str)
                                        if tag in selection.only_tags)
                    decision.steps.append(f"note: tagged `never` at {exposure.never_frame.label}, it runs only "
                                          f"through {through or 'a tag'} inherited from above (see PLS107)")
                verdict = Verdict(task, tags, compared, decision, gates, problem)
                verdicts[id(task)] = verdict
                if task.children:
                    visit(task.children, (*gates, verdict))

    visit(play.compile(), ())
    return verdicts


class Explanation(NamedTuple):
    """Why the task of ``reach`` runs or not under a selection. ``verdict`` is None for a
    handler, and for a context the profile does not launch (``outside``)."""

    reach: Reach
    verdict: Verdict | None
    outside: bool = False

    @property
    def runs(self) -> bool:
        if self.handler:
            return True
        return self.verdict is not None and self.verdict.runs

    @property
    def handler(self) -> bool:
        return self.reach.task is not None and self.reach.task.handler

    @property
    def because(self) -> str:
        if self.outside:
            return "the profile launches another playbook, which does not reach it here"
        if self.handler:
            return "a handler: tags do not select handlers, it runs when notified"
        if self.verdict is None:
            return "not among the tasks its play runs through tags (its verdict is unknown)"
        rule = self.verdict.rule
        if self.verdict.runs and self.verdict.gates:
            loaders = ", ".join(f"{gate.task.action} at {where(gate.task.span)}" for gate in self.verdict.gates)
            rule += f"; its file is loaded at run time by {loaders}, which runs"
        return rule

    @property
    def conditional(self) -> bool:
        return self.verdict is not None and self.runs and bool(self.verdict.conditions)

    @property
    def summary(self) -> str:
        """'runs', 'does not run', or 'runs if its conditions hold'."""
        if not self.runs:
            return "does not run"
        return "runs if its conditions hold" if self.conditional else "runs"


def explain(index: WorkspaceIndex, path: str, line: int, preview: Preview) -> list[Explanation]:
    """The task at ``line`` of ``path`` under ``preview``, once per context that reaches it
    (empty when no task of a playbook is there)."""
    reaches = [reach for reach in index.at(path, line) if reach.task is not None]
    cache: dict[int, dict[int, Verdict]] = {}
    result = []
    for reach in reaches:
        task = reach.task
        assert task is not None
        if preview.profile is not None and not reach.book.context.applies_to(preview.profile):
            result.append(Explanation(reach, None, outside=True))
            continue
        if id(reach.play) not in cache:
            cache[id(reach.play)] = play_verdicts(reach.play, preview.selection)
        result.append(Explanation(reach, cache[id(reach.play)].get(id(task))))
    return result


def unselected(index: WorkspaceIndex, preview: Preview) -> dict[str, list[tuple[Span, str]]]:
    """Real path -> the tasks written there that ``preview`` runs in no context, with why (the
    reasons of their contexts). Handlers, and tasks whose verdict is unknown, count as run."""
    found: dict[tuple[str, Span], tuple[list[bool], dict[str, None]]] = {}
    for book in index.books.values():
        applies = preview.profile is None or book.context.applies_to(preview.profile)
        for digest in book.digests:
            verdicts = play_verdicts(digest.play, preview.selection) if applies else {}
            for real, tasks in digest.files.items():
                for task in tasks:
                    if task is None or task.span is None:
                        continue
                    runs, reasons = found.setdefault((real, task.span), ([False], {}))
                    verdict = verdicts.get(id(task))
                    if not applies:
                        reasons["its playbook is not the profile's"] = None
                    elif verdict is None or verdict.runs:
                        runs[0] = True
                    else:
                        reasons[_plain(verdict.rule)] = None
    return never_run(found)


def never_run(found: Mapping[tuple[str, Span], tuple[list[bool], dict[str, None]]],
              ) -> dict[str, list[tuple[Span, str]]]:
    """Real path -> the spans of ``found`` (``(real, span) -> ([runs in some context], reasons)``)
    that run in no context, in their order in the file, each with its reasons joined."""
    result: dict[str, list[tuple[Span, str]]] = {}
    for (real, span), (runs, reasons) in found.items():
        if not runs[0]:
            result.setdefault(real, []).append((span, "; ".join(reasons)))
    for spans in result.values():
        spans.sort(key=lambda item: (item[0].line, item[0].col))
    return result


def _plain(text: str) -> str:
    return text.replace("`", "")


# -- presenting -------------------------------------------------------------------------------
def _origin(frame: Frame, task: Task) -> str:
    if frame is task.frame:
        return "this task"
    return f"{frame.label} ({where(keyword_span(frame, 'tags'))})"


def context_json(explanation: Explanation) -> dict[str, Any]:
    from playbook_ls.features.hover import context_label

    reach, verdict = explanation.reach, explanation.verdict
    task = reach.task
    assert task is not None
    data: dict[str, Any] = {
        "playbook": display_path(reach.book.path), "play": reach.play.name, "context": _plain(context_label(reach)),
        "task": task.display_name(), "runs": explanation.runs, "verdict": explanation.summary,
        "because": _plain(explanation.because), "handler": explanation.handler,
        "outside_profile": explanation.outside, "tags": [], "compared": [], "steps": [], "includes": [],
        "when": [], "problem": None,
    }
    if verdict is not None:
        data["tags"] = [{"tag": tag, "from": _plain(_origin(frame, task))} for tag, frame in verdict.tags]
        data["compared"] = sorted(map(str, verdict.compared))
        data["steps"] = [_plain(step) for step in verdict.decision.steps]
        data["includes"] = [{"task": gate.task.display_name(), "action": gate.task.action,
                             "at": where(gate.task.span), "runs": gate.decision.runs,
                             "because": _plain(gate.decision.rule)} for gate in verdict.gates]
        data["when"] = [{"condition": str(cond), "from": _plain(origin)} for cond, origin in verdict.conditions]
        data["problem"] = verdict.problem
    return data


def explanation_text(explanations: list[Explanation], preview: Preview, where_: str, verbose: bool = False) -> str:
    """The ``why`` command's text: the task, the selection, then each context step by step.
    Contexts that reach the same verdict for the same reasons are grouped: the first is shown in
    full, the others by what differs from it (``verbose``: every context in full)."""
    task = explanations[0].reach.task
    assert task is not None
    lines = [f"{where_}: task {task.display_name()}", f"under {preview.label}"]
    lines += [f"note: {note}" for note in preview.notes]
    groups: dict[tuple[Any, ...], list[tuple[int, dict[str, Any], list[str]]]] = {}
    for number, explanation in enumerate(explanations, 1):
        data = context_json(explanation)
        key = (data["verdict"], data["because"], tuple(data["steps"])) if not verbose else (number,)
        groups.setdefault(key, []).append((number, data, _context_body(explanation, data)))
    for members in groups.values():
        (number, data, body), rest = members[0], members[1:]
        numbers = ", ".join(str(n) for n, _d, _b in members)
        lines += ["", f"context{'s' if rest else ''} {numbers}: {data['context']}", *body]
        for other_number, other, other_body in rest:
            differs = [line for line in other_body if line not in body]
            lines.append(f"  likewise context {other_number}: {other['context']}" + (", where:" if differs else ""))
            lines += [f"  {line}" for line in differs]
    return "\n".join(lines) + "\n"


def _context_body(explanation: Explanation, data: dict[str, Any]) -> list[str]:
    lines = []
    if data["tags"]:
        lines.append("  tags: " + " · ".join(f"{t['tag']} (from {t['from']})" for t in data["tags"]))
    elif explanation.verdict is not None:
        lines.append("  tags: none")
    for gate in data["includes"]:
        lines.append(f"  loaded at run time by {gate['action']} at {gate['at']}, which "
                     f"{'runs' if gate['runs'] else 'does not run'}: {gate['because']}")
    lines += [f"  {step}" for step in _numbered(data["steps"])]
    if data["when"]:
        lines.append("  when (evaluated at run time, all must hold):")
        lines += [f"    {w['condition']}  (from {w['from']})" for w in data["when"]]
    if data["problem"]:
        lines.append(f"  note: {data['problem']}")
    lines.append(f"  verdict: {data['verdict']}: {data['because']}")
    return lines


def _numbered(steps: list[str]) -> list[str]:
    return [f"{number}. {step}" for number, step in enumerate(steps, 1)]


def hover_section(explanations: list[Explanation], preview: Preview) -> str | None:
    """'**Under `--tags deploy`:** does not run, because …', one line per distinct context."""
    if not explanations:
        return None
    head = f"**Under `{preview.label}`:**"
    answers = list(dict.fromkeys(f"{e.summary}, because {e.because}" for e in explanations))
    if len(answers) == 1:
        return f"{head} {answers[0]}"
    from playbook_ls.features.hover import context_label

    lines = [head]
    seen: set[str] = set()
    for explanation in explanations:
        line = f"- via {context_label(explanation.reach)}: {explanation.summary}, because {explanation.because}"
        if line not in seen:
            seen.add(line)
            lines.append(line)
    return "\n".join(lines)
