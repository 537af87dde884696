"""A template that asks only whether a variable is defined, of a variable the run certainly sets
to a value only it knows.

A ``run_once`` task whose host only the run picks sets its facts and result on every host of the
batch: each host that may run it gives a value, so the variable is defined whatever the value
(engine.variables.once_runner). Reading it fails as any value only the run knows does
(:class:`SetUnknown`), but where every use of it in the template is the operand of a ``defined``
or ``undefined`` test, what the template gives does not depend on the value: it is rendered
again with the variable given a stand-in value.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any

from engine.templating.errors import RunTimeOnly, cause_of

TESTS = frozenset({"defined", "undefined"})

RETRIES = 4
"""The most variables of one template given a stand-in value, one after the other."""


class SetUnknown(RunTimeOnly):
    """A variable certainly set, to a value only the run knows, is read."""

    def __init__(self, message: str, name: str) -> None:
        super().__init__(message)
        self.name = name


def only_tested_defined(parse: Callable[[str], Any], text: str, expression: bool, name: str) -> bool:
    """Whether ``text`` reads the variable ``name`` only as the operand of ``is defined`` or
    ``is undefined`` (never bound by the template itself, never otherwise)."""
    return name in _only_tested(parse, "{{ " + text + " }}" if expression else text)


@lru_cache(maxsize=4096)
def _only_tested(parse: Callable[[str], Any], source: str) -> frozenset[str]:
    """The variables the template ``source`` reads only as the operand of a ``defined`` or
    ``undefined`` test, as ``parse`` (an environment's, which the key holds) reads it: a template
    is asked again for each host that reads it, and what it reads depends on nothing else."""
    from jinja2 import nodes

    try:
        tree = parse(source)
    except Exception:  # noqa: BLE001 - a template that does not parse is not rendered again
        return frozenset()
    tested = {id(node.node) for node in tree.find_all(nodes.Test) if node.name in TESTS}
    only: set[str] = set()
    other: set[str] = set()
    for node in tree.find_all(nodes.Name):
        (only if node.ctx == "load" and id(node) in tested else other).add(node.name)
    return frozenset(only - other)


def rendered_defined_only(
    exc: BaseException,
    text: str,
    expression: bool,
    parse: Callable[[str], Any],
    render: Callable[[dict[str, Any]], Any],
) -> tuple[Any] | None:
    """What ``render`` (the template rendered with more variables given) gives once each variable
    of :class:`SetUnknown` the failure ``exc`` reads is given a stand-in value, where the template
    only tests whether it is defined; None (the failure stands) otherwise."""
    given: dict[str, Any] = {}
    for _ in range(RETRIES):
        unknown = cause_of(exc, SetUnknown)
        if (
            not isinstance(unknown, SetUnknown)
            or unknown.name in given
            or not only_tested_defined(parse, text, expression, unknown.name)
        ):
            return None
        given[unknown.name] = True  # what it is does not matter: only whether it is defined is read
        try:
            return (render(dict(given)),)
        except RunTimeOnly as again:
            exc = again
    return None
