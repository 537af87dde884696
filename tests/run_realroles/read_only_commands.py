"""Which command lines of a role the real-role comparison may run without ``creates``/``removes``.

A role's ``command`` or ``shell`` task without a guard may do anything to the machine that runs the
comparison. Most of them only look: ``grep -c x /etc/ssh/sshd_config``, ``test -f /etc/x``, ``awk
-F: '{print $1}' /etc/passwd``, ``systemctl is-enabled x``, registered and read by ``changed_when``
/ ``failed_when`` / later ``when``s, the shapes real roles are made of. A line is kept when every
program it starts is one that only reads (``READ_ONLY``), with its paths already moved into the
scenario and none left outside it (``find / -xdev``): no redirection into a file, no command
substitution, no background job, no shell control words, nothing that reads a random or changing
device (``/dev/urandom``, ``/proc/sys/kernel/random``), no ``find -exec`` / ``-delete``, no ``sed
-i``. Anything else stays a ``debug`` placeholder.
"""

from __future__ import annotations

import re
import shlex
from typing import Any

# programs that read files, the environment or this machine's state and write nothing
READ_ONLY = frozenset({
    "cat", "grep", "egrep", "fgrep", "zgrep", "awk", "head", "tail", "wc", "cut", "sort", "uniq", "tr", "ls",
    "test", "[", "echo", "printf", "true", "false", "readlink", "realpath", "basename", "dirname", "stat", "id",
    "whoami", "which", "find", "sed", "diff", "cmp", "md5sum", "sha1sum", "sha256sum", "sha512sum", "file", "du",
    "tac", "getent", "uname", "column", "nproc", "expr", "seq", "rev", "paste",
})
# read-only sub-commands of programs that also change things
READ_ONLY_SUBCOMMANDS = {
    "systemctl": frozenset({"is-active", "is-enabled", "is-failed", "status", "show", "list-units",
                            "list-unit-files", "cat"}),
    "command": frozenset({"-v", "-V"}),
    "set": frozenset({"-o", "-e", "-u", "-eu", "-euo", "-eo", "-x"}),
}
# arguments that make a read-only program write or start another one
_WRITING_ARGS = {
    "find": ("-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls"),
    "sed": ("-i", "--in-place"),
    "sort": ("-o", "--output"),
    "awk": ("system", "getline", ">", "|"),
}
_SEPARATORS = re.compile(r"\|\||&&|[|;\n]")
_ALLOWED_REDIRECTIONS = re.compile(r"\d?>\s*/dev/null|\d?>&\d")
# an absolute path left after the system paths moved into the scenario (``find / -xdev ...``)
_OUTSIDE = re.compile(r"""(?:^|[\s='"])/(?!dev/null\b)""")
_JINJA = re.compile(r"\{\{.*?\}\}|\{%.*?%\}", re.DOTALL)
# what changes from run to run or reads the kernel's devices (a line is compared as two runs made it)
_UNSTABLE = re.compile(r"random|RANDOM|/dev/(?!null\b)|/sys/|/proc/|\bdate\b|\buptime\b")


def _line(args: Any, task: dict[str, Any]) -> str | None:
    """The command line a ``command``/``shell`` task's arguments give (None for ``argv`` lists with
    a non-string, or no line at all)."""
    if isinstance(args, str):
        return re.sub(r"(?:^|\s)(?:chdir|executable|warn|stdin|creates|removes)=\S+", " ", args)
    if isinstance(args, dict):
        if isinstance(args.get("argv"), list) and all(isinstance(a, str) for a in args["argv"]):
            return shlex.join(args["argv"])
        if isinstance(args.get("cmd"), str):
            return args["cmd"]
        return None
    if args is None and isinstance(task.get("args"), dict) and isinstance(task["args"].get("cmd"), str):
        return task["args"]["cmd"]
    return None


def _segment_reads_only(words: list[str]) -> bool:
    if not words:
        return False
    program = words[0].rsplit("/", 1)[-1]
    if program in READ_ONLY_SUBCOMMANDS:
        return len(words) > 1 and words[1] in READ_ONLY_SUBCOMMANDS[program]
    if program not in READ_ONLY:
        return False
    writing = _WRITING_ARGS.get(program, ())
    return not any(w == arg or (program == "awk" and arg in w) or w.startswith(arg + "=")
                   for w in words[1:] for arg in writing)


def reads_only(args: Any, task: dict[str, Any]) -> bool:
    """Whether a ``command`` / ``shell`` task's line starts only programs that read."""
    line = _line(args, task)
    if not line or "`" in line or "$(" in line or "<(" in line or ">(" in line:
        return False
    if _UNSTABLE.search(line):
        return False
    if _JINJA.search(line.split(None, 1)[0]):  # the program itself comes from a variable
        return False
    if _OUTSIDE.search(line):  # a path the scenario did not move: this machine's own files
        return False
    if _JINJA.search(line) and re.search(r"(?:^|[\s|;&/])(?:find|du|ls)\s", line):  # a tree only the run names
        return False
    bare = _ALLOWED_REDIRECTIONS.sub(" ", _JINJA.sub("X", line))
    if ">" in bare or "<" in bare or re.search(r"(?<![&])&(?![&])", bare):
        return False
    for segment in _SEPARATORS.split(bare):
        try:
            words = shlex.split(segment)
        except ValueError:
            return False
        if words and "=" in words[0]:  # X=1 program ...
            return False
        if segment.strip() and not _segment_reads_only(words):
            return False
    return True
