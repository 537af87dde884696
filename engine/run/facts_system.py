"""The system facts ansible's collectors read from a few files or one program
(``module_utils/facts/system``): ``dns`` (``/etc/resolv.conf``), ``fips``, ``apparmor``,
``cmdline`` and ``proc_cmdline`` (``/proc/cmdline``), ``selinux`` (libselinux through ctypes, as
ansible's ``compat.selinux``), ``is_chroot`` and ``lsb`` (``lsb_release -a`` or
``/etc/lsb-release``). Each function ports its collector's ``collect``."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from typing import Any

SELINUX_MODE_DICT = {1: "enforcing", 0: "permissive", -1: "disabled"}


def _content(path: str, default: str | None = None) -> str | None:
    """``get_file_content``: the file's text, stripped, or ``default`` (unreadable, or empty)."""
    if not (os.path.exists(path) and os.access(path, os.R_OK)):
        return default
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read().strip() or default
    except Exception:  # noqa: BLE001 - as ansible: a file a container lets nobody read
        return default


def bin_path(name: str) -> str | None:
    """``get_bin_path``: PATH, then the sbin directories."""
    path = os.environ.get("PATH", os.defpath)
    return shutil.which(name, path=os.pathsep.join([path, "/sbin", "/usr/sbin", "/usr/local/sbin"]))


def _run(args: list[str]) -> tuple[int, str]:
    try:
        proc = subprocess.run(args, capture_output=True, check=False, env={**os.environ, "LANG": "C", "LC_ALL": "C"})
    except OSError:
        return 1, ""
    return proc.returncode, proc.stdout.decode("utf-8", errors="replace")


def dns_facts() -> dict[str, Any]:
    dns: dict[str, Any] = {}
    for line in (_content("/etc/resolv.conf", "") or "").splitlines():
        if line.startswith(("#", ";")) or line.strip() == "":
            continue
        tokens = line.split()
        if tokens[0] == "nameserver":
            dns.setdefault("nameservers", []).extend(tokens[1:])
        elif tokens[0] == "domain":
            if len(tokens) > 1:
                dns["domain"] = tokens[1]
        elif tokens[0] in ("search", "sortlist"):
            dns[tokens[0]] = list(tokens[1:])
        elif tokens[0] == "options":
            dns["options"] = {}
            for option in tokens[1:]:
                parts = option.split(":", 1)
                dns["options"][parts[0]] = len(parts) == 2 and parts[1] or True
    return {"dns": dns}


def fips_facts() -> dict[str, Any]:
    return {"fips": _content("/proc/sys/crypto/fips_enabled") == "1"}


def apparmor_facts() -> dict[str, Any]:
    return {"apparmor": {"status": "enabled" if os.path.exists("/sys/kernel/security/apparmor") else "disabled"}}


def _parse_cmdline(data: str, lists: bool) -> dict[str, Any]:
    parsed: dict[str, Any] = {}
    try:
        for piece in shlex.split(data, posix=False):
            item = piece.split("=", 1)
            if len(item) == 1:
                parsed[item[0]] = True
            elif lists and item[0] in parsed:
                known = parsed[item[0]]
                parsed[item[0]] = [*known, item[1]] if isinstance(known, list) else [known, item[1]]
            else:
                parsed[item[0]] = item[1]
    except ValueError:
        pass
    return parsed


def cmdline_facts() -> dict[str, Any]:
    data = _content("/proc/cmdline")
    if not data:
        return {}
    return {"cmdline": _parse_cmdline(data, False), "proc_cmdline": _parse_cmdline(data, True)}


_SELINUX_FUNCTIONS = ("is_selinux_enabled", "is_selinux_mls_enabled", "lgetfilecon_raw", "matchpathcon",
                      "security_policyvers", "selinux_getenforcemode", "security_getenforce", "lsetfilecon",
                      "selinux_getpolicytype")


def _libselinux() -> Any:
    """libselinux as ansible's ``compat.selinux`` loads it (ctypes), or None where that import fails."""
    import ctypes

    try:
        lib = ctypes.CDLL("libselinux.so.1", use_errno=True)
    except OSError:
        return None
    return lib if all(getattr(lib, name, None) for name in _SELINUX_FUNCTIONS) else None


def selinux_facts() -> dict[str, Any]:
    import ctypes

    lib = _libselinux()
    if lib is None:
        return {"selinux": {"status": "Missing selinux Python library"}, "selinux_python_present": False}
    facts: dict[str, Any] = {}
    if not lib.is_selinux_enabled():
        facts["status"] = "disabled"
    else:
        facts["status"] = "enabled"
        facts["policyvers"] = lib.security_policyvers()
        mode = ctypes.c_int()
        facts["config_mode"] = SELINUX_MODE_DICT.get(mode.value, "unknown") \
            if lib.selinux_getenforcemode(ctypes.byref(mode)) == 0 else "unknown"
        facts["mode"] = SELINUX_MODE_DICT.get(lib.security_getenforce(), "unknown")
        policy = ctypes.c_char_p()
        try:
            rc = lib.selinux_getpolicytype(ctypes.byref(policy))
            facts["type"] = (policy.value or b"").decode() if rc == 0 else "unknown"
        finally:
            lib.freecon(policy)
    return {"selinux_python_present": True, "selinux": facts}


def chroot_facts() -> dict[str, Any]:
    if os.environ.get("debian_chroot", False):
        return {"is_chroot": True}
    mine = os.stat("/")
    try:
        init = os.stat("/proc/1/root/.")
        return {"is_chroot": mine.st_ino != init.st_ino or mine.st_dev != init.st_dev}
    except Exception:  # noqa: BLE001 - as ansible: any error falls back to the root's inode number
        return {"is_chroot": mine.st_ino != _fs_root_inode()}


def _fs_root_inode() -> int:
    import shutil
    import subprocess

    stat = shutil.which("stat")
    if stat is None:
        return 2
    out = subprocess.run([stat, "-f", "--format=%T", "/"], capture_output=True, text=True, check=False).stdout
    return 256 if "btrfs" in out else 128 if "xfs" in out else 2


def lsb_facts() -> dict[str, Any]:
    """``LSBFactCollector``: ``lsb_release -a``, else ``/etc/lsb-release``."""
    lsb: dict[str, str] = {}
    program = bin_path("lsb_release")
    if program:
        rc, out = _run([program, "-a"])
        for line in out.splitlines() if rc == 0 else ():
            if ":" not in line:
                continue
            value = line.split(":", 1)[1].strip()
            for label, key in (("LSB Version:", "release"), ("Distributor ID:", "id"), ("Description:", "description"),
                               ("Release:", "release"), ("Codename:", "codename")):
                if label in line:
                    lsb[key] = value
                    break
    if not lsb and os.path.exists("/etc/lsb-release"):
        for line in (_content("/etc/lsb-release") or "").splitlines():
            value = line.split("=", 1)[1].strip() if "=" in line else ""
            for label, key in (("DISTRIB_ID", "id"), ("DISTRIB_RELEASE", "release"),
                               ("DISTRIB_DESCRIPTION", "description"), ("DISTRIB_CODENAME", "codename")):
                if label in line:
                    lsb[key] = value
                    break
    if "release" in lsb:
        lsb["major_release"] = lsb["release"].split(".")[0]
    return {"lsb": {key: value.strip("'\"\\") if value else value for key, value in lsb.items()}}
