"""Recorded runs for ``playbook-ls plan``: what ansible-playbook did with each task on each host.

Every directory under ``scenarios/`` is one scenario: a ``site.yml``, an ``inventory.ini``,
whatever vars files and task files it needs, and a ``case.json``::

    {"description": "...", "args": ["--tags", "deploy", "-e", "x=1"], "decided": true}

``args`` are ansible-playbook options (playbook-ls plan is given the same); ``decided`` says
every value the conditions use is known before the run. The test-only callback in
``callback_plugins/`` records, with ``-c local``, each task's status per host into
``scenarios/NAME/expected.json`` as ``{"FILE:LINE": {HOST: [STATUS, ...]}}``.

Re-record (needs ansible-core 2.19 beside this Python or on PATH)::

    python tests/plan/plan_cases.py [NAME...]           # rewrite expected.json
    python tests/plan/plan_cases.py --verify [NAME...]  # re-run ansible, compare with the recordings
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ansible_tools import read_case, record_or_verify, run_with_callback, scenario_dirs  # noqa: E402

HERE = Path(__file__).resolve().parent
SCENARIOS = HERE / "scenarios"
CALLBACK = HERE / "callback_plugins" / "task_outcomes.py"


def scenarios(names: list[str] | None = None) -> list[Path]:
    return scenario_dirs(SCENARIOS, names)


case = read_case


def ansible_outcomes(scenario: Path, tool: str) -> dict[str, Any]:
    """Run the scenario with ansible-playbook in a scratch copy; each task's status per host."""
    command = ["site.yml", "-i", "inventory.ini", *case(scenario).get("args", [])]
    return run_with_callback(scenario, tool, CALLBACK, command, {})


if __name__ == "__main__":
    sys.exit(record_or_verify(sys.argv[1:], __doc__ or "", scenarios, ansible_outcomes, lambda a, b: a == b,
                              lambda found: f"{sum(map(len, found.values()))} task-host outcomes recorded"))
