"""The system facts read from files (engine.run.facts_system), parsed as ansible's collectors do."""

from __future__ import annotations

import pytest

from engine.run import facts_system


def test_resolv_conf_and_kernel_command_line(monkeypatch: pytest.MonkeyPatch) -> None:
    files = {
        "/etc/resolv.conf": "# comment\n; other\nnameserver 10.0.0.1\nnameserver 10.0.0.2 10.0.0.3\n"
                            "domain a.example\nsearch a.example b.example\noptions ndots:2 rotate\n",
        "/proc/cmdline": "root=/dev/sda1 ro console=tty0 console=ttyS0 quiet",
    }
    monkeypatch.setattr(facts_system, "_content", lambda path, default=None: files.get(path, default))
    assert facts_system.dns_facts() == {"dns": {
        "nameservers": ["10.0.0.1", "10.0.0.2", "10.0.0.3"], "domain": "a.example",
        "search": ["a.example", "b.example"], "options": {"ndots": "2", "rotate": True}}}
    facts = facts_system.cmdline_facts()
    assert facts["cmdline"] == {"root": "/dev/sda1", "ro": True, "console": "ttyS0", "quiet": True}
    assert facts["proc_cmdline"]["console"] == ["tty0", "ttyS0"]
    assert facts_system.fips_facts() == {"fips": False}
    files["/proc/cmdline"] = ""
    assert facts_system.cmdline_facts() == {}


def test_selinux_without_the_library(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(facts_system, "_libselinux", lambda: None)
    assert facts_system.selinux_facts() == {"selinux": {"status": "Missing selinux Python library"},
                                            "selinux_python_present": False}
