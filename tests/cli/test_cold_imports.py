"""A short listing imports only what it uses: each module below cost a cold ``list-tasks`` of a
small playbook a few per cent of its time (bench/README.md, ``cold_start.py``), and an import
added back at a module's top would bring that back unnoticed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "tag-inheritance"
NOT_FOR_A_LISTING = (
    "dataclasses", "inspect",  # the configuration and inventory classes are plain ones
    "jinja2",  # no template to render in the example
    "sqlite3", "json",  # a cold run only notes its parses
    "hashlib", "shutil", "configparser",  # OpenSSL; argparse's formatter; no ansible.cfg here
    "engine.variables.sources", "engine.inventory.ini",  # no templated play fields; a host list
    "argparse", "gettext", "locale",  # a plain listing command line is read from the option table
    "ruamel.yaml.main", "threading",  # the parser modules only; a lock from _thread
    "typing",  # engine.records: NamedTuple without typing; annotations under TYPE_CHECKING = False
)
PROBE = """
import sys
from playbook_ls.cli.main import main
code = main(["list-tasks", "-i", "localhost,", "playbook.yml"])
modules = sorted(sys.modules)
import json
print(json.dumps({"code": code, "modules": modules}), file=sys.stderr)
"""


def test_a_cold_listing_of_the_example_imports_none_of_the_modules_it_does_not_need(tmp_path: Path) -> None:
    env = {key: value for key, value in os.environ.items() if not key.startswith(("ANSIBLE_", "PLAYBOOK_LS"))}
    env["PLAYBOOK_LS_CACHE_DIR"] = str(tmp_path / "cache")  # cold: nothing stored
    done = subprocess.run([sys.executable, "-c", PROBE], cwd=EXAMPLE, env=env, capture_output=True, text=True,
                          check=False, timeout=120)
    report = json.loads(done.stderr.strip().splitlines()[-1])
    assert report["code"] == 0, done.stderr
    assert "sample task\tTAGS: [__play]" in done.stdout
    loaded = set(report["modules"])
    assert "engine.parsing.yaml_compose" in loaded  # the probe did parse and resolve
    assert sorted(loaded.intersection(NOT_FOR_A_LISTING)) == []
