"""Pick commits of a repository's history for `bench/review_commits.py`, by a rule fixed beforehand.

    python bench/pick_commits.py GIT_DIR OWNER/NAME [--count 5] [--depth 400] [--seed 17]

Walks the first-parent history of GIT_DIR's HEAD (the last ``--depth`` commits), keeps the
commits that are not merges and that change at least one YAML file (``.yml``/``.yaml``) or
template (``.j2``) outside documentation and CI folders, and prints ``--count`` of them, picked at
random with ``--seed`` and listed oldest first, one ``OWNER/NAME COMMIT`` line each: the format of
review_commits.py's LIST. Nothing of the repository runs; its objects are read with git.
"""

from __future__ import annotations

import argparse
import random
import subprocess

_SKIPPED_FOLDERS = (".github/", ".gitlab/", "docs/", "doc/", ".ci/", "changelogs/")


def _git(git_dir: str, *args: str) -> str:
    return subprocess.run(["git", "--git-dir", git_dir, *args], check=True, capture_output=True,
                          text=True).stdout


def _touches_playbook_files(git_dir: str, commit: str) -> bool:
    names = _git(git_dir, "diff-tree", "--no-commit-id", "--name-only", "-r", commit).split()
    return any(name.endswith((".yml", ".yaml", ".j2")) and not name.startswith(_SKIPPED_FOLDERS)
               for name in names)


def pick(git_dir: str, count: int, depth: int, seed: int) -> list[str]:
    history = _git(git_dir, "rev-list", "--first-parent", f"--max-count={depth}", "--parents",
                   "HEAD").splitlines()
    candidates = [line.split()[0] for line in history
                  if len(line.split()) == 2 and _touches_playbook_files(git_dir, line.split()[0])]
    chosen = set(random.Random(seed).sample(candidates, min(count, len(candidates))))
    return [commit for commit in reversed(candidates) if commit in chosen]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("git_dir")
    parser.add_argument("repository", help="OWNER/NAME, as the LIST names it")
    parser.add_argument("--count", type=int, default=5)
    parser.add_argument("--depth", type=int, default=400)
    parser.add_argument("--seed", type=int, default=17)
    options = parser.parse_args()
    for commit in pick(options.git_dir, options.count, options.depth, options.seed):
        print(f"{options.repository} {commit}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
