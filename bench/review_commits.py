"""`playbook-ls diff` on real commits, against ansible-playbook's listings of both revisions.

Usage: python bench/review_commits.py LIST --git-dirs PATTERN [--ansible-playbook PATH] [--max-playbooks 3]
                                           [--max-selections 4] [--json FILE] [--listings DIR] [--unreached N]

LIST has one commit per line: ``OWNER/NAME COMMIT [PLAYBOOK...]`` (``#`` starts a comment); PATTERN
says where each repository's git directory (a clone with its history) is, e.g. ``clones/{owner}/{name}/.git``. For each,
the parent and the commit are written out of git's objects (nothing runs), and for every playbook
the change reaches (or those named) and every selection the review compares (the default run and
``--tags T`` for each tag the change touches), ansible-playbook's ``--list-tasks`` of both
revisions gives what now runs and no longer runs. A difference the review claims that ansible's
listings do not show is false; one they show that the review does not claim is missing. A task
renamed and listed on both sides is one task (ansible lists the new name instead of the old).
Tasks listed in another order count as the listings show them (compare.order_changes of ansible's
two listings). Each compared playbook is also reviewed as diff reviews it, with the old side's
readings taken from the new side's where they cannot differ and all read again: the two reviews
must be the same (``reuse-differs`` counts those that are not). With ``--unreached N``, up to N
playbooks the change reaches in neither revision and both can plan (the review claims they run as
before) are listed too: a difference in their listings is missing.
Prints one line per commit and the totals; the per-commit detail goes to --json. --listings names
listings recorded beforehand (a held-out set recorded before any review ran):
``DIR/OWNER+NAME/COMMIT/{old,new}/PLAYBOOK@default.txt`` and ``...@tags=T.txt`` (``/`` in the
playbook's path written ``%``, the revision's directory, which a role named by its path prints, written
``{root}``); a selection not recorded there is listed by ansible-playbook then.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "review"))

from review_cases import (  # noqa: E402
    claimed_listing_changes,
    claimed_order_changes,
    listing_names,
    selection_of,
    shown_order_changes,
)

from playbook_ls.review.compare import review_playbook  # noqa: E402
from playbook_ls.review.revisions import git, write_revision  # noqa: E402
from playbook_ls.review.sides import inside, read_playbook  # noqa: E402


def ansible_listing(tool: str, root: str, playbook: str, args: list[str]) -> str:
    env = {**os.environ, "ANSIBLE_NOCOLOR": "1", "ANSIBLE_LOCALHOST_WARNING": "0"}
    done = subprocess.run([tool, playbook, "-i", "localhost,", "--list-tasks", *args], cwd=root, env=env,
                          capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL)
    return done.stdout if done.returncode == 0 else f"ERROR {done.returncode}: {done.stderr[-300:]}"


def selection_args(label: str) -> list[str]:
    return [] if label.startswith("(") else label.split()


def recorded_listing(listings: Path | None, repository: str, commit: str, side: str, playbook: str,
                     args: list[str], root: str) -> str | None:
    """The listing recorded beforehand for this side (written out at ``root``), playbook and
    selection, if any."""
    if listings is None or (args and (len(args) != 2 or args[0] != "--tags")):
        return None
    label = "default" if not args else f"tags={args[1]}"
    path = listings / repository.replace("/", "+") / commit / side / f"{playbook.replace('/', '%')}@{label}.txt"
    return path.read_text().replace("{root}", os.path.realpath(root)) if path.is_file() else None


def one_commit(tool: str, git_dir: str, commit: str, named: list[str], max_playbooks: int,
               max_selections: int, listings: Path | None = None, repository: str = "",
               unreached: int = 0) -> dict[str, Any]:
    from engine.flow.plan import RunOptions
    from engine.loading.shared_plays import SharedPlays
    from engine.parsing.source import SourceCache, files_changed
    from playbook_ls.review.build import _playbooks_in
    from playbook_ls.review.revisions import Side, changed_files

    result: dict[str, Any] = {"commit": commit, "repository": git_dir, "false": [], "missing": [], "compared": 0,
                              "skipped": []}
    with tempfile.TemporaryDirectory() as scratch:
        roots = {"old": os.path.join(scratch, "old"), "new": os.path.join(scratch, "new")}
        parent = git(git_dir, "rev-parse", f"{commit}^").strip()
        for side, revision in (("old", parent), ("new", commit)):
            os.makedirs(roots[side])
            write_revision(git_dir, revision, "", roots[side])
        changed = set(changed_files(Side("old", roots["old"]), Side("new", roots["new"])))
        candidates = named or sorted(set(_playbooks_in(roots["old"])) | set(_playbooks_in(roots["new"])))
        options = RunOptions(playbook="", inventory=["localhost,"])
        views: dict[str, dict[str, Any]] = {}
        started = time.perf_counter()
        for side in ("old", "new"):
            files_changed()
            cache = SourceCache()
            cache.shared_plays = SharedPlays()  # as diff reads a side
            seen: dict[int, Any] = {}
            with inside(roots[side]):
                views[side] = {path: read_playbook(roots[side], path, options, cache, seen) for path in candidates}
        result["seconds"] = round(time.perf_counter() - started, 2)
        reached = [path for path in candidates
                   if (views["old"][path].reads | views["new"][path].reads) & changed
                   and not views["old"][path].problem and not views["new"][path].problem]
        result["playbooks"] = reached[:max_playbooks]
        for path in reached[:max_playbooks]:
            old, new = views["old"][path], views["new"][path]
            review = review_playbook(old, new, None, None, changed)
            for selection_change in review.selections[:max_selections]:
                args = selection_args(selection_change.label)
                texts = {side: recorded_listing(listings, repository, commit, side, path, args, roots[side])
                         or ansible_listing(tool, roots[side], path, args) for side in ("old", "new")}
                if any(text.startswith("ERROR") for text in texts.values()):
                    result["skipped"].append([path, selection_change.label, "ansible could not list it"])
                    continue
                before, after = (listing_names(texts[side], os.path.realpath(roots[side]))
                                 for side in ("old", "new"))
                now, gone = claimed_listing_changes(old, new, selection_change, selection_of(args))
                order = shown_order_changes(texts["old"], texts["new"], os.path.realpath(roots["old"]),
                                            os.path.realpath(roots["new"]))
                result["compared"] += 1
                result["shown"] = result.get("shown", 0) + (after - before).total() + (before - after).total() \
                    + order.total()
                for claimed, shown, what in ((now, after - before, "now runs"), (gone, before - after, "no longer"),
                                             (claimed_order_changes(selection_change), order, "another order")):
                    result["false"] += [[path, selection_change.label, what, *key] for key in claimed - shown]
                    result["missing"] += [[path, selection_change.label, what, *key] for key in shown - claimed]
        # a playbook the change reaches in neither revision (by what their readings read) is claimed
        # unchanged: its listings must be the same
        result["unreached_checked"] = 0
        plannable = [path for path in candidates if path not in reached
                     and not views["old"][path].problem and not views["new"][path].problem]
        for path in plannable[:unreached]:
            texts = {side: recorded_listing(listings, repository, commit, side, path, [], roots[side])
                     or ansible_listing(tool, roots[side], path, []) for side in ("old", "new")}
            if any(text.startswith("ERROR") for text in texts.values()):
                continue
            result["unreached_checked"] += 1
            before, after = (listing_names(texts[side], os.path.realpath(roots[side])) for side in ("old", "new"))
            order = shown_order_changes(texts["old"], texts["new"], os.path.realpath(roots["old"]),
                                        os.path.realpath(roots["new"]))
            for shown, what in ((after - before, "now runs"), (before - after, "no longer"), (order, "another order")):
                result["missing"] += [[path, "(unreached)", what, *key] for key in shown]
        result["reuse_differs"] = _reuse_differs(roots["old"], roots["new"], reached[:max_playbooks])
    return result


def _reuse_differs(old: str, new: str, playbooks: list[str]) -> list[str]:
    """The playbooks whose review (as diff makes it, no inventory) differs when the old side's
    readings are taken from the new side's where they cannot differ and when they are all read
    again: a cache must never change a result."""
    from engine.flow.plan import RunOptions
    from engine.parsing.source import files_changed
    from playbook_ls.review.build import build_review
    from playbook_ls.review.report import as_json

    differs = []
    for path in playbooks:
        texts = []
        for reuse in (True, False):
            files_changed()
            try:
                with inside(new):
                    review = build_review(old, new, [path], RunOptions(playbook="", inventory=[]), None, new,
                                          reuse=reuse)
                texts.append(as_json(review))
            except Exception as exc:  # noqa: BLE001 - said as this playbook's, the commit goes on
                texts.append(f"error {exc!r}")
        if texts[0] != texts[1] or texts[0].startswith("error"):
            differs.append(path if texts[0] != texts[1] else f"{path}: {texts[0]}")
    return differs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("list", type=Path)
    parser.add_argument("--git-dirs", required=True, help="where each repository's git directory is: "
                                                           "a pattern with {owner} and {name}")
    parser.add_argument("--ansible-playbook", default=shutil.which("ansible-playbook") or "ansible-playbook")
    parser.add_argument("--max-playbooks", type=int, default=3)
    parser.add_argument("--max-selections", type=int, default=4)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--listings", type=Path, help="listings recorded beforehand (see above)")
    parser.add_argument("--unreached", type=int, default=0,
                        help="also list up to N playbooks the change reaches in neither revision, whose "
                             "listings must not differ (a difference is counted missing)")
    args = parser.parse_args()
    results = []
    for line in args.list.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        repository, commit, *named = line.split()
        owner, name = repository.split("/", 1)
        git_dir = args.git_dirs.format(owner=owner, name=name)
        try:
            found = one_commit(args.ansible_playbook, git_dir, commit, named, args.max_playbooks,
                               args.max_selections, args.listings, repository, args.unreached)
        except Exception as exc:  # noqa: BLE001 - one commit's failure is reported, the rest go on
            found = {"commit": commit, "repository": git_dir, "error": repr(exc), "false": [], "missing": [],
                     "compared": 0}
        results.append(found)
        print(f"{repository[:30]:30} {commit[:10]} playbooks {len(found.get('playbooks', []))} "
              f"selections {found['compared']} shown {found.get('shown', 0)} false {len(found['false'])} "
              f"missing {len(found['missing'])} reuse-differs {len(found.get('reuse_differs', []))}"
              f"{' unreached ' + str(found['unreached_checked']) if found.get('unreached_checked') else ''}"
              f"{' ERROR ' + found['error'] if 'error' in found else ''} read {found.get('seconds', '-')} s",
              flush=True)
    print(f"total: {len(results)} commits, {sum(r['compared'] for r in results)} selections compared, "
          f"{sum(r.get('shown', 0) for r in results)} differences shown by ansible, "
          f"{sum(len(r['false']) for r in results)} false, {sum(len(r['missing']) for r in results)} missing, "
          f"{sum(len(r.get('reuse_differs', [])) for r in results)} reviews changed by reuse, "
          f"{sum('error' in r for r in results)} errors")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
