"""Playbook keywords: which object accepts which, and how each one inherits.

This is the single declaration of inheritance, mirroring ansible-core 2.19's
``FieldAttribute`` (inherited) / ``NonInheritableFieldAttribute`` (not inherited) and the
``extend`` / ``prepend`` flags. ``tests/engine/test_keywords.py`` checks it against
ansible-core's classes when ansible-core is installed.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache


class Merge:
    """How values from several levels combine."""

    REPLACE = "replace"  # the nearest level that sets it wins
    EXTEND = "extend"  # values from every level are merged (tags)
    PREPEND = "prepend"  # merged, outer levels first (when, environment, module_defaults)


# Inherited keywords and how values from several levels combine.
INHERITED: dict[str, str] = {
    "any_errors_fatal": Merge.REPLACE,
    "become": Merge.REPLACE,
    "become_exe": Merge.REPLACE,
    "become_flags": Merge.REPLACE,
    "become_method": Merge.REPLACE,
    "become_user": Merge.REPLACE,
    "check_mode": Merge.REPLACE,
    "collections": Merge.REPLACE,
    "connection": Merge.REPLACE,
    "debugger": Merge.REPLACE,
    "delegate_facts": Merge.REPLACE,
    "delegate_to": Merge.REPLACE,
    "diff": Merge.REPLACE,
    "environment": Merge.PREPEND,
    "ignore_errors": Merge.REPLACE,
    "ignore_unreachable": Merge.REPLACE,
    "module_defaults": Merge.PREPEND,
    "no_log": Merge.REPLACE,
    "notify": Merge.REPLACE,
    "port": Merge.REPLACE,
    "remote_user": Merge.REPLACE,
    "run_once": Merge.REPLACE,
    "tags": Merge.EXTEND,
    "throttle": Merge.REPLACE,
    "timeout": Merge.REPLACE,
    "when": Merge.PREPEND,
}

_COMMON = frozenset(
    {
        "any_errors_fatal", "become", "become_exe", "become_flags", "become_method", "become_user",
        "check_mode", "connection", "debugger", "diff", "environment", "ignore_errors",
        "ignore_unreachable", "module_defaults", "name", "no_log", "port", "remote_user",
        "run_once", "tags", "throttle", "timeout", "vars",
    }
)

PLAY_KEYWORDS = _COMMON | {
    "collections", "fact_path", "force_handlers", "gather_facts", "gather_subset", "gather_timeout",
    "handlers", "hosts", "max_fail_percentage", "order", "post_tasks", "pre_tasks", "roles",
    "serial", "strategy", "tasks", "vars_files", "vars_prompt",
}

BLOCK_KEYWORDS = _COMMON | {
    "always", "block", "collections", "delegate_facts", "delegate_to", "notify", "rescue", "when",
}

TASK_KEYWORDS = _COMMON | {
    "action", "args", "async", "changed_when", "collections", "delay", "delegate_facts",
    "delegate_to", "failed_when", "local_action", "loop", "loop_control", "notify", "poll",
    "register", "retries", "until", "when",
}

HANDLER_KEYWORDS = TASK_KEYWORDS | {"listen"}

# The keys a ``roles:`` entry (or a meta dependency) understands; anything else is a role param.
ROLE_ENTRY_KEYWORDS = _COMMON | {"collections", "delegate_facts", "delegate_to", "role", "when"}

IMPORT_PLAYBOOK_KEYWORDS = (_COMMON - {"name"}) | {"import_playbook", "name", "when"}

INCLUDE_ROLE_ARGS = frozenset(
    {"allow_duplicates", "apply", "defaults_from", "handlers_from", "name", "public", "role",
     "rolespec_validate", "tasks_from", "vars_from"}
)
INCLUDE_TASKS_ARGS = frozenset({"apply", "file", "_raw_params"})
# The only keywords ``include_tasks`` / ``include_role`` take (``TaskInclude.VALID_INCLUDE_KEYWORDS``;
# ``HandlerTaskInclude`` adds ``listen``). ``action``, ``args`` and ``loop_with`` are what the task's
# own module key and ``with_*`` become.
VALID_INCLUDE_KEYWORDS = frozenset(
    {"action", "args", "collections", "debugger", "ignore_errors", "loop", "loop_control", "loop_with", "name",
     "no_log", "register", "run_once", "tags", "timeout", "vars", "when"}
)


def _family(*names: str) -> frozenset[str]:
    return frozenset(n for name in names for n in (name, f"ansible.builtin.{name}", f"ansible.legacy.{name}"))


IMPORT_TASKS = _family("import_tasks")
INCLUDE_TASKS = _family("include_tasks")
IMPORT_ROLE = _family("import_role")
INCLUDE_ROLE = _family("include_role")
INCLUDE_VARS = _family("include_vars")
IMPORT_PLAYBOOK = _family("import_playbook")
META = _family("meta")
FAIL = _family("fail")
ASSERT = _family("assert")
# Tasks that gather facts themselves (facts then stay for the rest of the run).
GATHERS_FACTS = _family("setup", "gather_facts")
# Actions that change the inventory while a play runs: plays after them select their hosts again.
CHANGES_INVENTORY = _family("add_host", "group_by")
# Removed from ansible-core (a tombstone in its plugin routing): loading one fails the playbook.
REMOVED_ACTIONS = _family("include")
RAW_PARAMS_ACTIONS = _family("command", "raw", "script", "shell")
# Actions that run in check mode as without it: the controller's own (meta, includes, add_host,
# group_by, set_fact...) and ansible-core 2.19's modules whose documented check_mode support is
# full. command and shell do not run then, unless ``creates``/``removes`` decide (COMMANDS).
RUN_IN_CHECK_MODE = _family(
    "add_host", "group_by", "meta", "include_tasks", "import_tasks", "include_role", "import_role", "include_vars",
    "set_fact", "set_stats", "debug", "assert", "fail", "pause", "validate_argument_spec", "gather_facts", "setup",
    "apt", "apt_key", "apt_repository", "assemble", "async_status", "blockinfile", "copy", "cron", "debconf", "dnf",
    "dnf5", "dpkg_selections", "fetch", "file", "find", "getent", "git", "group", "hostname", "iptables", "known_hosts",
    "lineinfile", "mount_facts", "package_facts", "ping", "pip", "reboot", "replace", "rpm_key", "service_facts",
    "slurp", "stat", "subversion", "systemd", "systemd_service", "sysvinit", "template", "user", "yum_repository")
COMMANDS = _family("command", "shell")
# Actions that never report a change of their own (their result says changed: false), and those
# that always do when they run (command, shell and raw without ``creates``/``removes``).
NEVER_CHANGED = _family("debug", "assert", "fail", "set_fact", "set_stats", "group_by", "add_host", "pause",
                        "validate_argument_spec", "include_vars", "meta", "ping")
ALWAYS_CHANGED = _family("command", "shell", "raw")
# Keys that are always taken as the action even when unknown (ansible's BUILTIN_TASKS).
BUILTIN_ACTIONS = IMPORT_TASKS | INCLUDE_TASKS | IMPORT_ROLE | INCLUDE_ROLE | META


def is_task_keyword(key: str, handler: bool = False) -> bool:
    return key in (HANDLER_KEYWORDS if handler else TASK_KEYWORDS) or key.startswith("with_")


def did_you_mean(word: str, candidates: Iterable[str]) -> str:
    """``; did you mean 'x'?`` for the closest candidate, or an empty string."""
    import difflib

    close = difflib.get_close_matches(word, sorted(candidates), n=1, cutoff=0.7)
    return f"; did you mean '{close[0]}'?" if close else ""


def closest_keyword(word: str, keywords: Iterable[str]) -> str | None:
    """A keyword ``word`` is a likely typo of: one edit away (two for longer words), counting a
    swap of neighbours as one edit. Stricter than :func:`did_you_mean`, because a miss here
    would relabel a real module name ('debug' is not a typo of 'debugger')."""
    if isinstance(keywords, frozenset):
        return _closest_memo(word, keywords)  # the same keys come back for every task
    return _closest(word, keywords)


@lru_cache(maxsize=4096)
def _closest_memo(word: str, keywords: frozenset[str]) -> str | None:
    return _closest(word, keywords)


def _closest(word: str, keywords: Iterable[str]) -> str | None:
    limit = 1 if len(word) <= 5 else 2
    if len(word) > 64:  # no keyword is that long: a pasted blob, not a typo
        return None
    best = min(((_edit_distance(word, k), k) for k in keywords if abs(len(k) - len(word)) <= limit), default=None)
    return best[1] if best and best[0] <= limit else None


def _edit_distance(a: str, b: str) -> int:
    """Optimal string alignment distance (Levenshtein plus adjacent transpositions)."""
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        row = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            row[j] = min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (ca != cb))
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                row[j] = min(row[j], prev2[j - 2] + 1)
        prev2, prev = prev, row
    return prev[-1]
