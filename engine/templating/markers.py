"""ansible 2.19's Markers, as the engine's undefined values play them: a plugin or a call given
one is not called, the first one among its arguments is its result (``_invoke_plugin``,
``AnsibleEnvironment.call``). It fails with its own message ("'x' is undefined") where it is used,
and ``default`` replaces it or ``is defined`` passes it over on the way."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping, MutableMapping, MutableSequence, Sequence
from contextvars import ContextVar
from functools import wraps
from typing import Any

# the filters and tests given an undefined argument as it is (ansible's accept_args_markers)
TAKES_UNDEFINED = frozenset({"mandatory", "default", "d", "ternary", "type_debug", "defined", "undefined",
                             "vault_encrypted"})


def is_marker(value: Any) -> bool:
    """Whether ``value`` is one of ansible's Markers: an undefined value or a captured failure of
    the engine's. Jinja's own Undefined (an inline if's missing else, ``cond_expr_undefined``) is
    none: a plugin gets it as any value (``replace`` and ``string`` read it as "", ``to_json``
    cannot encode it, ``mandatory`` hands it back)."""
    from jinja2 import Undefined

    return isinstance(value, Undefined) and type(value) is not Undefined


def first_undefined(args: Sequence[Any], kwargs: Mapping[str, Any]) -> Any:
    """The first undefined value (or captured failure) among the arguments of a call, else None
    (``get_first_marker_arg``: :func:`is_marker`)."""
    return next((arg for arg in (*args, *kwargs.values()) if is_marker(arg)), None)


def handing_on(plugin: Callable[..., Any], name: str, kind: str,
               classes: tuple[type, type] | None = None) -> Callable[..., Any]:
    """The filter or test ``name`` (``kind`` "filter" or "test"), not called when one of its
    arguments is undefined (unless it takes them: that is then its result), failing as ansible's
    ``_invoke_plugin`` reports any plugin's error: "The filter plugin 'ansible.builtin.NAME'
    failed: ..." (``AnsibleTemplatePluginRuntimeError``). An undefined value met inside it, a
    failure already so worded, and the engine's own refusals (a bound, a loop) go on as they are;
    while markers are replaced, what it meets or raises is given as a marker of ``classes`` (the
    environment's undefined and captured failure)."""
    from jinja2 import Undefined, UndefinedError

    from engine.templating.bounds import StaticRefusal
    from engine.templating.errors import PluginFailure, RunTimeOnly, SeparateFailure, undefined_cause
    from engine.templating.filters.paths_and_sets import FilterFailure
    from engine.templating.lazy_variables import TemplateLoop, as_read
    from engine.templating.plugin_names import ansible_worded
    from engine.templating.replacing import replacing
    from engine.templating.tagged_retry import lazy_output

    name = name.removeprefix("ansible.builtin.")
    takes_undefined = name in TAKES_UNDEFINED

    @wraps(plugin)
    def call(*args: Any, **kwargs: Any) -> Any:
        undefined = None if takes_undefined else first_undefined(args, kwargs)
        if undefined is not None:
            return undefined
        if replacing() is None or classes is None:
            return invoke(*args, **kwargs)
        try:  # ansible's _invoke_plugin gives a marker met inside, or its failure, as a value
            result = invoke(*args, **kwargs)
            # a list the plugin made of markers (map over a failing filter) trips the first one
            return next((item for item in result if isinstance(item, Undefined)), result) \
                if isinstance(result, list | tuple) else result
        except Exception as exc:
            marker = failure_marker(exc, classes) if classes is not None else None
            if marker is None:
                raise
            return marker

    def invoke(*args: Any, **kwargs: Any) -> Any:
        try:
            return lazy_output(plugin(*map(as_read, args), **{key: as_read(value) for key, value in kwargs.items()}))
        except (UndefinedError, RecursionError, MemoryError, PluginFailure, StaticRefusal, TemplateLoop, RunTimeOnly):
            raise  # a value only the run knows, met inside, leaves the plugin's result the run's too
        except Exception as exc:
            if undefined_cause(exc) or getattr(exc, "captured", False):
                raise  # a marker met inside (undefined, or a variable's failure): not the plugin's error
            # a port's own refusal is ansible's AnsibleFilterError: shown as a cause of its own
            separate = exc if isinstance(exc, SeparateFailure) else \
                SeparateFailure(str(exc)) if isinstance(exc, FilterFailure) else None
            message = ansible_worded(str(exc), plugin, name, kind)
            raise PluginFailure(f"ansible.builtin.{name}", _lazy_names(message), separate, kind) from exc

    return call


def failure_marker(exc: Exception, classes: tuple[type, type]) -> Any:
    """The marker ansible's plugin gives for ``exc`` raised inside it: the undefined value met, or
    its failure (a ``CapturedExceptionMarker``); None for the engine's own refusals. ``classes``:
    the environment's undefined and captured failure."""
    from engine.templating.errors import PluginFailure, undefined_cause, value_origin

    if undefined_cause(exc):
        marker = classes[0](hint=str(exc))
    elif isinstance(exc, PluginFailure):
        marker = classes[1](hint=str(exc))
    else:
        return None
    marker.value_origin = value_origin(exc)
    return marker


def call_failure_marker(exc: Exception, classes: tuple[type, type]) -> Any:
    """While markers are replaced (a task's name, debug's ``var``), the marker ansible's
    ``AnsibleEnvironment.call`` gives for ``exc`` raised by a call (``'abc'.index('z')``): the
    undefined value met, or the error as a ``CapturedExceptionMarker`` whose message is the
    error's own; None otherwise (the error ends the templating as it does without markers)."""
    from engine.templating.bounds import StaticRefusal
    from engine.templating.errors import RunTimeOnly, value_origin
    from engine.templating.lazy_variables import TemplateLoop
    from engine.templating.replacing import replacing

    if replacing() is None or isinstance(exc, (RecursionError, MemoryError, StaticRefusal, RunTimeOnly, TemplateLoop)):
        return None
    marker = failure_marker(exc, classes) or classes[1](hint=str(exc))
    marker.value_origin = value_origin(exc)
    return marker


# Python's words for a list's or dict's type in its errors; ansible hands a plugin its lazy containers
_CONTAINER_TYPE = re.compile(r"(?<=')(list|dict)(?=')|(?<=\btype )(list|dict)\b|(?<=\bnot )(list|dict)\b")
_LAZY = {"list": "_AnsibleLazyTemplateList", "dict": "_AnsibleLazyTemplateDict"}


def _lazy_names(message: str) -> str:
    """A plugin's error message as ansible's shows it: a list or dict named by the class of the
    lazy container ansible hands its plugins one in."""
    return _CONTAINER_TYPE.sub(lambda match: _LAZY[match.group(0)], message)


def listing(plugin: Callable[..., Any]) -> Callable[..., Any]:
    """The filter, giving a list where it gives an iterator (Jinja's ``select``, ``map``,
    ``unique``, ``reverse``...), as ansible 2.19 hands a filter's result on: ``(xs | select('>',
    1))[0]`` is the first item, and ``xs | map('upper')`` renders as a list."""
    @wraps(plugin)
    def call(*args: Any, **kwargs: Any) -> Any:
        result = plugin(*args, **kwargs)
        if isinstance(result, Iterator) and not isinstance(result, (str, bytes, Mapping)):
            return list(result)
        return result

    return call


_STRICT_ITEMS: ContextVar[bool] = ContextVar("strict_items", default=False)


class _MarkerRaised(Exception):
    def __init__(self, undefined: Any) -> None:
        super().__init__()
        self.undefined = undefined


def strict_item(obj: Any, found: Any) -> Any:
    """An item or attribute ``found`` of ``obj``: a missing one of a list or dict, inside a call
    that does not accept markers (:func:`markers_raised`), ends the call, as ansible's lazy
    containers raise a MarkerError in a ``JinjaCallContext(accept_lazy_markers=False)``."""
    from jinja2 import Undefined

    if _STRICT_ITEMS.get() and isinstance(found, Undefined) and isinstance(obj, Mapping | list):
        raise _MarkerRaised(found)
    if getattr(found, "__self__", None) is obj and getattr(found, "__name__", None) in ("items", "values", "get"):
        from engine.templating.lazy_variables import as_read  # a partly rendered dict's method, as ansible's

        return getattr(as_read(obj), found.__name__)
    return found


def markers_raised(call: Callable[[], Any]) -> Any:
    """``call()`` (a recursive loop's ``loop(...)``, which ansible calls as any non-macro callable),
    giving back the undefined a missing item met inside it is, as AnsibleEnvironment.call does."""
    token = _STRICT_ITEMS.set(True)
    try:
        return call()
    except _MarkerRaised as exc:
        return exc.undefined
    finally:
        _STRICT_ITEMS.reset(token)


NOT_READING = object()
"""What :func:`reading_call` gives for a call it leaves to Python."""


def reading_call(method: Any, args: Sequence[Any], kwargs: Mapping[str, Any]) -> Any:
    """``d.update(other)`` or ``l.extend(other)`` as ansible runs them: ``other`` is one of its lazy
    containers, whose values the method reads one by one, and reading a marker (an undefined value,
    a captured failure) ends the call with that marker as its result, what was read before it
    being done (``JinjaCallContext(accept_lazy_markers=False)``). A nested container is not read,
    nor is a value ``append`` or ``setdefault`` stores. :data:`NOT_READING` for any other call."""
    from jinja2 import Undefined

    owner, name = getattr(method, "__self__", None), getattr(method, "__name__", "")
    if set(kwargs) - {"_loop_vars", "_block_vars"} or len(args) != 1:  # Jinja's own, inside a loop or block
        return NOT_READING
    source = args[0]
    if isinstance(owner, MutableMapping) and name == "update" and isinstance(source, Mapping):
        for key in list(source.keys()):
            value = source[key]
            if isinstance(value, Undefined):
                return value
            owner[key] = value
        return None
    if isinstance(owner, MutableSequence) and name == "extend" and isinstance(source, list | tuple):
        for value in list(source):
            if isinstance(value, Undefined):
                return value
            owner.append(value)
        return None
    return NOT_READING

