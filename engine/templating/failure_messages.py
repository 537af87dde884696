"""How a template's failure is worded, as ansible's template engine words it: a syntax error, a
marker's message for what failed inside a template, a failure with no message of its own."""

from __future__ import annotations

from engine.templating.bounds import StaticRefusal
from engine.templating.errors import RunTimeOnly, TemplateFailure, cause_of, undefined_cause
from engine.templating.jinja_environment import is_template


def syntax_message(exc: Exception | str, text: str, expression: bool) -> str:
    if not expression:
        return f"Syntax error in template: {exc}"
    delimiters = " Template delimiters are not supported in expressions" if is_template(text) else ""
    return f"Syntax error in expression.{delimiters}: {exc}" if delimiters else f"Syntax error in expression: {exc}"


def marker_message(exc: Exception) -> str | None:
    """The message of the marker ansible makes of ``exc`` raised while a template's piece was
    computed (``defer_template_error``): an undefined value's own, an error ansible words already
    (a plugin's, a variable's failure met) as it is, a Python error as "Error rendering template:
    ..."; None for what the engine refuses (a loop, a bound), which ends the templating."""
    from jinja2 import TemplateError

    from engine.templating.lazy_variables import TemplateLoop

    if isinstance(exc, (RecursionError, MemoryError, StaticRefusal, RunTimeOnly, TemplateLoop)) or \
            cause_of(exc, RunTimeOnly) is not None or str(exc).startswith("Recursive loop detected"):
        return None
    if undefined_cause(exc) or isinstance(exc, TemplateFailure):
        return str(exc)
    if isinstance(exc, TemplateError) and not isinstance(exc, ArithmeticError | TypeError | ValueError):
        return None  # Jinja's own refusals (a filter nobody has, the sandbox): worded otherwise by ansible
    return f"Error rendering template: {exc}"


def failure_message(exc: Exception, text: str) -> str:
    return str(exc) if str(exc) else f"{type(exc).__name__} while templating {text!r}"
