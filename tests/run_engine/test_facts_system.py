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


def test_network_addresses_parsed_as_ansible_parses_ip_output(monkeypatch: pytest.MonkeyPatch) -> None:
    from engine.run import facts_network

    outputs = {
        ("-4", "route", "get", "8.8.8.8"): "8.8.8.8 via 10.1.0.1 dev eth0 src 10.1.0.5 uid 0\n    cache\n",
        ("-6", "route", "get", "2404:6800:400a:800::1012"): "",
    }
    monkeypatch.setattr(facts_network, "_run", lambda args: (0, outputs.get(tuple(args[1:]), "")))
    default_ipv4, default_ipv6 = facts_network._default_interfaces("ip")
    assert default_ipv4 == {"gateway": "10.1.0.1", "interface": "eth0", "address": "10.1.0.5"} and default_ipv6 == {}
    interfaces = {"eth0": {"device": "eth0", "mtu": 1500, "type": "ether"}}
    ips: dict[str, list[str]] = {"all_ipv4_addresses": [], "all_ipv6_addresses": []}
    addresses = facts_network._Addresses(interfaces, "eth0", (default_ipv4, default_ipv6), ips, "02:00:00:00:00:01")
    addresses.parse("2: eth0: <UP> mtu 1500\n    inet 10.1.0.5/24 brd 10.1.0.255 scope global eth0\n"
                    "    inet6 fe80::1/64 scope link\n")
    addresses.parse("    inet 10.1.0.9/24 brd 10.1.0.255 scope global secondary eth0:1\n", secondary=True)
    assert interfaces["eth0"]["ipv4"] == {"address": "10.1.0.5", "broadcast": "10.1.0.255", "netmask": "255.255.255.0",
                                          "network": "10.1.0.0", "prefix": "24"}
    assert interfaces["eth0"]["ipv6"] == [{"address": "fe80::1", "prefix": "64", "scope": "link"}]
    assert interfaces["eth0:1"]["ipv4_secondaries"][0]["address"] == "10.1.0.9"
    assert interfaces["eth0"]["ipv4_secondaries"][0]["address"] == "10.1.0.9"
    assert default_ipv4["alias"] == "eth0" and default_ipv4["macaddress"] == "02:00:00:00:00:01"
    assert ips == {"all_ipv4_addresses": ["10.1.0.5", "10.1.0.9"], "all_ipv6_addresses": ["fe80::1"]}


def test_lsb_from_the_program_else_the_file(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(facts_system, "bin_path", lambda name: "/usr/bin/lsb_release")
    monkeypatch.setattr(facts_system, "_run", lambda args: (0, "LSB Version:\tcore-11\nDistributor ID:\tUbuntu\n"
                                                               "Description:\t'Ubuntu 24.04 LTS'\nRelease:\t24.04\n"
                                                               "Codename:\tnoble\n"))
    assert facts_system.lsb_facts() == {"lsb": {"release": "24.04", "id": "Ubuntu", "description": "Ubuntu 24.04 LTS",
                                                "codename": "noble", "major_release": "24"}}
    monkeypatch.setattr(facts_system, "bin_path", lambda name: None)
    monkeypatch.setattr(facts_system.os.path, "exists", lambda path: path == "/etc/lsb-release")
    text = 'DISTRIB_ID=Ubuntu\nDISTRIB_RELEASE=22.04\nDISTRIB_DESCRIPTION="Ubuntu 22.04"'
    monkeypatch.setattr(facts_system, "_content", lambda path, default=None: text)
    assert facts_system.lsb_facts() == {"lsb": {"id": "Ubuntu", "release": "22.04", "description": "Ubuntu 22.04",
                                                "major_release": "22"}}


def test_memory_mb_from_meminfo(monkeypatch: pytest.MonkeyPatch) -> None:
    from engine.run import facts

    meminfo = ("MemTotal: 8192000 kB\nMemFree: 1024000 kB\nBuffers: 102400 kB\nCached: 2048000 kB\n"
               "SwapCached: 0 kB\nSwapTotal: 2048000 kB\nSwapFree: 2048000 kB\n")
    monkeypatch.setattr(facts, "_read", lambda path: meminfo if path == "/proc/meminfo" else None)
    gathered = facts.hardware_facts()
    assert gathered["memtotal_mb"] == 8000 and gathered["memory_mb"] == {
        "real": {"total": 8000, "used": 7000, "free": 1000}, "nocache": {"free": 3100, "used": 4900},
        "swap": {"total": 2000, "free": 2000, "used": 0, "cached": 0}}
