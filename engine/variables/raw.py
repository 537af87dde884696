"""A task's raw variables as its templar reads them, level by level."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from engine.templating.defined_only import SetUnknown
from engine.templating.errors import RunTimeOnly
from engine.values import settled
from engine.variables.sources import is_runtime

if TYPE_CHECKING:
    from engine.variables.sources import Layer


# names that look like facts but are connection settings and magic ones: never injected facts (the
# magic ones named *_name(s) are the roles', the play's and the collection's: ansible_product_name
# and ansible_board_name are facts)
_NOT_FACTS = re.compile(r"^ansible_(become\w*|\w*_interpreter|connection|host|port|user|password|ssh_\w+|"
                        r"shell_\w+|module_compression|pipelining|timeout|private_key_file|network_os|loop\w*|"
                        r"index_var|play_\w+|run_tags|skip_tags|check_mode|diff_mode|verbosity|forks|version|"
                        r"(dependent_|parent_)?role_names?|collection_name|config_file|search_path|playbook_python|"
                        r"inventory_sources)$")


def looks_like_fact(name: str) -> bool:
    """Whether ``name`` could be a fact injected as a variable (``ansible_`` and not a connection
    setting or a magic variable)."""
    return name.startswith("ansible_") and not _NOT_FACTS.match(name)


def runtime_reason(value: Any, label: str) -> str:
    return value.reason if is_runtime(value) and value.reason else f"set at run time ({label})"


class RawVariables(Mapping[str, Any]):
    """The merged raw values, looked up layer by layer when read (``hash_behaviour = replace``):
    a hover reads a handful of the thousands of names a task sees. A value only the run knows
    fails whatever template reads it (RunTimeOnly), ``default`` and ``is defined`` too; so does
    any fact's name while the host's ``facts`` are gathered at run time (that reason)."""

    def __init__(self, layers: list[Layer], extra: Mapping[str, Any], facts: str | None = None,
                 any_name: str | None = None) -> None:
        """``any_name``: why a name no level sets may still be set, which only the run knows
        (Layer.any_name): such a name is unknown, not undefined."""
        self._maps = [extra]
        self._maps += [layer.values for layer in reversed(layers)]
        self._facts = facts
        self._any = any_name
        # the highest of the levels any name may be set at: the levels below it do not decide (looked
        # for only where it decides, and its place only when there is one: a late task has some 190)
        wild = wild_layer(layers) if any_name is None else None
        at = next((len(layers) - index for index, layer in enumerate(layers) if layer is wild), None) \
            if wild is not None else None
        self._wild = (at, wild.any_name) if wild is not None and at is not None else None

    def __getitem__(self, name: str) -> Any:
        # the levels down to the highest at which any name may be set: those below it decide nothing
        wild = self._wild
        for values in self._maps if wild is None else self._maps[: wild[0] + 1]:
            if name in values:
                value = settled(values[name])
                if is_runtime(value):
                    message = f"{name!r} is known only at run time: {runtime_reason(value, name)}"
                    raise SetUnknown(message, name) if getattr(value, "defined", False) else RunTimeOnly(message)
                return value
        if wild is not None:
            raise RunTimeOnly(f"{name!r} may be set by what only the run knows: {wild[1]}")
        if self._facts is not None and looks_like_fact(name):
            raise RunTimeOnly(f"{name!r} is {self._facts}")
        if self._any is not None:
            raise RunTimeOnly(f"{name!r} may be set by what only the run knows: {self._any}")
        raise KeyError(name)

    def __contains__(self, name: object) -> bool:
        if self._any is not None or self._wild is not None:  # any name may be set
            return True
        for values in self._maps:  # (a loop, not any() over a generator: a late task has some 190 levels)
            if name in values:
                return True
        return self._facts is not None and isinstance(name, str) and looks_like_fact(name)

    def __iter__(self) -> Iterator[str]:
        # lowest level first: the order of ansible's merged dict, where a name keeps the place
        # of its first (lowest) definition
        return iter({name: None for values in reversed(self._maps) for name in values})

    def __len__(self) -> int:
        return len(set().union(*self._maps))


def wild_layer(layers: list[Layer], name: str | None = None) -> Layer | None:
    """The highest layer (``layers``: lowest precedence first) at which any name may be set by what
    only the run knows (an ``include_vars`` whose file only the run names: Layer.any_name); with
    ``name``, only one above every layer that defines it (which then decides nothing: ansible's
    ``include_vars`` overrides role defaults, the inventory, play, role, block and task vars)."""
    for layer in reversed(layers):
        if layer.any_name is not None:
            return layer
        if name is not None and name in layer.values:
            return None
    return None
