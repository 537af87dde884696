"""Phase 1 of a run: what would run where, computed without touching any host.

As in pyinfra, planning is separate from executing: :func:`make_plan` resolves the playbook,
reads the inventory, selects each play's hosts (the play's ``hosts:`` within ``--limit``)
and its tasks (tag selection exactly as ``ansible-playbook`` does it, ``never`` and
``always`` included), and finds every module the bundled engine lacks, before anything runs.
``playbook-ls run --dry`` prints the plan and stops there.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from engine import keywords as kw
from engine.model import Block, Play, Playbook, Problem, Sourced, Task
from engine.run.become import become_refusal
from engine.run.local import LOCAL_CONNECTIONS
from engine.span import Span
from engine.tags import Selection, TagEvaluator, TagTemplateError, should_run

if TYPE_CHECKING:
    from engine.inventory.data import Host
    from engine.inventory.manager import Inventory
    from engine.launching import Launch
    from engine.source import SourceCache

# Actions the executor itself carries out (ansible's action plugins that act on the run).
ENGINE_ACTIONS = kw._family("set_fact", "include_vars", "meta", "include_tasks", "include_role",
                            "import_tasks", "import_role", "validate_argument_spec", "add_host", "group_by",
                            "async_status")
EXIT_ERROR = 1
EXIT_NO_HOSTS = 0


@dataclass
class RunOptions:
    """One launch: what ``ansible-playbook`` would be given on its command line."""

    playbook: str
    inventory: list[str]
    limit: str | None = None
    tags: list[str] = field(default_factory=list)
    skip_tags: list[str] = field(default_factory=list)
    extra_vars: dict[str, Any] = field(default_factory=dict)
    check: bool = False
    diff: bool = False
    verbosity: int = 0
    forks: int = 5
    option_vars: dict[str, Any] = field(default_factory=dict)
    """The ``ansible_*`` option variables (engine.launching.option_vars)."""

    def selection(self) -> Selection:
        return Selection.from_options(self.tags, self.skip_tags)

    @classmethod
    def from_launch(cls, launch: Launch, playbook: str, cwd: str) -> RunOptions:
        """What a resolved launch gives ansible-playbook; relative inventories resolve from ``cwd``."""
        from engine.launching import inventory_sources, option_vars

        return cls(playbook=playbook, inventory=inventory_sources(launch, cwd), limit=launch.limit,
                   tags=launch.job_tags, skip_tags=launch.skip_tags, extra_vars=launch.extra_vars,
                   check=launch.check_mode, diff=launch.diff_mode, verbosity=launch.verbosity,
                   forks=launch.forks, option_vars=option_vars(launch, cwd))


@dataclass
class PlayPlan:
    """One play: its hosts in inventory order and its selected tasks in execution order
    (block, rescue and always sections included; handlers are not filtered by tags)."""

    play: Play
    hosts: list[Host]
    tasks: list[Task]
    dynamic: bool = False
    """An earlier play may change the inventory (add_host, group_by): the run selects the hosts
    again when the play starts, and warns then about a pattern that matches nothing."""

    def selected_ids(self) -> frozenset[int]:
        return frozenset(id(task) for task in self.tasks)


@dataclass
class Plan:
    options: RunOptions
    playbook: Playbook
    inventory: Inventory
    plays: list[PlayPlan]
    unknown_modules: list[Task] = field(default_factory=list)
    unsupported: list[tuple[str, Span | None]] = field(default_factory=list)
    """Keywords the engine would have to ignore, and where (see unsupported_keywords)."""
    warnings: list[str] = field(default_factory=list)
    host_pattern_mismatch: str = "warning"


class PlanError(Exception):
    """The launch cannot be planned; ``exit_code`` is what ansible-playbook would exit with."""

    def __init__(self, message: str, exit_code: int = EXIT_ERROR) -> None:
        super().__init__(message)
        self.exit_code = exit_code


def make_plan(options: RunOptions, cache: SourceCache | None = None,
              has_module: Callable[[str], bool] | None = None, dynamic_inventory: bool = True,
              select_tasks: bool = True) -> Plan:
    """Resolve the launch into a :class:`Plan`. Reads files only, except inventory scripts and
    ``constructed`` sources when ``dynamic_inventory`` (a run needs its real hosts; showing
    variables runs nothing); raises :class:`PlanError`. Without ``select_tasks`` each play's
    ``tasks`` stay empty (what the tag selection runs is not needed to show variables)."""
    from engine.config import AnsibleConfig
    from engine.inventory.manager import InventoryAborted, load_inventory
    from engine.inventory.patterns import HostPatternError, select_hosts
    from engine.resolve import Resolver
    from engine.source import SourceCache

    cache = cache or SourceCache()
    if not os.path.isfile(options.playbook):
        raise PlanError(f"the playbook: {options.playbook} could not be found")
    config = AnsibleConfig.load()
    # ansible-playbook's playbook directory is the playbook's: its group_vars/host_vars apply too
    playbook_dir = os.path.dirname(os.path.abspath(options.playbook))
    try:
        inventory = load_inventory(options.inventory, cache, dynamic=dynamic_inventory, playbook_dir=playbook_dir,
                                   settings=config.inventory)
    except InventoryAborted as aborted:
        raise PlanError(str(aborted)) from None
    resolver = Resolver(sources=cache, config=config, extra_vars=options.extra_vars)
    book = resolver.load_playbook(options.playbook)
    fatal = book.fatal_problems()
    if fatal:
        raise PlanError(str(fatal[0]), fatal[0].exit_code)
    selection = options.selection()
    plays: list[PlayPlan] = []
    warnings = list(inventory.warnings)
    dynamic = False
    for play in book.plays:
        try:  # a play after one that changes the inventory is warned about when it starts
            hosts = select_hosts(inventory.data, play.hosts, options.limit, warnings=[] if dynamic else warnings,
                                 mismatch="ignore" if dynamic else config.inventory.host_pattern_mismatch)
        except HostPatternError as exc:
            raise PlanError(str(exc)) from None
        plays.append(PlayPlan(play, hosts, selected_run_tasks(play, selection) if select_tasks else [],
                              dynamic=dynamic))
        dynamic = dynamic or _changes_inventory(play)
    plan = Plan(options, book, inventory, plays, warnings=warnings,
                host_pattern_mismatch=config.inventory.host_pattern_mismatch)
    if has_module is not None:
        plan.unknown_modules = [task for task in _every_task(book) if not _known(task.action, has_module)]
        plan.unsupported = unsupported_keywords(book)
    return plan


# Keywords the bundled engine does not implement: running as if they were absent would be wrong
# (another host, another user, a batch size...), so a run refuses them up front.
UNSUPPORTED_KEYWORDS = frozenset({
    "become_method", "become_flags", "become_exe", "debugger", "strategy",
})
# values of those keywords that change nothing the engine does: it never starts a debugger, its
# strategy is the linear one, and become goes through sudo (engine.run.become)
HARMLESS_VALUES: dict[str, tuple[object, ...]] = {
    "debugger": ("never",),
    "become_method": ("sudo", "ansible.builtin.sudo", "ansible.legacy.sudo"),
    "strategy": ("linear", "ansible.builtin.linear", "ansible.legacy.linear",
                 "free", "ansible.builtin.free", "ansible.legacy.free"),  # engine.run.free
}


def _unsupported(keyword: str, value: object) -> bool:
    return keyword in UNSUPPORTED_KEYWORDS and value not in HARMLESS_VALUES.get(keyword, ())


def unsupported_keywords(book: Playbook) -> list[tuple[str, Span | None]]:
    """Each (keyword, where) the engine would have to ignore, once per place it is written: on a
    play, block, role entry or task (inherited or not), or ``connection`` other than local."""
    found: dict[tuple[str, str], tuple[str, Span | None]] = {}

    def note(keyword: str, span: Span | None, owner: object) -> None:
        found.setdefault((keyword, span.human() if span else f"#{id(owner)}"), (keyword, span))

    from engine.run.free import SUPPORTED, default_strategy

    for play in book.plays:
        data = play.data if isinstance(play.data, Mapping) else {}
        for keyword, value in data.items():
            if _unsupported(keyword, value):
                # a strategy is named in the message: "strategy: host_pinned"
                named = f"{keyword}: {value}" if keyword == "strategy" and isinstance(value, str) else keyword
                note(named, play.frame.keyword_spans.get(keyword) or play.span, play)
        if not data.get("strategy") and default_strategy() not in SUPPORTED:
            note(f"strategy: {default_strategy()} (DEFAULT_STRATEGY)", play.span, play)
    for task in _every_task(book):
        inherited = set()
        for frame in task.chain:
            inherited |= set(frame.keywords)
            for keyword, value in frame.keywords.items():
                if _unsupported(keyword, value) or (keyword == "connection" and value not in LOCAL_CONNECTIONS):
                    note(keyword, frame.keyword_spans.get(keyword) or frame.span, frame)
        data = task.data if isinstance(task.data, Mapping) else {}
        for keyword, value in data.items():  # task-only keywords (until, retries, async...) are not inherited
            if keyword not in inherited and _unsupported(keyword, value):
                note(keyword, task.span, task)
        become = task.effective("become")
        user = task.effective("become_user")
        if isinstance(become, Sourced) and become_refusal(become.value, getattr(user, "value", None)):
            note("become", become.frame.keyword_spans.get("become") or become.frame.span, become.frame)
    return list(found.values())


def selected_run_tasks(play: Play, selection: Selection) -> list[Task]:
    """The tasks of ``play`` a run executes, in order, after tag filtering: every section of
    every block, as ansible's ``filter_tagged_tasks`` keeps them. Raises PlanError when tags
    cannot be templated, where ansible-playbook stops too."""
    evaluator = TagEvaluator()
    selected: list[Task] = []
    for block in play.compile():
        for task in block.tasks():
            try:
                tags = evaluator.evaluate(task)
            except TagTemplateError as exc:
                raise PlanError(str(exc.problem), exc.problem.exit_code) from None
            if should_run(tags, selection):
                selected.append(task)
    return selected


def _changes_inventory(play: Play) -> bool:
    """Whether the play has an add_host or group_by task (statically known)."""
    from engine.run.inventory_changes import CHANGES_INVENTORY

    return any(task.action in CHANGES_INVENTORY for task in _play_tasks(play))


def _known(action: str, has_module: Callable[[str], bool]) -> bool:
    return action in ENGINE_ACTIONS or has_module(action)


def _every_task(book: Playbook) -> Iterator[Task]:
    """Every task a run may reach, the statically known children of includes included."""
    for play in book.plays:
        yield from _play_tasks(play)


def _play_tasks(play: Play) -> Iterator[Task]:
    def walk(blocks: list[Block]) -> Iterator[Task]:
        for block in blocks:
            for task in block.tasks():
                yield task
                yield from walk(task.children)

    yield from walk([*play.compile(), *play.handlers])


def unknown_module_problems(plan: Plan) -> list[Problem]:
    """What stops a run with the bundled engine: modules it lacks, keywords it does not implement."""
    from engine.run.modules import missing_module_message

    hint = "Run with --engine ansible to use ansible-playbook."
    return [Problem("unknown-module", missing_module_message(task.action), task.span, hint)
            for task in plan.unknown_modules] + [
        Problem("unsupported-keyword", f"playbook-ls's engine does not implement '{keyword}'", span, hint)
        for keyword, span in plan.unsupported]


def render_plan(plan: Plan) -> str:
    """The plan as text, for ``run --dry``: per play its hosts and its tasks with their tags."""
    lines = [f"playbook: {plan.playbook.path}"]
    options = plan.options
    mode = [name for name, on in (("check", options.check), ("diff", options.diff)) if on]
    if mode:
        lines.append(f"mode: {', '.join(mode)}")
    for index, play_plan in enumerate(plan.plays, 1):
        play = play_plan.play
        hosts = ", ".join(h.name for h in play_plan.hosts) or "(no hosts matched)"
        lines += ["", f"play #{index} ({','.join(play.hosts)}): {play.name}", f"  hosts: {hosts}", "  tasks:"]
        for task in play_plan.tasks:
            if task.implicit:
                continue
            tags = ", ".join(sorted(str(t) for t in task.tag_set()))
            where = f"  ({task.span.human()})" if task.span else ""
            lines.append(f"    {task.display_name()}\tTAGS: [{tags}]{where}")
    return "\n".join(lines) + "\n"
