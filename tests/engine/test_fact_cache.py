"""Facts known before a run (engine.variables.fact_cache): ansible-core 2.19's jsonfile cache entries and
`ansible -m setup --tree` files, read without running anything, and the variables they give."""

from __future__ import annotations

import json
import os
from pathlib import Path

from engine.variables.fact_cache import CACHE_PAYLOAD_KEY, read_facts

FACTS = {"ansible_os_family": "Debian", "ansible_local": {"app": {"v": 1}}, "ansible_python_interpreter": "/x",
         "ansible_host": "10.0.0.1", "ansible_become_user": "root", "ansible_memtotal_mb": 2048}


def test_tree_files_and_cache_payloads_give_the_facts(tmp_path: Path) -> None:
    (tmp_path / "web1").write_text(json.dumps({"ansible_facts": FACTS, "changed": False}))  # setup --tree
    (tmp_path / "s1_web2").write_text(json.dumps({CACHE_PAYLOAD_KEY: json.dumps(FACTS)}))  # the 2.19 cache
    assert read_facts(str(tmp_path))["web1"].facts == FACTS
    assert read_facts(str(tmp_path), prefix="s1_")["web2"].facts == FACTS
    assert set(read_facts(str(tmp_path), prefix="s1_")) == {"web2"}  # other files are not cache entries


def test_old_hidden_and_broken_files_are_left_out(tmp_path: Path) -> None:
    for name in ("old", "fresh", ".hidden"):
        (tmp_path / name).write_text(json.dumps(FACTS))
    (tmp_path / "broken").write_text("{not json")
    (tmp_path / "listed").write_text("[1, 2]")
    os.utime(tmp_path / "old", (1_000_000, 1_000_000))
    assert set(read_facts(str(tmp_path), timeout=3600)) == {"fresh"}
    assert set(read_facts(str(tmp_path), timeout=0)) == {"fresh", "old"}  # 0: never too old, as ansible's
    assert read_facts(str(tmp_path / "missing")) == {}


def test_variables_are_namespaced_and_injected_as_ansible_gives_them(tmp_path: Path) -> None:
    (tmp_path / "h").write_text(json.dumps(FACTS))
    facts = read_facts(str(tmp_path))["h"]
    variables = facts.variables()
    assert variables["ansible_facts"]["os_family"] == "Debian"
    assert variables["ansible_facts"]["ansible_local"] == {"app": {"v": 1}}  # keeps its prefix (namespace_facts)
    assert variables["ansible_os_family"] == "Debian" and variables["ansible_memtotal_mb"] == 2048
    # clean_facts: nothing that could pass for a connection setting
    assert not {"ansible_python_interpreter", "ansible_host", "ansible_become_user"} & set(variables)
    assert set(facts.variables(inject=False)) == {"ansible_facts", "ansible_local"}
