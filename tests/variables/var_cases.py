"""Differential cases for variable values (`playbook-ls vars`) against `ansible-playbook -c local`.

Every directory under ``scenarios/`` is one scenario: a ``site.yml``, an inventory, whatever
vars files, roles and ``ansible.cfg`` it needs, and a ``case.json``::

    {"description": "...", "inventory": ["inv/hosts.ini"], "args": ["-e", "x=1"],
     "env": {"ANSIBLE_PRIVATE_ROLE_VARS": "true"}}

``args`` are ansible-playbook options, ``env`` environment variables set for the run (the test
gives playbook-ls the same ones), ``collections`` the collections the playbook needs installed
(the live check leaves the scenario out where ansible would not find one).

Tasks (and handlers) whose name starts with ``probe`` print a mapping ``{NAME: "{{ NAME }}",
...}``; ansible's side is what each probe printed on each host, recorded by the test-only
callback in ``callback_plugins/`` into ``scenarios/NAME/expected.json`` as ``{"FILE:LINE":
{HOST: [{NAME: VALUE}, ...]}}``: one entry per time the task written there ran on the host, in
run order (a task file or role reached twice runs its tasks twice, each time with its own
values). Scenarios give every definition a value that names where it is written
(``"inventory group_vars/web.yml"``), so an equal value is also an equal winning source.
Values are compared strictly (:func:`typed`): 1, 1.0, "1" and true are four different values.

Each scenario is recorded once per PYTHONHASHSEED of ``ansible_tools.HASH_SEEDS``: a value that
differs between those runs (a list made from a set of strings) is written ``{"__run_dependent__":
[each value seen]}``; only the run knows it, so playbook-ls must say it is unknown (a value there is
a guess, counted wrong even when equal to one of them). A looped probe's item that one run skipped
and another did not is marked whole the same way.

Re-record (needs ansible-core 2.19 beside this Python or on PATH)::

    python tests/variables/var_cases.py [NAME...]           # rewrite expected.json
    python tests/variables/var_cases.py --verify [NAME...]  # re-run ansible, compare with the recordings
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ansible_tools import (  # noqa: E402
    HASH_SEEDS,
    agrees_with_recording,
    mark_differences,
    read_case,
    record_or_verify,
    run_with_callback,
    scenario_dirs,
    seeded_runs,
)

HERE = Path(__file__).resolve().parent
SCENARIOS = HERE / "scenarios"
CALLBACK = HERE / "callback_plugins" / "probe_values.py"


def scenarios(names: list[str] | None = None) -> list[Path]:
    return scenario_dirs(SCENARIOS, names)


case = read_case


def typed(value: Any) -> Any:
    """``value`` with every scalar paired with its type name, so that ``==`` is strict about type:
    Python's equality takes 1, 1.0 and True for one value, JSON and ansible do not."""
    if isinstance(value, dict):
        return {key: typed(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [typed(item) for item in value]
    return (type(value).__name__, value)


def runtime(scenario: Path) -> dict[str, Any]:
    """The case's ``runtime`` names and its ``runtime_on`` (:func:`runtime_names`): values only the
    run knows, which two runs need not agree on."""
    spec = case(scenario)
    return {"runtime": spec.get("runtime", []), "runtime_on": spec.get("runtime_on", {})}


def runtime_names(spec: dict[str, Any], host: str) -> set[str]:
    """The names a case's probes print on ``host`` whose values only the run knows: its ``runtime``
    (on every host) and ``runtime_on[host]`` (a name the run decides on some hosts only: set after a
    module that may fail, in a block with a ``rescue``, where the block runs)."""
    return set(spec.get("runtime", [])) | set(spec.get("runtime_on", {}).get(host, []))


def steady(values: dict[str, Any], spec: dict[str, Any]) -> Any:
    """``values`` (a recording) :func:`typed`, less the case's names only the run knows on each host
    (:func:`runtime_names` of ``spec``): their values are the run's own (a list in the order of a set
    of strings changes from run to run), so two runs of ansible need not agree on them."""
    def kept(msg: Any, host: str) -> Any:
        own = runtime_names(spec, host)
        return {k: v for k, v in msg.items() if k not in own} if isinstance(msg, dict) else msg

    return typed({where: {host: [[kept(item, host) for item in run] if isinstance(run, list) else kept(run, host)
                                 for run in runs]
                          for host, runs in hosts.items()} for where, hosts in values.items()})


def ansible_values(scenario: Path, tool: str, seeds: tuple[str, ...] = HASH_SEEDS) -> dict[str, Any]:
    """Run the scenario with ansible-playbook in a scratch copy, once per PYTHONHASHSEED of ``seeds``;
    the probes' values, each that differed between the runs marked run-dependent (:func:`merged`)."""
    spec = case(scenario)
    command = ["site.yml", *(arg for source in spec.get("inventory", []) for arg in ("-i", source)),
               *spec.get("args", [])]
    runs = seeded_runs(lambda: run_with_callback(scenario, tool, CALLBACK, command, spec.get("env", {})), seeds)
    if not runs[0]:
        raise RuntimeError(f"{scenario.name}: ansible-playbook recorded no probe value")
    return merged(runs, scenario.name)


def merged(runs: list[dict[str, Any]], name: str = "") -> dict[str, Any]:
    """One recording of ``runs`` (the scenario's probes under each seed): a probed value that differs
    between them marked run-dependent (``ansible_tools.mark_differences``), and a looped probe's item
    that differs in whether it ran at all. A probe run on a host a different number of times is an
    error: the recordings' shapes must agree."""
    first = runs[0]
    if any({w: {h: len(r) for h, r in hosts.items()} for w, hosts in run.items()}
           != {w: {h: len(r) for h, r in hosts.items()} for w, hosts in first.items()} for run in runs[1:]):
        raise RuntimeError(f"{name}: the runs under different hash seeds ran the probes a different number of times")

    def msg(found: list[Any]) -> Any:
        if all(isinstance(f, list) for f in found) and len({len(f) for f in found}) == 1:
            return [msg_of([f[i] for f in found]) for i in range(len(found[0]))]
        return msg_of(found)

    def msg_of(found: list[Any]) -> Any:
        return mark_differences(found, 1 if all(isinstance(f, dict) for f in found) else 0)

    return {where: {host: [msg([run[where][host][index] for run in runs]) for index in range(len(first[where][host]))]
                    for host in first[where]} for where in first}


def _summary(values: dict[str, Any]) -> str:
    return f"{sum(len(runs) for hosts in values.values() for runs in hosts.values())} probe results recorded"


if __name__ == "__main__":
    sys.exit(record_or_verify(sys.argv[1:], __doc__ or "", scenarios, ansible_values,
                              lambda scenario, a, b: agrees_with_recording(steady(a, runtime(scenario)),
                                                                           steady(b, runtime(scenario))),
                              _summary))  # --verify: every value but the run's own (the case's runtime names)
