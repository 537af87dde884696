"""ruamel.yaml's parser modules without, until it is used, the package's round-trip API.

``import ruamel.yaml.nodes`` first runs the package's ``__init__``, which imports its whole
round-trip API (``YAML``, the loaders, dumpers and resolvers with their regular expressions, and
typing): about a thirtieth of a cold listing of a small playbook, none of which the C composer
needs. Importing this module calls :func:`defer_package_init`, which puts the package in
``sys.modules`` as the import system would but leaves its ``__init__`` for later: it runs the
first time the package is asked for anything that is not one of its submodules
(``ruamel.yaml.YAML``, ``from ruamel.yaml import YAML``), so code that uses the round-trip API
sees the whole package, as it would without this.
"""

from __future__ import annotations

import sys
from _thread import RLock
from types import ModuleType

PACKAGE = "ruamel.yaml"
_INIT = RLock()


class _InitOnFirstUse(ModuleType):
    def __getattr__(self, name: str) -> object:
        with _INIT:
            # The package's own __init__ reads names from it while it runs: those are looked up
            # as usual, not run again.
            if type(self) is _InitOnFirstUse and not self.__dict__.get("_init_running"):
                self.__dict__["_init_running"] = True
                try:
                    self.__spec__.loader.exec_module(self)  # type: ignore[union-attr]
                finally:
                    self.__class__ = ModuleType
                    del self.__dict__["_init_running"]
        return ModuleType.__getattribute__(self, name)


def defer_package_init() -> None:
    """Make ``ruamel.yaml`` importable without running its ``__init__`` yet (see the module's
    docstring); nothing is done when it is imported already or cannot be found."""
    if PACKAGE in sys.modules:
        return
    try:
        import ruamel
    except ImportError:
        return
    from importlib.machinery import PathFinder  # not importlib.util, which imports more

    spec = PathFinder.find_spec(PACKAGE, list(getattr(ruamel, "__path__", ())))
    if spec is None or spec.loader is None or spec.submodule_search_locations is None:
        return
    package = _InitOnFirstUse(PACKAGE)  # with the attributes importlib.util.module_from_spec sets
    package.__spec__, package.__loader__, package.__package__ = spec, spec.loader, PACKAGE
    package.__path__, package.__file__ = spec.submodule_search_locations, spec.origin
    package.__cached__ = spec.cached
    sys.modules[PACKAGE] = package
    ruamel.yaml = package  # type: ignore[attr-defined]


defer_package_init()
# Imported as submodules: `from ruamel.yaml import nodes` would ask the package for `nodes`.
import ruamel.yaml.error as error  # noqa: E402
import ruamel.yaml.nodes as nodes  # noqa: E402

__all__ = ["defer_package_init", "error", "nodes"]
