"""Which files git ignores, read from ``.gitignore`` files and ``.git/info/exclude``.

git itself is never run: a repository's configuration can make git run commands
(``core.fsmonitor``, filters, hooks), and nothing from a checked repository may run. The
pattern files are read as text and matched here with git's semantics (gitignore(5) and
wildmatch): a ``.gitignore`` applies to its directory and those below, a deeper one overrides
a shallower one, ``.git/info/exclude`` counts least, the last matching line of a file wins,
``!`` re-includes, and nothing inside an ignored directory can be re-included (callers prune
such directories, as git does not look into them).

Not read: ``core.excludesFile`` and the user's global ignore file (outside the repository,
and ``core.excludesFile`` would mean interpreting git configuration), ``core.ignoreCase``
(matching is case-sensitive, git's default on Linux).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from engine import files

# POSIX bracket classes as wildmatch knows them, in Python's regex syntax (ASCII, as git's).
BRACKET_CLASSES = {
    "alnum": "a-zA-Z0-9", "alpha": "a-zA-Z", "blank": " \\t", "cntrl": "\\x00-\\x1f\\x7f",
    "digit": "0-9", "graph": "!-~", "lower": "a-z", "print": " -~",
    "punct": "!-/:-@\\[-`{-~", "space": " \\t\\n\\r\\f\\v", "upper": "A-Z", "xdigit": "0-9a-fA-F",
}
NEVER = "(?!)"  # what a malformed pattern matches: git's wildmatch aborts on it, matching nothing


@dataclass(frozen=True)
class IgnorePattern:
    """One line of an ignore file, relative to ``base`` (the directory the file applies to)."""

    regex: re.Pattern[str]
    negated: bool  # ``!pattern``: re-includes what an earlier line ignored
    directories_only: bool  # ``pattern/``: matches directories only
    basename_only: bool  # no ``/`` but a trailing one: matches the name at any depth

    def matches(self, relative: str, is_dir: bool) -> bool:
        """Whether ``relative`` (``/``-separated, relative to the pattern's base) matches."""
        if self.directories_only and not is_dir:
            return False
        subject = relative.rsplit("/", 1)[-1] if self.basename_only else relative
        return self.regex.fullmatch(subject) is not None


def parse_line(line: str) -> IgnorePattern | None:
    """The pattern a line of an ignore file holds; None for blank lines and comments."""
    line = line.removesuffix("\r")
    if not line or line.startswith("#"):
        return None
    line = _strip_trailing_spaces(line)
    negated = line.startswith("!")
    if negated:
        line = line[1:]
    directories_only = line.endswith("/")
    line = line.removesuffix("/")  # one only, as git: "a//" stays a path pattern
    if not line:
        return None
    basename_only = "/" not in line
    regex = wildmatch_regex(line.removeprefix("/"))
    return IgnorePattern(re.compile(regex, re.DOTALL), negated, directories_only, basename_only)


def _strip_trailing_spaces(line: str) -> str:
    """Trailing spaces are dropped unless escaped with a backslash (``foo\\ `` keeps one)."""
    end = len(line)
    while end > 0 and line[end - 1] == " ":
        backslashes = len(line[:end - 1]) - len(line[:end - 1].rstrip("\\"))
        if backslashes % 2 == 1:
            break
        end -= 1
    return line[:end]


def wildmatch_regex(pattern: str) -> str:
    """A regex for git's wildmatch with WM_PATHNAME: ``*``, ``?`` and brackets never match
    ``/``; ``**`` between slashes (or at either end) spans directories, elsewhere it is ``*``;
    a backslash makes the next character literal."""
    regex: list[str] = []
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            if i + 1 == len(pattern):
                return NEVER  # a trailing backslash is invalid: git's pattern never matches
            regex.append(re.escape(pattern[i + 1]))
            i += 2
        elif char == "*":
            run_end = i
            while run_end < len(pattern) and pattern[run_end] == "*":
                run_end += 1
            at_boundary_before = i == 0 or pattern[i - 1] == "/"
            at_boundary_after = run_end == len(pattern) or pattern[run_end] == "/"
            if run_end - i >= 2 and at_boundary_before and at_boundary_after:
                if run_end < len(pattern):  # ``**/``: zero or more whole directories
                    regex.append("(?:.*/)?")
                    run_end += 1
                else:  # trailing ``**``: everything below
                    regex.append(".*")
            else:
                regex.append("[^/]*")
            i = run_end
        elif char == "?":
            regex.append("[^/]")
            i += 1
        elif char == "[":
            bracket, i = _bracket(pattern, i)
            if bracket is None:
                return NEVER
            regex.append(bracket)
        else:
            regex.append(re.escape(char))
            i += 1
    return "".join(regex)


def _bracket(pattern: str, start: int) -> tuple[str | None, int]:
    """Translate the bracket expression opening at ``start``; None when it is not closed.
    Returns the regex and the index after the closing ``]``."""
    i = start + 1
    negated = i < len(pattern) and pattern[i] in "!^"
    if negated:
        i += 1
    members: list[str] = []
    first = True
    while i < len(pattern):
        char = pattern[i]
        if char == "]" and not first:
            body = "".join(members)
            # a bracket never matches "/" under WM_PATHNAME, negated or not
            return (f"[^/{body}]" if negated else f"(?!/)[{body}]"), i + 1
        first = False
        if char == "\\":
            if i + 1 == len(pattern):
                return None, i
            char = pattern[i + 1]
            i += 1
        elif pattern.startswith("[:", i):
            close = pattern.find("]", i + 2)
            if close == -1:
                return None, i
            if pattern[close - 1] != ":" or close - 1 < i + 2:  # no ":]": a plain "[", as wildmatch reads it
                members.append(_class_escape("["))
                i += 1
                continue
            name, end = pattern[i + 2:close - 1], close - 1
            if name not in BRACKET_CLASSES:
                return None, i  # wildmatch aborts on an unknown class
            members.append(BRACKET_CLASSES[name])
            i = end + 2
            continue
        if i + 2 < len(pattern) and pattern[i + 1] == "-" and pattern[i + 2] != "]":
            high = pattern[i + 2]
            high_end = i + 3
            if high == "\\" and i + 3 < len(pattern):
                high, high_end = pattern[i + 3], i + 4
            if ord(high) >= ord(char):  # a reversed range matches nothing, as in wildmatch
                members.append(f"{_class_escape(char)}-{_class_escape(high)}")
            i = high_end
            continue
        members.append(_class_escape(char))
        i += 1
    return None, i


def _class_escape(char: str) -> str:
    return "\\" + char if char in "\\]^-[" else char


def read_patterns(path: str) -> list[IgnorePattern]:
    """The patterns of an ignore file; none when it cannot be read."""
    try:
        text = files.read_text(path)
    except (OSError, UnicodeDecodeError):
        return []
    return [pattern for line in text.removeprefix("\ufeff").split("\n") if (pattern := parse_line(line))]


def git_common_dir(worktree: str) -> str | None:
    """The git directory of the repository whose work tree is ``worktree``: ``.git`` itself, or
    where a ``.git`` file (worktrees, submodules) points, then its ``commondir`` (worktrees share
    the main repository's ``info/exclude``). Files are read, git is not run."""
    dot_git = os.path.join(worktree, ".git")
    if os.path.isdir(dot_git):
        return dot_git
    try:
        pointer = files.read_text(dot_git).strip()
    except (OSError, UnicodeDecodeError):
        return None
    if not pointer.startswith("gitdir:"):
        return None
    git_dir = os.path.join(worktree, pointer.removeprefix("gitdir:").strip())
    try:
        common = files.read_text(os.path.join(git_dir, "commondir")).strip()
    except (OSError, UnicodeDecodeError):
        return git_dir
    return os.path.normpath(os.path.join(git_dir, common))


def _relative(path: str, base: str) -> str:
    """``path`` relative to ``base``, a directory above it, with '/' separators: a slice when
    ``path`` starts with it (as the walk's paths do), which ``os.path.relpath`` costs 20 times."""
    prefix = base if base.endswith(os.sep) else base + os.sep
    relative = path[len(prefix):] if path.startswith(prefix) else os.path.relpath(path, base)
    return relative.replace(os.sep, "/")


class GitIgnore:
    """Answers whether paths are ignored, reading each directory's ``.gitignore`` once.

    Outside a git work tree nothing is ignored, as for git (and ruff). Paths are absolute.
    """

    def __init__(self) -> None:
        self._worktrees: dict[str, str | None] = {}
        self._patterns: dict[str, list[IgnorePattern]] = {}
        self._bases_of: dict[str, list[str]] = {}  # directory -> those of its bases with patterns

    def ignored(self, path: str, is_dir: bool) -> bool:
        """Whether git ignores ``path`` by the pattern files alone. Its parent directories are
        not tested: a caller walking a tree has already pruned the ignored ones."""
        directory = os.path.dirname(path)
        worktree = self._worktree(directory)
        if worktree is None or path == worktree:
            return False
        # from the highest precedence down: the deepest .gitignore first, info/exclude last
        for base in self._bases_with_patterns(worktree, directory):
            patterns = self._patterns[base]
            relative = _relative(path, base)
            for pattern in reversed(patterns):
                if pattern.matches(relative, is_dir):
                    return not pattern.negated
        exclude = self._exclude_patterns(worktree)
        relative = _relative(path, worktree) if exclude else ""
        for pattern in reversed(exclude):
            if pattern.matches(relative, is_dir):
                return not pattern.negated
        return False

    def _worktree(self, directory: str) -> str | None:
        if directory not in self._worktrees:
            parent = os.path.dirname(directory)
            if os.path.lexists(os.path.join(directory, ".git")):
                self._worktrees[directory] = directory
            elif parent == directory:
                self._worktrees[directory] = None
            else:  # a walk asks for every directory of a tree: each asks its parent once
                self._worktrees[directory] = self._worktree(parent)
        return self._worktrees[directory]

    def _bases_with_patterns(self, worktree: str, directory: str) -> list[str]:
        """:meth:`_bases` that have a ``.gitignore`` with patterns (most have none), once per directory."""
        found = self._bases_of.get(directory)
        if found is None:
            found = self._bases_of[directory] = [base for base in self._bases(worktree, directory)
                                                 if self._patterns_of(base)]
        return found

    @staticmethod
    def _bases(worktree: str, directory: str) -> list[str]:
        """``directory`` and its parents up to the work tree, deepest first."""
        bases = [directory]
        while bases[-1] != worktree and os.path.dirname(bases[-1]) != bases[-1]:
            bases.append(os.path.dirname(bases[-1]))
        return bases

    def _patterns_of(self, directory: str) -> list[IgnorePattern]:
        if directory not in self._patterns:
            self._patterns[directory] = read_patterns(os.path.join(directory, ".gitignore"))
        return self._patterns[directory]

    def _exclude_patterns(self, worktree: str) -> list[IgnorePattern]:
        key = os.path.join(worktree, ".git", "info", "exclude")
        if key not in self._patterns:
            git_dir = git_common_dir(worktree)
            self._patterns[key] = read_patterns(os.path.join(git_dir, "info", "exclude")) if git_dir else []
        return self._patterns[key]
