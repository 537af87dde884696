"""Parsing imports ruamel.yaml's parser modules only; the round-trip API is there when used."""

from __future__ import annotations

import subprocess
import sys

PROBE = """
import sys, threading
from engine.parsing.yaml_compose import parse_yaml
assert parse_yaml("a: [1, 2]\\n", "x.yml").data == {"a": [1, 2]}
print("main before:", "ruamel.yaml.main" in sys.modules)
import ruamel.yaml
results = []
def first_use():
    from ruamel.yaml import YAML
    results.append(YAML)
threads = [threading.Thread(target=first_use) for _ in range(8)]
for thread in threads: thread.start()
for thread in threads: thread.join()
print("threads:", len(results), len(set(results)))
import io
yaml = ruamel.yaml.YAML()
data = yaml.load("a: 1  # kept\\n")
out = io.StringIO(); yaml.dump(data, out)
print("round trip:", repr(out.getvalue()))
print("version:", ruamel.yaml.__version__ == ".".join(map(str, ruamel.yaml.version_info)))
import ruamel.yaml.comments
print("submodule:", ruamel.yaml.comments.CommentedMap.__name__)
"""


def _run(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_parsing_leaves_the_round_trip_api_unimported_until_it_is_used_from_any_thread() -> None:
    out = _run(PROBE)
    assert "main before: False" in out
    assert "threads: 8 1" in out
    assert "round trip: 'a: 1  # kept\\n'" in out
    assert "version: True" in out
    assert "submodule: CommentedMap" in out


def test_a_package_imported_before_is_left_as_it_is() -> None:
    out = _run("import ruamel.yaml, sys\nreal = sys.modules['ruamel.yaml']\nimport engine.parsing.yaml_compose\n"
               "print(sys.modules['ruamel.yaml'] is real, type(real).__name__)")
    assert out.split() == ["True", "module"]
