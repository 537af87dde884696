"""Filters and tests beyond the common ones give ansible-playbook 2.19's results: the debug output
of the ``filters_paths_sets`` run scenario, as ansible-playbook -c local printed it."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.templating.templar import Templar, TemplateFailure

SCENARIO = Path(__file__).resolve().parent.parent / "run" / "scenarios" / "filters_paths_sets"
WORD = "héllo wörld"
# expression -> what ansible-playbook 2.19.14 printed for it
RECORDED = {
    "word | b64encode": "aMOpbGxvIHfDtnJsZA==",
    "word | b64encode | b64decode": WORD,
    "'aGk=' | b64decode": "hi",
    "word | hash('md5')": "ed0c22cc110ede12327851863c078138",
    "word | hash": "24e9f5c07847ff8a2a9fa77456655792f5bc7f9f",
    "word | checksum": "24e9f5c07847ff8a2a9fa77456655792f5bc7f9f",
    "'a1b22c333' | regex_findall('[0-9]+')": ["1", "22", "333"],
    # the scenario's YAML double quotes make \n a newline before ansible sees the template
    "'Ab\nab' | regex_findall('^a.', multiline=true, ignorecase=true)": ["Ab", "ab"],
    "a | union(b) | sort": [1, 2, 3, 4],
    "a | intersect(b)": [3],
    "a | difference(b) | sort": [1, 2],
    "a | symmetric_difference(b) | sort": [1, 2, 4],
    "dicts_a | union(dicts_b)": [{"k": 1}, {"k": 2}, {"k": 3}],
    "dicts_a | intersect(dicts_b)": [{"k": 2}],
    "dicts_a | difference(dicts_b)": [{"k": 1}],
    "dicts_a | symmetric_difference(dicts_b)": [{"k": 1}, {"k": 3}],
    "'a b  c' | split": ["a", "b", "c"],
    "'a,b,,c' | split(',')": ["a", "b", "", "c"],
    "'dir/sub/file' | relpath('dir')": "sub/file",
    "'C:\\\\Users\\\\x\\\\file.txt' | win_basename": "file.txt",
    "'site.yml' is file": True,
    "'site.yml' is directory": False,
    "'.' is directory": True,
    "'missing' is exists": False,
    "'/x' is is_abs": True,
}


@pytest.fixture
def templar(monkeypatch: pytest.MonkeyPatch) -> Templar:
    monkeypatch.chdir(SCENARIO)
    return Templar({"word": WORD, "a": [1, 2, 3, 3], "b": [3, 4], "dicts_a": [{"k": 1}, {"k": 2}],
                    "dicts_b": [{"k": 2}, {"k": 3}]})


@pytest.mark.parametrize(("expression", "expected"), RECORDED.items(), ids=list(RECORDED))
def test_as_ansible_printed_it(templar: Templar, expression: str, expected: object) -> None:
    assert templar.template("{{ " + expression + " }}") == expected


def test_splitext_and_failures(templar: Templar) -> None:
    assert list(templar.template("{{ 'dir/archive.tar.gz' | splitext }}")) == ["dir/archive.tar", ".gz"]
    with pytest.raises(TemplateFailure, match="unsupported hash type nope"):
        templar.template("{{ word | hash('nope') }}")
    with pytest.raises(TemplateFailure):
        templar.template("{{ 'missing' is same_file('site.yml') }}")
