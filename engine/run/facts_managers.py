"""The ``pkg_mgr`` and ``service_mgr`` facts, as ansible's collectors find them on the local machine
(``module_utils/facts/system/pkg_mgr.py`` and ``service_mgr.py``): roles choose their package and
service tasks by them (``when: ansible_pkg_mgr == 'apt'``)."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Mapping
from typing import Any

# PKG_MGRS: the last one present wins, before the distribution's own default is applied
PKG_MGRS = (
    ("/usr/bin/rpm-ostree", "atomic_container"), ("/usr/bin/yum", "dnf"), ("/usr/bin/dnf-3", "dnf"),
    ("/usr/bin/dnf5", "dnf5"), ("/usr/bin/apt-get", "apt"), ("/usr/bin/zypper", "zypper"),
    ("/usr/sbin/urpmi", "urpmi"), ("/usr/bin/pacman", "pacman"), ("/bin/opkg", "opkg"),
    ("/usr/pkg/bin/pkgin", "pkgin"), ("/opt/local/bin/pkgin", "pkgin"), ("/opt/tools/bin/pkgin", "pkgin"),
    ("/opt/local/bin/port", "macports"), ("/usr/local/bin/brew", "homebrew"), ("/opt/homebrew/bin/brew", "homebrew"),
    ("/sbin/apk", "apk"), ("/usr/sbin/pkg", "pkgng"), ("/usr/sbin/swlist", "swdepot"), ("/usr/bin/emerge", "portage"),
    ("/usr/sbin/pkgadd", "svr4pkg"), ("/usr/bin/pkg", "pkg5"), ("/usr/bin/xbps-install", "xbps"),
    ("/usr/local/sbin/pkg", "pkgng"), ("/usr/bin/swupd", "swupd"), ("/usr/sbin/sorcery", "sorcery"),
    ("/usr/bin/installp", "installp"),
)
PROC_1_NAMES = {"procd": "openwrt_init", "runit-init": "runit", "svscan": "svc", "openrc-init": "openrc"}


def pkg_mgr_facts(facts: Mapping[str, Any]) -> dict[str, Any]:
    """``PkgMgrFactCollector.collect`` (``OpenBSDPkgMgrFactCollector`` on OpenBSD)."""
    if facts.get("system") == "OpenBSD":
        return {"pkg_mgr": "openbsd_pkg"}
    family = facts.get("os_family")
    name = "unknown"
    for path, manager in PKG_MGRS:
        if not (family == "Altlinux" and path == "/usr/bin/pkg") and os.path.exists(path):
            name = manager
    if family == "RedHat":
        name = _redhat_default()
    elif family == "Debian" and name != "apt":
        name = "apt"
    elif family == "Altlinux" and name == "apt":
        name = "apt_rpm"
    if name == "apt" and os.path.exists("/usr/bin/rpm"):  # APT-RPM, or dpkg's APT beside an rpm package
        query = subprocess.run(["/usr/bin/rpm", "-q", "--whatprovides", "/usr/bin/apt-get"],
                               capture_output=True, check=False)
        name = "apt_rpm" if query.returncode == 0 else "apt"
    return {"pkg_mgr": name}


def _redhat_default() -> str:
    if os.path.exists("/run/ostree-booted"):
        return "atomic_container"
    for path in ("/usr/bin/dnf", "/usr/bin/microdnf"):
        if os.path.exists(path):
            return "dnf5" if os.path.realpath(path) == "/usr/bin/dnf5" else "dnf"
    return "unknown"


def service_mgr_facts(facts: Mapping[str, Any]) -> dict[str, Any]:
    """``ServiceMgrFactCollector.collect``: PID 1's command name, else the system's usual one."""
    proc_1 = _proc_1()
    system, distribution = str(facts.get("system", "")), facts.get("distribution")
    name = None
    if proc_1 is not None:
        name = PROC_1_NAMES.get(proc_1, proc_1)
    elif distribution == "MacOSX":
        name = "launchd"
    elif "BSD" in system or system in ("Bitrig", "DragonFly"):
        name = "bsdinit"
    elif system == "AIX":
        name = "src"
    elif system == "SunOS":
        name = "smf"
    elif distribution == "OpenWrt":
        name = "openwrt_init"
    elif distribution == "SMGL":
        name = "simpleinit_msb"
    elif system == "Linux":
        name = _linux_service_mgr()
    return {"service_mgr": name or "service"}


def _proc_1() -> str | None:
    try:
        with open("/proc/1/comm", encoding="utf-8", errors="surrogateescape") as comm:
            proc_1: str | None = comm.read()
    except OSError:
        done = subprocess.run("ps -p 1 -o comm|tail -n 1", shell=True, capture_output=True, text=True, check=False)
        proc_1 = done.stdout if done.returncode == 0 and done.stdout.strip() and \
            not done.stdout.lstrip(" ")[:1].isdigit() else None
    if proc_1 == "COMMAND\n":
        proc_1 = None
    if proc_1 is None and os.path.islink("/sbin/init"):
        proc_1 = os.readlink("/sbin/init")
    if proc_1 is None:
        return None
    proc_1 = os.path.basename(proc_1).strip()
    return None if proc_1 == "init" or proc_1.endswith("sh") else proc_1


def _linux_service_mgr() -> str | None:
    systemctl = shutil.which("systemctl") is not None
    if systemctl and any(os.path.exists(p) for p in ("/run/systemd/system/", "/dev/.run/systemd/", "/dev/.systemd/")):
        return "systemd"
    if shutil.which("initctl") and os.path.exists("/etc/init/"):
        return "upstart"
    if os.path.exists("/sbin/openrc"):
        return "openrc"
    if systemctl and os.path.islink("/sbin/init") and os.path.basename(os.readlink("/sbin/init")) == "systemd":
        return "systemd"
    if os.path.exists("/etc/init.d/"):
        return "sysvinit"
    if os.path.exists("/etc/dinit.d/"):
        return "dinit"
    return None
