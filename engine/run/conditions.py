"""A condition (``when``, ``until``, an assertion) that cannot be evaluated: the failure ansible
reports, with where the condition is written."""

from __future__ import annotations

import os
from typing import Any

from engine.templating.errors import (
    BrokenConditional,
    ConditionalRefused,
    StorageRefusal,
    UntrustedExpression,
    cause_of,
    value_origin,
)
from engine.templating.templar import TemplateFailure


class ConditionFailure(TemplateFailure):
    """A ``when`` condition that cannot be evaluated, with where it is written."""

    def __init__(self, message: str, span: Any, help: str | None = None, origin: Any = None,
                 value: str | None = None) -> None:
        super().__init__(message)
        self.span, self.help, self.origin, self.value = span, help, origin, value


UNDEFINED_IN_CONDITION = "Error while evaluating conditional: "


def condition_failure(exc: TemplateFailure, span: Any) -> ConditionFailure:
    """The failure of a condition written at ``span``: a broken one names where its value
    comes from (the condition itself when nothing else is known), with ansible's help text;
    an undefined value met in a variable's template is chained to where that value is written."""
    if isinstance(exc, BrokenConditional):
        written_at = span._replace(file=os.path.abspath(span.file)).human() if span is not None else None
        return ConditionFailure(exc.message(written_at), span, BrokenConditional.HELP)
    if isinstance(exc, ConditionalRefused):
        return ConditionFailure(str(exc), span, BrokenConditional.HELP)
    if isinstance(exc, UntrustedExpression):
        return ConditionFailure(str(exc), exc.origin if exc.origin is not None else span, UntrustedExpression.HELP)
    if getattr(exc, "captured", False) and value_origin(exc) is not None:
        return ConditionFailure(str(exc), value_origin(exc))  # a variable's failure, raised as it was made
    refused = cause_of(exc, StorageRefusal)
    if isinstance(refused, StorageRefusal):  # a value ansible cannot store: its refusal a cause of no origin
        from engine.run.error_block import UNKNOWN

        return ConditionFailure(str(exc), span, origin=UNKNOWN, value=refused.shown)
    origin = value_origin(exc) if str(exc).startswith(UNDEFINED_IN_CONDITION) else None
    return ConditionFailure(str(exc), span, origin=origin)
