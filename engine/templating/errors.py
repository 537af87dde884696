"""The run's template failure, apart from the templar so that what the templar calls (lookups)
can raise it without importing the templar back."""

from __future__ import annotations

from engine.templating.bounds import MAX_RESULT_TEXT, TooLarge, text_size

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs a cold listing 20 ms it needs nothing else for
    from collections.abc import Callable
    from typing import Any


class TemplateFailure(Exception):
    """A template could not be rendered; the message is what ansible would report."""


class CallFailure(TemplateFailure):
    """What a call raised (``'abc'.index('z')``) while a variable's template rendered for another
    template: ansible's ``AnsibleEnvironment.call`` gives it as a ``CapturedExceptionMarker`` of
    the bare error, which the variable's template hands on as its value, so the error is worded
    ("Error rendering template: ...") and placed by the template that finalizes it, not the
    variable's. The message is the error's own; ``__cause__`` is the error."""


def called_error(exc: BaseException) -> bool:
    """Whether ``exc`` is an error a call raised inside a template (see :class:`CallFailure`):
    a Python error, not the engine's own failures nor an undefined value's."""
    from jinja2.exceptions import UndefinedError

    return not isinstance(exc, TemplateFailure | UndefinedError) and isinstance(
        exc, ArithmeticError | TypeError | ValueError | AttributeError | KeyError | IndexError | LookupError)


class BrokenConditional(TemplateFailure):
    """A conditional whose result is not a boolean (``AnsibleBrokenConditionalError``). Its
    message names where the value came from: ``origin`` (a variable's value as written), else
    where the conditional itself is written, which only the caller knows. None carries no origin
    in ansible (its tags cannot hold on None), so its origin is always ``'<unknown>'``."""

    HELP = "Broken conditionals can be temporarily allowed with the `ALLOW_BROKEN_CONDITIONALS` configuration option."

    def __init__(self, result: bool, type_name: str, origin: Any) -> None:
        self.result, self.type_name, self.origin = result, type_name, origin
        super().__init__(self.message(None))

    def message(self, written_at: str | None) -> str:
        origin = "<unknown>" if self.type_name == "NoneType" else self.origin or written_at or "<unknown>"
        origin = origin.human() if hasattr(origin, "human") else origin
        return (f"Conditional result ({self.result}) was derived from value of type {self.type_name!r} at "
                f"{origin!r}. Conditionals must have a boolean result.")


class ConditionalRefused(TemplateFailure):
    """An ``AnsibleBrokenConditionalError`` of a fixed message, at the conditional (an empty
    expression, one that is no string), with a broken conditional's help text."""


class UntrustedExpression(TemplateFailure):
    """A conditional wholly in ``{{ }}`` giving a string ansible does not trust as an expression
    (a module's result, a rendering's text): ``TemplateTrustCheckFailedError``, at the value's
    ``origin`` when it has one (the template it was rendered from), else at the conditional."""

    HELP = ("Templates and expressions must be defined by trusted sources such as playbooks or roles, not untrusted "
            "sources such as module results.")

    def __init__(self, origin: Any) -> None:
        super().__init__("Encountered untrusted template or expression.")
        self.origin = origin


class SeparateFailure(TemplateFailure):
    """A port of an ansible-core filter failing with an error ansible shows as a cause of its own
    below "The filter plugin 'NAME' failed.", rather than after it on one line: one ansible's
    filter raises while handling another exception (without ``from``), or one with ``help`` text
    or the value it is about (``obj``: ansible shows ``Origin: <unknown>`` and the value)."""

    def __init__(self, message: str, help: str | None = None, obj: object = None, has_obj: bool = False) -> None:
        super().__init__(message)
        self.help, self.obj, self.has_obj = help, obj, has_obj


class VersionError(ValueError):
    """What ansible's ``version`` test raises as AnsibleFilterError (engine.templating.filters.version): its message."""


class PluginFailure(TemplateFailure):
    """A filter (or ``kind``) plugin of ansible-core failed (``AnsibleTemplatePluginRuntimeError``):
    "The filter plugin 'NAME' failed: ...". ``separate`` is the plugin's own error when ansible shows it as a
    cause of its own, in the ``[ERROR]`` block (else None)."""

    def __init__(self, plugin: str, message: str, separate: SeparateFailure | None = None,
                 kind: str = "filter") -> None:
        super().__init__(f"The {kind} plugin {plugin!r} failed: {message}")
        self.plugin, self.separate, self.kind = plugin, separate, kind


class ForeignCause(Exception):
    """A Python error (not ansible's) a plugin chains under its own message (``raise
    AnsibleError(...) from exc``): ansible shows it as a cause of its own, its ``str()`` alone."""

    def __init__(self, exc: BaseException) -> None:
        super().__init__(str(exc))


class StorageRefusal(TemplateFailure):
    """A template whose whole value is of a type ansible cannot store: Jinja's own Undefined (an
    inline ``if`` without ``else``), a ``range``. Ansible renders it, then refuses to store it, the
    refusal (``refusal``) a cause of no known origin, showing the value (``shown``, none for
    Undefined)."""

    REFUSAL = "Type 'Undefined' is unsupported for variable storage."

    def __init__(self, message: str, value: Any = None) -> None:
        super().__init__(message)
        kind = type(value).__name__
        self.refusal = f"Type {kind!r} is unsupported for variable storage." if kind != "NoneType" else self.REFUSAL
        self.shown = None if value is None or kind == "Undefined" else repr(value)

    @classmethod
    def of(cls, value: Any, text: str, expression: bool,
           message: Callable[[BaseException, str], str]) -> StorageRefusal:
        """The refusal of ``value``, the whole result of ``text``, worded as ansible words it."""
        refusal = cls("", value).refusal
        return cls(message(TypeError(refusal), text) if expression else f"Error rendering template: {refusal}", value)


class RunTimeOnly(TemplateFailure):
    """A template reads a value only the run knows (a registered result, a gathered fact): its
    result is not known before the run, whatever ``default`` or ``is defined`` around it says."""


class OrderOnly(RunTimeOnly):
    """A template reads the order of a list whose items are known and whose order only the run
    knows (engine.templating.run_order): the run gives it a value, which one is the run's."""


def order_only(exc: BaseException | None) -> bool:
    """Whether what makes ``exc`` (a template's failure before the run) unknown is only the order
    of a list the run orders: the deepest :class:`RunTimeOnly` among its causes is an
    :class:`OrderOnly` (a value made from it is known to exist, not what it is)."""
    deepest, seen = None, 0
    while exc is not None and seen < 20:
        if isinstance(exc, RunTimeOnly):
            deepest = exc
        exc, seen = exc.__cause__ or exc.__context__, seen + 1
    return isinstance(deepest, OrderOnly)


def value_origin(exc: BaseException | None) -> Any:
    """Where the variable whose template raised ``exc`` (or a cause of it) is written, when a
    run knows: ansible chains such an error to the variable's value."""
    seen = 0
    while exc is not None and seen < 20:
        origin = getattr(exc, "value_origin", None)
        if origin is not None:
            return origin
        exc, seen = exc.__cause__ or exc.__context__, seen + 1
    return None


def too_large_reason(exc: BaseException) -> str | None:
    """Why a static evaluation was refused ("too large to evaluate statically (...)"), when the
    failure ``exc`` comes from one of its limits rather than from the template or the values."""
    cause = too_large_cause(exc)
    return cause.reason if cause is not None else None


def cause_of(exc: BaseException, kind: type[BaseException]) -> BaseException | None:
    """The first exception of ``kind`` in ``exc``'s chain of causes and contexts."""
    seen: set[int] = set()
    cause: BaseException | None = exc
    while cause is not None and id(cause) not in seen:
        if isinstance(cause, kind):
            return cause
        seen.add(id(cause))
        cause = cause.__cause__ or cause.__context__
    return None


def too_large_cause(exc: BaseException) -> TooLarge | None:
    return cause_of(exc, TooLarge)  # type: ignore[return-value]


def undefined_cause(exc: BaseException) -> bool:
    """Whether a template failure comes from an undefined variable (Jinja's UndefinedError), not
    from Jinja's own Undefined of an inline if without else (:func:`inline_if_undefined`)."""
    from jinja2.exceptions import UndefinedError

    found = cause_of(exc, UndefinedError)
    return found is not None and not inline_if_undefined(found)


_INLINE_IF = "the inline if-expression on "
_NO_ELSE = " evaluated to false and no else section was defined."


def inline_if_undefined(exc: BaseException) -> bool:
    """Whether ``exc`` is the failure of Jinja's own Undefined of an inline if without else
    (``cond_expr_undefined``, whose message is Jinja's hint): no ansible Marker but an error a
    template raised, which ansible words as any ("Error rendering template: ...")."""
    message = str(exc)
    return type(exc).__name__ == "UndefinedError" and message.startswith(_INLINE_IF) and message.endswith(_NO_ELSE)


def ansible_fails_too(exc: BaseException) -> bool:
    """Whether ansible fails on what made ``exc`` as the templar did, with the same values: an
    undefined variable, a filter of ansible-core failing (its port raises what it raises), a
    ``version`` test refusing its operands, an operator given operands it does not take (``'3' > 2``:
    an extra var is text; a list plus a string). Anything else the templar refuses (a lookup, a bound) is the run's."""
    if undefined_cause(exc) or cause_of(exc, PluginFailure) is not None:
        return True
    version = cause_of(exc, VersionError)
    if version is not None:
        return "requires the Python 'packaging' library" not in str(version)
    operands = cause_of(exc, TypeError)
    return operands is not None and any(words in str(operands) for words in OPERAND_ERRORS)


# Python's own words when an operator of a template gets operands it does not take: ansible's
# templar evaluates the same expression on the same values, so it fails the same way
OPERAND_ERRORS = ("not supported between instances of", "can only concatenate", "unsupported operand type",
                  "can't multiply sequence", "bad operand type for unary")


def refused_static(what: str) -> TemplateFailure:
    """The failure of a static evaluation refused for ``what``, caused by a :class:`TooLarge`."""
    cause = TooLarge(what)
    failure = TemplateFailure(str(cause))
    failure.__cause__ = cause
    return failure


def evaluated_within_bounds(function: Callable[..., Any], value: Any, **kwargs: Any) -> Any:
    """``function(value, **kwargs)`` inside a static evaluation, its result and the errors that
    are not the template's own checked."""
    try:
        result = function(value, **kwargs)
    except RecursionError:
        raise refused_static("nested too deeply")  # noqa: B904 - the cause is the limit; the error stays the context
    except MemoryError:
        raise refused_static("out of memory")  # noqa: B904
    except TooLarge as exc:  # a limit met outside Jinja (a with_ lookup), which would have wrapped it
        raise refused_static(exc.what)  # noqa: B904
    if text_size(result, MAX_RESULT_TEXT) > MAX_RESULT_TEXT:
        raise refused_static(f"a value whose text would pass {MAX_RESULT_TEXT:,} characters")
    return result
