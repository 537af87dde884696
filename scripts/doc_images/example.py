"""The bundled example, resolved by playbook-ls in a neutral environment."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]

EXAMPLE = ROOT / "examples" / "tag-inheritance"


@contextlib.contextmanager
def neutral_environment() -> Iterator[None]:
    """No ansible configuration but an empty one, and no ANSIBLE_* variables, so that the
    pictures do not depend on the machine they are made on."""
    saved = dict(os.environ)
    with tempfile.TemporaryDirectory() as empty:
        config = Path(empty) / "ansible.cfg"
        config.write_text("")
        for name in [name for name in os.environ if name.startswith("ANSIBLE_")]:
            del os.environ[name]
        os.environ["ANSIBLE_CONFIG"] = str(config)
        os.environ["ANSIBLE_HOME"] = str(Path(empty) / "home")
        try:
            yield
        finally:
            os.environ.clear()
            os.environ.update(saved)


def example_tasks() -> list[dict[str, Any]]:
    """Every task of the example's playbook as ``list-tasks --format json`` describes it, with
    paths relative to the example directory."""
    from engine.config import AnsibleConfig
    from engine.loading.resolve import Resolver
    from engine.parsing.source import SourceCache
    from playbook_ls.cli.listing import task_data
    from playbook_ls.rules.base import display_path

    with contextlib.chdir(EXAMPLE):
        book = Resolver(sources=SourceCache(), config=AnsibleConfig.load(), extra_vars={}).load_playbook(
            "playbook.yml")
        tasks = [task_data(task) for play in book.plays for task in play.all_tasks()]

        def relative(value: Any) -> Any:
            if isinstance(value, dict):
                return {k: display_path(v) if k == "file" else relative(v) for k, v in value.items()}
            if isinstance(value, list):
                return [relative(item) for item in value]
            return value

        return relative(tasks)


def selected(tags: Sequence[str], only: Sequence[str], skip: Sequence[str]) -> bool:
    from engine.flow.tags import Selection, should_run
    from engine.loading.model import UNTAGGED

    return should_run(frozenset(tags) or UNTAGGED, Selection.from_options(only, skip))
