"""What a run shows: text like ansible's default stdout callback, the recap, the JSON record.

The counters follow ``AggregateStats`` as the strategy feeds it: ``ok`` counts changed results
too, an ignored failure is ``ok`` + ``ignored`` (+ ``changed`` when its result is), a failure
that a rescue section catches is ``rescued`` (not ``failed``), a loop counts once.
"""

from __future__ import annotations

import datetime
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from engine.loading.model import Task

COLUMNS = 79  # ansible's width when stdout is not a terminal
# a run of surrogate escapes: one encoding error of ansible's stdout, which its handler makes one "?"
_SURROGATES = re.compile("[\ud800-\udfff]+")
DEBUG_ACTIONS = frozenset({"debug", "ansible.builtin.debug", "ansible.legacy.debug"})
HIDE_IN_DEBUG = ("changed", "failed", "skipped", "invocation", "skip_reason", "ansible_loop_var",
                 "ansible_index_var", "ansible_loop")
HELD = "_ansible_held_warnings"
"""What an include loop's item warned while it ran (thunks that show it), for its line."""
RETRIED = "_ansible_retried"  # engine.run.retries.RETRIED: the attempts a result was retried after
CENSORED_ITEM, NO_LOG = "(censored due to no_log)", "_ansible_no_log"  # engine.run.censoring
COUNTERS = ("ok", "changed", "unreachable", "failed", "skipped", "rescued", "ignored")


def host_label(host: str, result: dict[str, Any], delegated: str | None = None) -> str:
    """``CallbackBase.host_label``: the host, and the host the task was delegated to (and its
    address, when it has another), as in ``ok: [web1 -> localhost]``."""
    delegated_vars = result.get("_ansible_delegated_vars")
    if isinstance(delegated_vars, dict):
        delegated = delegated_vars.get("ansible_delegated_host", delegated)
    else:
        delegated_vars = {}
    label = host
    if delegated and delegated != host:
        label += f" -> {delegated}"
        address = delegated_vars.get("ansible_host", delegated)
        if address != delegated:
            label += f"({address})"
    return label


def banner(text: str) -> str:
    text = text.strip()
    return f"\n{text} {'*' * max(3, COLUMNS - len(text))}"


@dataclass
class HostStats:
    ok: int = 0
    changed: int = 0
    unreachable: int = 0
    failed: int = 0
    skipped: int = 0
    rescued: int = 0
    ignored: int = 0

    def as_dict(self) -> dict[str, int]:
        return {name: getattr(self, name) for name in COUNTERS}


@dataclass
class TaskRecord:
    task: str
    host: str
    status: str


@dataclass
class Outcome:
    """How the strategy judged one task result for one host."""

    status: str  # ok | changed | skipped | failed | unreachable
    ignored: bool = False
    rescued: bool = False
    changed: bool = False  # a failed result can be changed too; an ignored one counts as such
    oks: int = 1  # an include counts ok once per file it included: a looped one once per item


def verbose_always(result: dict[str, Any], action: str) -> bool:
    """Whether the action asked the callback to show its result (``_ansible_verbose_always``):
    debug does once it ran (a debug task that fails, fails before), assert unless quiet (the
    engine's assert sets the key)."""
    if result.get("_ansible_verbose_always"):
        return True
    if "censored" in result:  # a no_log result keeps none of what asked to show it
        return False
    return action in DEBUG_ACTIONS and not result.get("skipped") and not result.get("failed")


def is_failed(result: Mapping[str, Any]) -> bool:
    """``TaskResult.is_failed``: ``failed_when_result`` rules when the result (or an item of
    it) has one (an until that ran out on a result failed_when cleared is not failed), else
    ``failed``; each read at the top, else from any item."""
    items = result.get("results") if isinstance(result.get("results"), list) else []
    key = "failed_when_result" if "failed_when_result" in result or any(
        isinstance(item, Mapping) and "failed_when_result" in item for item in items) else "failed"
    if key in result:
        return bool(result[key])
    return any(isinstance(item, Mapping) and item.get(key) for item in items)


def dump(result: dict[str, Any], action: str, verbosity: int, clean: bool = True) -> str:
    """``_dump_results`` after ``_clean_results``: internal keys gone (and ``failed``/``skipped``,
    which the callback's copy of a result, an item's too, leaves out), JSON sorted, indented when
    the action asks for it (debug, assert) or from -vvv on."""
    shown = {k: _internal_stripped(v) for k, v in result.items() if not k.startswith("_ansible")
             and k not in ("invocation", "diff", "exception", "warnings", "deprecations", "failed", "skipped")}
    indent = 4 if verbose_always(result, action) or verbosity > 2 else None
    if action in DEBUG_ACTIONS and clean:  # _clean_results; a retry line dumps the result as it is
        if "msg" in shown:
            shown = {"msg": shown["msg"]}
        else:
            for key in HIDE_IN_DEBUG:
                shown.pop(key, None)
    return json.dumps(text_keys(shown), indent=indent, ensure_ascii=False, sort_keys=True, default=_json_default)


def _internal_stripped(value: Any) -> Any:
    """``value`` without the ``_ansible_`` keys of the mappings in it, at any depth
    (``strip_internal_keys``: a loop's item results lose their labels); ``value`` itself when it
    holds none."""
    if isinstance(value, Mapping):
        kept = {k: _internal_stripped(v) for k, v in value.items()
                if not (isinstance(k, str) and k.startswith("_ansible_"))}
        same = len(kept) == len(value) and all(kept[k] is value[k] for k in kept)
        return value if same else kept
    if isinstance(value, list):
        items = [_internal_stripped(v) for v in value]
        return value if all(a is b for a, b in zip(items, value, strict=True)) else items
    return value


def text_keys(value: Any) -> Any:
    """``value`` with every mapping key that is no string written as ansible's result encoder
    writes it (``handle_key``: a number or boolean as JSON, ``true``; anything else as its text,
    ``None``), so that the keys sort as text (YAML 1.1's ``on:`` is a boolean key beside strings);
    the value itself when it has no such key."""
    if isinstance(value, Mapping):
        pairs = [(key if isinstance(key, str) else _key_text(key), text_keys(item)) for key, item in value.items()]
        if all(key is old_key and item is value[old_key] for (key, item), old_key in zip(pairs, value, strict=True)):
            return value
        return dict(pairs)
    if isinstance(value, list):
        items = [text_keys(item) for item in value]
        return value if all(new is old for new, old in zip(items, value, strict=True)) else items
    return value


def _key_text(key: Any) -> str:
    return json.dumps(key) if isinstance(key, bool | int | float) else str(key)


def _json_default(value: Any) -> Any:
    """What ansible's result encoder writes for a value JSON has no type for: a date or a time
    (a YAML timestamp's) in ISO format, anything else as its text."""
    if isinstance(value, datetime.date | datetime.time):
        return value.isoformat()
    return str(value)


@dataclass
class Callback:
    """Prints ansible's default output to ``out`` and keeps the stats and the task record."""

    out: TextIO
    verbosity: int = 0
    show_diff: bool = False
    stats: dict[str, HostStats] = field(default_factory=dict)
    records: list[TaskRecord] = field(default_factory=list)
    warned: set[str] = field(default_factory=set)
    errors: set[str] = field(default_factory=set)
    _retry_name: str = ""
    _loop_display: list[tuple[int, str]] | None = None
    """While a looped task runs: what it displays (a lookup's warning), with the number of items
    done by then. ansible's worker sends each item's result as it is made, so what an item's run
    displays comes after the items before it: it is shown there when the items are."""
    _items_done: int = 0
    _pending: list[tuple[int, str]] = field(default_factory=list)

    def _write(self, text: str) -> None:
        """``Display.display``: Windows newlines become Unix ones in whatever it shows, and what
        came from files that are not UTF-8 (kept as surrogate escapes, a ``file`` lookup's) is one
        ``?`` a run of it, after ansible's warning, as its stdout's error handler writes it."""
        if self._loop_display is not None:
            self._loop_display.append((self._items_done, text))
            return
        if _SURROGATES.search(text):
            self.warning('Non UTF-8 encoded data replaced with "?" while displaying text to stdout/stderr.')
            text = _SURROGATES.sub("?", text)
        self.out.write(text.replace("\r\n", "\n"))

    def hold_for_items(self) -> None:
        """A looped task starts: what it displays waits for its items' lines (:meth:`result`)."""
        self._loop_display, self._items_done = [], 0

    def item_finished(self, _result: dict[str, Any]) -> None:
        self._items_done += 1

    def stop_holding(self) -> None:
        """The loop ran: what is displayed now shows at once; what it displayed waits for its result."""
        self._pending, self._loop_display = [*self._pending, *(self._loop_display or [])], None

    def release_held(self) -> None:
        """Show whatever the loop displayed that no result showed (the task ended another way)."""
        self._show_held(self._take_held(), None)

    def _take_held(self) -> list[tuple[int, str]]:
        self.stop_holding()
        held, self._pending = self._pending, []
        return held

    def _show_held(self, held: list[tuple[int, str]], up_to: int | None) -> list[tuple[int, str]]:
        """Show what was displayed before item ``up_to`` ran to its end (None: all); the rest."""
        for done, text in held:
            if up_to is None or done <= up_to:
                self._write(text)
        return [] if up_to is None else [(done, text) for done, text in held if done > up_to]

    def _print(self, text: str) -> None:
        self._write(text + "\n")

    def host(self, name: str) -> HostStats:
        return self.stats.setdefault(name, HostStats())

    def play_start(self, name: str) -> None:
        self._print(banner(f"PLAY [{name}]"))

    def task_start(self, title: str, handler: bool) -> None:
        self._print(banner(f"{'RUNNING HANDLER' if handler else 'TASK'} [{title.strip()}]"))

    def no_more_hosts(self) -> None:
        self._print(banner("NO MORE HOSTS LEFT"))

    def included(self, path: str, hosts: list[str], label: Any = None) -> None:
        # an included file by its absolute path, a role by its name, as IncludedFile names them
        self._print(f"included: {path} for {', '.join(hosts)}"
                    + (f" => (item={label})" if label is not None else ""))

    def include_failed(self, title: str, host: str) -> None:
        """The strategy's failure of a host whose looped include named a missing file: counted
        and recorded, not shown (the loop's items were)."""
        self.records.append(TaskRecord(title.strip(), host, "failed"))
        self._count(self.host(host), Outcome("failed"))

    def warning(self, message: str, task: Task | None = None, cause: str | None = None) -> None:
        """Print a warning once per run: ansible's Display drops a warning it already showed.
        ``task`` is the task being run, for the source context of the warnings that carry one;
        ``cause`` the text of a Python error chained under the message, shown as its own link."""
        if cause is not None:
            from engine.run.error_block import Event, format_events

            message = format_events([Event(message), Event(cause, alone=True)])
        elif task is not None:
            from engine.run.error_block import warning_text

            message = warning_text(message, task)
        if message in self.warned:
            return
        self.warned.add(message)
        self._write(f"[WARNING]: {message}" + ("" if message.endswith("\n") else "\n"))

    def deprecated(self, message: str, origin: Any = None) -> None:
        """A ``[DEPRECATION WARNING]`` (at ``origin``) unless ansible's configuration turns them
        off, after the warning that says how, and each once per run as ansible's Display does."""
        from engine.run.error_block import Event, format_events

        if not deprecation_warnings():
            return
        self.warning("Deprecation warnings can be disabled by setting `deprecation_warnings=False` in ansible.cfg.")
        text = f"[DEPRECATION WARNING]: {format_events([Event(message, origin)])}"
        if text in self.warned:
            return
        self.warned.add(text)
        self._write(text if text.endswith("\n") else text + "\n")

    def error(self, text: str) -> None:
        """Print an ``[ERROR]`` block once per run: ansible's Display drops an error it already
        showed (the same message from the same origin)."""
        if text in self.errors:
            return
        self.errors.add(text)
        self._write(text if text.endswith("\n") else text + "\n")

    def _task_error(self, result: dict[str, Any], action: str, task: Task | None) -> None:
        """The ``[ERROR]: Task failed: ...`` block of a failed or unreachable result
        (``_handle_exception``), from the result as the action returned it (no_log or not)."""
        from engine.run.error_block import error_text

        self.error(error_text(result, action, task))

    def result(self, title: str, host: str, action: str, result: dict[str, Any], outcome: Outcome,
               is_loop: bool, is_include: bool = False, counted: bool = True, retry_name: str = "",
               delegated: str | None = None, no_log: bool = False, task: Task | None = None,
               diff: bool | None = None) -> None:
        """Print one task result for one host, count it (unless the strategy does not, as for a
        skipped meta task) and record it; ``retry_name`` names the task in retry lines,
        ``delegated`` the host the task was delegated to, ``no_log`` censors what is shown,
        ``task`` the task (where it is written, for the error block of a failure)."""
        from engine.run.censoring import censored_for_callback

        self._retry_name = retry_name or title
        raw = result
        items = is_loop and isinstance(result.get("results"), list)
        held = self._take_held()
        if not items or is_include:
            held = self._show_held(held, None)
        self.records.append(TaskRecord(title.strip(), host, outcome.status))  # named as the banner shows it
        if counted:
            self._count(self.host(host), outcome)
        if no_log:
            result = censored_for_callback(result)
        task_host, host = host, host_label(host, result, delegated)
        if not items:
            self._displayed(result)
        show_diff = self._diff_mode(task) if diff is None else diff
        if show_diff and not items:
            self._print_diffs(result)
        if not items:
            self._module_warnings(result)
        if is_include and outcome.status in ("ok", "changed"):  # the strategy announces what it included;
            # an item the include's when skipped is the worker's own result line
            for item in result.get("results") or [] if items else []:
                if isinstance(item, dict) and item.get("skipped"):
                    self._held(item)
                    self._item(task_host, action, item)
            return
        if items:
            from engine.run.inventory_changes import shown_items

            raw_items = raw.get("results") if isinstance(raw.get("results"), list) else []
            for index in shown_items(action, result["results"], outcome.status == "failed"):
                held = self._show_held(held, index)
                item = result["results"][index]
                # a skipped line names the host alone (v2_runner_item_on_skipped: host.get_name())
                item_host = host_label(task_host, item, delegated) if isinstance(item, dict) \
                    and not item.get("skipped") else task_host
                self._retries(item_host, item)
                if isinstance(item, dict):
                    self._displayed(item)
                if show_diff and isinstance(item, dict):  # each item's diff comes with its result
                    self._print_diffs(item)
                if isinstance(item, dict):
                    self._module_warnings(item)
                    if item.get("skipped") or is_failed(item):  # an included item's line is none
                        self._held(item)
                raw_item = raw_items[index] if index < len(raw_items) else item
                if isinstance(item, dict) and (item.get("failed") or item.get("unreachable")) \
                        and "exception" in raw_item:
                    # _handle_exception: an item's error shows when its result has one (a label that
                    # fails to template after the item ran adds none)
                    self._task_error(raw_item, action, task)
                self._item(item_host, action, item)
            self._show_held(held, None)
            if outcome.status == "failed" and action in DEBUG_ACTIONS and "msg" in result:
                # v2_runner_on_failed: _clean_results leaves a debug loop's msg alone, without its
                # results, so the aggregate's own line follows the items
                self._print(f"fatal: [{host}]: FAILED! => {dump(result, action, self.verbosity)}")
            if outcome.status == "unreachable":  # v2_runner_on_unreachable, after its items
                self._print(f"fatal: [{host}]: UNREACHABLE! => {dump(result, action, self.verbosity)}")
                if outcome.ignored:
                    self._print("...ignoring")
            if outcome.status == "skipped":  # v2_runner_on_skipped, after its items
                rest = {k: v for k, v in result.items() if k != "results"}
                shown = f" => {dump(rest, action, self.verbosity)}" if self._is_verbose(rest, action) else ""
                self._print(f"skipping: [{task_host}]{shown}")
        elif outcome.status == "skipped":
            shown = f" => {dump(result, action, self.verbosity)}" if self._is_verbose(result, action) else ""
            self._print(f"skipping: [{task_host}]{shown}")
        elif outcome.status == "unreachable":
            self._task_error(raw, action, task)
            self._print(f"fatal: [{host}]: UNREACHABLE! => {dump(result, action, self.verbosity)}")
            if outcome.ignored:
                self._print("...ignoring")
        elif outcome.status == "failed":
            self._retries(host, result)
            self._task_error(raw, action, task)
            self._print(f"fatal: [{host}]: FAILED! => {dump(result, action, self.verbosity)}")
        else:
            self._retries(host, result)
            if raw.get("failed") and "exception" in raw:  # failed, yet not by its failed_when: the error shows
                self._task_error(raw, action, task)
            shown = f" => {dump(result, action, self.verbosity)}" if self._is_verbose(result, action) else ""
            self._print(f"{outcome.status}: [{host}]{shown}")
        if outcome.status == "failed" and outcome.ignored:
            self._print("...ignoring")

    def _diff_mode(self, task: Task | None) -> bool:
        """Whether the strategy shows the result's diff (``v2_on_file_diff`` when ``task.diff``):
        the task's own ``diff`` keyword (inherited), else ``--diff``. A templated keyword is read
        as --diff says."""
        from engine.booleans import boolean

        sourced = task.effective("diff") if task is not None else None
        value = getattr(sourced, "value", None)
        if value is None or (isinstance(value, str) and "{" in value):
            return self.show_diff
        try:
            return bool(boolean(value))
        except (TypeError, ValueError):
            return self.show_diff

    def _retries(self, host: str, result: dict[str, Any]) -> None:
        """``v2_runner_retry`` for each attempt the result was retried after: the line, with the
        attempt's result from -vvv on or when the action asks to be shown."""
        for retried in result.get(RETRIED) or []:
            left = retried["retries"] - retried["attempts"]
            message = f"FAILED - RETRYING: [{host}]: {self._retry_name} ({left} retries left)."
            if (self.verbosity > 2 or retried.get("_ansible_verbose_always")) \
                    and "_ansible_verbose_override" not in retried:
                message += "Result was: " + dump(retried, "", self.verbosity, clean=False)
            self._print(message)

    def _is_verbose(self, result: dict[str, Any], action: str) -> bool:
        """``_run_is_verbose``: shown from -v on or when the action asks; the gather_facts action
        sets _ansible_verbose_override, so that -v does not dump every fact."""
        wanted = self.verbosity > 0 or verbose_always(result, action)
        return wanted and "_ansible_verbose_override" not in result

    def _item(self, host: str, action: str, item: dict[str, Any]) -> None:
        # _get_item_label after _clean_results, which leaves a debug item's msg alone: without a
        # label (one that failed to template), such an item shows None
        shown_item = None if action in DEBUG_ACTIONS and "msg" in item else item.get("item")
        label = CENSORED_ITEM if item.get(NO_LOG) else item.get("_ansible_item_label", shown_item)
        if is_failed(item) or item.get("unreachable"):  # a skipped result that failed its until, say: failed
            # first, as _run_loop sends it
            self._print(f"failed: [{host}] (item={label}) => {dump(item, action, self.verbosity)}")
        elif item.get("skipped"):
            shown = f" => {dump(item, action, self.verbosity)}" if self._is_verbose(item, action) else ""
            self._print(f"skipping: [{host}] => (item={label}) {shown}")
        else:
            status = "changed" if item.get("changed") else "ok"
            tail = f" => {dump(item, action, self.verbosity)}" if self._is_verbose(item, action) else ""
            self._print(f"{status}: [{host}] => (item={label}){tail}")

    @staticmethod
    def _held(item: dict[str, Any]) -> None:
        """Show what an include loop's item warned while it ran (engine.run.executor holds it)."""
        for show in item.get(HELD, ()):
            show()

    def _displayed(self, result: dict[str, Any]) -> None:
        """Lines an action displays while it runs (pause's "Pausing for N seconds"), which a
        module hands over under ``_ansible_display``."""
        lines = result.get("_ansible_display")
        for line in lines if isinstance(lines, list) else []:
            self._print(str(line))

    def _module_warnings(self, result: dict[str, Any]) -> None:
        """The warnings a module returned, as ``_handle_warnings_and_exception`` shows them just
        before the result's line (after its diff)."""
        for shown in result.get("_ansible_template_warnings", ()):  # with their origin, a blank line after
            self.warning(shown)
        warnings = result.get("warnings")
        for warning in warnings if isinstance(warnings, list) else []:
            self.warning(str(warning).rstrip("\n"))

    def _print_diffs(self, result: dict[str, Any]) -> None:
        results = result.get("results") if isinstance(result.get("results"), list) else [result]
        for each in results:
            diff = each.get("diff") if isinstance(each, dict) else None
            if diff and each.get("changed"):
                text = render_diff(diff)
                if text:  # Display.display adds no newline to text that ends with one
                    self._write(text if text.endswith("\n") else text + "\n")

    @staticmethod
    def _count(stats: HostStats, outcome: Outcome) -> None:
        if outcome.status == "skipped":
            stats.skipped += 1
        elif outcome.status == "unreachable" and outcome.ignored:
            stats.ok += 1
            stats.ignored += 1
        elif outcome.status == "unreachable":
            stats.unreachable += 1
        elif outcome.status == "failed":
            if outcome.ignored:
                stats.ok += 1
                stats.ignored += 1
                stats.changed += outcome.changed
            elif outcome.rescued:
                stats.rescued += 1
            else:
                stats.failed += 1
        else:
            stats.ok += outcome.oks
            if outcome.status == "changed":
                stats.changed += 1

    def recap(self) -> None:
        self._print(banner("PLAY RECAP"))
        for name in sorted(self.stats):
            s = self.stats[name]
            counts = " ".join(f"{label}={str(value):<4}" for label, value in zip(
                ("ok", "changed", "unreachable", "failed", "skipped", "rescued", "ignored"),
                (s.ok, s.changed, s.unreachable, s.failed, s.skipped, s.rescued, s.ignored), strict=True))
            self._print(f"{name:<26} : {counts}")
        self._print("")

    def as_json(self) -> dict[str, Any]:
        return {"recap": {name: stats.as_dict() for name, stats in sorted(self.stats.items())},
                "tasks": [{"task": r.task, "host": r.host, "status": r.status} for r in self.records]}


def render_diff(diff: Any) -> str:
    """A module's ``diff`` as the default callback's ``_get_diff`` writes it: skipped-diff notes,
    dictionaries serialised as indented JSON, unified diffs with ``\\ No newline at end of file``
    marks, each followed by an empty line, and ``prepared`` text as it is."""
    import difflib

    out: list[str] = []
    for each in diff if isinstance(diff, list) else [diff]:
        if not isinstance(each, dict):
            continue
        for key, note in (("dst_binary", "diff skipped: destination file appears to be binary\n"),
                          ("src_binary", "diff skipped: source file appears to be binary\n")):
            if key in each:
                out.append(note)
        for key, side in (("dst_larger", "destination"), ("src_larger", "source")):
            if key in each:
                out.append(f"diff skipped: {side} file size is greater than {each[key]}\n")
        if "before" in each and "after" in each:
            texts = []
            for side in ("before", "after"):
                value = each[side]
                if isinstance(value, Mapping):
                    value = json.dumps(value, sort_keys=True, indent=4, separators=(",", ": ")) + "\n"
                texts.append("" if value is None else str(value))
            before_lines, after_lines = texts[0].splitlines(True), texts[1].splitlines(True)
            for lines in (before_lines, after_lines):
                if lines and not lines[-1].endswith("\n"):
                    lines[-1] += "\n\\ No newline at end of file\n"
            header = {side: f"{side}: {each[side + '_header']}" if side + "_header" in each else side
                      for side in ("before", "after")}
            lines = list(difflib.unified_diff(before_lines, after_lines, fromfile=header["before"],
                                              tofile=header["after"], fromfiledate="", tofiledate=""))
            out += lines
            if lines:
                out.append("\n")
        if "prepared" in each:
            out.append(str(each["prepared"]))
    return "".join(out)


Printer = Callable[[str], None]


def deprecation_warnings() -> bool:
    """ansible's DEPRECATION_WARNINGS (on unless the environment or ansible.cfg says otherwise)."""
    from engine.config import config_flag

    return config_flag("ANSIBLE_DEPRECATION_WARNINGS", "defaults", "deprecation_warnings")
