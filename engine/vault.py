"""What playbook-ls knows of ansible-vault without decrypting anything: whether a file is encrypted
whole, and whether ansible would have vault secrets to decrypt it with.

playbook-ls never decrypts. Where ansible-playbook has no secrets, reading encrypted content fails
in its words (:data:`NO_SECRETS`); where it has some, what the content holds is known to the run only.
"""

from __future__ import annotations

from collections.abc import Iterable

from engine import files
from engine.config import config_path, config_value, named_setting, resolve_path, split_unquoted

HEADER = "$ANSIBLE_VAULT;"
NO_SECRETS = "Attempting to decrypt but no vault secrets found."
# (environment variable, ansible.cfg key in [defaults]) of the settings that give ansible secrets
_SECRETS = (("ANSIBLE_VAULT_PASSWORD_FILE", "vault_password_file"),
            ("ANSIBLE_VAULT_IDENTITY_LIST", "vault_identity_list"))


class _CommandLine:
    __slots__ = ("ask", "files", "ids")

    def __init__(self, ids: tuple[str, ...] = (), files: tuple[str, ...] = (), ask: bool = False) -> None:
        self.ids, self.files, self.ask = ids, files, ask


_command_line = _CommandLine()


def given_on_command_line(ids: Iterable[str] = (), password_files: Iterable[str] = (), ask: bool = False) -> None:
    """The vault secrets the command line gives ansible-playbook (``--vault-id``,
    ``--vault-password-file``, ``--ask-vault-pass``): never read here, only known to be given. Each
    command sets them as it starts, so a command run in the same process never sees another's."""
    global _command_line
    _command_line = _CommandLine(tuple(ids), tuple(password_files), ask)


def command_line_arguments() -> list[str]:
    """The vault options of the command line as ansible-playbook takes them, in its order (its
    identities, then its password files, then the prompt), for a run handed to it."""
    return [*(word for value in _command_line.ids for word in ("--vault-id", value)),
            *(word for value in _command_line.files for word in ("--vault-password-file", value)),
            *(["--ask-vault-pass"] if _command_line.ask else [])]


def configured_secrets() -> str | None:
    """The option or setting that gives ansible vault secrets (or has it ask for a password), named
    with its value; None when none does."""
    from engine.booleans import boolean

    given = [*(f"--vault-id {value}" for value in _command_line.ids),
             *(f"--vault-password-file {value}" for value in _command_line.files),
             *(["--ask-vault-pass"] if _command_line.ask else [])]
    if given:
        return f"the command line's {given[0]}"

    for env, key in _SECRETS:
        value = config_value(env, "defaults", key)
        if value is not None and value.strip(" ,"):
            return named_setting(env, "defaults", key, value)
    asks = config_value("ANSIBLE_ASK_VAULT_PASS", "defaults", "ask_vault_pass")
    if asks is not None and boolean(asks):
        return named_setting("ANSIBLE_ASK_VAULT_PASS", "defaults", "ask_vault_pass", asks)
    return None


def is_encrypted_text(data: object) -> bool:
    """Whether loaded YAML ``data`` is a whole file's ciphertext (it loads as one string)."""
    return isinstance(data, str) and data.startswith(HEADER)


def encrypted_file_reason(path: str) -> str:
    """Why the names of ``path``, a vars file encrypted whole, are the run's: ansible decrypts it
    with the secrets it is given, or stops where it reads it without any."""
    secrets = configured_secrets()
    if secrets is None:
        return (f"the vault-encrypted file {path}, which ansible cannot read without vault secrets (it stops "
                "there); playbook-ls never decrypts")
    return f"the vault-encrypted file {path}, which ansible decrypts with the vault secrets {secrets} gives it; " \
        "playbook-ls never decrypts"


def is_vaulted(path: str) -> bool:
    """Whether ``path`` is a regular file ansible-vault encrypted whole (read only as far as the header)."""
    try:
        return files.read_head(path, len(HEADER)) == HEADER.encode()
    except OSError:
        return False


def password_file_error(cwd: str | None = None) -> str | None:
    """The error ansible's command line stops with before it reads anything when none of the vault
    password files its settings name can be used (``CLI.setup_vault_secrets``): each is looked at,
    never read, and a password script is never run. None where one exists, or where a prompt or
    ``ask_vault_pass`` gives a secret (the run asks for it). A file that is not a script and is
    empty gives none, which its size tells."""
    import os

    candidates = _password_files(cwd or os.getcwd())
    if candidates is None:
        return None
    error = None
    for path in candidates:
        if not os.path.exists(path):
            error = f"The vault password file {path} was not found: create it"
        elif os.path.isdir(path):
            error = f"The vault password file provided '{path}' can not be a directory: name a file"
        elif not _is_script(path) and os.path.getsize(path) == 0:
            error = f"Invalid vault password was provided from file ({path}): write the password in it"
        else:
            return None  # ansible reads it (or runs it): whether it gives a secret is the run's
    return error and f"{error}, or correct the command line's vault options or vault_password_file / " \
        "vault_identity_list (ansible.cfg, or ANSIBLE_VAULT_PASSWORD_FILE / ANSIBLE_VAULT_IDENTITY_LIST), as " \
        "ansible-playbook stops there too"


def password_script_notes(cwd: str | None = None) -> list[str]:
    """What a command that follows ansible-playbook's reading says of each vault password script
    ansible runs first: whether ansible goes on is the run's to know, and playbook-ls never runs it."""
    return [f"ansible-playbook first runs the vault password script {script}, and stops if none of its vault "
            "password sources gives a secret: that is the run's to know (playbook-ls never runs it); this is what "
            "it does when one does" for script in password_scripts(cwd)]


def password_scripts(cwd: str | None = None) -> list[str]:
    """The vault password files ansible runs as scripts before it reads anything (any execute
    bit): whether they give a secret, so whether ansible goes on, is the run's to know."""
    import os

    return [path for path in _password_files(cwd or os.getcwd()) or [] if os.path.isfile(path) and _is_script(path)]


def _password_files(cwd: str) -> list[str] | None:
    """The vault password files ansible's command line loads, in its order, resolved from ``cwd``;
    None where a prompt gives a secret (``--ask-vault-pass``, ``ask_vault_pass``, ``ID@prompt``)."""
    from engine.booleans import boolean

    asks = config_value("ANSIBLE_ASK_VAULT_PASS", "defaults", "ask_vault_pass")
    if _command_line.ask or asks is not None and boolean(asks, strict=False):
        return None
    identities = config_value("ANSIBLE_VAULT_IDENTITY_LIST", "defaults", "vault_identity_list")
    # ansible's order: the settings' identities, the command line's, its password files, the setting's
    listed = split_unquoted(identities) if identities is not None else []  # set empty, it lists ""
    values = [*(entry.split("@", 1)[-1] for entry in [*listed, *_command_line.ids]), *_command_line.files]
    if any(value in ("prompt", "prompt_ask_vault_pass") for value in values):
        return None
    # each unfracked from the working directory when read (get_file_vault_secret): "" is that directory
    candidates = [resolve_path(value, cwd) for value in values]
    password_file = config_path("ANSIBLE_VAULT_PASSWORD_FILE", "defaults", "vault_password_file", cwd,
                                empty_is_unset=False)
    if password_file:
        candidates.append(password_file)
    return candidates


def _is_script(path: str) -> bool:
    """ansible's ``is_executable``: any execute bit, which makes a password file a script it runs."""
    import os
    import stat

    return bool(os.stat(path).st_mode & (stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH))
