"""Accepted findings, for adopting playbook-ls on a repository that already has some.

``.playbook-ls-ignore`` (beside the settings file, or in the checked directory when there is
none) lists one accepted finding per line, ``PATH CODE``, the shape of ansible-lint's
``.ansible-lint-ignore``: every finding of that rule in that file is accepted, so that CI fails
only on new ones. ``playbook-ls check --generate-ignore`` writes it from the current findings.
``#`` starts a comment. Paths are relative to the file's directory, with ``/``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

from engine.loading.model import Span
from playbook_ls import rules
from playbook_ls.rules.base import Finding

IGNORE_FILE = ".playbook-ls-ignore"


class BaselineError(ValueError):
    """An ignore file that cannot be read, or a line that is not ``PATH CODE`` with a known code
    (the settings turn it into a configuration error)."""

    def __init__(self, message: str, span: Span) -> None:
        super().__init__(message)
        self.message, self.span = message, span


class Baseline:
    """The accepted ``(path, code)`` pairs of one ignore file."""

    def __init__(self, directory: str, accepted: Iterable[tuple[str, str]] = (), path: str | None = None) -> None:
        self.directory = os.path.abspath(directory)
        self.accepted = set(accepted)
        self.path = path

    @classmethod
    def load(cls, directory: str) -> Baseline:
        """The ignore file in ``directory``, or an empty baseline when there is none."""
        from engine import files

        path = os.path.join(directory, IGNORE_FILE)
        try:
            text = files.read_text(path)
        except FileNotFoundError:
            return cls(directory)
        except (OSError, UnicodeDecodeError) as exc:
            raise BaselineError(f"cannot read {IGNORE_FILE}: {exc}", Span(path, 0, 0, 0, 0)) from None
        return cls(directory, _parse(text, path), path)

    def relative(self, path: str) -> str:
        return os.path.relpath(os.path.abspath(path), self.directory).replace(os.sep, "/")

    def covers(self, finding: Finding) -> bool:
        return finding.span is not None and (self.relative(finding.span.file), finding.code) in self.accepted

    def write(self, findings: Iterable[Finding]) -> tuple[str, int]:
        """Accept ``findings``: (the file written, how many lines it has)."""
        lines = sorted({f"{self.relative(f.span.file)} {f.code}" for f in findings if f.span is not None})
        path = os.path.join(self.directory, IGNORE_FILE)
        header = ("# Findings accepted when playbook-ls was adopted: one 'PATH CODE' per line.\n"
                  "# check reports only findings not listed here; regenerate it with:\n"
                  "#   playbook-ls check --generate-ignore\n")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(header + "".join(f"{line}\n" for line in lines))
        return path, len(lines)


def find_ignore_file(start: str) -> str | None:
    """The nearest directory from ``start`` up that holds an ignore file."""
    directory = os.path.abspath(start if os.path.isdir(start) else os.path.dirname(start) or ".")
    while not os.path.isfile(os.path.join(directory, IGNORE_FILE)):
        parent = os.path.dirname(directory)
        if parent == directory:
            return None
        directory = parent
    return directory


def _parse(text: str, path: str) -> set[tuple[str, str]]:
    accepted: set[tuple[str, str]] = set()
    for number, raw in enumerate(text.splitlines()):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.split()
        start = len(raw) - len(raw.lstrip())
        span = Span(path, number, start, number, start + len(line))
        if len(parts) != 2:
            raise BaselineError(f"expected 'PATH CODE', found {line!r}; write one accepted finding per line, "
                                "such as 'roles/web/tasks/main.yml PLS101'", span)
        file, code = parts
        if code not in rules.RULES:
            matches = rules.matching(code)
            if len(matches) != 1:
                raise BaselineError(f"unknown rule {code!r}; use a code such as PLS101 "
                                    "(playbook-ls check --help lists them)", span)
            code = matches[0]
        accepted.add((file.removeprefix("./"), code))
    return accepted
