"""Render the documentation's pictures, docs/images/*.svg, from the real engine and server.

Usage: python scripts/gen_doc_images.py [--check]   (--check: exit 1 if an image is out of date)

Nothing is drawn by hand: every tag, file position, hover line and finding comes from
playbook-ls run on the bundled example, examples/tag-inheritance:

- ``inheritance-task2.svg``: the inheritance chain of ``sample : task2`` (its frames and the
  origin of each tag, as ``list-tasks --format json`` gives them) and which runs select it;
- ``inheritance-other-sub.svg``: ``other : other_sub``, reached in two contexts;
- ``hover-task2.svg``: the editor on roles/sample/tasks/main.yml with the server's inlay hints,
  diagnostics and the hover for task2 (the pure feature functions of playbook_ls.features);
- ``check-output.svg``: ``playbook-ls check examples/tag-inheritance`` in a terminal.

The output is deterministic: ansible configuration from the environment is ignored, paths are
relative, coordinates are whole numbers, and text is laid out on a monospace grid.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scripts.doc_images.chain import Launch, chain_image  # noqa: E402
from scripts.doc_images.editor import editor_image  # noqa: E402
from scripts.doc_images.example import example_tasks, neutral_environment  # noqa: E402, F401 - tests use it
from scripts.doc_images.svg import Run, columns, inline_markdown, text_line, wrap  # noqa: E402, F401 - tests use them
from scripts.doc_images.terminal import terminal_image  # noqa: E402
from scripts.generated import sync  # noqa: E402

IMAGES = ROOT / "docs" / "images"




def images() -> dict[Path, str]:
    with neutral_environment():
        return {
            IMAGES / "inheritance-task2.svg": chain_image(
                "sample : task2",
                [Launch(), Launch(("__role1",)), Launch(("__role1",), ("never",))],
                "The inheritance chain of sample : task2",
                "sample : task2 in examples/tag-inheritance: the play tags __play, the roles: entry tags "
                "__role1, the task itself tags __tag2 and never; its effective tags are the union. "
                "A run without --tags skips it (never), --tags __role1 runs it through the inherited tag, "
                "--tags __role1 --skip-tags never skips it.",
            ),
            IMAGES / "inheritance-other-sub.svg": chain_image(
                "other : other_sub",
                [Launch(), Launch(("__other",)), Launch(("__role2",))],
                "other : other_sub reached in two contexts",
                "The same task file, roles/other/tasks/other_sub.yml, reached through the roles: entry "
                "\"other\" (tagged __role2) and through import_role other (tagged __other): it gets "
                "different tags in each context, so --tags __other runs only the second one and "
                "--tags __role2 only the first.",
            ),
            IMAGES / "hover-task2.svg": editor_image(),
            IMAGES / "check-output.svg": terminal_image(),
        }


def main(argv: list[str]) -> int:
    return sync(images(), argv, "gen_doc_images.py", "images")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
