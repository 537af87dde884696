"""Write playbook_ls/data/modules.json: the ansible.builtin modules and their options.

Usage: python scripts/gen_module_data.py [--check]   (--check: exit 1 if the file is out of date)

Needs ansible-core (a test-only dependency): the language server itself never imports ansible,
it reads the JSON this script writes. Documentation fragments are merged by ansible's own docs
loader, so ``copy`` lists ``mode``/``owner`` like ``ansible-doc`` does.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from typing import Any

from playbook_ls.features.module_summary import module_entry, plain

ROOT = Path(__file__).resolve().parent.parent
TARGET = ROOT / "playbook_ls" / "data" / "modules.json"


def build() -> dict[str, Any]:
    import ansible
    import ansible.modules
    import yaml
    from ansible.plugins.loader import fragment_loader
    from ansible.utils.plugin_docs import get_docstring

    directory = os.path.dirname(ansible.modules.__file__)
    modules: dict[str, Any] = {}
    for filename in sorted(os.listdir(directory)):
        name, ext = os.path.splitext(filename)
        path = os.path.join(directory, filename)
        if ext != ".py" or name.startswith("_") or "DOCUMENTATION" not in Path(path).read_text(encoding="utf-8"):
            continue  # async_wrapper is a helper, not a module one can call
        doc, *_ = get_docstring(path, fragment_loader, collection_name="ansible.builtin", plugin_type="module")
        modules[name] = module_entry(doc)
    with open(os.path.join(os.path.dirname(ansible.__file__), "keyword_desc.yml"), encoding="utf-8") as handle:
        keywords = {str(k): keyword_text(v) for k, v in sorted(yaml.safe_load(handle).items())}
    return {"ansible_core": ansible.__version__, "keywords": keywords, "modules": modules}


def keyword_text(text: Any) -> str:
    """A keyword's description without the Sphinx cross-references (they point into ansible's docs)."""
    text = " ".join(str(text).split("\n\n")[0].split())
    text = re.sub(r"\s*See :ref:`[^`]*`\.?", "", text)
    text = re.sub(r":(?:term|ref):`([^`<]*?)\s*(?:<[^>]*>)?`", r"\1", text)
    return plain(text)


def render(data: dict[str, Any]) -> str:
    """One module per line (and the keywords on one): small, and a diff shows which module changed."""
    def compact(value: Any) -> str:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))

    modules = ",\n".join(f"{compact(name)}: {compact(entry)}" for name, entry in data["modules"].items())
    return (f'{{"ansible_core": {compact(data["ansible_core"])},\n"keywords": {compact(data["keywords"])},\n'
            f'"modules": {{\n{modules}\n}}}}\n')


def main(argv: list[str]) -> int:
    data = build()
    text = render(data)
    current = TARGET.read_text(encoding="utf-8") if TARGET.exists() else ""
    if "--check" in argv:
        if text != current:
            print(f"{TARGET.relative_to(ROOT)} is out of date: run python scripts/gen_module_data.py", file=sys.stderr)
            return 1
        return 0
    TARGET.parent.mkdir(parents=True, exist_ok=True)
    TARGET.write_text(text, encoding="utf-8")
    print(f"wrote {TARGET.relative_to(ROOT)}: {len(data['modules'])} modules, {len(text.encode())} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
