"""Facts about the local machine, gathered with the Python standard library.

A documented subset of what ansible's ``setup`` module collects, with ansible's names and
shapes (``module_utils/facts``): each collector below ports the part of ansible's collector of
the same name that needs no external command (engine.run.facts_system, facts_machine and
facts_managers the others, facts_network the network's). Not gathered: virtualization, devices,
mounts, lvm, caps. Keys are returned without the ``ansible_`` prefix; setup adds it.
"""

from __future__ import annotations

import datetime
import getpass
import json
import os
import platform
import pwd
import re
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

# ansible's distribution.py OS_FAMILY_MAP: the family of each distribution name
OS_FAMILY_MAP = {
    "RedHat": ["RedHat", "RHEL", "Fedora", "CentOS", "Scientific", "SLC", "Ascendos", "CloudLinux", "PSBM",
               "OracleLinux", "OVS", "OEL", "Amazon", "Amzn", "Virtuozzo", "XenServer", "Alibaba", "EulerOS",
               "openEuler", "AlmaLinux", "Rocky", "TencentOS", "EuroLinux", "Kylin Linux Advanced Server", "MIRACLE"],
    "Debian": ["Debian", "Ubuntu", "Raspbian", "Neon", "KDE neon", "Linux Mint", "SteamOS", "Devuan", "Kali",
               "Cumulus Linux", "Pop!_OS", "Parrot", "Pardus GNU/Linux", "Uos", "Deepin", "OSMC",
               "Linux Mint Debian Edition"],
    "Suse": ["SuSE", "SLES", "SLED", "openSUSE", "openSUSE Tumbleweed", "SLES_SAP", "SUSE_LINUX", "openSUSE Leap",
             "ALP-Dolomite", "SL-Micro", "openSUSE MicroOS"],
    "Archlinux": ["Archlinux", "Antergos", "Manjaro"],
    "Mandrake": ["Mandrake", "Mandriva"],
    "Solaris": ["Solaris", "Nexenta", "OmniOS", "OpenIndiana", "SmartOS"],
    "Slackware": ["Slackware"], "Altlinux": ["Altlinux"], "SMGL": ["SMGL"], "Gentoo": ["Gentoo", "Funtoo"],
    "Alpine": ["Alpine"], "AIX": ["AIX"], "HP-UX": ["HPUX"], "Darwin": ["MacOSX"], "FreeBSD": ["FreeBSD", "TrueOS"],
    "ClearLinux": ["Clear Linux OS", "Clear Linux Mix"],
    "DragonFly": ["DragonflyBSD", "DragonFlyBSD", "Gentoo/DragonflyBSD", "Gentoo/DragonFlyBSD"], "NetBSD": ["NetBSD"],
}
OS_FAMILY = {name: family for family, names in OS_FAMILY_MAP.items() for name in names}
# os-release IDs whose distribution file ansible parses into another spelling than ID.capitalize()
_DIST_NAMES = {"rhel": "RedHat", "centos": "CentOS", "amzn": "Amazon", "arch": "Archlinux", "ol": "OracleLinux",
               "almalinux": "AlmaLinux", "opensuse-leap": "openSUSE Leap", "opensuse-tumbleweed": "openSUSE Tumbleweed",
               "sles": "SLES", "linuxmint": "Linux Mint", "clear-linux-os": "Clear Linux OS"}


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read()
    except OSError:
        return None


def os_release() -> dict[str, str]:
    """/etc/os-release (or /usr/lib/os-release) as KEY -> unquoted value."""
    text = _read("/etc/os-release") or _read("/usr/lib/os-release") or ""
    info: dict[str, str] = {}
    for line in text.splitlines():
        key, sep, value = line.strip().partition("=")
        if sep and key and not key.startswith("#"):
            info[key] = value.strip().strip("\"'")
    return info


def platform_facts() -> dict[str, Any]:
    node = platform.node()
    fqdn = socket.getfqdn()
    machine = platform.machine()
    bits = platform.architecture()[0].replace("bit", "")
    facts: dict[str, Any] = {
        "system": platform.system(), "kernel": platform.release(), "kernel_version": platform.version(),
        "machine": machine, "python_version": platform.python_version(), "fqdn": fqdn,
        "hostname": node.split(".")[0], "nodename": node, "domain": ".".join(fqdn.split(".")[1:]),
        "userspace_bits": bits, "architecture": machine,
    }
    if machine == "x86_64" and bits in ("64", "32"):
        facts["userspace_architecture"] = "x86_64" if bits == "64" else "i386"
    machine_id = _read("/var/lib/dbus/machine-id") or _read("/etc/machine-id")
    if machine_id and machine_id.strip():
        facts["machine_id"] = machine_id.strip().splitlines()[0]
    return facts


def distribution_facts() -> dict[str, Any]:
    """ansible's guess from the ``distro`` library (os-release), then what its Debian file parser
    adds; other distribution files (RedHat's, SUSE's...) are not parsed."""
    system = platform.system()
    if system != "Linux":
        name = "MacOSX" if system == "Darwin" else system
        return {"distribution": name, "distribution_release": platform.release(),
                "distribution_version": platform.version(), "os_family": OS_FAMILY.get(name, name)}
    info = os_release()
    ident = info.get("ID", "").lower()
    name = _DIST_NAMES.get(ident) or ident.capitalize() or "OtherLinux"
    version = info.get("VERSION_ID", "")
    if ident == "debian":
        # Debian's os-release has no minor version; distro's "best" version takes /etc/debian_version's
        match = re.match(r"(\d+(?:\.\d+)+)\s*$", _read("/etc/debian_version") or "")
        if match and match.group(1).startswith(version.split(".")[0]):
            version = match.group(1)
    elif ident == "centos":
        version = ".".join(version.split(".")[:2])
    codename = info.get("VERSION_CODENAME") or info.get("UBUNTU_CODENAME")
    if not codename:
        match = re.search(r"\(([^)]+)\)", info.get("VERSION", ""))
        codename = match.group(1) if match else None
    facts: dict[str, Any] = {
        "distribution": name, "distribution_version": version or "NA",
        "distribution_release": codename if codename is not None else "NA",
    }
    facts["distribution_major_version"] = facts["distribution_version"].split(".")[0] or "NA"
    if ident == "debian":
        facts["distribution_file_path"] = "/etc/os-release"
        facts["distribution_file_variety"] = "Debian"
        facts["distribution_file_parsed"] = True
        minor = re.search(r"(\d+)\.(\d+)", _read("/etc/debian_version") or "")
        if minor:
            facts["distribution_minor_version"] = minor.group(2)
    facts["os_family"] = OS_FAMILY.get(name, name)
    return facts


_ASK_PYTHON = "import json, sys; print(json.dumps([sys.executable, list(sys.version_info), sys.implementation.name]))"


def python_facts(interpreter: str | None = None) -> dict[str, Any]:
    """The ``python`` facts of the interpreter ansible would run the module with: the host's
    ``ansible_python_interpreter`` (``interpreter``; its ``sys.executable`` is the name it is run
    by), asked when it is not this one, else this Python."""
    executable, info, kind = sys.executable, list(sys.version_info), sys.implementation.name
    if interpreter:
        found = interpreter if os.path.isabs(interpreter) else shutil.which(interpreter)
        if found and os.path.realpath(found) == os.path.realpath(sys.executable):
            executable = found
        elif found:
            try:
                asked = subprocess.run([found, "-c", _ASK_PYTHON], capture_output=True, text=True, timeout=30,
                                       check=True)
                executable, info, kind = json.loads(asked.stdout)
            except (OSError, subprocess.SubprocessError, ValueError):
                pass  # ansible's module would not run at all there; the engine's own Python answers
    return {"python": {
        "version": {"major": info[0], "minor": info[1], "micro": info[2], "releaselevel": info[3], "serial": info[4]},
        "version_info": info, "executable": executable, "has_sslcontext": True, "type": kind,
    }}


def user_facts() -> dict[str, Any]:
    user = getpass.getuser()
    try:
        entry = pwd.getpwnam(user)
    except KeyError:
        entry = pwd.getpwuid(os.getuid())
    return {"user_id": user, "user_uid": entry.pw_uid, "user_gid": entry.pw_gid, "user_gecos": entry.pw_gecos,
            "user_dir": entry.pw_dir, "user_shell": entry.pw_shell, "real_user_id": os.getuid(),
            "effective_user_id": os.geteuid(), "real_group_id": os.getgid(),
            "effective_group_id": os.getgid()}  # sic: ansible reports getgid() for both


def env_facts() -> dict[str, Any]:
    return {"env": dict(os.environ)}


def date_time_facts() -> dict[str, Any]:
    epoch = time.time()
    now = datetime.datetime.fromtimestamp(epoch)
    utc = datetime.datetime.fromtimestamp(epoch, tz=datetime.UTC)
    return {"date_time": {
        "year": now.strftime("%Y"), "month": now.strftime("%m"), "weekday": now.strftime("%A"),
        "weekday_number": now.strftime("%w"), "weeknumber": now.strftime("%W"), "day": now.strftime("%d"),
        "hour": now.strftime("%H"), "minute": now.strftime("%M"), "second": now.strftime("%S"),
        "epoch": str(int(epoch)), "epoch_int": str(int(epoch)), "date": now.strftime("%Y-%m-%d"),
        "time": now.strftime("%H:%M:%S"), "iso8601_micro": utc.strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
        "iso8601": utc.strftime("%Y-%m-%dT%H:%M:%SZ"), "iso8601_basic": now.strftime("%Y%m%dT%H%M%S%f"),
        "iso8601_basic_short": now.strftime("%Y%m%dT%H%M%S"), "tz": time.strftime("%Z"),
        "tz_dst": time.tzname[1], "tz_offset": time.strftime("%z"),
    }}


def hardware_facts() -> dict[str, Any]:
    """Processor counts from /proc/cpuinfo (ansible's Linux algorithm, without its Xen and s390x
    branches), the *_mb and memory_mb memory facts from /proc/meminfo, then the DMI facts and
    uptime_seconds (engine.run.facts_machine), in the order ansible's collector merges them."""
    from engine.run.facts_machine import dmi_facts, uptime_facts

    facts: dict[str, Any] = {}
    cpuinfo = _read("/proc/cpuinfo")
    if cpuinfo is not None:
        facts |= _cpu_facts(cpuinfo)
    stats: dict[str, int] = {}
    for line in (_read("/proc/meminfo") or "").splitlines():
        key, _, value = line.partition(":")
        if key in ("MemTotal", "SwapTotal", "MemFree", "SwapFree", "Buffers", "Cached", "SwapCached"):
            stats[key.lower()] = int(value.strip().split(" ")[0]) // 1024
            if key in ("MemTotal", "SwapTotal", "MemFree", "SwapFree"):
                facts[f"{key.lower()}_mb"] = stats[key.lower()]
    facts |= {"memory_mb": _memory_mb(stats)} if _read("/proc/meminfo") is not None else {}
    return facts | dmi_facts() | uptime_facts()


def _memory_mb(stats: dict[str, int]) -> dict[str, Any]:
    """``get_memory_facts``' ``memory_mb``: what is used, free without the caches, and swapped."""
    def minus(a: int | None, b: int | None) -> int | None:
        return None if a is None or b is None else a - b

    total, free, cached, buffers = (stats.get(k) for k in ("memtotal", "memfree", "cached", "buffers"))
    nocache_free = None if None in (cached, free, buffers) else cached + free + buffers  # type: ignore[operator]
    return {
        "real": {"total": total, "used": minus(total, free), "free": free},
        "nocache": {"free": nocache_free, "used": minus(total, nocache_free)},
        "swap": {"total": stats.get("swaptotal"), "free": stats.get("swapfree"),
                 "used": minus(stats.get("swaptotal"), stats.get("swapfree")), "cached": stats.get("swapcached")},
    }


def _cpu_facts(cpuinfo: str) -> dict[str, Any]:
    count = vendor = model = processors = 0
    physid = coreid = "0"
    sockets: dict[str, int] = {}
    cores: dict[str, int] = {}
    names: list[str] = []
    for line in cpuinfo.splitlines():
        key, _, val = (part.strip() for part in line.partition(":"))
        if key in ("model name", "Processor", "vendor_id", "cpu", "Vendor", "processor"):
            names.append(val)
            vendor += key == "vendor_id"
            model += key == "model name"
            processors += key == "processor"
            count += 1
        elif key == "physical id":
            physid = val
            sockets.setdefault(physid, 1)
        elif key == "core id":
            coreid = val
            if coreid not in sockets:  # sic: ansible tests sockets here, not cores
                cores[coreid] = 1
        elif key == "cpu cores":
            sockets[physid] = int(val)
        elif key == "siblings":
            cores[coreid] = int(val)
    if vendor and vendor == model:
        count = vendor
    if platform.machine().startswith(("armv", "aarch", "ppc")):
        count = processors
    facts: dict[str, Any] = {"processor": names, "processor_count": len(sockets) if sockets else count}
    per_socket = list(sockets.values())
    facts["processor_cores"] = per_socket[0] if per_socket and per_socket[0] else 1
    siblings = list(cores.values())
    facts["processor_threads_per_core"] = round((siblings[0] if siblings else 1) / facts["processor_cores"])
    facts["processor_vcpus"] = facts["processor_threads_per_core"] * facts["processor_count"] * facts["processor_cores"]
    try:
        facts["processor_nproc"] = len(os.sched_getaffinity(0))
    except AttributeError:
        facts["processor_nproc"] = processors
    return facts


# What each gather_subset name collects here. ansible's minimal subset always runs; the names
# ansible knows but this engine cannot gather are accepted and collect nothing.
MINIMAL = frozenset({"apparmor", "caps", "cmdline", "date_time", "distribution", "dns", "env", "fips", "local",
                     "lsb", "pkg_mgr", "platform", "python", "selinux", "service_mgr", "ssh_pub_keys", "user"})
VALID = MINIMAL | frozenset({"hardware", "network", "virtual", "facter", "ohai", "chroot", "devices", "dmi",
                             "mounts", "interfaces", "loadavg", "os_release", "systemd", "iscsi", "nvme", "fc_wwn"})
COLLECTORS: dict[str, Callable[[], dict[str, Any]]] = {
    "platform": platform_facts, "distribution": distribution_facts, "python": python_facts, "user": user_facts,
    "env": env_facts, "date_time": date_time_facts, "hardware": hardware_facts,
}


def subset_names(gather_subset: list[str]) -> set[str]:
    """ansible's ``get_collector_names``; raises ValueError on a name ansible would refuse."""
    added, excluded, explicit = set(MINIMAL), set(), set()
    for subset in gather_subset:
        if subset == "min":
            added |= MINIMAL
        elif subset == "all":
            added |= VALID
        elif subset == "!min":
            excluded |= MINIMAL
        elif subset == "!all":
            excluded |= VALID - MINIMAL
        elif subset.startswith("!"):
            excluded.add(subset[1:])
        elif subset not in VALID:
            raise ValueError(f"Bad subset '{subset}' given to Ansible. gather_subset options allowed: all, "
                             + ", ".join(sorted(VALID)))
        else:
            explicit.add(subset)
            added.add(subset)
    return added - (excluded - explicit)


def gather(gather_subset: list[str], fact_path: str, interpreter: str | None = None,
           warnings: list[str] | None = None) -> dict[str, Any]:
    """The facts of ``gather_subset``, unprefixed, collector by collector (``interpreter``: the
    host's python, see :func:`python_facts`); the module's warnings are appended to ``warnings``."""
    from engine.run import facts_machine, facts_system

    names = subset_names(gather_subset)
    facts: dict[str, Any] = {}
    collectors = {**COLLECTORS, "dns": facts_system.dns_facts, "fips": facts_system.fips_facts,
                  "apparmor": facts_system.apparmor_facts, "cmdline": facts_system.cmdline_facts,
                  "selinux": facts_system.selinux_facts, "chroot": facts_system.chroot_facts,
                  "lsb": facts_system.lsb_facts, "ssh_pub_keys": facts_machine.ssh_pub_key_facts,
                  "loadavg": facts_machine.loadavg_facts}
    collectors["python"] = lambda: python_facts(interpreter)
    for name, collect in collectors.items():
        if name in names:
            facts |= collect()
    if names & {"network", "interfaces"}:
        from engine.run.facts_network import network_facts

        facts |= network_facts()
    if "local" in names:
        from engine.run.facts_local import local_facts

        facts |= local_facts(fact_path, warnings if warnings is not None else [])
    if names & {"pkg_mgr", "service_mgr"}:  # after the platform and distribution facts they read
        from engine.run.facts_managers import pkg_mgr_facts, service_mgr_facts

        collected = {**platform_facts(), **distribution_facts(), **facts}
        if "pkg_mgr" in names:
            facts |= pkg_mgr_facts(collected)
        if "service_mgr" in names:
            facts |= service_mgr_facts(collected)
    return facts
