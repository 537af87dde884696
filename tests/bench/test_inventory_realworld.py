"""The inventory harness's own logic: which sources it takes, and never a repository's code."""

from __future__ import annotations

from pathlib import Path

from bench_loader import load_bench

harness = load_bench("inventory_realworld", siblings=True)  # it imports realworld


def test_sources_found_by_name_content_and_configuration(tmp_path: Path) -> None:
    files = {
        "ansible.cfg": "[defaults]\ninventory = inventory/prod\n",
        "inventory/prod/hosts": "[web]\nw1\n",
        "inventory/stage.yml": "all:\n  hosts:\n    s1:\n",
        "inventory/aws_ec2.yml": "plugin: amazon.aws.aws_ec2\n",
        "inventory/notes.md": "# not an inventory\n",
        "roles/r/tasks/main.yml": "- debug: msg=hi\n",
        "scripts/hosts": "[x]\n",
        "dyn/inventory/ec2.py": "#!/usr/bin/env python3\nprint('{}')\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    (tmp_path / "dyn/inventory/ec2.py").chmod(0o755)
    found = harness.find_sources(tmp_path, 20)
    given = {(str(s.cwd.relative_to(tmp_path)), s.source) for s in found}
    assert (".", "") in given  # the ansible.cfg's inventory
    assert {(".", "inventory/prod/hosts"), (".", "inventory/stage.yml"), (".", "inventory/aws_ec2.yml"),
            (".", "scripts/hosts"), (".", "inventory")} <= given
    assert not any("ec2.py" in s.source or s.source.startswith("dyn") for s in found)  # never run code
    assert not any(s.source.endswith("notes.md") for s in found)


def test_queries_use_the_hosts_and_groups_ansible_listed(tmp_path: Path) -> None:
    source = harness.Source(tmp_path, tmp_path, "hosts")
    listed = harness.Outcome(0, '{"_meta": {"hostvars": {"b": {}, "a": {}, "c": {}}}, '
                                '"all": {"children": ["ungrouped", "web"]}}', "", 0.1)
    labels = [q.label() for q in harness.queries(source, listed)]
    assert labels == ["ansible-inventory --list", "ansible-inventory --graph", "ansible-inventory --graph --vars",
                      "ansible all", "ansible-inventory --host a", "ansible-inventory --host c", "ansible web"]
