"""A --limit that leaves no host: ansible-playbook stops before any play, which the recorded
scenarios cannot capture (they need its callback's recap), so it is compared here."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from ansible_tools import find_tool
from helpers import write

HOSTS = "h1\nh2\n[all:vars]\nansible_connection=local\n"


@pytest.mark.ansible
def test_a_limit_that_matches_no_host_exits_as_ansible(tmp_path: Path) -> None:
    tool = find_tool("ansible-playbook")
    if tool is None:
        pytest.skip("ansible-playbook is not installed")
    write(tmp_path, {"site.yml": "- hosts: all\n  gather_facts: false\n  tasks: [{debug: {msg: x}}]\n",
                     "hosts": HOSTS})
    argv = ["site.yml", "-i", "hosts", "--limit", "nomatch"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANSIBLE_")}
    real = subprocess.run([tool, "-c", "local", *argv], cwd=tmp_path, capture_output=True, text=True, timeout=120,
                          env={**env, "ANSIBLE_NOCOLOR": "1"})
    root = Path(__file__).resolve().parents[2]
    ours = subprocess.run([sys.executable, "-m", "playbook_ls", "run", *argv], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120, env={**env, "PYTHONPATH": str(root)})
    assert real.returncode == ours.returncode == 1
    message = "Specified inventory, host pattern and/or --limit leaves us with no hosts to target."
    assert message in real.stderr and message in ours.stderr
    assert ours.stderr == real.stderr  # the warning for the pattern, then the error, as ansible words them
    assert "PLAY [" not in real.stdout + ours.stdout
