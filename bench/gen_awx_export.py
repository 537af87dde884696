"""Deterministic generator of a large ``awx export`` of job templates, with the settings that map
its projects and inventories, for measuring how ``check``, ``launch`` and ``why`` read them.

Usage: python bench/gen_awx_export.py OUTDIR [--templates 20000] [--seed 1]

OUTDIR gets ``export.json`` (the job templates, each with extra_vars, tags and, one in four, a
survey), ``.playbook-ls.yml`` (naming it, its 20 projects and 10 inventories), the inventories and
one playbook per project. Time the commands from OUTDIR, e.g. ``playbook-ls check`` or
``playbook-ls launch "Template 19999"``.
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

PROJECTS = 20
INVENTORIES = 10
PLAYBOOK = """\
- hosts: all
  gather_facts: false
  tasks:
    - name: deploy
      ansible.builtin.debug:
        msg: "{{ env | default('dev') }}"
      tags: [deploy]
"""


def _template(index: int, rng: random.Random) -> dict[str, object]:
    organization = {"name": "Default", "type": "organization"}
    template: dict[str, object] = {
        "name": f"Template {index}",
        "description": "",
        "job_type": rng.choice(["run", "check"]),
        "playbook": "site.yml",
        "forks": 0,
        "limit": rng.choice(["", "web", "db"]),
        "verbosity": 0,
        "extra_vars": f"---\nenv: env{index % 7}\nreplicas: {index % 5 + 1}\n",
        "job_tags": rng.choice(["", "deploy", "deploy,config"]),
        "skip_tags": "",
        "ask_limit_on_launch": rng.random() < 0.5,
        "ask_tags_on_launch": rng.random() < 0.5,
        "ask_variables_on_launch": rng.random() < 0.3,
        "survey_enabled": True,
        "diff_mode": False,
        "inventory": {"organization": organization, "name": f"Inventory {index % INVENTORIES}",
                      "type": "inventory"},
        "project": {"organization": organization, "name": f"Project {index % PROJECTS}", "type": "project"},
        "related": {},
    }
    if index % 4 == 0:
        template["related"] = {"survey_spec": {"name": "", "description": "", "spec": [
            {"variable": "replicas", "type": "integer", "min": 1, "max": 9, "default": 2, "required": True,
             "question_name": "Replicas"},
            {"variable": "region", "type": "multiplechoice", "choices": ["eu", "us"], "default": "eu",
             "required": False, "question_name": "Region"}]}}
    return template


def generate(outdir: Path, templates: int, seed: int) -> None:
    rng = random.Random(seed)
    outdir.mkdir(parents=True, exist_ok=True)
    export = {"job_templates": [_template(index, rng) for index in range(templates)]}
    (outdir / "export.json").write_text(json.dumps(export, indent=1) + "\n")
    lines = ["job_templates:", "  files: [export.json]", "  projects:"]
    lines += [f"    Project {index}: project{index}" for index in range(PROJECTS)]
    lines += ["  inventories:"] + [f"    Inventory {index}: inventory/inv{index}.ini" for index in range(INVENTORIES)]
    (outdir / ".playbook-ls.yml").write_text("\n".join(lines) + "\n")
    (outdir / "inventory").mkdir(exist_ok=True)
    for index in range(INVENTORIES):
        (outdir / "inventory" / f"inv{index}.ini").write_text(f"[web]\nweb{index} ansible_connection=local\n"
                                                              f"[db]\ndb{index} ansible_connection=local\n")
    for index in range(PROJECTS):
        (outdir / f"project{index}").mkdir(exist_ok=True)
        (outdir / f"project{index}" / "site.yml").write_text(PLAYBOOK)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("outdir", type=Path)
    parser.add_argument("--templates", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    generate(args.outdir, args.templates, args.seed)


if __name__ == "__main__":
    main()
