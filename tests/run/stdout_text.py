"""The default callback's text of a run, made comparable: normalisation and a unified diff.

:func:`normalise_text` replaces what differs between machines (the scratch directory, the
temporary directory around it, this Python) and between runs (times, backup names, job ids,
temporary names, elapsed seconds) with placeholders, so that the text of a recording can be
compared with a later run's, of ansible-playbook or of playbook-ls.
"""

from __future__ import annotations

import difflib
import re
import sys
from pathlib import Path

SCRATCH, TMP, PYTHON = "<SCRATCH>", "<TMP>", "<PYTHON>"

# (pattern, replacement) applied in order to the text after the paths are replaced
_VOLATILE: list[tuple[re.Pattern[str], str]] = [
    # command/shell/raw/script results: "start": "2026-01-01 10:00:00.123456", "delta": "0:00:00.0012"
    (re.compile(r'("(?:start|end|stop)": )"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d+"'), r'\1"<TIME>"'),
    (re.compile(r'("delta": )"\d+:\d{2}:\d{2}\.\d+"'), r'\1"<DELTA>"'),
    # wget's own clock in a command's stderr: "--2026-12-01 06:40:59--  https://..."
    (re.compile(r"--\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}--"), "--<TIME>--"),
    # copy/lineinfile/... backups: FILE.PID.YYYY-MM-DD@HH:MM:SS~
    (re.compile(r"\.\d+\.\d{4}-\d{2}-\d{2}@\d{2}:\d{2}:\d{2}~"), ".BACKUP~"),
    # async job ids (jNNNN.PID) and their results files
    (re.compile(r"\bj\d+\.\d+\b"), "<JOB>"),
    # names made by tempfile / mkdtemp (ansible.XXXXXXXX), wherever they are
    (re.compile(r"\bansible\.[A-Za-z0-9_]{8}\b"), "<TMPNAME>"),
    # temporary files of a download (get_url) and of the content of copy --diff: ansible's in its
    # remote/local temporary directories, playbook-ls's in the system's
    (re.compile(r"(?:<TMP>/rtmp/ansible-tmp-[\d.]+-\d+-\d+/|/tmp/)tmp[A-Za-z0-9_]{8}\b"), "<TMPFILE>"),
    (re.compile(r"<TMP>/ltmp/ansible-local-[A-Za-z0-9_]+/tmp[A-Za-z0-9_]{8}/"), "<TMPDIR>/"),
    # the shell's temporary directory a copy sends its file to (its invocation's src: .source.EXT)
    (re.compile(r"<TMP>/rtmp/ansible-tmp-\d+\.\d+-\d+-\d+/"), "<RTMPDIR>/"),
    # the basename of the file copy's action writes content to (mkstemp, prefix '.'), which the
    # module's invocation names
    (re.compile(r"""(['"]_original_basename['"]: ['"])\.[a-z0-9_]{8}(?=['"])"""), r"\1<TMPNAME>"),
    (re.compile(r"<TMP>/ltmp/ansible-local-[A-Za-z0-9_]+/\.?[A-Za-z0-9_]{8}\b"), "<TMPFILE>"),
    # pause and wait_for: elapsed seconds
    (re.compile(r'("elapsed": )\d+(?:\.\d+)?'), r"\1<ELAPSED>"),
    # file state=touch's diff: the access and modification times of the moment it ran
    (re.compile(r'("[am]time": )\d+\.\d+'), r"\1<STAMP>"),
    # a stat result shown whole (a loop's item label): the inode, its generation and the access
    # and change times of the fresh scratch copy each run makes
    (re.compile(r"""(['"](?:inode|[ac]time)['"]: )\d+(?:\.\d+)?"""), r"\1<STAT>"),
    (re.compile(r"""(['"]charset['"]: ['"][^'"]*['"],\s*['"]version['"]: ['"])\d+"""), r"\1<STAT>"),
]


# the scratch copy's path as the harness makes it (tempfile's pls-run-NAME-XXXXXXXX and work/ in
# it), wherever a recording kept it unnormalised: a task's name templated from a path
_HARNESS_TMP = re.compile(r"(?:/[^/\s'\"]+)*/pls-run-[^/\s'\"]+-[a-z0-9_]{8}(?![\w.-])(/work(?![\w.-]))?")


def harness_paths_replaced(text: str) -> str:
    """``text`` with each path of a run's scratch copy (or its temporary parent) as placeholders,
    without knowing which run made it: a recording's task names keep the path they were made
    with, which the next run cannot have."""
    return _HARNESS_TMP.sub(lambda m: SCRATCH if m.group(1) else TMP, text)


def _volatile_replaced(text: str) -> str:
    for pattern, replacement in _VOLATILE:
        text = pattern.sub(replacement, text)
    return text


def normalise_text(text: str, scratch: Path, tmp: Path) -> str:
    """``text`` with the scratch directory, its temporary parent and this Python as placeholders,
    and the values that change from run to run replaced (see the module's docstring)."""
    for path, name in ((scratch, SCRATCH), (tmp, TMP), (Path(sys.executable), PYTHON)):
        for form in sorted({str(path.resolve()), str(path)}, key=len, reverse=True):
            text = text.replace(form, name)
    return _volatile_replaced(text)


_RESULT_LINE = re.compile(r"^(?:ok|changed|skipping|failed|fatal): \[([^\]\s]+)")


def hosts_grouped(text: str) -> str:
    """``text`` with the result lines of each task that prints only one-line results grouped by
    host, hosts in the order they first appear. ansible shows a loop's item lines as the worker
    sends them and the host's own line when the strategy reads its result, so with several hosts
    another host's items may come first, from run to run; each host's own order is kept."""
    out: list[str] = []
    section: list[str] = []

    def flush() -> None:
        matches = [_RESULT_LINE.match(line) for line in section]
        if section and all(matches):
            groups: dict[str, list[str]] = {}
            for line, match in zip(section, matches, strict=True):
                groups.setdefault(match.group(1) if match else "", []).append(line)
            section[:] = [line for lines in groups.values() for line in lines]
        out.extend(section)
        section.clear()

    for line in text.split("\n"):
        if line == "" or line.startswith(("TASK [", "RUNNING HANDLER [", "PLAY [", "PLAY RECAP")):
            flush()
            out.append(line)
        else:
            section.append(line)
    flush()
    return "\n".join(out)


def text_diff(expected: str, actual: str, context: int = 3) -> str:
    """A unified diff of two texts, ansible-playbook's against playbook-ls's ("" when equal, or
    when they differ only in how results of several hosts interleave, see :func:`hosts_grouped`)."""
    # a recording made before a volatile value had its placeholder reads as one made after
    expected, actual = _volatile_replaced(expected), _volatile_replaced(actual)
    if expected == actual or hosts_grouped(expected) == hosts_grouped(actual):
        return ""
    lines = difflib.unified_diff(expected.splitlines(), actual.splitlines(), "ansible-playbook", "playbook-ls",
                                 n=context, lineterm="")
    return "\n".join(lines)
