"""The magic variables ansible-playbook defines while it loads a playbook, before anything runs.

``VariableManager._get_magic_variables`` without a host, plus the option variables of
``load_options_vars``: what a role name, an import path, a play's name and hosts or a tag can
use. They override every other variable, extra vars included. Host variables
(``inventory_dir``, ``inventory_hostname``, facts) do not exist yet at that point, so they are
not here either.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence

from engine.config import DEFAULT_HOST_LIST, configured_forks
from engine.launch.profiles import ANSIBLE_CORE_VERSION
from engine.records import NamedTuple
from engine.values import OMIT, RunOrdered

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def version_info(version: str = ANSIBLE_CORE_VERSION) -> dict[str, Any]:
    """``ansible_version``, built as ansible's ``CLI.version_info`` builds it."""
    full = version.split()[0]
    parts: list[Any] = []
    for part in full.split("."):
        try:
            parts.append(int(part or 0))
        except ValueError:
            parts.append(part)
    parts += [0] * (3 - len(parts))
    return {"string": version.strip(), "full": full, "major": parts[0], "minor": parts[1], "revision": parts[2]}


def command_line_sources(given: Sequence[str], default: Sequence[str] = (DEFAULT_HOST_LIST,)) -> list[str]:
    """``-i`` values as ansible keeps them (``unfrackpath`` without following links): paths made
    absolute, host lists (with a comma) as written. Without ``-i``, ``default``: ansible.cfg's
    ``[defaults] inventory`` or ``ANSIBLE_INVENTORY`` (already resolved), else ``/etc/ansible/hosts``."""
    if not given:
        return list(default)
    return [source if "," in source else os.path.normpath(os.path.abspath(os.path.expanduser(os.path.expandvars(
        source)))) for source in given]


class RunOptions(NamedTuple):
    """The command-line options that become ``ansible_*`` variables."""

    inventory_sources: Sequence[str] = (DEFAULT_HOST_LIST,)
    tags: Sequence[str] = ()
    skip_tags: Sequence[str] = ()
    limit: str | None = None
    check: bool = False
    diff: bool = False
    forks: int | None = None
    """``--forks``; None: not given, so ansible.cfg's (``DEFAULT_FORKS``)."""
    verbosity: int = 0
    list_tags: bool = False  # --list-tags without a selection selects ['never', 'all'], in that order

    def variables(self) -> dict[str, Any]:
        """``load_options_vars``, in its order. ``ansible_limit`` exists only with a limit and
        ``ansible_run_tags`` is ``['all']`` without tags. ansible de-duplicates tags through a
        set, so the order of two or more is the run's (string hashing is seeded anew in every
        process): a :class:`RunOrdered` list, its items known."""
        result: dict[str, Any] = {
            "ansible_version": version_info(),
            "ansible_check_mode": self.check,
            "ansible_diff_mode": self.diff,
            "ansible_forks": self.forks if self.forks is not None else configured_forks(),
            "ansible_inventory_sources": list(self.inventory_sources),
            "ansible_skip_tags": _tag_set(self.skip_tags),
        }
        if self.limit:
            result["ansible_limit"] = self.limit
        unselected = ["never", "all"] if self.list_tags and not (self.tags or self.skip_tags) else ["all"]
        result["ansible_run_tags"] = _tag_set(self.tags) or unselected
        result["ansible_verbosity"] = self.verbosity
        return result


def _tag_set(values: Sequence[str]) -> list[str]:
    """Tags as ansible's CLI keeps them: every comma-separated value, stripped, once (in an order
    only the run knows, for two or more)."""
    tags = sorted({tag.strip() for value in values for tag in str(value).split(",")})
    return RunOrdered(tags) if len(tags) > 1 else tags


def load_time_variables(options: RunOptions | None = None, groups: Mapping[str, list[str]] | None = None,
                        config_file: str | None = None) -> dict[str, Any]:
    """Every magic variable that does not depend on the play: ``playbook_dir`` is added per play."""
    variables: dict[str, Any] = {
        "ansible_playbook_python": sys.executable,
        "ansible_config_file": config_file,
        "groups": dict(groups) if groups is not None else {"all": [], "ungrouped": []},
        "omit": OMIT,
    }
    variables.update((options or RunOptions()).variables())
    return variables
