"""A reading of one host given to another host alike in every name it read but its own name
(engine.flow.shared_outcomes' named readings): which conditions keep the first host's value there
(:func:`name_free`), and the first host's variables made the other host's (:func:`renamed_values`)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from engine.flow.rebound import IDENTITY

if TYPE_CHECKING:
    from engine.flow.host_needs import HostNeeds


# what a condition may read besides the names it reads: a lookup's file or variable (a template file
# reads the host's name), the time
_BEYOND_NAMES = re.compile(r"\b(?:lookup|query|q|now|undef)\b")


def name_free(first: HostNeeds, condition: str) -> bool:
    """Whether ``condition`` has on every host whose reading is ``first`` rebound by its name
    (engine.flow.host_outcome's ``for_host`` with ``names``) the value it has on ``first``'s host.
    Such a reading renders with ``first``'s variables, its own name, short name and groups put over
    them: a condition that reads none of those, only names whose values are plain (no template,
    which the other name renders anew) and not one host's own (magic variables but the play's, a
    computed ``vars``/``hostvars``, the play's hosts less the failed ones), and no lookup, evaluates
    alike (kept per reading and condition)."""
    kept = first._name_free  # noqa: SLF001
    found = kept.get(condition)
    if found is None:
        from engine.flow.removed_hosts import PLAY_LISTS
        from engine.flow.shared_outcomes import _HOST_IDENTITY, _SAME_ON_EVERY_HOST
        from engine.templating.templar import conditional_expression
        from engine.templating.variable_uses import names_read
        from engine.variables import host_answers as answers

        text = conditional_expression(condition)
        names = names_read(text, expression=True)
        own = _HOST_IDENTITY | set(IDENTITY) | answers.OWN_ANSWERS | PLAY_LISTS
        found = kept[condition] = names is not None and not _BEYOND_NAMES.search(text) and all(
            name not in own and (resolved := first._resolved.get(name)) is not None and  # noqa: SLF001
            resolved.template is None and resolved.per_item is None and
            (not resolved.magic or name in _SAME_ON_EVERY_HOST) for name in names)
    return found


def renamed_values(resolved: dict[str, Any], templar_of: Callable[[], Any]) -> dict[str, Any]:
    """The variables of one host's reading as another host's with the same values for them but its
    own name (``templar_of``: that host's templar, made when a value is a template): each value that
    is a template rendered again with it. Raises _ReadsMore when one does not render as plainly as
    the first host's did (the other host is read on its own)."""
    from engine.flow.shared_outcomes import _ReadsMore
    from engine.templating.templar import TemplateFailure
    from engine.values import unknown_as_shown

    renamed, templar = dict(resolved), None
    for name, found in resolved.items():
        if found.per_item is not None and (found.template is not None or
                                           any(item.template is not None for item in found.per_item)):
            raise _ReadsMore
        if found.template is None:
            continue
        if found.unknown is not None:
            raise _ReadsMore
        templar = templar_of() if templar is None else templar
        try:
            value = templar.template(found.template)
        except (TemplateFailure, RecursionError):
            raise _ReadsMore from None
        if unknown_as_shown(value) is not None:
            raise _ReadsMore
        renamed[name] = replace(found, value=value)
    return renamed
