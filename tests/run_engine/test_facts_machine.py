"""The machine's facts (engine.run.facts_machine), read as ansible's collectors read them."""

from __future__ import annotations

import pytest

from engine.run import facts_machine


def test_dmi_facts_from_sys_with_ansible_form_factor_and_na(monkeypatch: pytest.MonkeyPatch) -> None:
    files = {f"{facts_machine.DMI_DIR}/product_name": "KVM", f"{facts_machine.DMI_DIR}/chassis_type": "1",
             f"{facts_machine.DMI_DIR}/sys_vendor": "QEMU"}
    monkeypatch.setattr(facts_machine.os.path, "exists", lambda path: path in files)
    monkeypatch.setattr(facts_machine, "_content", lambda path, default=None: files.get(path, default))
    facts = facts_machine.dmi_facts()
    assert (facts["product_name"], facts["form_factor"], facts["system_vendor"], facts["bios_date"]) == \
        ("KVM", "Other", "QEMU", "NA")
    assert list(facts) == list(facts_machine.DMI)
    files[f"{facts_machine.DMI_DIR}/chassis_type"] = "99"
    assert facts_machine.dmi_facts()["form_factor"] == "unknown (99)"


def test_dmi_facts_from_dmidecode_else_na(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(facts_machine.os.path, "exists", lambda path: False)
    monkeypatch.setattr(facts_machine, "bin_path", lambda name: None)
    assert set(facts_machine.dmi_facts().values()) == {"NA"}
    monkeypatch.setattr(facts_machine, "bin_path", lambda name: "/usr/sbin/dmidecode")
    answers = {"system-product-name": (0, "# SMBIOS entry point\nStandard PC\n"), "system-uuid": (1, "")}
    monkeypatch.setattr(facts_machine, "_run", lambda args: answers.get(args[-1], (0, "x\n")))
    facts = facts_machine.dmi_facts()
    assert (facts["product_name"], facts["product_uuid"], facts["bios_vendor"]) == ("Standard PC", "NA", "x")


def test_ssh_host_keys_of_the_first_directory_holding_any(monkeypatch: pytest.MonkeyPatch) -> None:
    files = {"/etc/openssh/ssh_host_rsa_key.pub": "ssh-rsa AAAArsa root@h",
             "/etc/openssh/ssh_host_ed25519_key.pub": "ssh-ed25519 AAAAed root@h",
             "/etc/ssh_host_ecdsa_key.pub": "ecdsa-sha2-nistp256 AAAAec root@h"}
    monkeypatch.setattr(facts_machine, "_content", lambda path, default=None: files.get(path, default))
    assert facts_machine.ssh_pub_key_facts() == {
        "ssh_host_key_rsa_public": "AAAArsa", "ssh_host_key_rsa_public_keytype": "ssh-rsa",
        "ssh_host_key_ed25519_public": "AAAAed", "ssh_host_key_ed25519_public_keytype": "ssh-ed25519"}


def test_uptime_and_loadavg(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(facts_machine, "_content", lambda path, default=None: "12569.41 24000.10")
    assert facts_machine.uptime_facts() == {"uptime_seconds": 12569}
    monkeypatch.setattr(facts_machine.os, "getloadavg", lambda: (1.5, 0.25, 0.125))
    assert facts_machine.loadavg_facts() == {"loadavg": {"1m": 1.5, "5m": 0.25, "15m": 0.125}}


def test_the_subsets_gather_them() -> None:
    from engine.run.facts import gather

    hardware = gather(["!all", "hardware"], "/nonexistent")
    assert "bios_date" in hardware and "loadavg" not in hardware
    assert "loadavg" in gather(["!all", "loadavg"], "/nonexistent")
    assert "bios_date" not in gather(["min"], "/nonexistent")
