"""The facts of the machine itself ansible's collectors read from a few files or one program:
``loadavg`` (``os.getloadavg``), the ssh host keys (``ssh_pub_keys``, in the minimal subset), and
of the ``hardware`` collector's Linux facts ``uptime_seconds`` (``/proc/uptime``) and the DMI
facts (``/sys/devices/virtual/dmi/id``, else ``dmidecode -s``, else ``NA``). Each function ports
its collector's code (``module_utils/facts/system/loadavg.py``, ``system/ssh_pub_keys.py``,
``hardware/linux.py``)."""

from __future__ import annotations

import json
import os
from typing import Any

from engine.run.facts_system import _content, _run, bin_path

DMI_DIR = "/sys/devices/virtual/dmi/id"
# the DMI spec's chassis types, as ansible lists them (an index into this list)
FORM_FACTOR = ["Unknown", "Other", "Unknown", "Desktop", "Low Profile Desktop", "Pizza Box", "Mini Tower", "Tower",
               "Portable", "Laptop", "Notebook", "Hand Held", "Docking Station", "All In One", "Sub Notebook",
               "Space-saving", "Lunch Box", "Main Server Chassis", "Expansion Chassis", "Sub Chassis",
               "Bus Expansion Chassis", "Peripheral Chassis", "RAID Chassis", "Rack Mount Chassis", "Sealed-case PC",
               "Multi-system", "CompactPCI", "AdvancedTCA", "Blade", "Blade Enclosure", "Tablet", "Convertible",
               "Detachable", "IoT Gateway", "Embedded PC", "Mini PC", "Stick PC"]
# each DMI fact: its file under DMI_DIR, and dmidecode's keyword for it
DMI = {
    "bios_date": ("bios_date", "bios-release-date"), "bios_vendor": ("bios_vendor", "bios-vendor"),
    "bios_version": ("bios_version", "bios-version"), "board_asset_tag": ("board_asset_tag", "baseboard-asset-tag"),
    "board_name": ("board_name", "baseboard-product-name"), "board_serial": ("board_serial", "baseboard-serial-number"),
    "board_vendor": ("board_vendor", "baseboard-manufacturer"), "board_version": ("board_version", "baseboard-version"),
    "chassis_asset_tag": ("chassis_asset_tag", "chassis-asset-tag"),
    "chassis_serial": ("chassis_serial", "chassis-serial-number"),
    "chassis_vendor": ("chassis_vendor", "chassis-manufacturer"),
    "chassis_version": ("chassis_version", "chassis-version"),
    "form_factor": ("chassis_type", "chassis-type"), "product_name": ("product_name", "system-product-name"),
    "product_serial": ("product_serial", "system-serial-number"), "product_uuid": ("product_uuid", "system-uuid"),
    "product_version": ("product_version", "system-version"), "system_vendor": ("sys_vendor", "system-manufacturer"),
}


def loadavg_facts() -> dict[str, Any]:
    try:
        one, five, fifteen = os.getloadavg()
    except OSError:
        return {}
    return {"loadavg": {"1m": one, "5m": five, "15m": fifteen}}


def ssh_pub_key_facts() -> dict[str, Any]:
    """The host keys of the first directory holding any (``/etc/ssh``, ``/etc/openssh``, ``/etc``)."""
    facts: dict[str, Any] = {}
    for keydir in ("/etc/ssh", "/etc/openssh", "/etc"):
        for algo in ("dsa", "rsa", "ecdsa", "ed25519"):
            name = f"ssh_host_key_{algo}_public"
            if name in facts:  # an earlier directory had keys: stop there
                return facts
            data = _content(f"{keydir}/ssh_host_{algo}_key.pub")
            if data is not None:
                keytype, key = data.split()[0:2]
                facts[name] = key
                facts[name + "_keytype"] = keytype
    return facts


def uptime_facts() -> dict[str, Any]:
    data = _content("/proc/uptime")
    return {"uptime_seconds": int(float(data.split(" ")[0]))} if data else {}


def dmi_facts() -> dict[str, Any]:
    if os.path.exists(f"{DMI_DIR}/product_name"):
        facts: dict[str, Any] = {}
        for key, (name, _keyword) in DMI.items():
            data = _content(f"{DMI_DIR}/{name}")
            if data is None:
                facts[key] = "NA"
            elif key == "form_factor":
                try:
                    facts[key] = FORM_FACTOR[int(data)]
                except IndexError:
                    facts[key] = f"unknown ({data})"
            else:
                facts[key] = data
        return facts
    dmidecode = bin_path("dmidecode")
    if dmidecode is None:
        return dict.fromkeys(DMI, "NA")
    facts = {}
    for key, (_name, keyword) in DMI.items():
        rc, out = _run([dmidecode, "-s", keyword])
        if rc != 0:
            facts[key] = "NA"
            continue
        value = "".join(line for line in out.splitlines() if not line.startswith("#"))
        try:
            json.dumps(value)
        except UnicodeDecodeError:
            value = "NA"
        facts[key] = value
    return facts
