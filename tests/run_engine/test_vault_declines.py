"""Vault-encrypted content declines the run before it starts (engine.run.vault_declines): the engine
never decrypts, where ansible-playbook decrypts with its vault secrets or fails without them. A
vault-encrypted file read from outside the directories looked at fails the task as ansible's
does without secrets, never read as its ciphertext."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from helpers import write

from engine.flow.plan import RunOptions
from engine.run.file_and_command_lookups import _read_text
from engine.run.modules import ModuleError
from engine.run.modules._sources import find_source
from engine.run.preflight import make_run_plan, unknown_module_problems
from engine.run.vault_declines import declined_vault
from engine.templating.pure_lookups import LookupFailure
from engine.vault import NO_SECRETS

VAULTED = "$ANSIBLE_VAULT;1.1;AES256\n6162636465666768\n"
INLINE = "db_password: !vault |\n  $ANSIBLE_VAULT;1.1;AES256\n  6162636465666768\n"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("ANSIBLE_VAULT_PASSWORD_FILE", "ANSIBLE_VAULT_IDENTITY_LIST"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("ANSIBLE_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("ANSIBLE_CONFIG", str(tmp_path / "ansible.cfg"))
    (tmp_path / "ansible.cfg").write_text("")
    write(tmp_path, {"site.yml": "- hosts: all\n  gather_facts: false\n  roles: [web]\n",
                     "roles/web/tasks/main.yml": "- copy: {src: app.conf, dest: /tmp/app.conf}\n",
                     "roles/web/files/app.conf": "plain\n"})
    return tmp_path


def _declined(root: Path, inventory: str = "localhost,") -> list[str]:
    plan = make_run_plan(RunOptions(playbook=str(root / "site.yml"), inventory=[inventory]),
                         has_module=lambda action: True)
    return [str(problem) for problem in unknown_module_problems(plan) if "decrypt" in str(problem)]


def test_a_project_without_vault_content_runs(project: Path) -> None:
    assert _declined(project) == []


def test_a_vault_encrypted_file_of_a_role_declines(project: Path) -> None:
    write(project, {"roles/web/files/app.conf": VAULTED})
    declined = _declined(project)
    assert len(declined) == 1 and "the vault-encrypted file" in declined[0]
    assert "roles/web/files/app.conf" in declined[0]


def test_an_inline_vault_value_in_group_vars_beside_the_inventory_declines(project: Path, tmp_path: Path) -> None:
    inventory = tmp_path / "elsewhere" / "inventory"
    write(tmp_path, {"elsewhere/inventory/hosts.ini": "localhost\n", "elsewhere/inventory/group_vars/all": INLINE})
    declined = _declined(project, str(inventory / "hosts.ini"))
    assert len(declined) == 1 and "a !vault value in" in declined[0] and "group_vars/all" in declined[0]


def test_vault_secrets_in_the_settings_decline(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (project / "pw").write_text("never read\n")  # one that is missing stops the run before (password_file_error)
    monkeypatch.setenv("ANSIBLE_VAULT_PASSWORD_FILE", str(project / "pw"))
    declined = _declined(project)
    assert len(declined) == 1 and "vault_password_file" in declined[0]
    monkeypatch.delenv("ANSIBLE_VAULT_PASSWORD_FILE")
    (project / "ansible.cfg").write_text(f"[defaults]\nvault_identity_list = dev@{project / 'pw'}\n")
    assert "vault_identity_list" in _declined(project)[0]


def test_a_fifo_or_a_hidden_directory_is_not_read(project: Path) -> None:
    os.mkfifo(project / "roles/web/files/pipe")  # opening it to read must not wait for a writer
    write(project, {".git/objects/x": VAULTED})
    assert declined_vault([str(project)]) == []


def test_a_vaulted_file_outside_is_the_tasks_failure_not_its_ciphertext(tmp_path: Path) -> None:
    write(tmp_path, {"outside/secret.txt": VAULTED})
    secret = str(tmp_path / "outside/secret.txt")
    with pytest.raises(LookupFailure, match=NO_SECRETS):
        _read_text(secret)
    with pytest.raises(ModuleError, match="A vault password or secret must be specified to decrypt"):
        find_source(secret, "files", [str(tmp_path)])
    assert find_source(secret, "files", [str(tmp_path)], decrypt=False) == secret  # copy's decrypt: false


def test_a_vault_value_among_the_extra_vars_declines(project: Path) -> None:
    from engine.values import VaultText

    secret = VaultText("$ANSIBLE_VAULT;1.1;AES256")
    plan = make_run_plan(RunOptions(playbook=str(project / "site.yml"), inventory=["localhost,"],
                                    extra_vars={"db": {"users": [{"password": secret}]}}),
                         has_module=lambda action: True)
    declined = [str(problem) for problem in unknown_module_problems(plan) if "decrypt" in str(problem)]
    assert len(declined) == 1 and "extra vars" in declined[0]
