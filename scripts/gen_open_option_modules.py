"""Write playbook_ls/data/open_option_modules.json: the modules of ansible-core and of every
collection beside it whose options are built at run time (the module-argument rules judge none
of their arguments).

Usage: python scripts/gen_open_option_modules.py [--check]   (--check: exit 1 if the file is out of date)

Run it with the Python of an environment where the ``ansible`` package is installed (ansible-core
and the collections it ships), with this checkout on ``PYTHONPATH``. Each module's documentation
is read by ansible's own docs loader (fragments merged) and judged with its code by
:func:`playbook_ls.rules.open_options.open_reason`, the test the rules apply to any other module.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from generated import ROOT, sync  # noqa: E402

from playbook_ls.rules.open_options import open_reason  # noqa: E402

TARGET = ROOT / "playbook_ls" / "data" / "open_option_modules.json"
CODE_SUFFIXES = (".ps1", ".py")  # the file that runs: a PowerShell module documents itself in a .py or .yml beside it


def modules(site: str) -> Iterator[tuple[str, str, str]]:
    """``(fully qualified name, documentation file, collection)`` of every module under ``site``."""
    core = os.path.join(site, "ansible", "modules")
    for filename in sorted(os.listdir(core)):
        stem, ext = os.path.splitext(filename)
        if ext == ".py" and not stem.startswith("_"):
            yield f"ansible.builtin.{stem}", os.path.join(core, filename), "ansible.builtin"
    root = os.path.join(site, "ansible_collections")
    for namespace in sorted(os.listdir(root)) if os.path.isdir(root) else ():
        if not os.path.isdir(os.path.join(root, namespace)):
            continue  # ansible_community.py and the like
        for name in sorted(os.listdir(os.path.join(root, namespace))):
            directory = os.path.join(root, namespace, name, "plugins", "modules")
            for dirpath, dirnames, filenames in os.walk(directory):
                dirnames.sort()
                relative = os.path.relpath(dirpath, directory)
                prefix = "" if relative == "." else relative.replace(os.sep, ".") + "."
                for filename in sorted(filenames):
                    stem, ext = os.path.splitext(filename)
                    if ext in (".py", ".yml", ".yaml") and not stem.startswith("_"):
                        yield (f"{namespace}.{name}.{prefix}{stem}", os.path.join(dirpath, filename),
                               f"{namespace}.{name}")


def build(site: str) -> dict[str, Any]:
    import ansible
    from ansible.plugins.loader import fragment_loader, init_plugin_loader
    from ansible.utils.plugin_docs import get_docstring

    init_plugin_loader([])
    found: dict[str, str] = {}
    seen: set[str] = set()
    for name, doc_path, collection in modules(site):
        if name in seen:
            continue
        seen.add(name)
        try:
            doc, *_ = get_docstring(doc_path, fragment_loader, collection_name=collection, plugin_type="module")
        except Exception:  # noqa: BLE001 - a module whose documentation ansible cannot read is not judged anyway
            continue
        if not isinstance(doc, dict):
            continue
        base = os.path.splitext(doc_path)[0]
        code = next((_read(base + suffix) for suffix in CODE_SUFFIXES if os.path.isfile(base + suffix)), "")
        reason = open_reason(doc, code, _read(_action_path(site, name, doc_path)))
        if reason:
            found[name] = reason
    collections = {".".join(name.split(".")[:2]) for name in seen if not name.startswith("ansible.builtin.")}
    return {"ansible_core": ansible.__version__, "collections_read": len(collections), "modules_read": len(seen),
            "modules": dict(sorted(found.items()))}


def _action_path(site: str, name: str, doc_path: str) -> str:
    short = name.rsplit(".", 1)[1]
    if name.startswith("ansible.builtin."):
        return os.path.join(site, "ansible", "plugins", "action", f"{short}.py")
    plugins = os.path.dirname(os.path.dirname(doc_path))
    return os.path.join(plugins, "action", f"{short}.py")


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read()
    except OSError:
        return ""


def render(data: dict[str, Any]) -> str:
    modules = ",\n".join(f"  {json.dumps(k)}: {json.dumps(v)}" for k, v in data["modules"].items())
    head = {k: v for k, v in data.items() if k != "modules"}
    return json.dumps(head)[:-1] + ',\n "modules": {\n' + modules + "\n}}\n"


def main(argv: list[str]) -> int:
    import ansible

    site = os.path.dirname(os.path.dirname(ansible.__file__))
    return sync({TARGET: render(build(site))}, argv, "gen_open_option_modules.py", "open option module lists")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
