"""Limits on what a template may compute while a repository is opened.

Static templating runs on every file of a repository the moment it is opened, so a hostile
or broken template must not be able to exhaust memory (``"x"|center(10**9)``, a string doubled
forty times) or the CPU (nested loops, recursive macros). Every evaluation gets a budget of
operations, a deadline and a call depth; every string or list it builds is checked against a
size, *before* the operations whose result can be far larger than their inputs. What exceeds
a limit raises :class:`TooLarge`, a :class:`StaticRefusal`, which callers treat like the
``SecurityError`` of a template the sandbox refuses: the value stays unresolved. (Not a subclass of
Jinja's: importing Jinja costs a command that renders nothing a fifth of its start-up.)
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import wraps

from engine.lazy_regex import LazyRegex

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MAX_SIZE = 100_000  # characters of a string, items of a list built while rendering statically
MAX_RANGE = 1000  # items a range() may produce
MAX_EXPONENT = 64
MAX_INT_BITS = 100_000
MAX_OPERATIONS = 100_000  # loop iterations, calls, attribute lookups and output pieces of one evaluation
MAX_SECONDS = 1.0  # of computing (the evaluating thread's CPU time and its regex helper's), not of waiting
MAX_CALL_DEPTH = 40  # nested macro and function calls
# characters a statically evaluated value may take as text: a list holding one long string a
# hundred thousand times is small to build and to keep, but not to show
MAX_RESULT_TEXT = 16 * 1024 * 1024


class StaticRefusal(Exception):
    """A template that is not evaluated statically, for its cost or for what it would need."""


class TooLarge(StaticRefusal):
    """The template would build too large a value or take too long to evaluate statically."""

    def __init__(self, what: str) -> None:
        super().__init__(f"the template is too large to evaluate statically ({what})")
        self.what = what

    @property
    def reason(self) -> str:
        """Why, as a value's "unknown" reason."""
        return f"too large to evaluate statically ({self.what})"


class Budget:
    """What one evaluation (including the templates its variables refer to) may still spend."""

    __slots__ = ("operations", "_deadline", "_charged", "depth")

    def __init__(self) -> None:
        self.operations = MAX_OPERATIONS
        # the clock starts at the first reading, after 256 operations or when a regex asks how
        # long it may take: most evaluations (a condition on a fleet's every host) end before,
        # and a thread's clock is a system call
        self._deadline: float | None = None
        self._charged = 0.0
        self.depth = 0

    @property
    def deadline(self) -> float:
        # CPU time, not wall time: on a busy machine a template that computes little waits long
        # for a core, and its value must not turn "too large" because other work was running
        if self._deadline is None:
            self._deadline = time.thread_time() + MAX_SECONDS - self._charged
        return self._deadline

    def spend(self, operations: int = 1) -> None:
        self.operations -= operations
        if self.operations < 0:
            raise TooLarge(f"more than {MAX_OPERATIONS:,} operations")
        # the clock is read now and then: a single operation is cheap but may be a slow filter
        if self.operations & 0xFF == 0 and time.thread_time() > self.deadline:
            raise TooLarge(f"more than {MAX_SECONDS:g} s")

    def refund(self, seconds: float) -> None:
        """Take back ``seconds`` of computing that was not this evaluation's own (:func:`apart`)."""
        if self._deadline is not None:
            self._deadline += seconds

    def charge(self, seconds: float) -> None:
        """Count ``seconds`` of computing done elsewhere for this evaluation (a regex helper's)."""
        if self._deadline is None:
            self._charged += seconds
        else:
            self._deadline -= seconds


_current: ContextVar[Budget | None] = ContextVar("template_budget", default=None)


@contextmanager
def evaluation() -> Iterator[Budget]:
    """The budget of the evaluation in progress; a new one if none is (nested renders share it)."""
    budget = _current.get()
    if budget is not None:
        yield budget
        return
    budget = Budget()
    token = _current.set(budget)
    try:
        yield budget
    finally:
        _current.reset(token)


@contextmanager
def apart() -> Iterator[None]:
    """Computing that is not the template's own, done while it is evaluated: the model working
    out a value when a template first reads it (the play's host lists less the hosts the run
    takes out plans the whole run). Its templates get budgets of their own, and its time is not
    counted against the evaluation in progress, whose limits are for what the template itself
    computes: a busy machine must not turn an ordinary value "too large" because it was the first
    to read such a value."""
    budget = _current.get()
    if budget is None:
        yield
        return
    token = _current.set(None)
    start = time.thread_time()
    try:
        yield
    finally:
        _current.reset(token)
        budget.refund(time.thread_time() - start)


def static_evaluation_in_progress() -> bool:
    return _current.get() is not None


def seconds_left() -> float | None:
    """The computing time the evaluation in progress may still take, or None outside one."""
    budget = _current.get()
    return None if budget is None else budget.deadline - time.thread_time()


def charge(seconds: float) -> None:
    """Count ``seconds`` of computing done outside this thread against the evaluation in progress."""
    budget = _current.get()
    if budget is not None:
        budget.charge(seconds)


def spend(operations: int = 1) -> None:
    budget = _current.get()
    if budget is not None:
        budget.spend(operations)


def _length(value: Any) -> int:
    return len(value) if isinstance(value, str | bytes | list | tuple | dict | set | frozenset) else 0


def text_size(value: Any, limit: int) -> int:
    """About how many characters ``str(value)`` (or its JSON) would take, counted only up to
    past ``limit``: a list holding one long string many times is small, its text is not. A value
    inside itself (a recursive YAML alias) is counted once, as ``str`` shows it."""
    size = 0
    stack: list[Any] = [value]
    on_path: set[int] = set()
    while stack and size <= limit:
        item = stack.pop()
        if type(item) is _Leave:
            on_path.discard(item.identity)
        elif isinstance(item, str | bytes):
            size += len(item) + 2
        elif isinstance(item, int):
            size += item.bit_length() // 3 + 2
        elif isinstance(item, float) or item is None:
            size += 8
        elif isinstance(item, list | tuple | set | frozenset | dict):
            if id(item) in on_path:
                size += 5
                continue
            if isinstance(item, list | tuple) and plain_strings(item):
                size += 2 + 4 * len(item) + sum(map(len, item))  # each counted as below, at once
                continue
            on_path.add(id(item))
            size += 2 + 2 * len(item)
            stack.append(_Leave(id(item)))
            if isinstance(item, dict):
                stack.extend(dict.keys(item))
                stack.extend(dict.values(item))  # as stored: a lazily templated mapping is not templated
            else:
                stack.extend(item)
        else:
            size += 64
    return size


def plain_strings(items: list[Any] | tuple[Any, ...]) -> bool:
    """Whether every item of a non-empty list or tuple is a plain ``str`` (no Markup, no marker),
    asked item by item in C: a list of a fleet's host names is read on each of its hosts."""
    return set(map(type, items)) == _STR


_STR = {str}


class _Leave:
    __slots__ = ("identity",)

    def __init__(self, identity: int) -> None:
        self.identity = identity


def checked(value: Any) -> Any:
    """``value``, if it is not too large a result."""
    if _length(value) > MAX_SIZE:
        raise TooLarge(f"a value of {_length(value):,} items or characters; the limit is {MAX_SIZE:,}")
    if isinstance(value, int) and value.bit_length() > MAX_INT_BITS:
        raise TooLarge("an integer too large")
    return value


def refuse_over(size: int, what: str) -> None:
    """Refuse to make ``what`` when it would hold ``size`` characters or items."""
    if size > MAX_SIZE:
        raise TooLarge(f"{what} would make {size:,} characters or items; the limit is {MAX_SIZE:,}")


# -- operators ------------------------------------------------------------------------------

def binop_over_limit(operator: str, left: Any, right: Any) -> str | None:
    """Why ``left operator right`` is refused (an exponent or a repeated sequence too large to
    compute safely), or None. Every bounded sandbox applies it; a run's environment computes what
    ansible's computes (``2 ** 65`` and beyond)."""
    if operator == "**" and isinstance(right, int | float) and abs(right) > MAX_EXPONENT:
        return "exponent too large"
    if operator == "**" and isinstance(left, int) and isinstance(right, int) \
            and left.bit_length() * abs(right) > MAX_INT_BITS:
        return "result too large"
    if operator == "*":
        for seq, times in ((left, right), (right, left)):
            if isinstance(seq, str | list | tuple) and isinstance(times, int) and len(seq) * times > MAX_SIZE:
                return "result too large"
        if isinstance(left, int) and isinstance(right, int) and left.bit_length() + right.bit_length() > MAX_INT_BITS:
            return "result too large"
    if operator == "+" and _length(left) + _length(right) > MAX_SIZE:
        return "result too large"
    if operator == "%" and isinstance(left, str):
        return _percent_format_over_limit(left, right if isinstance(right, tuple) else (right,))
    return None


_PERCENT_SPEC = LazyRegex(r"%[#0\- +]*(\*|\d+)?(?:\.(\*|\d+))?")
_BRACE_SPEC = LazyRegex(r"\{[^{}]*:([^{}]*(?:\{[^{}]*\}[^{}]*)*)\}")


def _too_wide(numbers: Iterator[str]) -> bool:
    return any(len(n) > 6 or int(n) > MAX_SIZE for n in numbers if n.isdigit())


def _large_ints(values: Any) -> bool:
    return any(isinstance(v, int) and abs(v) > MAX_SIZE for v in values)


def _percent_format_over_limit(text: str, args: tuple[Any, ...]) -> str | None:
    widths = [n for match in _PERCENT_SPEC.finditer(text) for n in match.groups() if n]
    if _too_wide(iter(widths)) or ("*" in widths and _large_ints(args)):
        return "format width too large"
    return None


def _brace_format_over_limit(text: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> str | None:
    specs = [match.group(1) for match in _BRACE_SPEC.finditer(text)]
    if _too_wide(n for spec in specs for n in re.findall(r"\d+", spec)):
        return "format width too large"
    if any("{" in spec for spec in specs) and _large_ints((*args, *kwargs.values())):
        return "format width too large"
    return None


# -- filters and methods whose result can be far larger than their inputs ---------------------

def _lines(text: str) -> int:
    return text.count("\n") + 1


def _width(value: Any) -> int:
    return value if isinstance(value, int) else len(str(value))


def _estimate_center(value: Any, width: Any = 80, *_: Any, **__: Any) -> int:
    return max(len(str(value)), _width(width))


def _estimate_indent(value: Any, width: Any = 4, *_: Any, **__: Any) -> int:
    text = str(value)
    return len(text) + _lines(text) * _width(width)


def _estimate_replace(value: Any, old: Any = "", new: Any = "", count: Any = None, *_: Any, **__: Any) -> int:
    text, old, new = str(value), str(old), str(new)
    occurrences = text.count(old) if old else len(text) + 1
    if isinstance(count, int) and count >= 0:
        occurrences = min(occurrences, count)
    return len(text) + occurrences * len(new)


def _estimate_wordwrap(value: Any, width: Any = 79, break_long_words: Any = True, wrapstring: Any = None,
                       *_: Any, **kwargs: Any) -> int:
    text = str(value)
    wrapstring = kwargs.get("wrapstring", wrapstring)
    lines = len(text) // max(int(width) if isinstance(width, int) else 1, 1) + _lines(text)
    return len(text) + lines * len(str(wrapstring or "\n"))


def _estimate_join(value: Any, separator: Any = "", *_: Any, **kwargs: Any) -> int:
    items = list(value) if isinstance(value, list | tuple | set | frozenset | dict) else [value]
    separator = kwargs.get("d", separator)
    return len(items) * len(str(separator)) + sum(len(i) if isinstance(i, str) else 24 for i in items)


def _estimate_fill(value: Any, count: Any = 1, fill_with: Any = None, *_: Any, **kwargs: Any) -> int:
    """``batch``/``slice``: as many pieces (or padding items) as asked for."""
    return count if isinstance(count, int) else 0


def _estimate_sum(value: Any, *_: Any, **kwargs: Any) -> int:
    items = value if isinstance(value, list | tuple) else []
    return sum(_length(item) for item in items) + _length(kwargs.get("start"))


def _estimate_format(value: Any, *args: Any, **kwargs: Any) -> int:
    if not isinstance(value, str):
        return 0
    refused = _brace_format_over_limit(value, args, kwargs) or _percent_format_over_limit(value, args or (kwargs,))
    if refused:
        raise TooLarge(refused)
    return len(value)


def _estimate_expandtabs(value: Any, tabsize: Any = 8, *_: Any, **__: Any) -> int:
    text = str(value)
    return len(text) + text.count("\t") * (tabsize if isinstance(tabsize, int) else 8)


def _estimate_translate(value: Any, table: Any = None, *_: Any, **__: Any) -> int:
    longest = max((_length(v) for v in table.values()), default=1) if isinstance(table, dict) else 1
    return len(str(value)) * max(longest, 1)


def _estimate_str_join(separator: Any, items: Any = (), *_: Any, **__: Any) -> int:
    return _estimate_join(items, separator)


def _estimate_lipsum(n: Any = 5, html: Any = True, min: Any = 20, max: Any = 100, **__: Any) -> int:  # noqa: A002
    return (n if isinstance(n, int) else 0) * (max if isinstance(max, int) else 0) * 10


Estimate = Callable[..., int]

FILTER_ESTIMATES: dict[str, Estimate] = {
    "center": _estimate_center, "indent": _estimate_indent, "replace": _estimate_replace,
    "wordwrap": _estimate_wordwrap, "join": _estimate_join, "batch": _estimate_fill, "slice": _estimate_fill,
    "sum": _estimate_sum, "format": _estimate_format,
}

# methods of str reachable from a template: the value is the string itself
METHOD_ESTIMATES: dict[str, Estimate] = {
    "center": _estimate_center, "ljust": _estimate_center, "rjust": _estimate_center, "zfill": _estimate_center,
    "replace": _estimate_replace, "expandtabs": _estimate_expandtabs, "translate": _estimate_translate,
    "join": _estimate_str_join, "format": _estimate_format,
}


def bounded_filter(name: str, function: Callable[..., Any]) -> Callable[..., Any]:
    """``function`` (a filter) that spends the budget, refuses too large results before computing
    them when it can tell, and checks the result."""
    estimate = FILTER_ESTIMATES.get(name)
    from jinja2.utils import _PassArg

    skip = 0 if _PassArg.from_obj(function) is None else 1  # a context/environment comes first

    @wraps(function)
    def bounded(*args: Any, **kwargs: Any) -> Any:
        spend()
        if estimate is not None and len(args) > skip:
            refuse_over(estimate(*args[skip:], **kwargs), f"the {name} filter")
        return checked(function(*args, **kwargs))

    return bounded


def check_call(function: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    """Refuse a call of a string method or global whose result would be too large."""
    name = getattr(function, "__name__", "")
    target = getattr(getattr(function, "__wrapped__", function), "__self__", None)
    if isinstance(target, str) and name in METHOD_ESTIMATES:
        refuse_over(METHOD_ESTIMATES[name](target, *args, **kwargs), f"str.{name}()")
    elif name == "generate_lorem_ipsum":
        refuse_over(_estimate_lipsum(*args, **kwargs), "lipsum()")


def bounded_range(*args: int) -> range:
    result = range(*args)
    if len(result) > MAX_RANGE:
        raise StaticRefusal(f"range() of more than {MAX_RANGE} items is not evaluated statically")
    return result


def bounded_loop(iterable: Any) -> Iterator[Any]:
    """The items of a ``for`` loop, spending one operation each."""
    for item in iterable:
        spend()
        yield item


def bounded_concat(pieces: Any) -> str:
    """``Environment.concat``: a template's (or a block's, a macro's) output, piece by piece."""
    parts: list[str] = []
    size = 0
    for piece in pieces:
        spend()
        size += len(piece)
        if size > MAX_SIZE:
            raise TooLarge(f"an output of more than {MAX_SIZE:,} characters")
        parts.append(piece)
    return "".join(parts)


LOOP_FILTER = "__static_loop"
SIZE_FILTER = "__static_size"


def bound_template_tree(tree: Any) -> Any:
    """Rewrite a parsed template so that every loop spends the budget and every ``~`` result is
    size-checked: neither passes through the sandbox's hooks otherwise."""
    from jinja2 import nodes

    for loop in tree.find_all(nodes.For):
        loop.iter = nodes.Filter(loop.iter, LOOP_FILTER, [], [], None, None, lineno=loop.lineno)
    for parent in list(tree.find_all(nodes.Node)):
        for field, child in parent.iter_fields():
            if isinstance(child, nodes.Concat):
                setattr(parent, field, nodes.Filter(child, SIZE_FILTER, [], [], None, None, lineno=child.lineno))
            elif isinstance(child, list):
                for index, item in enumerate(child):
                    if isinstance(item, nodes.Concat):
                        child[index] = nodes.Filter(item, SIZE_FILTER, [], [], None, None, lineno=item.lineno)
    return tree


def bounded_environment_class(base: type) -> type:
    """``base`` (a sandboxed environment class) with every limit above applied."""

    class BoundedEnvironment(base):  # type: ignore[misc, valid-type]
        intercepted_binops = frozenset({"*", "**", "+", "%"})
        concat = staticmethod(bounded_concat)  # type: ignore[assignment]

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.globals["range"] = bounded_range
            self.filters[LOOP_FILTER] = bounded_loop
            self.filters[SIZE_FILTER] = checked

        def bound_filters(self) -> None:
            """Wrap the filters as they are now; call after adding filters."""
            for name, function in list(self.filters.items()):
                if name not in (LOOP_FILTER, SIZE_FILTER) and not getattr(function, "_bounded", False):
                    wrapped = bounded_filter(name, function)
                    wrapped._bounded = True  # type: ignore[attr-defined]
                    self.filters[name] = wrapped

        def _generate(self, source: Any, *args: Any, **kwargs: Any) -> Any:
            return super()._generate(bound_template_tree(source), *args, **kwargs)

        def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
            spend()
            refused = binop_over_limit(operator, left, right)
            if refused:
                raise TooLarge(refused)
            return checked(super().call_binop(context, operator, left, right))

        def getattr(self, obj: Any, attribute: str) -> Any:
            spend()
            return super().getattr(obj, attribute)

        def getitem(self, obj: Any, argument: Any) -> Any:
            spend()
            return super().getitem(obj, argument)

        def call(__self, __context: Any, __obj: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: N805
            budget = _current.get()
            spend()
            check_call(__obj, args, kwargs)
            if budget is not None:
                budget.depth += 1
                if budget.depth > MAX_CALL_DEPTH:
                    budget.depth -= 1
                    raise TooLarge(f"calls nested more than {MAX_CALL_DEPTH} deep")
            try:
                return checked(super().call(__context, __obj, *args, **kwargs))
            finally:
                if budget is not None:
                    budget.depth -= 1

    return BoundedEnvironment

