"""The free strategy (``strategy: free``, or ``DEFAULT_STRATEGY`` / ``ANSIBLE_STRATEGY``), as
ansible's ``plugins/strategy/free.py`` runs a play with one fork.

Each host goes through its own tasks without waiting for the others: the strategy takes the
hosts in turn, and gives each one that is not busy its next task. Here one host runs at a time
(forks 1), so a round gives every host still running one task, in inventory order. What the free
strategy does differently from the linear one:

- a meta task is carried out for the host that reached it (``flush_handlers`` runs that host's
  handlers, ``end_play`` ends the play for every host wherever it is);
- ``run_once`` is not supported: ansible warns and runs the task for every host (what one
  registers still reaches every host, and a failure still fails them all, as the base strategy
  does); an action that bypasses the host loop (``pause``, ``add_host``) stops the playbook with
  ansible's error;
- ``any_errors_fatal`` and ``max_fail_percentage`` are not supported: ansible warns, and a
  failure ends only its host;
- the default callback prints a task's banner when a result of another task than the last one
  shown arrives, so a banner comes again whenever the hosts interleave.

ansible's own order between hosts depends on when each worker's result arrives (two runs of the
same playbook may interleave differently); the engine's is always the round order above, and
each host's own sequence of tasks is ansible's.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Mapping
from typing import Any, Protocol

from engine.loading import keywords as kw
from engine.loading.model import Play, Task

# actions whose plugin sets BYPASS_HOST_LOOP: the linear strategy sends them to the first host
# only (engine.run.executor), the free strategy refuses them
BYPASS_HOST_LOOP = kw._family("add_host", "pause")
LINEAR = frozenset({"linear", "ansible.builtin.linear", "ansible.legacy.linear"})
FREE = frozenset({"free", "ansible.builtin.free", "ansible.legacy.free"})
SUPPORTED = LINEAR | FREE
RUN_ONCE_WARNING = ("Using run_once with the free strategy is not currently supported. This task will still be "
                    "executed for every host in the inventory list.")
ANY_ERRORS_FATAL_WARNING = ("Using any_errors_fatal with the free strategy is not supported, as tasks are executed "
                            "independently on each host")
MAX_FAIL_WARNING = ("Using max_fail_percentage with the free strategy is not supported, as tasks are executed "
                    "independently on each host")


def default_strategy() -> str:
    """``DEFAULT_STRATEGY``: ``ANSIBLE_STRATEGY``, else ``[defaults] strategy`` of ansible.cfg, else linear."""
    from engine.config import config_value

    value = config_value("ANSIBLE_STRATEGY", "defaults", "strategy")
    return value.strip() if value and value.strip() else "linear"


def play_strategy(play: Play) -> str:
    data = play.data if isinstance(play.data, Mapping) else {}
    value = data.get("strategy")
    return str(value) if value else default_strategy()


def is_free(play: Play) -> bool:
    return play_strategy(play) in FREE


def bypass_error(action: str) -> str:
    return (f"The '{action}' module bypasses the host loop, which is currently not supported in the free strategy "
            "and would instead execute for every host in the inventory list.")


class LazyBanners:
    """The executor's callback as the default callback behaves under the free strategy: a task's
    start prints nothing, its banner comes with the first result (or include) of a task other
    than the one whose banner was printed last."""

    def __init__(self, callback: Any) -> None:
        self._callback = callback
        self.key: object = None
        self._pending: tuple[object, str, bool] | None = None
        self._shown: object = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._callback, name)

    def task_start(self, title: str, handler: bool) -> None:
        self._pending = (("handler", title) if handler else self.key, title, handler)

    def _banner(self) -> None:
        if self._pending is not None and self._pending[0] != self._shown:
            self._callback.task_start(self._pending[1], handler=self._pending[2])
            self._shown = self._pending[0]

    def result(self, title: str, host: str, action: str, result: dict[str, Any], *args: Any, **kwargs: Any) -> None:
        # what the action displayed as it ran (async_wrapper's ASYNC lines) came before its result,
        # so before the banner that result brings
        lines = result.get("_ansible_display")
        if isinstance(lines, list) and lines:
            for line in lines:
                self._callback._print(str(line))
            result = {key: value for key, value in result.items() if key != "_ansible_display"}
        self._banner()
        self._callback.result(title, host, action, result, *args, **kwargs)

    def included(self, *args: Any, **kwargs: Any) -> None:
        self._banner()
        self._callback.included(*args, **kwargs)


Program = Generator[Task, Any, bool]


class Strategy(Protocol):
    """What the free strategy needs of the executor (``engine.run.executor.Executor``)."""

    callback: Any
    context: Any
    runs: dict[str, Any]
    max_fail: float | None
    error: bool
    aborted: bool

    def _run_task_for(self, task: Task, names: list[str]) -> dict[str, Any]: ...

    def _advance(self, program: Program, step: Any) -> Task | None: ...

    def _run_once(self, task: Task, first: str) -> bool: ...

    def _any_errors_fatal(self, task: Task) -> bool: ...


def run_free(executor: Strategy, programs: dict[str, Program], pending: dict[str, Task | None],
             no_outcome: Callable[[Task], Any]) -> bool:
    """Run a batch's hosts through their programs, round after round; False when the playbook
    stops (an action that bypasses the host loop). ``no_outcome(task)`` is the step that moves a
    host's program on without running ``task`` (the executor's ``Step``)."""
    if executor.max_fail is not None:
        executor.callback.warning(MAX_FAIL_WARNING)
    callback = executor.callback
    banners = LazyBanners(callback)
    executor.callback = banners  # type: ignore[assignment]
    try:
        while True:
            active = [n for n in executor.order if pending.get(n) is not None]
            if not active:
                return True
            for name in active:
                # a host the play ended for (end_play by another host) leaves its program
                while pending[name] is not None and executor.runs[name].ended:
                    pending[name] = executor._advance(programs[name], no_outcome(pending[name]))  # type: ignore[arg-type]
                task = pending[name]
                if task is None:
                    continue
                if task.action in BYPASS_HOST_LOOP:
                    callback._print(f"[ERROR]: {bypass_error(task.action)}")
                    executor.error = executor.aborted = True
                    return False
                _warn(executor, task, name)
                banners.key = id(task)
                steps = executor._run_task_for(task, [name])
                pending[name] = executor._advance(programs[name], steps[name])
    finally:
        executor.callback = callback


def _warn(executor: Strategy, task: Task, name: str) -> None:
    """The warnings the free strategy shows as it queues a task for a host."""
    if executor._run_once(task, name):
        executor.callback.warning(RUN_ONCE_WARNING)
    if task.action not in kw.META and executor._any_errors_fatal(task):
        executor.callback.warning(ANY_ERRORS_FATAL_WARNING)


def order_notes(plays: list[Any]) -> list[str]:
    """What a plan of what will run says of each free play of several hosts (``plays``: the plan's
    PlayPlans): ansible-playbook prints a host's result when the strategy reads it from its
    worker, so the order between hosts follows the workers' timing and varies from run to run;
    the engine's is its rounds. Nothing else differs: each host's results, the recap and the
    files are ansible's, so the run is not handed over for it."""
    return [f"play {plan.play.name or plan.play.hosts!r} (strategy: {play_strategy(plan.play)}, "
            f"{len(plan.hosts)} hosts): the engine prints the hosts' results in turn; ansible-playbook "
            "prints each when its worker delivers it, an order that varies from run to run (each host's "
            "results, the recap and the files are the same)"
            for plan in plays if len(plan.hosts) > 1 and is_free(plan.play)]
