"""What a launch would run where, computed without touching any host.

:func:`make_plan` resolves the playbook, reads the inventory, selects each play's hosts (the
play's ``hosts:`` within ``--limit``) and its tasks (tag selection exactly as
``ansible-playbook`` does it, ``never`` and ``always`` included). Everything static reads a
launch through it (variables, findings, hovers); the bundled engine (``engine.run``) adds what
it needs to run it (engine.run.preflight) and executes it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from engine.config import DEFAULT_HOST_LIST
from engine.flow.tags import Selection, TagEvaluator, TagTemplateError, should_run
from engine.flow.unrun_hosts import maybe_hosts, more_hosts
from engine.loading import keywords as kw
from engine.loading.model import Block, Play, Playbook, Problem, Task
from engine.loading.vaulted_vars import LOAD_TIME_MAGIC, first_stop
from engine.span import Span
from engine.variables import magic
from engine.vault import password_file_error

if TYPE_CHECKING:
    from engine.inventory.data import Host
    from engine.inventory.manager import Inventory
    from engine.launch.prompting import Launch
    from engine.parsing.source import SourceCache
    from engine.variables.fact_cache import HostFacts

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
    forks: int | None = None
    """``--forks``; None: ansible.cfg's."""
    force_handlers: bool = False
    """``--force-handlers``: the default of every play's ``force_handlers``."""
    start_at_task: str | None = None
    """``--start-at-task``: the name (or pattern) of the task the run starts at (engine.run.start_at)."""
    remote_user: str | None = None
    """``-u``/``--user``; None: ansible.cfg's ``remote_user`` (:attr:`Plan.remote_user`)."""
    option_vars: dict[str, Any] = field(default_factory=dict)
    """The ``ansible_*`` option variables (engine.launch.prompting.option_vars); by default, those of
    these options."""

    def __post_init__(self) -> None:
        if not self.option_vars:
            self.option_vars = self.launch_values().variables()

    def launch_values(self, default_sources: Sequence[str] = (DEFAULT_HOST_LIST,)) -> magic.RunOptions:
        """The options that become variables, with ``default_sources`` as the inventory when
        none is given (ansible.cfg's, where it names one)."""
        return magic.RunOptions(inventory_sources=magic.command_line_sources(self.inventory, default_sources),
                                tags=self.tags, skip_tags=self.skip_tags, limit=self.limit, check=self.check,
                                diff=self.diff, forks=self.forks, verbosity=self.verbosity)

    def selection(self) -> Selection:
        return Selection.from_options(self.tags, self.skip_tags)

    @classmethod
    def from_launch(cls, launch: Launch, playbook: str, cwd: str) -> RunOptions:
        """What a resolved launch gives ansible-playbook; relative inventories resolve from ``cwd``."""
        from engine.launch.prompting import given_diff, given_forks, inventory_sources, option_vars

        return cls(playbook=playbook, inventory=inventory_sources(launch, cwd), limit=launch.limit,
                   tags=launch.job_tags, skip_tags=launch.skip_tags, extra_vars=launch.extra_vars,
                   check=launch.check_mode, diff=given_diff(launch), verbosity=launch.verbosity,
                   forks=given_forks(launch), option_vars=option_vars(launch, cwd))


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
    order_known: bool = True
    """False when the play's ``order`` is ``shuffle`` (or a template): ``hosts`` are then in
    inventory order, the run's order is its own."""
    hosts_all: list[str] = field(default_factory=list)
    """The hosts' names in inventory order, whatever the play's ``order``: ``ansible_play_hosts_all``
    and ``ansible_play_hosts`` keep it, only the batches follow ``order`` (empty: as ``hosts``)."""
    pattern_warnings: list[str] = field(default_factory=list)
    """ansible's warnings for the parts of the play's ``hosts`` (and ``--limit``) that match
    nothing, shown when the play starts: the play's magic variables select its hosts first."""
    maybe: dict[str, str] = field(default_factory=dict)
    """The hosts of ``hosts`` that are in the play only maybe, each with why: an inventory source not
    run may put hosts in a group the play names (engine.flow.unrun_hosts)."""
    more_hosts: str | None = None
    """Why the play may also run on hosts no source read names (an inventory script not run may add
    hosts of its own: engine.flow.unrun_hosts.more_hosts), or None."""

    left_out: dict[int, str] = field(default_factory=dict)
    """Tasks (by id) a run option other than the tags leaves out of ``tasks``, and why
    (``--start-at-task`` in a plan of what will run: engine.run.start_at.plan_start)."""

    left_out_hosts: dict[int, tuple[frozenset[str], str]] = field(default_factory=dict)
    """Tasks (by id) that run, but not on some hosts, and why: the first batch of a play of several
    that ``--start-at-task`` starts after them (engine.run.start_at.plan_start)."""

    def selected_ids(self) -> frozenset[int]:
        return frozenset(id(task) for task in self.tasks)


@dataclass
class Plan:
    options: RunOptions
    playbook: Playbook
    inventory: Inventory
    plays: list[PlayPlan]
    unknown_modules: list[Task] = field(default_factory=list)
    unknown_filters: list[tuple[str, Span | None]] = field(default_factory=list)
    """Filters the engine lacks, each with where it is first used (engine.run.filter_check)."""
    unsupported: list[tuple[str, Span | None]] = field(default_factory=list)
    """Keywords the engine would have to ignore, and where (engine.run.preflight.unsupported_keywords)."""
    warnings: list[str] = field(default_factory=list)
    host_pattern_mismatch: str = "warning"
    remote_user: str | None = None
    """The play context's user before any keyword or variable: ``-u``, else ansible.cfg's
    ``remote_user`` (the command line's default), else none."""
    facts: dict[str, HostFacts] = field(default_factory=dict)
    """Facts known before the run, per host (engine.variables.fact_cache): only a plan of what will run
    where reads them."""


class PlanError(Exception):
    """The launch cannot be planned; ``exit_code`` is what ansible-playbook would exit with."""

    def __init__(self, message: str, exit_code: int = EXIT_ERROR, problem: Problem | None = None,
                 ansible_text: str | None = None) -> None:
        super().__init__(message)
        self.exit_code = exit_code
        self.problem = problem  # the playbook's problem that stopped it, if that is what did
        self.ansible_text = ansible_text
        """What ansible-playbook prints as it stops (warnings too), printed instead of the message."""
        self.warnings: list[str] = []
        """The warnings ansible-playbook prints before it reads the playbook (the inventory's, its
        host list's), when loading the playbook stopped it."""


def make_plan(options: RunOptions, cache: SourceCache | None = None, dynamic_inventory: bool = True,
              select_tasks: bool = True, load_warnings: Callable[[Play], list[str]] | None = None,
              load_stop: Callable[[Playbook, Span | None], PlanError | None] | None = None) -> Plan:
    """Resolve the launch into a :class:`Plan`. Reads files only, except inventory scripts and
    ``constructed`` sources when ``dynamic_inventory`` (a run needs its real hosts; showing
    variables runs nothing); raises :class:`PlanError`. Without ``select_tasks`` each play's
    ``tasks`` stay empty (what the tag selection runs is not needed to show variables).
    ``load_warnings`` gives the warnings loading a play prints besides the loader's own (a run's
    reserved variable names), before them. ``load_stop`` gives an error of loading the playbook
    found after it is loaded (a run's ``with_`` lookup ansible cannot find), which stops ansible
    first where its task is loaded before the task of the load problem at the span it is given
    (None: a problem after loading)."""
    from engine.config import AnsibleConfig
    from engine.inventory.manager import InventoryAborted, load_inventory
    from engine.inventory.patterns import HostPatternError, select_hosts
    from engine.loading.resolve import Resolver
    from engine.parsing.source import SourceCache

    cache = cache or SourceCache()
    if not os.path.isfile(options.playbook):
        raise PlanError(f"the playbook: {options.playbook} could not be found")
    config = AnsibleConfig.load()
    if (vault_error := password_file_error()) is not None:  # ansible-playbook stops before it reads anything
        raise PlanError(vault_error)
    # ansible-playbook's playbook directory is the playbook's: its group_vars/host_vars apply too
    playbook_dir = os.path.dirname(os.path.abspath(options.playbook))
    launch = options.launch_values(config.inventory.sources)
    if not options.inventory:  # without -i, ansible reads ansible.cfg's inventory (else /etc/ansible/hosts)
        options = replace(options, option_vars=launch.variables())
    try:
        # ansible-playbook's -e reach constructed's use_extra_vars, not the inventory's variables
        inventory = load_inventory(options.inventory or launch.inventory_sources, cache, dynamic=dynamic_inventory,
                                   playbook_dir=playbook_dir, settings=config.inventory,
                                   plugin_extra_vars=options.extra_vars)
    except InventoryAborted as aborted:
        raise PlanError(str(aborted)) from None
    resolver = Resolver(sources=cache, config=config, extra_vars=options.extra_vars,
                        magic=magic.load_time_variables(launch, inventory.data.get_groups_dict(), config.path))
    # the inventory is loaded before the limit is checked (CLI.get_host_list), then the playbook,
    # whole, before its first play; a play's own pattern is warned about when the play starts
    before_playbook = [*inventory.warnings, *_host_list_warnings(inventory.data, options.limit, config.inventory)]
    book = resolver.load_playbook(options.playbook)
    stop = first_stop(book, {*options.extra_vars, *resolver.magic, *LOAD_TIME_MAGIC})
    if stop is not None:
        if load_stop is not None and (stop.after_load or stop.span is not None):
            earlier = load_stop(book, None if stop.after_load else stop.span)
            if earlier is not None:
                raise earlier
        error = PlanError(str(stop), stop.exit_code, stop)
        error.warnings = before_playbook
        raise error
    selection = options.selection()
    plays: list[PlayPlan] = []
    warnings = [*before_playbook,
                *(warning for play in book.plays
                  for warning in [*(load_warnings(play) if load_warnings else []), *play.load_warnings])]
    dynamic = False
    for play in book.plays:
        pattern_warnings: list[str] = []
        try:  # a play after one that changes the inventory selects its hosts when it starts
            hosts = select_hosts(inventory.data, play.hosts, options.limit, warnings=pattern_warnings,
                                 mismatch="ignore" if dynamic else config.inventory.host_pattern_mismatch)
        except HostPatternError as exc:
            raise PlanError(str(exc)) from None
        hosts, maybe = maybe_hosts(inventory.data, play.hosts, options.limit, hosts, inventory.unrun)
        ordered, order_known = play_order(play, hosts)
        plays.append(PlayPlan(play, ordered, selected_run_tasks(play, selection) if select_tasks else [],
                              dynamic=dynamic, order_known=order_known, hosts_all=[host.name for host in hosts],
                              pattern_warnings=pattern_warnings, maybe=maybe,
                              more_hosts=more_hosts(inventory.data, play.hosts, inventory.unrun, options.limit)))
        dynamic = dynamic or _changes_inventory(play)
    return Plan(options, book, inventory, plays, warnings=warnings,
                host_pattern_mismatch=config.inventory.host_pattern_mismatch,
                remote_user=options.remote_user if options.remote_user is not None else config.remote_user)


def _host_list_warnings(inventory: Any, limit: str | None, settings: Any) -> list[str]:
    """ansible-playbook's warnings as it checks the hosts to target (``CLI.get_host_list``),
    before it loads the playbook: an inventory without hosts (unless ``localhost_warning`` is
    off), then the ``--limit`` patterns that match nothing; an error there is the plays' to raise."""
    from engine.inventory.patterns import EMPTY_INVENTORY_WARNING, HostPatternError, select_hosts

    warnings = [EMPTY_INVENTORY_WARNING] if settings.localhost_warning and not select_hosts(inventory, "all") else []
    if limit:
        try:
            select_hosts(inventory, "all", limit, warnings=warnings, mismatch=settings.host_pattern_mismatch)
        except HostPatternError:
            pass
    return warnings


def play_order(play: Play, hosts: list[Host]) -> tuple[list[Host], bool]:
    """The play's hosts in its ``order`` (``InventoryManager.get_hosts``: ``inventory``,
    ``reverse_inventory``, ``sorted``, ``reverse_sorted``), and whether that order is known
    before the run (not with ``shuffle`` or a template)."""
    order = play.data.get("order") if isinstance(play.data, dict) else None
    if order in (None, "inventory"):
        return hosts, True
    if order in ("sorted", "reverse_sorted"):
        return sorted(hosts, key=lambda host: host.name, reverse=order == "reverse_sorted"), True
    if order == "reverse_inventory":
        return hosts[::-1], True
    return hosts, False


def selected_run_tasks(play: Play, selection: Selection) -> list[Task]:
    """The tasks of ``play`` a run executes, in order, after tag filtering: every section of
    every block, as ansible's ``filter_tagged_tasks`` keeps them. Raises PlanError when tags
    cannot be templated, where ansible-playbook stops too."""
    evaluator = TagEvaluator.for_play(play)
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
    return any(task.action in kw.CHANGES_INVENTORY for task in play_tasks(play))


def every_task(book: Playbook) -> Iterator[Task]:
    """Every task a run may reach, the statically known children of includes included."""
    for play in book.plays:
        yield from play_tasks(play)


def play_tasks(play: Play) -> Iterator[Task]:
    yield from tasks_within([*play.compile(), *play.handlers])


def tasks_within(items: Iterable[Block | Task]) -> Iterator[Task]:
    """Every task of ``items`` (blocks, with all their sections, or tasks), each followed by the
    statically known children of an include."""
    for item in items:
        for task in item.tasks() if isinstance(item, Block) else (item,):
            yield task
            yield from tasks_within(task.children)
