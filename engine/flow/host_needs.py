"""A task on a host as what it reads: the host's variables at the task, and which of the names its
conditions, loop and arguments read only the run knows, with the reason (a fact gathered at run time,
a value tasks before set per host, an item of the looping include that loads it). The outcome of the
task (engine.flow.host_outcome) is decided on top of it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from engine.config import inject_facts_as_vars
from engine.flow.host_reading import include_loop_names, include_set_names, runs_setup, strings
from engine.flow.loops import loop_of
from engine.flow.removed_hosts import PLAY_LISTS, RemovedHosts
from engine.flow.shared_outcomes import _HOST_IDENTITY, _SAME_ON_EVERY_HOST, _SET_PER_HOST, _ReadsMore
from engine.templating.variable_uses import names_read, told_names
from engine.variables import host_answers as answers
from engine.variables import task_variables
from engine.variables.host_facts import facts_cleared
from engine.variables.raw import looks_like_fact
from engine.variables.report import layers_at

if TYPE_CHECKING:
    from engine.flow.outcomes import HostOutcome
    from engine.flow.plan import Plan, PlayPlan
    from engine.flow.rebound import Identities
    from engine.inventory.data import Host
    from engine.loading.model import Task
    from engine.variables.task_variables import Resolved, TaskVariables

# names whose values the run may change behind any static reading of them (a failure a rescue
# section takes over sets the ansible_failed_* ones, for the rest of the run)
_RUN_FILLED = answers.RESCUE | {"vars"}
NOWHERE = "defined nowhere on the way to this task"
INCLUDE_ITEM = "an item of the looping include"


class HostNeeds:
    """One task on one host, as the names it reads and what the run alone knows of them."""

    def __init__(self, plan: Plan, play_plan: PlayPlan, host: Host, task: Task) -> None:
        self.plan, self.play_plan, self.host, self.task = plan, play_plan, host, task
        self._variables: TaskVariables | None = None
        self._levels: tuple[tuple[int, ...], Any, dict[Any, Any]] | None = None
        """The task's levels on the host (engine.variables.report.layers_at) under ``_outer``, once
        found: each name the reading reads next is looked up in them, not in levels walked again;
        with what variables_at works out of them whatever the names (its ``kept``)."""
        self._resolved: dict[str, Resolved] = {}
        self._unknown: dict[str, str | None] = {}
        self._needs_of: dict[tuple[str, tuple[str, ...]], str | None] = {}  # by expression and item names (_needs)
        self._overrides: dict[str, Any] = {}
        self._rebound = False
        self._allowed: frozenset[str] = _HOST_IDENTITY | _SAME_ON_EVERY_HOST
        """A rebound reading's: the names it may read, whose values are the first host's."""
        cached = getattr(plan, "facts", {}).get(host.name)
        self._facts: dict[str, Any] | None = cached.variables(inject_facts_as_vars()) if cached else None
        if cached and facts_cleared(plan, play_plan, host, task):  # a meta: clear_facts emptied the cache
            self._facts = {"ansible_facts": {}}
        self.touched: set[str] = set()
        """Every name the outcome read, also through the templates of values."""
        self.set_per_host: set[str] = set()
        """The names read whose values tasks may set on each host (:data:`_SET_PER_HOST`)."""
        self.facts_read: set[str] = set()
        """Those of them that are facts the run gathers, or ``ansible_*`` names nothing on the way defines (a
        fact it may gather, or none): keyed by the host's facts, cached or where the run gathers them
        (host_facts.facts_unknown)."""
        self.removed: RemovedHosts | None = None
        self._ran_once: dict[str, HostOutcome] = {}
        self._include_item: Mapping[str, Any] | None = None
        """The loop variables of one item of the looping include that loads the task, when the
        outcome is read item by item (engine.flow.include_items)."""
        self._outer: tuple[int, ...] = ()
        """With ``_include_item``: the item's place in each looping include (the includes' vars
        templated with it)."""
        self._loops_touched = False
        """Whether the names the looping includes' loops read are read already (:meth:`_touch_include_loops`)."""
        self._loop_scopes: list[Mapping[str, Any]] | HostOutcome | None = None
        self._scopes_shared = False
        self._loop_undefined = False
        """Whether the loop's items failed on an undefined variable (ansible raises it after the task's when)."""
        """Whether the loop's items read nothing of the host's identity: a rebound reading's are the same."""
        self._identities: Identities | None = None
        """A rebound reading's: the task's hosts, whose conditions it renders at once (engine.flow.rebound)."""
        self._conditions_read: dict[str, Any] = {}
        """Each condition's value without an item, as read (what a reading rebound by name may take of it)."""
        self._name_free: dict[str, bool] = {}
        """By condition: whether a reading rebound by name takes its value (engine.flow.named_readings.name_free)."""
        self._named_first: HostNeeds | None = None
        """A reading rebound by name (with the names read): the first host's reading."""
        self.argument_failures: dict[str, str | None] = {}
        """Why templating the task's arguments fails it, by item (its ``repr``), as read on this host."""

    def _task_variables(self, names: list[str]) -> TaskVariables:
        wanted = list(dict.fromkeys(name for name in names if name not in self._resolved))
        if self._variables is None or wanted:
            if self._levels is None or self._levels[0] != self._outer:
                self._levels = (self._outer, layers_at(self.plan, self.play_plan, self.host, self.task, 0, self._outer),
                                {})
            found = task_variables.variables_at(self.plan, self.play_plan, self.host, self.task, wanted,
                                                outer=self._outer, levels=self._levels[1], kept=self._levels[2])
            self._resolved.update(found.variables)
            self._variables = self._variables or found
        return self._variables

    def _needs(self, text: str, item: Mapping[str, Any]) -> str | None:
        """What only the run knows that ``text`` (an expression) reads, as words; None if nothing.
        The same for every item of a loop (the names an item binds are left out, and every item binds
        the same ones): worked out once per expression and item names, not once per item."""
        key = (text, tuple(item))
        if key in self._needs_of:
            return self._needs_of[key]
        names = names_read(text, expression=True)
        self._touch_unnamed(text, True)
        found = "an expression playbook-ls cannot read" if names is None else \
            self._needs_names([name for name in names if name not in item], told_names(names, text, True) - set(item))
        self._needs_of[key] = found
        return found

    def _certainly_set(self, text: str, item: Mapping[str, Any]) -> bool:
        """Whether every name ``text`` reads that only the run knows is one it certainly sets, to a
        value only it gives (engine.templating.defined_only): what the templar says of whether it
        is defined is then the run's answer too."""
        names = names_read(text, expression=True)
        unknown = [name for name in names or () if name not in item and self._unknown_reason(name, 0)]
        return names is not None and all(
            not self._run_filled(name) and (resolved := self._resolved.get(name)) is not None and
            bool(resolved.definitions) and getattr(resolved.definitions[0].value, "defined", False)
            for name in unknown)

    def _needs_value(self, value: Any, item: Mapping[str, Any]) -> str | None:
        names: set[str] = set()
        told: set[str] = set()
        for text in strings(value):
            found = names_read(text, expression=False)
            if found is None:
                return "a template playbook-ls cannot read"
            names |= found
            told |= told_names(found, text, False)
            self._touch_unnamed(text, False)
        return self._needs_names([name for name in names if name not in item], told - set(item))

    def _touch_unnamed(self, text: str, expression: bool) -> None:
        """Where ``text`` reads variables it does not name (a ``lookup('template', ...)``), the reading
        read the host's own variables, as through ``vars``: no other host's reading is its answer."""
        from engine.templating.variable_uses import reads_unnamed

        if reads_unnamed(text, expression):
            if self._rebound:
                raise _ReadsMore  # (never kept for another host: see _SharedOutcomes)
            self.touched.add("vars")

    def _needs_names(self, names: list[str], told: set[str] | None = None) -> str | None:
        """Why the run alone knows ``names`` here (None: nothing of them); ``told``: the names as the
        reading's key tells them (engine.templating.variable_uses.told_names), else ``names``."""
        if self._rebound and not set(names) <= self._allowed:
            raise _ReadsMore  # the first host's variables are not this host's
        self.touched.update(names if told is None else told)
        self._task_variables([name for name in names if not self._run_filled(name)])  # one lookup for all
        reasons = [reason for name in sorted(names) if (reason := self._unknown_reason(name, 0))]
        return "; ".join(reasons) or None

    def _touch_include_loops(self) -> None:
        """Read what the loops of the looping includes around the task read: their items are the
        values of their loop variables, which tell hosts apart as those names do (_SharedOutcomes)."""
        from engine.variables.play_order import play_order

        if self._loops_touched:
            return
        self._loops_touched = True
        for include in play_order(self.play_plan.play).includers.get(id(self.task), []):
            loop = loop_of(include)
            if loop is not None:
                self._needs_value(loop[1], {})

    def _set_by_a_task(self, name: str) -> bool:
        """Whether a task of this play or an earlier one may set ``name`` on some host. Never
        ``hostvars``, the magic variable no layer shows (engine.variables.report): ansible puts the
        magic variables over every level, a task's set_fact among them."""
        from engine.variables.names_before import names_set_before
        from engine.variables.play_order import play_order

        if name == "hostvars":
            return False
        names = names_set_before(self.plan, self.play_plan, play_order)
        return names is None or name in names

    def _unknown_reason(self, name: str, depth: int) -> str | None:
        """Why the run alone knows ``name`` here (also through the templates its value holds)."""
        if name in self._unknown:
            return self._unknown[name]
        if self._run_filled(name):
            filled = "set when a rescue section starts" if name.startswith("ansible_failed_") else "the run fills it"
            return f"`{name}` ({filled})"
        if self._include_item is not None and name in self._include_item:
            return None  # read at one item of the include (engine.flow.include_items)
        if name in include_loop_names(self.play_plan.play, self.task):
            self._touch_include_loops()
            return f"`{name}`, {INCLUDE_ITEM} that loads the task (it runs once per item)"
        if self._include_item is None and name in include_set_names(self.play_plan.play, self.task):
            self._touch_include_loops()  # set at each item by the include's file: read item by item
            return f"`{name}`, set at each item by the tasks of {INCLUDE_ITEM} that loads the task"
        self._task_variables([name])
        resolved = self._resolved[name]
        if resolved.definitions and resolved.definitions[0].runtime and \
                not getattr(resolved.definitions[0].value, "uniform", False) or \
                not resolved.definitions and self._set_by_a_task(name):  # here undefined, elsewhere set
            self.touched.add(_SET_PER_HOST)
            self.set_per_host.add(name)
            if any(definition.level == "host facts" for definition in resolved.definitions) or \
                    not resolved.definitions and name.startswith("ansible_") or \
                    looks_like_fact(name):  # (a fact the run may gather, or none; or one under a task's value)
                # the run's facts, under what tasks before may set (keyed by those tasks' walk):
                # keyed by whether and where the run gathers them (a fact named by an include_vars
                # the run alone reads, ``{{ ansible_os_family }}.yml``, is the fact beneath it)
                self.facts_read.add(name)
        reason: str | None = None
        if self.removed is not None and name in PLAY_LISTS:  # less the hosts failed or ended by now
            value, reason = self.removed.value(name, resolved.value, self.host.name)
            if reason is not None:
                self._unknown[name] = reason = f"`{name}`: {reason}"
                return reason
            self._overrides[name] = value
        facts_name = name == "ansible_facts"
        if self._facts is not None and name in self._facts and (facts_name or resolved.unknown == NOWHERE) \
                and not self._gathers_facts():  # gathering replaces cached facts with the host's own
            self._overrides[name] = self._facts[name]  # the host's cached fact
        elif self._facts is not None and name in self._facts and (facts_name or resolved.unknown == NOWHERE):
            reason = f"`{name}`: cached, but gathered again (or cleared) at run time"
        elif facts_name and resolved.unknown is None and self._gathers_facts():
            reason = "`ansible_facts` (gathered earlier in the run)"  # the play's own {} says otherwise
        elif resolved.unknown == NOWHERE:
            if name.startswith("ansible_") and self._gathers_facts():
                reason = f"`{name}` (a fact, gathered at run time)"
        elif resolved.unknown and resolved.kept is None:  # (a kept value: what is read of it may be known)
            reason = f"`{name}`: {resolved.unknown}"
        elif resolved.template is not None:
            self._unknown[name] = None  # a value inside itself is refused by the templar itself
            inner = self._needs_value(resolved.template, {}) if depth < 20 else "a value nested too deeply"
            reason = f"`{name}`, which needs {inner}" if inner else None
        self._unknown[name] = reason
        return reason

    def _run_filled(self, name: str) -> bool:
        """Whether only the run can fill ``name`` here (``hostvars`` of another host is that host's
        values as ``vars`` follows them: inventory, cached facts, earlier tasks, each host once)."""
        return name in _RUN_FILLED

    def _gathers_facts(self) -> bool:
        """Whether the run may have gathered facts for the host by this play: it or a play
        before it gathers them, or runs ``setup`` / ``gather_facts`` (facts stay for the run)."""
        from engine.variables.sources import gathers_facts

        kept = self.play_plan.__dict__.get("gathers facts by now")  # once per plan and play: it reads ansible.cfg
        if kept is None or kept[0] is not self.plan:
            plays = [pp.play for pp in getattr(self.plan, "plays", ())]
            current = self.play_plan.play
            before = plays[:plays.index(current)] if current in plays else []
            kept = self.play_plan.__dict__["gathers facts by now"] = (
                self.plan, any(gathers_facts(play) or runs_setup(play) for play in [*before, current]))
        return kept[1]  # type: ignore[no-any-return]
