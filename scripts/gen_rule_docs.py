"""Write docs/rules/CODE.md and docs/rules/index.md from the rules' docstrings.

Usage: python scripts/gen_rule_docs.py [--check]   (--check: exit 1 if a page is out of date)
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from playbook_ls import rules  # noqa: E402
from playbook_ls.rules.docs import render_index, render_page  # noqa: E402


def pages() -> dict[Path, str]:
    target = ROOT / "docs" / "rules"
    result = {target / f"{code}.md": render_page(module) for code, module in rules.RULES.items()}
    result[target / "index.md"] = render_index(list(rules.RULES.values()))
    return result


def main(argv: list[str]) -> int:
    stale = [path for path, text in pages().items() if not path.exists() or path.read_text() != text]
    if "--check" in argv:
        for path in stale:
            print(f"{path.relative_to(ROOT)} is out of date: run python scripts/gen_rule_docs.py", file=sys.stderr)
        return 1 if stale else 0
    for path, text in pages().items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    print(f"wrote {len(pages())} pages, {len(stale)} changed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
