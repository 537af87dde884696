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
from scripts.generated import sync  # noqa: E402


def pages() -> dict[Path, str]:
    target = ROOT / "docs" / "rules"
    result = {target / f"{code}.md": render_page(module) for code, module in rules.RULES.items()}
    result[target / "index.md"] = render_index(list(rules.RULES.values()))
    return result


def main(argv: list[str]) -> int:
    return sync(pages(), argv, "gen_rule_docs.py", "rule pages")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
