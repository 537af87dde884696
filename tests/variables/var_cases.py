"""Differential cases for variable values (`playbook-ls vars`) against `ansible-playbook -c local`.

Every directory under ``scenarios/`` is one scenario: a ``site.yml``, an inventory, whatever
vars files, roles and ``ansible.cfg`` it needs, and a ``case.json``::

    {"description": "...", "inventory": ["inv/hosts.ini"], "args": ["-e", "x=1"],
     "env": {"ANSIBLE_PRIVATE_ROLE_VARS": "true"}}

``args`` are ansible-playbook options, ``env`` environment variables set for the run (the test
gives playbook-ls the same ones).

Tasks (and handlers) whose name starts with ``probe`` print a mapping ``{NAME: "{{ NAME }}",
...}``; ansible's side is what each probe printed on each host, recorded by the test-only
callback in ``callback_plugins/`` into ``scenarios/NAME/expected.json`` as ``{"FILE:LINE":
{HOST: [{NAME: VALUE}, ...]}}``: one entry per time the task written there ran on the host, in
run order (a task file or role reached twice runs its tasks twice, each time with its own
values). Scenarios give every definition a value that names where it is written
(``"inventory group_vars/web.yml"``), so an equal value is also an equal winning source.
Values are compared strictly (:func:`typed`): 1, 1.0, "1" and true are four different values.

Re-record (needs ansible-core 2.19 beside this Python or on PATH)::

    python tests/variables/var_cases.py [NAME...]           # rewrite expected.json
    python tests/variables/var_cases.py --verify [NAME...]  # re-run ansible, compare with the recordings
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ansible_tools import find_tool  # noqa: E402

HERE = Path(__file__).resolve().parent
SCENARIOS = HERE / "scenarios"


def scenarios(names: list[str] | None = None) -> list[Path]:
    found = sorted(p for p in SCENARIOS.iterdir() if (p / "case.json").is_file())
    return [p for p in found if not names or p.name in names]


def case(scenario: Path) -> dict[str, Any]:
    return json.loads((scenario / "case.json").read_text())


def typed(value: Any) -> Any:
    """``value`` with every scalar paired with its type name, so that ``==`` is strict about type:
    Python's equality takes 1, 1.0 and True for one value, JSON and ansible do not."""
    if isinstance(value, dict):
        return {key: typed(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [typed(item) for item in value]
    return (type(value).__name__, value)


def ansible_values(scenario: Path, tool: str) -> dict[str, Any]:
    """Run the scenario with ansible-playbook in a scratch copy; the probes' values."""
    spec = case(scenario)
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch) / scenario.name
        shutil.copytree(scenario, root, ignore=shutil.ignore_patterns("expected.json", "case.json"))
        out = Path(scratch) / "values.json"
        env = {**os.environ, "ANSIBLE_CALLBACKS_ENABLED": "probe_values",
               "ANSIBLE_CALLBACK_PLUGINS": str(HERE / "callback_plugins"), "PROBE_VALUES_OUT": str(out),
               "PROBE_ROOT": str(root), "ANSIBLE_NOCOLOR": "1", "ANSIBLE_LOCALHOST_WARNING": "0",
               "ANSIBLE_PYTHON_INTERPRETER": sys.executable, **spec.get("env", {})}
        command = [tool, "site.yml", "-c", "local"]
        for source in spec.get("inventory", []):
            command += ["-i", source]
        command += spec.get("args", [])
        done = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True, timeout=300,
                              stdin=subprocess.DEVNULL)
        if not out.is_file() or not json.loads(out.read_text()):
            raise RuntimeError(f"{scenario.name}: ansible-playbook recorded nothing (exit {done.returncode})\n"
                               f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
        return json.loads(out.read_text())


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("names", nargs="*")
    parser.add_argument("--verify", action="store_true")
    args = parser.parse_args(argv)
    tool = find_tool("ansible-playbook")
    if tool is None:
        print("ansible-playbook is not installed", file=sys.stderr)
        return 2
    failed = 0
    for scenario in scenarios(args.names):
        values = ansible_values(scenario, tool)
        expected = scenario / "expected.json"
        if args.verify:
            same = expected.is_file() and typed(json.loads(expected.read_text())) == typed(values)
            print(f"{scenario.name}: {'same' if same else 'DIFFERENT'}")
            failed += not same
        else:
            expected.write_text(json.dumps(values, indent=2, sort_keys=True) + "\n")
            runs = sum(len(runs) for hosts in values.values() for runs in hosts.values())
            print(f"{scenario.name}: {runs} probe results recorded")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
