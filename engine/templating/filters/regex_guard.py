"""Regular expressions from a repository, evaluated statically without hanging whoever asked.

ansible matches with Python's ``re``, a backtracking engine: ``'a' * 40 + '!'`` searched with
``(a+)+$`` takes longer than the universe has existed, and an editor hovering over such a
variable, or a command listing it, must neither hang nor differ from ansible where it finishes.
Static evaluation (a :func:`engine.templating.bounds.evaluation` in progress) therefore runs the
regex work of :mod:`engine.templating.filters.regex_ops` in a helper process, with Python's own ``re``, and waits
at most the time the evaluation has left; a helper still matching then is killed and the
template refused as too large to evaluate statically. Why this way:

- **Results identical to ansible's**: the helper is the same interpreter running the same
  ``re``; nothing about the pattern language (``$`` before a final newline, Unicode ``\\w`` and
  case folding, backreferences, lookaround) is re-implemented or approximated.
- **A non-backtracking engine (RE2 and its kin)** would bound the time, but matches another
  language: no backreferences or lookaround, ``$`` and ``\\d``/``\\w``/``\\b`` and case folding mean
  other things, and where it disagrees with ``re`` we would show values ansible never computes.
- **Stopping ``re`` in-process** cannot be done reliably: ``re`` holds the GIL for the whole
  match, so a watchdog thread cannot interrupt it, and signals (``SIGALRM``), which ``re`` does
  check, reach only the main thread, while the language server evaluates in other threads.
- **Recognising dangerous patterns** (nested quantifiers...) is heuristic: polynomial
  backtracking (``.*a.*a.*a``) or alternations (``(a|a)(a|a)...``) slip through, and harmless
  patterns get refused.

The helper (``python -I -S``, only ``re`` and ``marshal``) starts on the first regex of a
static evaluation, about 20 ms once per process, and is reused; a call costs a round trip over a
pipe, and the replies to small requests are remembered. What counts against the evaluation's
time is the helper's CPU time for the request (read from ``/proc`` where there is one), not the
time spent waiting for it to start or for a core: on a busy machine a regex that finishes must
give its value, as on an idle one. Its address space is limited, so a
pattern that needs huge backtracking stacks fails there, not here. A regex stopped after a long
time is remembered and refused at once when asked again. A run (no evaluation in progress)
calls :mod:`engine.templating.filters.regex_ops` in-process, as ansible does.
"""

from __future__ import annotations

import atexit
import builtins
import hashlib
import marshal
import os
import queue
import re
import subprocess
import sys
import threading
import time
from functools import cache
from typing import Any

from engine.templating import bounds as template_bounds
from engine.templating.bounds import StaticRefusal, TooLarge, seconds_left
from engine.templating.filters import regex_ops

MAX_HELPERS = 4  # at most this many regexes are evaluated at once (one per thread evaluating)
HELPER_MEMORY = 1 << 30  # bytes of address space a helper may use
REMEMBER_SLOW = 0.25  # of the evaluation's time: a regex stopped after running so long is refused at once next time
START_SECONDS = 60.0  # a helper that has not started by then (a machine far too busy) is not waited for
WAIT_FACTOR = 30  # a reply is not waited for longer than this many times its CPU allowance, busy machine or not
_SLOW_MEMORY = 1024
_REPLIES_MEMORY = 4096
_REMEMBERED_REQUEST = 4096  # bytes: replies to requests up to this size are remembered


def call(operation: str, *args: Any) -> Any:
    """``regex_ops.OPERATIONS[operation](*args)``: in-process outside a static evaluation (a
    run), else in a helper process, within the time the evaluation has left."""
    left = seconds_left()
    if left is None or _cannot_backtrack(operation, args):
        return regex_ops.OPERATIONS[operation](*args)
    request = marshal.dumps((operation, _plain(args, operation)))
    remembered = _replies.get(request)
    if remembered is not None:
        return _result(remembered)
    key = hashlib.blake2b(request, digest_size=16).digest()
    slow = _slow.get(key)
    if slow is not None:
        raise TooLarge(slow)
    if left <= 0:
        raise TooLarge(f"more than {template_bounds.MAX_SECONDS:g} s")
    reply = _ask(request, key, left)
    if len(request) <= _REMEMBERED_REQUEST:
        if len(_replies) >= _REPLIES_MEMORY:
            _replies.clear()
        _replies[request] = reply
    return _result(reply)


# a pattern without repetition or alternation gives ``re`` no choice to take back: a search costs
# at most the text's length times the pattern's, so a test of one (`host is search('-db1$')`, met
# on every host of a fleet) needs no helper
_CHOICES = re.compile(r"[*+?{|]")
_LINEAR_TEXT = 100_000


def _cannot_backtrack(operation: str, args: tuple[Any, ...]) -> bool:
    if operation == "regex_test":
        text, pattern = args[1], args[2]
    elif operation == "regex_search":
        text, pattern = args[0], args[1]
    else:
        return False
    return (isinstance(text, str) and isinstance(pattern, str) and len(text) <= _LINEAR_TEXT
            and len(pattern) <= _LINEAR_TEXT and _CHOICES.search(pattern) is None)


_replies: dict[bytes, bytes] = {}
_slow: dict[bytes, str] = {}  # digest of a request -> why it was refused


def _plain(value: Any, operation: str) -> Any:
    """``value`` as the helper receives it: str, bytes and number subclasses (``!unsafe`` text,
    tagged values) as the plain type, lists and tuples as lists. Anything else cannot be a
    pattern, a text or a group name, and ``re`` would refuse it; so it is refused here."""
    if value is None or type(value) in (str, bytes, int, float, bool):
        return value
    for kind in (str, bytes, int, float):
        if isinstance(value, kind):
            return kind.__new__(kind, value) if kind is not str else str.__str__(value)
    if isinstance(value, list | tuple):
        return [_plain(item, operation) for item in value]
    raise TypeError(f"{operation}: a value of type {type(value).__name__!r} is not a pattern, a text or a group")


def _result(reply: bytes) -> Any:
    found = marshal.loads(reply)
    if found[0] == "ok":
        return found[1]
    if found[0] == "re.error":
        raise re.error(found[1], found[2], found[3])
    name, message = found[1], found[2]
    if name == regex_ops.ResultTooLarge.__name__:
        raise TooLarge(message)
    if name == "RecursionError":
        raise TooLarge("a regular expression nested too deeply")
    if name == "MemoryError":
        raise TooLarge(f"a regular expression needing more than {HELPER_MEMORY >> 20:,} MB")
    kind = getattr(builtins, name, None)
    if not (isinstance(kind, type) and issubclass(kind, Exception)):
        kind = RuntimeError
    raise kind(message)


def _ask(request: bytes, key: bytes, allowance: float) -> bytes:
    """The helper's reply to ``request``, given ``allowance`` seconds of its computing."""
    helper = _pool.take(time.monotonic() + max(allowance * WAIT_FACTOR, allowance + 1.0))
    try:
        reply, spent = helper.ask(request, allowance)
    except _StillRunning as running:
        helper.stop()
        _pool.give_back(helper, alive=False)
        spent = running.spent
        template_bounds.charge(spent)
        why = f"a regular expression still running after {spent:.1f} s"
        if spent >= REMEMBER_SLOW * template_bounds.MAX_SECONDS:
            if len(_slow) >= _SLOW_MEMORY:
                _slow.clear()
            _slow[key] = why
        raise TooLarge(why) from None
    except BaseException:
        helper.stop()
        _pool.give_back(helper, alive=False)
        raise
    template_bounds.charge(spent)
    if reply is None:  # the helper died (killed from outside, out of memory at start-up)
        helper.stop()
        _pool.give_back(helper, alive=False)
        raise StaticRefusal("regular expressions cannot be evaluated statically: the helper process ended")
    _pool.give_back(helper, alive=True)
    return reply


class _StillRunning(Exception):
    """The helper used up the request's allowance (``spent`` seconds) without replying."""

    def __init__(self, spent: float) -> None:
        super().__init__(spent)
        self.spent = spent


_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") and "SC_CLK_TCK" in os.sysconf_names else 100


@cache
def _program() -> str:
    """The helper's program: :mod:`engine.templating.filters.regex_ops`, run as a script."""
    import inspect

    return inspect.getsource(regex_ops)


class _Helper:
    """One helper process and the thread reading its replies (so that waiting for one can time
    out on every platform)."""

    def __init__(self) -> None:
        if not sys.executable:
            raise OSError("no Python executable to start")
        self.process = subprocess.Popen(  # noqa: S603 - this interpreter, with a program of ours
            [sys.executable, "-I", "-S", "-c", _program(), str(HELPER_MEMORY)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.replies: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        threading.Thread(target=self._read, name="regex helper replies", daemon=True).start()

    def _read(self) -> None:
        stream = self.process.stdout
        assert stream is not None
        try:
            while len(head := stream.read(4)) == 4:
                self.replies.put(stream.read(int.from_bytes(head, "big")))
        except (OSError, ValueError):
            pass
        self.replies.put(None)

    def wait_ready(self) -> bool:
        """Whether the helper said it is ready (its first, empty reply) within START_SECONDS."""
        try:
            return self.replies.get(timeout=START_SECONDS) == b""
        except queue.Empty:
            return False

    def cpu_seconds(self) -> float | None:
        """The helper's CPU time so far, None where it cannot be read (no ``/proc``)."""
        try:
            with open(f"/proc/{self.process.pid}/stat", "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / _TICKS  # utime, stime
        except (OSError, IndexError, ValueError):
            return None

    def ask(self, request: bytes, allowance: float) -> tuple[bytes | None, float]:
        """The reply (None if the helper is gone) and the seconds it computed for it;
        :class:`_StillRunning` once it has computed ``allowance`` seconds without replying (or
        waited WAIT_FACTOR times that, so that a machine that never runs it cannot hold us)."""
        stream = self.process.stdin
        assert stream is not None
        cpu_before, started = self.cpu_seconds(), time.monotonic()
        try:
            stream.write(len(request).to_bytes(4, "big") + request)
            stream.flush()
        except (OSError, ValueError):
            return None, 0.0
        allowance = max(allowance, 0.0)
        give_up = started + max(allowance * WAIT_FACTOR, allowance + 1.0)

        def spent() -> float:
            cpu = self.cpu_seconds()
            if cpu_before is None or cpu is None:
                return time.monotonic() - started
            return cpu - cpu_before

        wait = allowance
        while True:
            try:
                reply = self.replies.get(timeout=max(wait, 0.0))
                return reply, min(spent(), allowance)
            except queue.Empty:
                used, now = spent(), time.monotonic()
                if used >= allowance or now >= give_up:
                    raise _StillRunning(max(used, min(allowance, now - started))) from None
                wait = min(max(allowance - used, 0.02), give_up - now)

    def stop(self) -> None:
        try:
            self.process.kill()
            self.process.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            pass
        for stream in (self.process.stdin, self.process.stdout):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass


class _Pool:
    """The helpers of this process: an idle one is reused, at most :data:`MAX_HELPERS` exist."""

    def __init__(self) -> None:
        self.condition = threading.Condition()
        self.idle: list[_Helper] = []
        self.started = 0
        self.owner = os.getpid()
        self.inherited: list[_Helper] = []  # a forked child's copies of its parent's: never used, never stopped

    def take(self, deadline: float) -> _Helper:
        with self.condition:
            while not self.idle and self.started >= MAX_HELPERS:
                left = deadline - time.monotonic()
                if left <= 0:  # not the template's fault: not remembered as too large
                    raise StaticRefusal("regular expressions cannot be evaluated statically now: every helper "
                                        "process is busy")
                self.condition.wait(left)
            if self.idle:
                return self.idle.pop()
            self.started += 1
        try:
            helper = _Helper()
        except OSError as exc:
            self.give_back(None, alive=False)
            raise StaticRefusal(f"regular expressions cannot be evaluated statically: no helper process ({exc})") \
                from None
        if not helper.wait_ready():  # not the template's fault: not remembered as too large
            helper.stop()
            self.give_back(helper, alive=False)
            raise StaticRefusal("regular expressions cannot be evaluated statically now: the helper process "
                                f"did not start within {START_SECONDS:g} s")
        return helper

    def give_back(self, helper: _Helper | None, alive: bool) -> None:
        with self.condition:
            if alive and helper is not None:
                self.idle.append(helper)
            else:
                self.started -= 1
            self.condition.notify()

    def after_fork(self) -> None:
        self.inherited += self.idle
        self.condition = threading.Condition()
        self.idle, self.started, self.owner = [], 0, os.getpid()

    def stop_all(self) -> None:
        if os.getpid() != self.owner:
            return
        with self.condition:
            idle, self.idle = self.idle, []
        for helper in idle:
            helper.stop()


_pool = _Pool()
atexit.register(_pool.stop_all)
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_pool.after_fork)


__all__ = ["call"]
