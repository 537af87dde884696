"""ansible 2.19's Markers, as the engine's undefined values play them: a plugin or a call given
one is not called, the first one among its arguments is its result (``_invoke_plugin``,
``AnsibleEnvironment.call``). It fails with its own message ("'x' is undefined") where it is used,
and ``default`` replaces it or ``is defined`` passes it over on the way."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import wraps
from typing import Any

# the filters and tests given an undefined argument as it is (ansible's accept_args_markers)
TAKES_UNDEFINED = frozenset({"mandatory", "default", "d", "ternary", "type_debug", "defined", "undefined",
                             "vault_encrypted"})


def first_undefined(args: Sequence[Any], kwargs: Mapping[str, Any]) -> Any:
    """The first undefined value (or captured failure) among the arguments of a call, else None."""
    from jinja2 import Undefined

    for arg in (*args, *kwargs.values()):
        if isinstance(arg, Undefined):
            return arg
    return None


def handing_on(plugin: Callable[..., Any]) -> Callable[..., Any]:
    """The filter or test, not called when one of its arguments is undefined: that is its result."""

    @wraps(plugin)
    def call(*args: Any, **kwargs: Any) -> Any:
        undefined = first_undefined(args, kwargs)
        return plugin(*args, **kwargs) if undefined is None else undefined

    return call
