"""A collection root with a module, a PowerShell module with a sidecar and a doc fragment, whose
code writes a marker file if it is ever imported; and a ``library/`` module beside playbooks."""

from __future__ import annotations

from pathlib import Path

from engine.plugins.collection_search import CollectionFinder
from engine.plugins.index import ModuleIndex

MODULE = '''
import pathlib
pathlib.Path({marker!r}).write_text("imported")
DOCUMENTATION = r"""
module: beacon
short_description: Says where it is
extends_documentation_fragment:
  - acme.tools.conn
  - acme.tools.conn.extra
  - acme.tools.conn.built
options:
  host:
    description: Overrides the fragment's description only.
  mode:
    type: str
    choices: [present, absent]
    default: present
"""
EXAMPLES = "- acme.tools.beacon: {{host: x}}"
RETURN = "where: {{description: the place, type: str, returned: always}}"
'''

FRAGMENT = '''
import pathlib
pathlib.Path({marker!r}).write_text("imported")


class ModuleDocFragment:
    DOCUMENTATION = r"""
options:
  host:
    description: The host.
    type: str
    required: true
notes: [from the fragment]
"""
    EXTRA = r"""
options:
  port: {{type: int, default: 22}}
"""

    def __init__(self):
        self.BUILT = f"options: {{{{}}}}"
        self.SAME = self.EXTRA
'''



def make_tree(tmp_path: Path) -> tuple[ModuleIndex, Path]:
    marker = tmp_path / "imported"
    collection = tmp_path / "root" / "ansible_collections" / "acme" / "tools"
    (collection / "plugins" / "modules").mkdir(parents=True)
    (collection / "plugins" / "doc_fragments").mkdir()
    (collection / "plugins" / "modules" / "beacon.py").write_text(MODULE.format(marker=str(marker)))
    (collection / "plugins" / "doc_fragments" / "conn.py").write_text(FRAGMENT.format(marker=str(marker)))
    # a PowerShell module documented by a sidecar
    (collection / "plugins" / "modules" / "win_beacon.ps1").write_text("throw 'never run'\n")
    (collection / "plugins" / "modules" / "win_beacon.yml").write_text(
        "DOCUMENTATION:\n  module: win_beacon\n  short_description: Windows one\n  options:\n    path: {type: path}\n")
    library = tmp_path / "playbooks" / "library"
    library.mkdir(parents=True)
    (library / "local_thing.py").write_text("DOCUMENTATION = \"module: local_thing\\nshort_description: Mine\"\n")
    index = ModuleIndex(None, CollectionFinder([str(tmp_path / "root")]), [str(library)])
    return index, marker
