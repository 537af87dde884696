"""Vault-encrypted content, declined before the run starts.

ansible-playbook decrypts what ansible-vault encrypted wherever it reads it: a whole file (a vars
file, ``include_vars``, group_vars, the source of ``copy``, ``template``, ``assemble``, ``script``
and ``unarchive``, the ``file`` and ``template`` lookups) and a ``!vault`` value, with the secrets
it was given (``vault_password_file``, ``vault_identity_list``, ``--vault-password-file``); without
any, each of those reads fails the task or stops the run in words of its own. The engine never
decrypts (its values stay encrypted, engine.values.Vault), so a run that may read such content is
declined and ``--engine auto`` hands it to ansible-playbook:

- vault secrets configured (a password file may also be a script ansible runs to get them);
- a vault-encrypted file, or a YAML file with a ``!vault`` value, in a directory the run reads
  controller files from: each playbook's, each role's, each inventory source's. A file named by a
  template may be anywhere below them, so every file there is looked at: its first bytes, and a
  YAML-like file's text for the ``!vault`` tag.

A file read from elsewhere (an absolute path) is caught where the engine reads it
(engine.vault.is_vaulted): the task fails as ansible's would without secrets.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator

from engine import files
from engine.vault import configured_secrets, is_vaulted

MAX_FILES = 20_000  # files looked at per run: a tree past it is left to the reads' own check
YAML_LIKE_BYTES = 2 * 1024 * 1024  # a vars file past this size is looked at for its header only
_YAML_LIKE = ("", ".yml", ".yaml", ".json")  # group_vars/all, with no extension, is YAML too
_VAULT_TAG = re.compile(rb"(?:^|[\s:\[{,-])!vault(?:\s|$)", re.MULTILINE)


def declined_vault(directories: Iterable[str], extra_vars: object = None) -> list[tuple[str, None]]:
    """(what, None) for vault secrets configured, a ``!vault`` value among the extra vars, or the
    first vault-encrypted content found in ``directories`` (each walked once, nested ones with
    their parent)."""
    secrets = configured_secrets()
    if secrets is not None:
        return [(f"{secrets}, which gives ansible vault secrets: the engine never decrypts", None)]
    if _holds_vault_value(extra_vars):
        return [("a !vault value in the extra vars (-e): the engine never decrypts; ansible-playbook decrypts it "
                 "with its vault secrets, or fails where it is used without them", None)]
    found = next(_vaulted_files(_outermost(directories)), None)
    if found is None:
        return []
    return [(f"{found}: the engine never decrypts; ansible-playbook decrypts it with its vault secrets, "
             "or fails without them", None)]


def _holds_vault_value(value: object, depth: int = 0) -> bool:
    from engine.values import VaultText

    if isinstance(value, VaultText):
        return True
    if depth > 100:  # deeper than any variable people write: not looked into further
        return False
    if isinstance(value, dict):
        return any(_holds_vault_value(item, depth + 1) for item in value.values())
    if isinstance(value, list):
        return any(_holds_vault_value(item, depth + 1) for item in value)
    return False


def _outermost(directories: Iterable[str]) -> list[str]:
    """The distinct directories, absolute, without those inside another of them."""
    unique = sorted({os.path.realpath(d) for d in directories if d and os.path.isdir(d)})
    kept: list[str] = []
    for directory in unique:
        if not any(os.path.commonpath([directory, parent]) == parent for parent in kept):
            kept.append(directory)
    return kept


def _vaulted_files(roots: list[str]) -> Iterator[str]:
    seen = 0
    for root in roots:
        for directory, subdirectories, names in os.walk(root):
            subdirectories[:] = sorted(d for d in subdirectories if not d.startswith("."))
            for name in sorted(names):
                seen += 1
                if seen > MAX_FILES:
                    return
                path = os.path.join(directory, name)
                what = _vault_in(path, name)
                if what:
                    yield f"{what} {path}"


def _vault_in(path: str, name: str) -> str:
    """What vault content the file holds: "the vault-encrypted file", "a !vault value in", or ""."""
    try:
        if is_vaulted(path):
            return "the vault-encrypted file"
        if os.path.splitext(name)[1].lower() not in _YAML_LIKE:
            return ""
        return "a !vault value in" if _VAULT_TAG.search(files.read_bytes(path, limit=YAML_LIKE_BYTES)) else ""
    except OSError:  # unreadable or not a regular file (for the run too), or a YAML file past the
        return ""  # size looked at for the tag (its header was)
