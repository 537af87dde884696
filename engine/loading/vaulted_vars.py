"""A play's ``vars_files`` encrypted whole with ansible-vault, where ansible-playbook stops or where
only it knows what a play's fields read.

ansible-playbook reads a play's ``vars_files`` once the playbook is loaded, as the play starts
(``VariableManager.get_vars``), before it templates the play's hosts and name. Without vault secrets
it stops there: ``Invalid vars_files file '...'``, caused by ``Attempting to decrypt but no vault
secrets found.`` (exit code 1), before it lists or runs anything. With secrets it decrypts the file,
whose names then override play vars, role defaults and the inventory. playbook-ls never decrypts:
loading reads such a file as empty (``Play.vaulted_vars_files``), which is exact only where no
load-time template of the play (hosts, name, tags, the names of imports) read a name the file may
set. Where one did, the listing and the plan say that only ansible-playbook knows, never a guess.
"""

from __future__ import annotations

from collections.abc import Collection

from engine.loading.model import Play, Playbook, Problem
from engine.vault import NO_SECRETS, configured_secrets

EXIT_ERROR = 1
LOAD_TIME_MAGIC = frozenset({"playbook_dir", "ansible_play_name"})
"""Magic variables loading adds beside the launch's (engine.variables.magic.load_time_variables)."""

_SECRETS_HINT = ("Give ansible-playbook its vault secrets (--vault-password-file, --vault-id, --ask-vault-pass, "
                 "or vault_password_file in ansible.cfg), or use the file decrypted.")


def first_stop(book: Playbook, known: Collection[str]) -> Problem | None:
    """What stops ansible-playbook first once ``book`` is loaded: a problem loading any of its plays,
    else, play by play, an encrypted ``vars_files`` it cannot read (or whose reading decides what
    playbook-ls cannot know), then the problems of templating the play's own fields. ``known``: the
    names that outrank a vars file whatever it holds (extra vars, magic variables)."""
    fatal = book.fatal_problems()
    if fatal and not fatal[0].after_load:
        return fatal[0]
    for play in book.plays:
        problem = vaulted_problem(play, known)
        if problem is not None:
            return problem
        templating = next((p for p in fatal if _within(p, play)), None)
        if templating is not None:
            return templating
    return fatal[0] if fatal else None


def vaulted_problem(play: Play, known: Collection[str]) -> Problem | None:
    """Why ``play``'s first vars file encrypted whole stops the run (no vault secrets) or makes what
    playbook-ls loaded a guess (a load-time template read a name the file may set); None otherwise."""
    if not play.vaulted_vars_files:
        return None
    path, span = play.vaulted_vars_files[0]
    secrets = configured_secrets()
    if secrets is None:
        # ansible's chain: the play's error, caused by the vault's, whose origin is the file itself
        return Problem("vault-no-secrets", f"Invalid vars_files file {path!r}.", span, _SECRETS_HINT,
                       exit_code=EXIT_ERROR, after_load=True,
                       chain=((f"Invalid vars_files file {path!r}.", None, None), (NO_SECRETS, path, None)))
    read = reads_it_may_set(play, known)
    if read is None:
        return None
    return Problem("vault-encrypted-reads",
                   f"the play reads {read} while loading, which the vault-encrypted vars file {path} may "
                   f"set: ansible decrypts it with the vault secrets {secrets} gives it; playbook-ls never decrypts, "
                   "so only ansible-playbook knows this play's hosts, name, tags and imports",
                   span, "Use ansible-playbook for this playbook, or pass the values those templates need with -e.",
                   exit_code=EXIT_ERROR, after_load=True)


def reads_it_may_set(play: Play, known: Collection[str]) -> str | None:
    """The names (shown as a list) ``play``'s load-time templates read that its vault-encrypted vars
    files may set, which only a run that decrypts them knows; None when they read none."""
    read = sorted(name for name in play.load_reads if name not in known) if play.vaulted_vars_files else []
    if not read:
        return None
    return ", ".join(read[:5]) + (", ..." if len(read) > 5 else "")


def _within(problem: Problem, play: Play) -> bool:
    """Whether ``problem`` is written within ``play`` (the play whose templating meets it)."""
    where, span = problem.span, play.span
    return where is not None and span is not None and where.file == span.file and \
        span.line <= where.line <= span.end_line
