"""Record the option variables real ``ansible-playbook`` sets, for launches of test profiles.

Each scenario is a profile plus launch overrides. The launch is resolved by playbook-ls, turned
into the ``ansible-playbook`` command line AWX would build for the job, and that command runs a
tiny playbook printing every option variable with ``debug: var=...``. What it prints is stored
in ``fixtures/option_vars.json``; run this file to re-record it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
FIXTURE = HERE / "fixtures" / "option_vars.json"
OPTION_VARS = ("ansible_check_mode", "ansible_diff_mode", "ansible_run_tags", "ansible_skip_tags", "ansible_limit",
               "ansible_verbosity", "ansible_forks", "ansible_inventory_sources", "ansible_version")
# ansible de-duplicates tags through a set: their order changes from run to run
UNORDERED = ("ansible_run_tags", "ansible_skip_tags")
DIR = "<dir>"  # stands for the directory the playbook ran in, so no machine path is stored

SCENARIOS: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    "defaults": ({"playbook": "pb.yml", "inventory": "localhost,"}, {}),
    "check-job-type": ({"playbook": "pb.yml", "inventory": "localhost,", "job_type": "check"}, {}),
    "prompted-everything": (
        {"playbook": "pb.yml", "inventory": "localhost,", "ask_tags_on_launch": True, "ask_skip_tags_on_launch": True,
         "ask_limit_on_launch": True, "ask_job_type_on_launch": True, "ask_diff_mode_on_launch": True,
         "ask_verbosity_on_launch": True, "forks": 3},
        {"job_tags": "b,a", "skip_tags": "x", "limit": "localhost", "job_type": "check", "diff_mode": True,
         "verbosity": 2}),
    "ignored-prompts": (
        {"playbook": "pb.yml", "inventory": "localhost,", "job_tags": "a", "limit": "localhost"},
        {"job_tags": "b", "limit": "other", "job_type": "check", "diff_mode": True, "verbosity": 3}),
    "inventory-file": ({"playbook": "pb.yml", "inventory": "hosts.ini", "diff_mode": True, "verbosity": 1}, {}),
    "several-inventories": ({"playbook": "pb.yml", "inventory": ["hosts.ini", "localhost,"]}, {}),
    "several-inventories-prompted": ({"playbook": "pb.yml", "inventory": "hosts.ini", "ask_inventory_on_launch": True},
                                     {"inventory": ["localhost,", "hosts.ini"]}),
}

PLAYBOOK = "- hosts: all\n  gather_facts: false\n  tags: [always]\n  tasks:\n" + "".join(
    f"    - debug: var={name}\n" for name in OPTION_VARS)


def launch_for(name: str) -> Any:
    """The playbook-ls launch of a scenario; its profile lives in ``<dir>/.playbook-ls.yml``."""
    from engine.launch.profiles import LaunchProfile
    from engine.launch.prompting import resolve_launch

    data, overrides = SCENARIOS[name]
    profile = LaunchProfile.parse(name, data, lambda field: None)
    profile.source = os.path.join(DIR, ".playbook-ls.yml")
    return resolve_launch(profile, overrides)


def command_line(launch: Any, directory: str) -> list[str]:
    """The ``ansible-playbook`` options AWX builds for a job (flags only when set)."""
    from engine.launch.prompting import inventory_sources

    args = [f"--inventory={source}" for source in inventory_sources(launch, directory)]
    if launch.limit:
        args.append(f"--limit={launch.limit}")
    if launch.check_mode:
        args.append("--check")
    if launch.diff_mode:
        args.append("--diff")
    if launch.verbosity:
        args.append("-" + "v" * launch.verbosity)
    args.append(f"--forks={launch.forks}")
    if launch.job_tags:
        args.append(f"--tags={','.join(launch.job_tags)}")
    if launch.skip_tags:
        args.append(f"--skip-tags={','.join(launch.skip_tags)}")
    return args


def parse_debug_output(text: str) -> dict[str, Any]:
    """The ``ok: [localhost] => {...}`` results of the default callback, merged."""
    found: dict[str, Any] = {}
    lines = text.splitlines()
    for index, line in enumerate(lines):
        if line.startswith("ok: [localhost] => {"):
            end = lines.index("}", index)
            found.update(json.loads("{" + "\n".join(lines[index + 1:end + 1])))
    return found


def normalised(values: dict[str, Any], directory: str) -> dict[str, Any]:
    result = json.loads(json.dumps(values).replace(directory, DIR))
    for name in UNORDERED:
        if isinstance(result.get(name), list):
            result[name] = sorted(result[name])
    return result


def run_scenario(name: str, ansible_playbook: str) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as temp:
        directory = os.path.realpath(temp)
        Path(directory, "pb.yml").write_text(PLAYBOOK)
        Path(directory, "hosts.ini").write_text("localhost ansible_connection=local\n")
        Path(directory, "ansible.cfg").write_text("[defaults]\n")  # so no user's ansible.cfg is read
        launch = launch_for(name)
        launch.profile.source = os.path.join(directory, ".playbook-ls.yml")
        env = {**os.environ, "ANSIBLE_NOCOLOR": "1", "ANSIBLE_CALLBACK_RESULT_FORMAT": "json",
               "ANSIBLE_STDOUT_CALLBACK": "ansible.builtin.default",
               "ANSIBLE_CONFIG": os.path.join(directory, "ansible.cfg"),
               "ANSIBLE_LOCALHOST_WARNING": "0", "ANSIBLE_INVENTORY_UNPARSED_WARNING": "0"}
        done = subprocess.run([ansible_playbook, "-c", "local", *command_line(launch, directory), "pb.yml"],
                              cwd=directory, env=env, capture_output=True, text=True, timeout=120, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"ansible-playbook failed for {name}:\n{done.stdout}\n{done.stderr}")
        found = parse_debug_output(done.stdout)
        return normalised({k: v for k, v in found.items() if not _undefined(k, v)}, directory)


def _undefined(name: str, value: Any) -> bool:
    """How ``debug: var=`` shows a variable ansible did not set (2.19, and older releases)."""
    return value == "VARIABLE IS NOT DEFINED!" or (isinstance(value, str) and value.startswith("<< error")
                                                   and f"'{name}' is undefined" in value)


def record_all(ansible_playbook: str) -> dict[str, Any]:
    return {name: run_scenario(name, ansible_playbook) for name in SCENARIOS}


if __name__ == "__main__":
    sys.path.insert(0, str(HERE.parents[1]))
    tool = shutil.which("ansible-playbook") or sys.exit("ansible-playbook not found")
    FIXTURE.write_text(json.dumps(record_all(tool), indent=2, sort_keys=True) + "\n")
    print(f"wrote {FIXTURE.relative_to(HERE.parents[1])}")
