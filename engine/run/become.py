"""``become`` on the local connection, as far as the engine can honour it exactly.

ansible's local connection runs as the user running ansible; an action that executes something
(a module) with ``become`` wraps it in ``sudo -H -S -n -u USER /bin/sh -c 'echo BECOME-SUCCESS-..;
...'`` unless the become user is that same user (``_low_level_execute_command``: no become when
``become_user == remote_user``, and the local connection's remote user is the current one).
Actions that execute nothing (debug, set_fact, assert...) are not affected.

The engine runs its modules in its own process, so it cannot run one as another user: when
``sudo`` is on the PATH a run that would need it is refused before it starts (see
:func:`become_refusal`); without ``sudo`` ansible's wrapped command fails, and so does the
engine's task, with ansible's message and the shell's own error text.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from typing import Any

from engine.booleans import boolean
from engine.loading import keywords as kw
from engine.loading.model import Task
from engine.run.environment import current_user
from engine.templating.templar import Templar

SUDO_METHODS = frozenset({"sudo", "ansible.builtin.sudo", "ansible.legacy.sudo"})
DEFAULT_USER = "root"  # DEFAULT_BECOME_USER
# actions whose plugin executes nothing on the host: become does not touch them
NO_EXECUTION = kw._family("debug", "set_fact", "assert", "fail", "pause", "include_vars", "add_host",
                          "group_by", "meta", "include_tasks", "include_role", "import_tasks", "import_role",
                          "validate_argument_spec", "set_stats")


def become_user(task: Task, templar: Templar) -> str | None:
    """The user the task's action would become, or None when become is off. Connection
    variables (``ansible_become``, ``ansible_become_user``) win over the keywords, as in ansible."""
    from engine.run.task_runner import keyword

    variables = templar.variables
    become = variables.get("ansible_become", keyword(task, "become"))
    if become is None or not boolean(templar.template(become)):
        return None
    user = variables.get("ansible_become_user", keyword(task, "become_user"))
    return str(templar.template(user)) if user not in (None, "") else DEFAULT_USER


def needs_sudo(user: str | None, action: str) -> bool:
    """Whether ansible would wrap this action's execution in sudo."""
    if user is None or action in NO_EXECUTION:
        return False
    me = current_user()
    return user != me or not any((user, me))


def become_failure(user: str) -> dict[str, Any]:
    """The result of a task whose sudo wrapper does not succeed: ansible's message, with what
    the wrapper printed (the shell's "sudo: not found" when sudo is missing). With sudo there
    (become set through ``ansible_become`` variables, which the plan does not see), the engine
    cannot run the module as that user: the task fails saying so, and nothing runs."""
    if sudo_available():
        return {"failed": True, "changed": False,
                "msg": f"playbook-ls's engine cannot run a module as another user ('{user}'); "
                       "run with --engine ansible to use ansible-playbook."}
    success = "BECOME-SUCCESS-playbookls"
    inner = shlex.quote(f"echo {success} ; /bin/sh -c true")
    command = f"sudo -H -S -n -u {user} /bin/sh -c {inner}"
    try:
        done = subprocess.run(["/bin/sh", "-c", command], capture_output=True, text=True, timeout=30,
                              stdin=subprocess.DEVNULL, env=os.environ.copy())
        out, err = done.stdout, done.stderr
    except (OSError, subprocess.TimeoutExpired) as exc:
        out, err = "", str(exc)
    message = "Premature end of stream waiting for become success."
    if out:
        message += f"\n>>> Standard Output\n{out}"
    if err:
        message += f"\n>>> Standard Error\n{err}"
    return {"failed": True, "changed": False, "msg": f"Task failed: {message}".rstrip()}


def sudo_available() -> bool:
    return shutil.which("sudo") is not None


def become_refusal(value: Any, user: Any) -> bool:
    """Whether a written ``become``/``become_user`` must be refused before the run: only when
    sudo is there (the engine could not run the module as that user) and the keywords, as
    written, may switch to another user."""
    if not sudo_available():
        return False
    if value is not None:
        try:
            if not boolean(value, strict=True):
                return False
        except Exception:  # noqa: BLE001 - templated: not known before the run
            return True
    target = DEFAULT_USER if user in (None, "") else user
    return target != current_user()
