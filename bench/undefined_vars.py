"""PLS122 (undefined-variable) on public repositories, each playbook under a synthetic launch profile.

Usage: python bench/undefined_vars.py REPO_DIR [REPO_DIR ...] [--inventory localhost,]

For every playbook realworld.py finds, run from the directory realworld.py would run it in, a
profile that launches it with ``--inventory`` (default: the ``ansible.cfg`` inventory of that
directory if it names one, else ``localhost,``) and no extra variables; prints each finding
(the variable, where it is read) and, per repository, the playbooks analysed and the findings.
A finding says that ansible-playbook, launched that way, fails the task with "'NAME' is
undefined": check the first ones with ``ansible-playbook --check`` under the same launch.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from realworld import find_playbooks, run_directory  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("repos", nargs="+", type=Path)
    parser.add_argument("--inventory", help="the profile's inventory (default: ansible.cfg's, else localhost,)")
    args = parser.parse_args(argv)
    from engine.config import AnsibleConfig
    from engine.launch.profiles import LaunchProfile
    from playbook_ls.rules.undefined_names import undefined_in_launch

    start = Path.cwd()
    for repo in args.repos:
        analysed = found = 0
        for playbook in find_playbooks(repo.resolve()):
            where = run_directory(playbook, repo.resolve())
            os.chdir(where)
            try:
                profile = LaunchProfile("probe")
                profile.playbook = os.path.relpath(playbook, where)
                configured = AnsibleConfig.load(str(where)).inventory.sources
                profile.inventory = args.inventory or (None if configured and all(
                    os.path.exists(s) for s in configured) else "localhost,")
                undefined = undefined_in_launch(profile.playbook, profile)
            except Exception as exc:  # a crash is a bug to report, not a reason to stop
                print(f"CRASH {playbook}: {type(exc).__name__}: {exc}")
                continue
            finally:
                os.chdir(start)
            analysed += 1
            found += len(undefined)
            for item in undefined:
                span = item.span or item.task.span
                file = span.file if span is None or os.path.isabs(span.file) else os.path.join(where, span.file)
                place = f"{os.path.relpath(file, repo.resolve())}:{span.line + 1}" if span else "?"
                print(f"{repo.name}: {os.path.relpath(playbook, repo.resolve())}: '{item.name}' read at {place}")
        print(f"== {repo.name}: {analysed} playbooks analysed, {found} findings")
    return 0


if __name__ == "__main__":
    sys.exit(main())
