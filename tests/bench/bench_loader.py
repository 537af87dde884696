"""Load a ``bench/`` script as a module, for the tests of its own logic."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

BENCH = Path(__file__).resolve().parents[2] / "bench"


def load_bench(name: str, siblings: bool = False) -> ModuleType:
    """``bench/NAME.py`` as module ``NAME``; ``siblings``: it imports other bench scripts
    (``list_tasks``, ``realworld``), so ``bench/`` goes first on the import path."""
    if siblings and str(BENCH) not in sys.path:
        sys.path.insert(0, str(BENCH))
    spec = importlib.util.spec_from_file_location(name, BENCH / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while the class is made
    spec.loader.exec_module(module)
    return module
