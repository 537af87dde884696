"""ansible's ``human_to_bytes`` and ``human_readable`` filters (``plugins/filter/mathstuff.py`` over
``module_utils/common/text/formatters.py``): sizes such as ``512MB`` to a number of bytes and back,
failing where ansible fails, with its words."""

from __future__ import annotations

import re
from typing import Any

from engine.templating.errors import TemplateFailure

SIZE_RANGES = {"Y": 1 << 80, "Z": 1 << 70, "E": 1 << 60, "P": 1 << 50, "T": 1 << 40, "G": 1 << 30, "M": 1 << 20,
               "K": 1 << 10, "B": 1}
VALID_UNITS = {
    "B": (("byte", "B"), ("bit", "b")), "K": (("kilobyte", "KB"), ("kilobit", "Kb")),
    "M": (("megabyte", "MB"), ("megabit", "Mb")), "G": (("gigabyte", "GB"), ("gigabit", "Gb")),
    "T": (("terabyte", "TB"), ("terabit", "Tb")), "P": (("petabyte", "PB"), ("petabit", "Pb")),
    "E": (("exabyte", "EB"), ("exabit", "Eb")), "Z": (("zetabyte", "ZB"), ("zetabit", "Zb")),
    "Y": (("yottabyte", "YB"), ("yottabit", "Yb")),
}
_SIZE = re.compile(r"^([0-9]*\.?[0-9]+)(?:\s*([A-Za-z]+))?\s*$")


def _to_bytes(number: Any, default_unit: Any = None, isbits: Any = False) -> int:
    match = _SIZE.search(str(number))
    if match is None:
        raise ValueError(f"human_to_bytes() can't interpret following string: {number}")
    num = float(match.group(1))
    unit = match.group(2)
    if unit is None:
        unit = default_unit
    if unit is None:
        return int(round(num))
    range_key = unit[0].upper()
    if range_key not in SIZE_RANGES:
        raise ValueError(f"human_to_bytes() failed to convert {number} (unit = {unit}). The suffix must be one of "
                         f"{', '.join(SIZE_RANGES)}")
    unit_class, unit_class_name = ("b", "bit") if isbits else ("B", "byte")
    if len(unit) > 1:
        expect = f"expect {range_key}{unit_class} or {range_key}"
        if range_key == "B":
            expect = f"expect {unit_class} or {unit_class_name}"
        group = VALID_UNITS[range_key][1 if isbits else 0]
        if unit.lower() != group[0] and unit != group[1]:
            raise ValueError(f"human_to_bytes() failed to convert {number}. Value is not a valid string ({expect})")
    return int(round(num * SIZE_RANGES[range_key]))


def _to_human(size: Any, isbits: Any = False, unit: Any = None) -> str:
    base = "bits" if isbits else "Bytes"
    suffix, limit = "", 1
    for suffix, limit in SIZE_RANGES.items():  # largest first
        if (unit is None and size >= limit) or unit is not None and unit.upper() == suffix[0]:
            break
    suffix = suffix + base[0] if limit != 1 else base
    return f"{size / limit:.2f} {suffix}"


def human_to_bytes(size: Any, default_unit: Any = None, isbits: Any = False) -> int:
    return _worded("human_to_bytes", _to_bytes, size, default_unit, isbits)


def human_readable(size: Any, isbits: Any = False, unit: Any = None) -> str:
    return _worded("human_readable", _to_human, size, isbits, unit)


def _worded(name: str, compute: Any, *args: Any) -> Any:
    """``compute(*args)``, its failure worded as ansible's filter ``name`` words it."""
    try:
        return compute(*args)
    except TypeError as exc:
        raise TemplateFailure(f"{name}() failed on bad input") from exc
    except Exception as exc:  # noqa: BLE001 - ansible words any other failure alike
        raise TemplateFailure(f"{name}() can't interpret the input") from exc
