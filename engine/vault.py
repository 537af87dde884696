"""What playbook-ls knows of ansible-vault without decrypting anything: whether a file is encrypted
whole, and whether ansible would have vault secrets to decrypt it with.

playbook-ls never decrypts. Where ansible-playbook has no secrets, reading encrypted content fails
in its words (:data:`NO_SECRETS`); where it has some, what the content holds is known to the run only.
"""

from __future__ import annotations

from engine import files
from engine.config import config_value, named_setting

HEADER = "$ANSIBLE_VAULT;"
NO_SECRETS = "Attempting to decrypt but no vault secrets found."
# (environment variable, ansible.cfg key in [defaults]) of the settings that give ansible secrets
_SECRETS = (("ANSIBLE_VAULT_PASSWORD_FILE", "vault_password_file"),
            ("ANSIBLE_VAULT_IDENTITY_LIST", "vault_identity_list"))


def configured_secrets() -> str | None:
    """The setting that gives ansible vault secrets (or has it ask for a password), named with its
    value; None when none does."""
    from engine.booleans import boolean

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
