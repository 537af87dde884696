"""LSP glue for ``playbook-ls.checkTasks`` and ``playbook-ls.runTasks`` (workspace/executeCommand).

The run happens in a separate process (:mod:`playbook_ls.features.run_worker`), read line by
line from the event loop: the server stays responsive, a module that hangs or crashes cannot
take it down, and cancelling kills the process group (a ``command: sleep`` child included).
Its text output goes to the client as ``window/logMessage``; ``$/progress`` reports each task
when the client can show progress; ``window/workDoneProgress/cancel`` or ``$/cancelRequest``
stops it. A real run asks the user first (``window/showMessageRequest``), after a plan-only pass
of the worker that counts the tasks and hosts. The outcomes become Hint diagnostics on the
tasks' lines (source ``playbook-ls run``) until the next run or an edit of that file.
Nothing runs except from these two commands, and they run only in a workspace the client says
is trusted (initialization option ``runRepositoryCode: true``): a check runs the repository's
lookups, plugins and inventory code as a run does, so both are refused otherwise, saying why.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import os
import signal
import sys
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException

from playbook_ls.features import CHECK_TASKS, LIST_PROFILES, RUN_OUTPUT, RUN_TASKS
from playbook_ls.features import running as features
from playbook_ls.lsp.presenting import present
from playbook_ls.lsp.server import PlaybookServer, guarded, invalid_params, profiles_file_option

log = logging.getLogger("playbook-ls")
KILL_AFTER = 2.0  # seconds between SIGTERM and SIGKILL when a run is cancelled
STREAM_LIMIT = 1 << 24  # one event line may carry a large debug output
_tokens = itertools.count(1)


class RunJob:
    """The run in progress: its worker process, its progress token, whether it was cancelled."""

    def __init__(self, token: str) -> None:
        self.token = token
        self.process: asyncio.subprocess.Process | None = None
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True
        self.kill()

    def kill(self) -> None:
        process = self.process
        if process is None or process.returncode is not None:
            return
        _signal(process, signal.SIGTERM)
        asyncio.get_running_loop().call_later(KILL_AFTER, _signal, process, signal.SIGKILL)


def _signal(process: asyncio.subprocess.Process, number: int) -> None:
    if process.returncode is not None:
        return
    try:
        if hasattr(os, "killpg"):
            os.killpg(process.pid, number)  # the worker leads its own process group
        else:
            process.kill()
    except (ProcessLookupError, PermissionError):
        pass


def _log(ls: PlaybookServer, text: str, kind: types.MessageType = types.MessageType.Log) -> None:
    """A line of the run's output: a log message, or ``playbook-ls/runOutput`` for a client that
    asked for it (and shows runs in a place of their own)."""
    if ls.run_output == "notification":
        ls.protocol.notify(RUN_OUTPUT, {"text": text})
    else:
        ls.window_log_message(types.LogMessageParams(type=kind, message=text))


def _show(ls: PlaybookServer, text: str, kind: types.MessageType) -> None:
    ls.window_show_message(types.ShowMessageParams(type=kind, message=text))


async def _worker(ls: PlaybookServer, job: RunJob, request: features.RunRequest, mode: str,
                  on_event: Any) -> int:
    """Run the worker in ``mode``, handing each JSON event to ``on_event``; its exit code."""
    if job.cancelled:  # cancelled while planning or asking: start nothing more
        return -1
    command = request.command(sys.executable, mode, ls.options.get("config") or None,
                              profiles_file_option(ls.root, ls.options))
    job.process = process = await asyncio.create_subprocess_exec(
        *command, cwd=ls.root, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE, start_new_session=True, limit=STREAM_LIMIT)
    assert process.stdout is not None and process.stderr is not None

    async def drain_stderr() -> None:
        async for raw in process.stderr:  # type: ignore[union-attr]
            line = raw.decode("utf-8", "replace").rstrip()
            if line:
                log.warning("run worker: %s", line)
                _log(ls, line, types.MessageType.Warning)

    errors = asyncio.create_task(drain_stderr())
    try:
        async for raw in process.stdout:
            try:
                event = json.loads(raw)
            except ValueError:
                _log(ls, raw.decode("utf-8", "replace").rstrip())
                continue
            if isinstance(event, dict):
                on_event(event)
        return await process.wait()
    finally:
        job.kill()  # only does something when this coroutine was cancelled mid-run
        await asyncio.shield(errors)


async def _plan(ls: PlaybookServer, job: RunJob, request: features.RunRequest) -> tuple[dict[str, Any] | None, str]:
    """The worker's plan (tasks, hosts) without running anything, or the reason there is none."""
    found: dict[str, Any] = {}
    await _worker(ls, job, request, "plan", lambda event: found.setdefault(event.get("event"), event))
    if "error" in found:
        return None, str(found["error"].get("message"))
    if "plan" not in found:
        return None, "the run could not be planned (see the output log)"
    return found["plan"], ""


async def _confirm(ls: PlaybookServer, plan: dict[str, Any]) -> bool:
    answer = await ls.window_show_message_request_async(types.ShowMessageRequestParams(
        type=types.MessageType.Warning, message=features.confirmation(plan),
        actions=[types.MessageActionItem(title=features.RUN), types.MessageActionItem(title=features.CANCEL)]))
    return answer is not None and answer.title == features.RUN


def _publish_hints(ls: PlaybookServer, found: dict[str, list[features.Hint]]) -> None:
    from engine.span import Span
    from playbook_ls.features.convert import lsp_range

    hints: dict[str, list[types.Diagnostic]] = {}
    for path, items in found.items():
        lines = ls.lines(path)
        hints[path] = [types.Diagnostic(
            range=lsp_range(Span(path, h.line, h.col, h.line, len(lines[h.line]) if h.line < len(lines) else h.col),
                            lines, ls.encoding),
            message=h.message, severity=types.DiagnosticSeverity.Hint, source=features.SOURCE,
            code=h.status) for h in items]
    ls.set_run_hints(hints)


def _at_position(ls: PlaybookServer, arguments: list[Any]) -> list[Any]:
    """``{uri or path, line}`` without a playbook means "the task set at this line": what the
    '▶ Check' / '▶ Run' lens there runs (plus the caller's profile, inventory, limit)."""
    given = arguments[0] if len(arguments) == 1 and isinstance(arguments[0], dict) else None
    if given is None or "line" not in given or given.get("playbook"):
        return arguments
    from playbook_ls.features.lenses import run_arguments_at

    where, line = given.get("uri") or given.get("path"), given.get("line")
    if not isinstance(where, str) or not isinstance(line, int) or isinstance(line, bool):
        raise ValueError("'line' needs a 'uri' or 'path' and must be a 0-based line number")
    path = features.request_path(where, ls.root)
    found = run_arguments_at(ls.index, path, line) if ls.index is not None else None
    if found is None:
        raise ValueError(f"{os.path.relpath(path, ls.root)}:{line + 1}: no task or play there that a playbook "
                         "of the workspace runs; put the cursor on a task or play of an indexed playbook")
    extra = {k: v for k, v in given.items() if k in ("profile", "inventory", "limit", "skip_tags")}
    return [{**found, **extra}]


def _parse(ls: PlaybookServer, arguments: Any, check: bool) -> features.RunRequest:
    """The request; arguments of the wrong shape (the client's mistake, not the user's) are
    answered InvalidParams, what is missing raises ValueError."""
    try:
        return features.RunRequest.parse(arguments, check, ls.root)
    except features.BadArguments as exc:
        raise invalid_params(f"{CHECK_TASKS if check else RUN_TASKS}: {exc}") from None


async def run_tasks(ls: PlaybookServer, arguments: Any, check: bool) -> dict[str, Any]:
    if not ls.trusted:  # before anything: even planning a run may run the inventory's code
        try:
            _parse(ls, list(arguments), check)
        except ValueError:
            pass  # refused all the same
        result = features.refusal(check)
        _show(ls, f"playbook-ls: {result['error']}", types.MessageType.Warning)
        return result
    if not ls.ready.is_set():  # the task set at a position needs the index
        await asyncio.to_thread(ls.ready.wait, 60)
    try:
        arguments = _at_position(ls, list(arguments))
    except ValueError as exc:  # nothing a playbook runs at that position
        _show(ls, f"playbook-ls: cannot run: {exc}", types.MessageType.Error)
        return {"error": str(exc), "cancelled": False, "exit_code": None}
    try:
        request = _parse(ls, arguments, check).with_defaults(ls.options)
    except ValueError as exc:
        _show(ls, f"playbook-ls: cannot run: {exc}", types.MessageType.Error)
        return {"error": str(exc), "cancelled": False, "exit_code": None}
    if ls.run_job is not None:
        message = "a run is already in progress; cancel it or wait for it to end"
        _show(ls, f"playbook-ls: {message}", types.MessageType.Warning)
        return {"error": message, "cancelled": False, "exit_code": None}
    job = ls.run_job = RunJob(f"playbook-ls-run-{os.getpid()}-{next(_tokens)}")
    try:
        return await _run(ls, job, request)
    finally:
        ls.run_job = None
        job.kill()


async def _run(ls: PlaybookServer, job: RunJob, request: features.RunRequest) -> dict[str, Any]:
    if not request.check:
        plan, problem = await _plan(ls, job, request)
        if plan is None:
            _show(ls, f"playbook-ls: cannot run: {problem}", types.MessageType.Error)
            return features.summary(request, [], None, problem, False, None)
        if not plan.get("tasks"):
            message = f"{request.describe()}: no task to run (no task selected, or no host matched)"
            _show(ls, f"playbook-ls: {message}", types.MessageType.Info)
            return features.summary(request, [], None, message, False, None, plan)
        asks = ls.options.get("confirmRun", True) is not False
        if not plan.get("check") and asks and not await _confirm(ls, plan):  # a profile may insist on check
            _log(ls, f"playbook-ls: {request.describe()}: not run (the user cancelled)")
            return features.summary(request, [], None, None, True, None, plan)
    ls.set_run_hints({})  # the last run's outcomes go with the next run
    progress = await _begin_progress(ls, job, request)
    results: list[dict[str, Any]] = []
    state: dict[str, Any] = {"total": 0, "done": 0}
    transcript: list[str] = []  # the output, shown as a whole at the end in clients that log it away
    _log(ls, f"playbook-ls: {request.describe()}", types.MessageType.Info)

    def on_event(event: dict[str, Any]) -> None:
        kind = event.get("event")
        if kind == "log":
            text = str(event.get("text", "")).lstrip("\n")
            transcript.append(text)
            _log(ls, text)
        elif kind == "plan":
            state["total"] = int(event.get("tasks") or 0)  # a task starts once for all its hosts
            state["plan"] = event
            if event.get("engine") == "ansible":
                _log(ls, f"playbook-ls: with ansible-playbook: {event.get('reason')}", types.MessageType.Info)
                for difference in event.get("differences") or []:
                    _log(ls, f"playbook-ls: note: {difference}", types.MessageType.Warning)
                    if request.check:  # a real run said so in its question already
                        _show(ls, f"playbook-ls: {difference}", types.MessageType.Warning)
        elif kind == "task":
            state["done"] += 1
            if progress:
                message, percentage = features.progress_message(state["done"], max(state["total"], state["done"]),
                                                                str(event.get("title", "")))
                ls.work_done_progress.report(job.token, types.WorkDoneProgressReport(
                    message=message, percentage=percentage, cancellable=True))
        elif kind == "result":
            results.append(event)
        elif kind in ("end", "error"):
            state[kind] = event

    try:
        code = await _worker(ls, job, request, "run", on_event)
    except asyncio.CancelledError:  # $/cancelRequest of the command: the worker is being killed
        if progress:
            ls.work_done_progress.end(job.token, types.WorkDoneProgressEnd(message="cancelled"))
        raise
    error = state.get("error", {}).get("message") if "error" in state else None
    if job.cancelled:
        error, outcome = None, "cancelled"
    elif error:
        outcome = f"error: {error}"
    elif "end" not in state:
        error = outcome = f"the run stopped unexpectedly (exit code {code}); see the output log"
    else:
        outcome = f"exit code {state['end'].get('exit_code')}"
    _publish_hints(ls, features.hints(results, request.check))
    if progress:
        ls.work_done_progress.end(job.token, types.WorkDoneProgressEnd(message=outcome))
    _log(ls, f"playbook-ls: {request.describe()}: {outcome}", types.MessageType.Info)
    if error:
        _show(ls, f"playbook-ls: {error}", types.MessageType.Error)
    if ls.run_output != "notification" and transcript:  # a log message is where most clients hide it
        name = f"{'check' if request.check else 'run'}-{os.path.basename(request.playbook or request.profile or '')}"
        present(ls, name, f"playbook-ls: {request.describe()}: {outcome}",
                "\n".join([*transcript, f"playbook-ls: {request.describe()}: {outcome}"]) + "\n", keep="tail")
    return features.summary(request, results, state.get("end"), error, job.cancelled, code, state.get("plan"))


async def _begin_progress(ls: PlaybookServer, job: RunJob, request: features.RunRequest) -> bool:
    window = ls.client_capabilities.window if ls.client_capabilities else None
    if window is None or not window.work_done_progress:
        return False
    try:
        await ls.work_done_progress.create_async(job.token)
    except Exception:  # noqa: BLE001 - progress is a nicety; run anyway
        log.warning("the client refused a progress token")
        return False
    ls.work_done_progress.begin(job.token, types.WorkDoneProgressBegin(
        title=f"playbook-ls: {request.describe()}", cancellable=True, percentage=0))
    return True


def register(server: PlaybookServer) -> None:
    @server.command(CHECK_TASKS)
    async def check_tasks(ls: PlaybookServer, *arguments: Any) -> Any:
        return await _guarded_run(ls, arguments, True)

    @server.command(RUN_TASKS)
    async def run_tasks_command(ls: PlaybookServer, *arguments: Any) -> Any:
        return await _guarded_run(ls, arguments, False)

    @server.command(LIST_PROFILES)
    @guarded({"profiles": [], "error": "the launch profiles could not be listed (see the server log)"})
    def list_profiles(ls: PlaybookServer, *arguments: Any) -> dict[str, Any]:
        profiles = ls.index.settings.profiles if ls.index is not None else []
        return {"profiles": features.profile_summaries(profiles), "error": ls.settings_problem}

    @server.feature(types.SHUTDOWN)
    async def shutdown(ls: PlaybookServer, *arguments: Any) -> None:
        """A run in progress stops before the server answers shutdown."""
        job = ls.run_job
        if job is not None:
            job.cancel()
            if job.process is not None:
                try:
                    await asyncio.wait_for(job.process.wait(), KILL_AFTER + 1)
                except (TimeoutError, ProcessLookupError):
                    pass

    @server.feature(types.WINDOW_WORK_DONE_PROGRESS_CANCEL)
    @guarded()
    def cancel_progress(ls: PlaybookServer, params: types.WorkDoneProgressCancelParams) -> None:
        job = ls.run_job
        if job is not None and job.token == params.token:
            job.cancel()


async def _guarded_run(ls: PlaybookServer, arguments: Any, check: bool) -> Any:
    """The command, guarded: a failure is logged and shown, never fatal."""
    try:
        return await run_tasks(ls, list(arguments), check)
    except asyncio.CancelledError:
        raise  # $/cancelRequest: run_tasks has killed the worker on its way out
    except JsonRpcException:
        raise
    except (TypeError, KeyError, AttributeError) as exc:  # arguments of the wrong shape
        raise invalid_params(f"the arguments of {CHECK_TASKS if check else RUN_TASKS} must be one object "
                             f"{{playbook, play, task, tags, ...}} or {{uri|path, line}}: {exc}") from None
    except Exception as exc:  # noqa: BLE001 - the server outlives any run
        log.exception("%s failed", RUN_TASKS if not check else CHECK_TASKS)
        _show(ls, f"playbook-ls: the run failed: {exc}", types.MessageType.Error)
        return {"error": str(exc), "cancelled": False, "exit_code": None}
