"""ansible.cfg's inventory settings and their ``ANSIBLE_*`` variables, read as ansible reads them."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from engine.config import AnsibleConfig, InventorySettings
from engine.inventory.manager import InventoryAborted, load_inventory


@pytest.fixture(autouse=True)
def _no_machine_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    for name in [n for n in os.environ if n.startswith("ANSIBLE_")]:
        monkeypatch.delenv(name)


def _settings(tmp_path: Path, text: str) -> InventorySettings:
    (tmp_path / "ansible.cfg").write_text(text)
    return AnsibleConfig.load(str(tmp_path)).inventory


def test_defaults_without_a_file(tmp_path: Path) -> None:
    settings = AnsibleConfig.load(str(tmp_path)).inventory
    # the collection path comes from AnsibleConfig's own defaults (the user's home)
    without_paths = copy.copy(settings)
    without_paths.collections_path, without_paths.inventory_plugin_path = [], []
    assert without_paths == InventorySettings()
    assert settings.inventory_plugin_path[-1] == "/usr/share/ansible/plugins/inventory"
    assert settings.collections_path == AnsibleConfig.load(str(tmp_path)).collections_path
    assert settings.sources == ["/etc/ansible/hosts"]


def test_file_values_relative_to_the_file(tmp_path: Path) -> None:
    settings = _settings(tmp_path, "[defaults]\ninventory = inv/hosts, /abs/x\nplaybook_dir = pb\n"
                                   "[inventory]\nenable_plugins = 'ini', ansible.builtin.yaml\n"
                                   "unparsed_is_failed = yes\nany_unparsed_is_failed = on\n"
                                   "host_pattern_mismatch = error\nexport = 1\n")
    assert settings.sources == [str(tmp_path / "inv/hosts"), "/abs/x"]
    assert settings.playbook_dir == str(tmp_path / "pb")
    assert settings.enabled_plugins == ["ini", "ansible.builtin.yaml"]
    assert settings.unparsed_is_failed and settings.any_unparsed_is_failed and settings.export
    assert settings.host_pattern_mismatch == "error"


def test_the_inventory_section_key_wins_over_the_defaults_one(tmp_path: Path) -> None:
    settings = _settings(tmp_path, "[inventory]\nignore_extensions = .b\n"
                                   "[defaults]\ninventory_ignore_extensions = .a\n")
    assert settings.ignore_extensions == [".b"]


def test_environment_wins_and_is_relative_to_the_working_directory(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ANSIBLE_INVENTORY", "other")
    monkeypatch.setenv("ANSIBLE_INVENTORY_UNPARSED_FAILED", "false")
    monkeypatch.setenv("ANSIBLE_INVENTORY_IGNORE_REGEX", "^skip")
    settings = _settings(tmp_path, "[defaults]\ninventory = hosts\n[inventory]\nunparsed_is_failed = true\n")
    assert settings.sources == [str(tmp_path / "other")]
    assert not settings.unparsed_is_failed
    assert settings.ignore_patterns == ["^skip"]


def test_unparsed_is_failed_stops_the_load(tmp_path: Path) -> None:
    (tmp_path / "bad.yml").write_text("- bad: [\n")
    with pytest.raises(InventoryAborted, match="No inventory was parsed, please check"):
        load_inventory([str(tmp_path / "bad.yml")], settings=InventorySettings(unparsed_is_failed=True))


@pytest.mark.skipif(Path("/etc/ansible/hosts").exists(), reason="this machine has a default inventory")
def test_a_missing_default_source_is_not_reported() -> None:
    inventory = load_inventory(["/etc/ansible/hosts"])
    assert inventory.warnings == ["No inventory was parsed, only implicit localhost is available"]


def test_playbook_dir_vars_precedence(tmp_path: Path) -> None:
    """ansible's VARIABLE_PRECEDENCE: the inventory's group files beat the playbook's ``all`` file;
    each level's playbook file beats the inventory's."""
    files = {"inv/hosts": "[web]\nw1\n", "inv/group_vars/web.yml": "a: inv_web\nb: inv_web\n",
             "inv/host_vars/w1.yml": "h: inv\n", "pb/group_vars/all.yml": "a: pb_all\nc: pb_all\n",
             "pb/group_vars/web.yml": "b: pb_web\n", "pb/host_vars/w1.yml": "h: pb\n"}
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    inventory = load_inventory([str(tmp_path / "inv/hosts")], playbook_dir=str(tmp_path / "pb"))
    host = inventory.data.get_host("w1")
    assert inventory.host_variables(host) == {"a": "inv_web", "b": "pb_web", "c": "pb_all", "h": "pb"}
    assert inventory.host_variables(host, export=True) == {"h": "pb"}
    assert inventory.group_variables(inventory.data.groups["web"]) == {"a": "inv_web", "b": "pb_web"}


@pytest.mark.parametrize(("text", "env", "shown"), [
    ("[inventory]\nhost_pattern_mismatch = Error\n", None, "'Error'"),
    ("[inventory]\nhost_pattern_mismatch = error\n", " error", "' error'"),  # the environment is not stripped
    ("", "", "''"),
])
def test_an_invalid_host_pattern_mismatch_is_ansibles_start_up_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str, env: str | None, shown: str) -> None:
    if env is not None:
        monkeypatch.setenv("ANSIBLE_HOST_PATTERN_MISMATCH", env)
    (tmp_path / "ansible.cfg").write_text(text)
    config = AnsibleConfig.load(str(tmp_path))
    assert config.errors == [f"Invalid value {shown} for config 'HOST_PATTERN_MISMATCH'. "
                             "Valid values are: error, warning, ignore"]
    assert config.inventory.host_pattern_mismatch == "warning"


def test_localhost_warning(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert _settings(tmp_path, "[defaults]\nlocalhost_warning = no\n").localhost_warning is False
    monkeypatch.setenv("ANSIBLE_LOCALHOST_WARNING", "true")
    assert _settings(tmp_path, "[defaults]\nlocalhost_warning = no\n").localhost_warning is True
