"""An inventory file ansible-vault encrypted whole: without vault secrets every plugin's read of it
fails as ansible's does, and nothing of its ciphertext becomes a host (the differential case
``handwritten7_vaulted_source``); with vault secrets configured ansible decrypts it, so what it
holds is the run's: the source is recorded as not read, with a note, and nothing is guessed."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.inventory.manager import load_inventory

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "handwritten7_vaulted_source"


@pytest.fixture(autouse=True)
def _no_config(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in ("ANSIBLE_VAULT_PASSWORD_FILE", "ANSIBLE_VAULT_IDENTITY_LIST", "ANSIBLE_ASK_VAULT_PASS"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("ANSIBLE_CONFIG", str(tmp_path / "ansible.cfg"))
    (tmp_path / "ansible.cfg").write_text("")


def test_without_secrets_every_plugin_fails_and_no_ciphertext_is_a_host() -> None:
    inventory = load_inventory([str(FIXTURE / "hosts.ini"), str(FIXTURE / "secret.yml")])
    assert sorted(inventory.data.hosts) == ["web1", "web2"]
    assert [(failure.plugin, failure.message) for failure in inventory.failures] == [
        ("auto", "Attempting to decrypt but no vault secrets found."),
        ("yaml", "Attempting to decrypt but no vault secrets found."),
        ("ini", "Failed to parse inventory: Attempting to decrypt but no vault secrets found.")]


def test_with_secrets_configured_the_source_is_the_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANSIBLE_VAULT_PASSWORD_FILE", "/nowhere/vault-pass")
    inventory = load_inventory([str(FIXTURE / "hosts.ini"), str(FIXTURE / "secret.yml")])
    assert sorted(inventory.data.hosts) == ["web1", "web2"] and inventory.failures == []
    assert any("secret.yml is vault-encrypted" in note for note in inventory.notes)
