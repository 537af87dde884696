"""The ``network`` facts, as ansible's ``LinuxNetwork`` collector gathers them
(``module_utils/facts/network/linux.py``): the default IPv4 and IPv6 routes' interfaces (``ip
route get``), every interface of ``/sys/class/net`` with its addresses (``ip addr show``) and
ethtool's features where ethtool is installed, every address, and the addresses the local
routing table reaches. Keys are returned without the ``ansible_`` prefix."""

from __future__ import annotations

import glob
import os
import re
import socket
import struct
from typing import Any

from engine.run.facts_system import _content, _run, bin_path

INTERFACE_TYPE = {"1": "ether", "32": "infiniband", "512": "ppp", "772": "loopback", "65534": "tunnel"}
ROUTE_TARGETS = {"v4": "8.8.8.8", "v6": "2404:6800:400a:800::1012"}


def network_facts() -> dict[str, Any]:
    ip = bin_path("ip")
    if ip is None:
        return {}
    default_ipv4, default_ipv6 = _default_interfaces(ip)
    interfaces, ips = _interfaces_info(ip, default_ipv4, default_ipv6)
    facts: dict[str, Any] = {"interfaces": list(interfaces)}
    facts.update(interfaces)
    facts.update(default_ipv4=default_ipv4, default_ipv6=default_ipv6, **ips)
    facts["locally_reachable_ips"] = _locally_reachable(ip)
    return facts


def _locally_reachable(ip: str) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {"ipv4": [], "ipv6": []}
    for family in ("-4", "-6"):
        rc, routes = _run([ip, family, "route", "show", "table", "local"])
        if rc != 0:
            continue
        for line in routes.splitlines():
            words = line.split()
            if not words or words[0] != "local":
                continue
            kind = "ipv6" if ":" in words[1] else "ipv4"
            if words[1] not in found[kind]:
                found[kind].append(words[1])
    return found


def _default_interfaces(ip: str) -> tuple[dict[str, Any], dict[str, Any]]:
    interface: dict[str, dict[str, Any]] = {"v4": {}, "v6": {}}
    for version, target in ROUTE_TARGETS.items():
        if version == "v6" and not socket.has_ipv6:
            continue
        _, out = _run([ip, f"-{version[1]}", "route", "get", target])
        if not out:
            continue
        words = out.splitlines()[0].split()
        if words and words[0] == target:
            for i in range(len(words) - 1):
                if words[i] == "dev":
                    interface[version]["interface"] = words[i + 1]
                elif words[i] == "src":
                    interface[version]["address"] = words[i + 1]
                elif words[i] == "via" and words[i + 1] != target:
                    interface[version]["gateway"] = words[i + 1]
    return interface["v4"], interface["v6"]


def _sys_facts(path: str, device: str) -> dict[str, Any]:
    """What ``/sys/class/net/DEVICE`` says of an interface."""
    facts: dict[str, Any] = {"device": device}

    def at(*parts: str) -> str:
        return os.path.join(path, *parts)

    if os.path.exists(at("address")):
        mac = _content(at("address"), default="")
        if mac and mac != "00:00:00:00:00:00":
            facts["macaddress"] = mac
    if os.path.exists(at("mtu")):
        facts["mtu"] = int(_content(at("mtu")) or "")
    if os.path.exists(at("operstate")):
        facts["active"] = _content(at("operstate")) != "down"
    if os.path.exists(at("device", "driver", "module")):
        facts["module"] = os.path.basename(os.path.realpath(at("device", "driver", "module")))
    if os.path.exists(at("type")):
        facts["type"] = INTERFACE_TYPE.get(_content(at("type")) or "", "unknown")
    if os.path.exists(at("bridge")):
        facts["type"] = "bridge"
        facts["interfaces"] = [os.path.basename(b) for b in glob.glob(at("brif", "*"))]
        if os.path.exists(at("bridge", "bridge_id")):
            facts["id"] = _content(at("bridge", "bridge_id"), default="")
        if os.path.exists(at("bridge", "stp_state")):
            facts["stp"] = _content(at("bridge", "stp_state")) == "1"
    if os.path.exists(at("bonding")):
        facts["type"] = "bonding"
        facts["slaves"] = (_content(at("bonding", "slaves"), default="") or "").split()
        for key in ("mode", "miimon", "lacp_rate"):
            facts[key] = (_content(at("bonding", key), default="") or "").split()[0]
        primary = _content(at("bonding", "primary"))
        if primary:
            facts["primary"] = primary
            if os.path.exists(at("bonding", "all_slaves_active")):
                facts["all_slaves_active"] = _content(at("bonding", "all_slaves_active")) == "1"
    if os.path.exists(at("bonding_slave")):
        facts["perm_macaddress"] = _content(at("bonding_slave", "perm_hwaddr"), default="")
    if os.path.exists(at("device")):
        facts["pciid"] = os.path.basename(os.readlink(at("device")))
    if os.path.exists(at("speed")):
        speed = _content(at("speed"))
        if speed is not None:
            facts["speed"] = int(speed)
    if os.path.exists(at("flags")):
        facts["promisc"] = int(_content(at("flags")) or "", 16) & 0x0100 > 0
    return facts


class _Addresses:
    """``parse_ip_output`` of one device, over the interfaces gathered so far."""

    def __init__(self, interfaces: dict[str, dict[str, Any]], device: str, defaults: tuple[dict[str, Any], ...],
                 ips: dict[str, list[str]], mac: str | None) -> None:
        self.interfaces, self.device, self.defaults, self.ips = interfaces, device, defaults, ips
        self.mac = mac  # the device's address file as read, all zeros too

    def parse(self, output: str, secondary: bool = False) -> None:
        for line in output.splitlines():
            words = line.split()
            if words and words[0] == "inet":
                self._inet(words, secondary)
            elif words and words[0] == "inet6":
                self._inet6(words)

    def _inet(self, words: list[str], secondary: bool) -> None:
        broadcast = ""
        if "/" in words[1]:
            address, length = words[1].split("/")
            if len(words) > 3 and words[2] == "brd":
                broadcast = words[3]
        else:
            address, length = words[1], "32"
        address_bin = struct.unpack("!L", socket.inet_aton(address))[0]
        netmask_bin = (1 << 32) - (1 << 32 >> int(length))
        netmask = socket.inet_ntoa(struct.pack("!L", netmask_bin))
        network = socket.inet_ntoa(struct.pack("!L", address_bin & netmask_bin))
        entry = {"address": address, "broadcast": broadcast, "netmask": netmask, "network": network, "prefix": length}
        iface, device = words[-1], self.device
        if iface != device:
            self.interfaces[iface] = {}
        if not secondary and "ipv4" not in self.interfaces[iface]:
            self.interfaces[iface]["ipv4"] = entry
        else:
            self.interfaces[iface].setdefault("ipv4_secondaries", []).append(dict(entry))
        if secondary:
            self.interfaces[device].setdefault("ipv4_secondaries", [])
            if device != iface:
                self.interfaces[device]["ipv4_secondaries"].append(dict(entry))
        default_ipv4 = self.defaults[0]
        if default_ipv4.get("address") == address:
            default_ipv4.update(broadcast=broadcast, netmask=netmask, network=network, prefix=length,
                                macaddress=self.mac, mtu=self.interfaces[device]["mtu"],
                                type=self.interfaces[device].get("type", "unknown"), alias=words[-1])
        if not address.startswith("127."):
            self.ips["all_ipv4_addresses"].append(address)

    def _inet6(self, words: list[str]) -> None:
        if words[2] == "peer":
            address, (_, prefix), scope = words[1], words[3].split("/"), words[5]
        else:
            (address, prefix), scope = words[1].split("/"), words[3]
        self.interfaces[self.device].setdefault("ipv6", []).append(
            {"address": address, "prefix": prefix, "scope": scope})
        default_ipv6 = self.defaults[1]
        if default_ipv6.get("address") == address:
            default_ipv6.update(prefix=prefix, scope=scope, macaddress=self.mac,
                                mtu=self.interfaces[self.device]["mtu"],
                                type=self.interfaces[self.device].get("type", "unknown"))
        if address != "::1":
            self.ips["all_ipv6_addresses"].append(address)


def _interfaces_info(ip: str, default_ipv4: dict[str, Any], default_ipv6: dict[str, Any]) \
        -> tuple[dict[str, dict[str, Any]], dict[str, list[str]]]:
    interfaces: dict[str, dict[str, Any]] = {}
    ips: dict[str, list[str]] = {"all_ipv4_addresses": [], "all_ipv6_addresses": []}
    mac = None  # ansible's loop variable: a device without an address file has the previous one's
    for path in glob.glob("/sys/class/net/*"):
        if not os.path.isdir(path):
            continue
        device = os.path.basename(path)
        interfaces[device] = _sys_facts(path, device)
        if os.path.exists(os.path.join(path, "address")):
            mac = _content(os.path.join(path, "address"), default="")
        addresses = _Addresses(interfaces, device, (default_ipv4, default_ipv6), ips, mac)
        rc, primary = _run([ip, "addr", "show", "primary", "dev", device])
        if rc == 0:
            addresses.parse(primary)
        else:
            rc, data = _run([ip, "addr", "show", "dev", device])
            if rc == 0:
                addresses.parse(data)
        rc, secondary = _run([ip, "addr", "show", "secondary", "dev", device])
        if rc == 0:
            addresses.parse(secondary, secondary=True)
        interfaces[device].update(_ethtool(device))
    return {name.replace(":", "_"): facts for name, facts in interfaces.items()}, ips


def _ethtool(device: str) -> dict[str, Any]:
    ethtool = bin_path("ethtool")
    if ethtool is None:
        return {}
    data: dict[str, Any] = {}
    rc, out = _run([ethtool, "-k", device])
    if rc == 0:
        features = {}
        for line in out.strip().splitlines():
            if not line or line.endswith(":"):
                continue
            key, value = line.split(": ")
            if value:
                features[key.strip().replace("-", "_")] = value.strip()
        data["features"] = features
    rc, out = _run([ethtool, "-T", device])
    if rc == 0:
        data["timestamping"] = [m.lower() for m in re.findall(r"SOF_TIMESTAMPING_(\w+)", out)]
        data["hw_timestamp_filters"] = [m.lower() for m in re.findall(r"HWTSTAMP_FILTER_(\w+)", out)]
        match = re.search(r"PTP Hardware Clock: (\d+)", out)
        if match:
            data["phc_index"] = int(match.group(1))
    return data
