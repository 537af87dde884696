"""engine.plugins.docs reads a plugin's documentation constants without parsing its whole code,
and gives what parsing the whole file (ansible's read_docstring_from_python_file) gives."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from engine.plugins import docs as module_docs

CASES = {
    "plain": 'import os\nDOCUMENTATION = r"""\nmodule: x\nshort_description: X\n"""\n\n'
             'EXAMPLES = \'\'\'\n- x:\n\'\'\'\n'
             'RETURN = """\nout: {type: str}\n"""  # the result\ndef main():\n    return 1\n',
    "assigned twice": 'DOCUMENTATION = "module: a"\nDOCUMENTATION = "module: b"\n',
    "escaped quotes": 'DOCUMENTATION = r"""\nmodule: x\nshort_description: say \\"""hi\\"""\n"""\n',
    "concatenated": 'DOCUMENTATION = ("module: x\\n"\n    "short_description: X\\n")\n'
                    'RETURN = """a: 1""" + """\\n"""\n',
    "metadata dict": "ANSIBLE_METADATA = {'status': ['preview'],\n    'supported_by': 'community'}\n"
                     'DOCUMENTATION = """module: x"""\n',
    "a constant in a string": 'EXAMPLES = """\nRETURN = "module: not this"\n"""\nRETURN = """a: 1"""\n',
    "indented": 'if True:\n    DOCUMENTATION = "module: hidden"\n',
}


@pytest.mark.parametrize("name", CASES)
def test_the_same_as_parsing_the_whole_file(name: str, tmp_path: Path) -> None:
    path = tmp_path / "plugin.py"
    path.write_text(CASES[name])
    whole: dict = dict.fromkeys(module_docs.DOC_CONSTANTS.values())
    try:
        module_docs._constants(ast.parse(CASES[name]).body, whole)
    except AttributeError:
        pass  # a computed constant: ansible keeps what it read before it, and so does read_docstring
    assert module_docs.read_docstring(str(path)) == whole


def test_the_usual_file_is_not_parsed_whole(tmp_path: Path) -> None:
    # the one difference from ansible-doc: a plugin whose code does not parse (which fails when
    # it runs) still shows the documentation it has; ansible-doc shows none
    path = tmp_path / "plugin.py"
    path.write_text(CASES["plain"] + "def broken(:\n")
    assert module_docs._assignments(path.read_bytes()) is not None
    assert module_docs.read_docstring(str(path))["doc"] == {"module": "x", "short_description": "X"}
