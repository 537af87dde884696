"""The copy action's walk of a controller-side source directory (``_walk_dirs`` of ansible-core's
``plugins/action/copy.py``): the files to copy, the directories to make and the links to make,
each with its path relative to the destination.

With ``local_follow`` (the default) a link to a file is copied as the file it leads to, a link to a
directory is walked as a directory, except one that leads back to a directory of the copy (an
ancestor: the walk would never end), which stays a link, as does a link that leads nowhere. Without
``local_follow`` every link stays a link, its target as written. A walked directory's entries are
taken in name order (ansible takes them in the order the file system lists them).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field


@dataclass
class SourceTree:
    files: list[tuple[str, str]] = field(default_factory=list)
    """(the file to read, its path below the destination)"""
    directories: list[tuple[str, str]] = field(default_factory=list)
    """(the directory walked, its path below the destination); never the source directory itself"""
    symlinks: list[tuple[str, str]] = field(default_factory=list)
    """(the link's target as written, its path below the destination)"""


def _identity(path: str) -> tuple[int, int]:
    info = os.stat(path)
    return info.st_dev, info.st_ino


def walk_dirs(topdir: str, local_follow: bool) -> SourceTree:
    """``_walk_dirs(topdir, local_follow=...)``: ``topdir`` ending with '/' copies what it holds,
    without one the directory itself (its name first in every relative path)."""
    tree = SourceTree()
    root = topdir.rstrip(os.sep) or os.sep

    def recurse(directory: str, rel_base: str, parents: frozenset[tuple[int, int]]) -> None:
        for current, dirnames, filenames in os.walk(directory):
            dirnames.sort()
            relative = os.path.relpath(current, directory)
            here = rel_base if relative == "." else os.path.join(rel_base, relative)
            for name in sorted(filenames):
                path = os.path.join(current, name)
                dest = os.path.join(here, name)
                if os.path.islink(path):
                    real = os.path.realpath(path)
                    if local_follow and os.path.isfile(real):
                        tree.files.append((real, dest))
                    else:
                        tree.symlinks.append((os.readlink(path), dest))
                else:
                    tree.files.append((path, dest))
            for name in list(dirnames):
                path = os.path.join(current, name)
                dest = os.path.join(here, name)
                if not os.path.islink(path):
                    tree.directories.append((path, dest))
                    continue
                target = _identity(os.path.realpath(path))
                if not local_follow or target in parents:
                    tree.symlinks.append((os.readlink(path), dest))
                    continue
                # the directories above the link, up to one the walk already knows
                ancestors = set()
                parts = os.path.dirname(path).split(os.sep)
                for end in range(len(parts), 0, -1):
                    above = _identity(os.sep.join(parts[:end]) or os.sep)
                    if above in parents:
                        break
                    ancestors.add(above)
                if target in ancestors:  # a link back into its own ancestry
                    tree.symlinks.append((os.readlink(path), dest))
                else:
                    real = os.path.realpath(path)
                    tree.directories.append((real, dest))
                    recurse(real, dest, parents | ancestors)

    prefix = "" if topdir.endswith(os.sep) else os.path.basename(root)
    if os.path.islink(root) and not local_follow:
        tree.symlinks.append((os.readlink(root), os.path.basename(root)))
        return tree
    recurse(root, prefix, frozenset({_identity(root)}))
    return tree
