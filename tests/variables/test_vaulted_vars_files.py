"""Vars files encrypted whole with ansible-vault, read by the variable model, the plan and the
listing (engine.loading.vaulted_vars, engine.variables.layer.make_layer): playbook-ls never
decrypts. With vault secrets configured ansible decrypts them, so the names they may set are the
run's: unknown, never undefined, never read as absent, never an error. Without secrets ansible
stops where it reads one (a play's vars_files before it lists anything; an include_vars task fails
its host), and so do the listing and the plan. The differential scenarios
95-error-vaulted-vars-files and 96-vaulted-vars-files-with-secrets check the listing against
ansible-playbook."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from playbook_ls.cli.main import main

CIPHERTEXT = "$ANSIBLE_VAULT;1.1;AES256\n" + "\n".join(["3338386637613163"] * 4) + "\n"


@pytest.fixture(autouse=True)
def _no_secrets(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in ("ANSIBLE_VAULT_PASSWORD_FILE", "ANSIBLE_VAULT_IDENTITY_LIST", "ANSIBLE_ASK_VAULT_PASS"):
        monkeypatch.delenv(name, raising=False)
    (tmp_path / "ansible.cfg").write_text("")
    monkeypatch.setenv("ANSIBLE_CONFIG", str(tmp_path / "ansible.cfg"))
    monkeypatch.chdir(tmp_path)


def _secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    Path("vault-pass.txt").write_text("never read\n")  # in the project, the working directory
    monkeypatch.setenv("ANSIBLE_VAULT_PASSWORD_FILE", "vault-pass.txt")


def _project(tmp_path: Path, playbook: str, files: dict[str, str]) -> None:
    (tmp_path / "site.yml").write_text(playbook)
    (tmp_path / "hosts.ini").write_text("[web]\nweb1\n")
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)


def _vars(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict]:
    code = main(["vars", "-i", "hosts.ini", "--host", "web1", "--format", "json", "site.yml", *args])
    out = capsys.readouterr().out
    return code, json.loads(out) if out.strip() else {}


def _value(report: dict, name: str) -> object:
    found = json.dumps(report)
    assert f'"{name}"' in found, found
    return found


GROUP_VARS = {"group_vars/all/vault.yml": CIPHERTEXT, "group_vars/all/main.yml": "region: eu\n",
              "group_vars/web.yml": "tier: web\n",
              "roles/app/defaults/main.yml": "db_password: changeme\n"}
PLAYBOOK = "- hosts: web\n  gather_facts: false\n  roles: [app]\n  tasks:\n    - debug: msg={{ db_password }}\n"


def test_a_group_vars_file_encrypted_whole_makes_the_names_below_it_unknown(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    _secrets(monkeypatch)
    _project(tmp_path, PLAYBOOK, {**GROUP_VARS, "roles/app/tasks/main.yml": "- debug: msg=in role\n"})
    code = main(["vars", "-i", "hosts.ini", "--host", "web1", "site.yml", "db_password", "region", "tier", "nowhere"])
    out = capsys.readouterr().out
    assert code == 0
    lines = {line.split()[0]: line for line in out.splitlines() if line.startswith("  ") and "=" in line}
    # the role default is below group_vars/all: the encrypted file may override it
    assert "unknown: may be set by the vault-encrypted file" in lines["db_password"]
    assert "vault.yml" in lines["db_password"] and "changeme" not in lines["db_password"]
    # main.yml is read before vault.yml in group_vars/all/, so vault.yml may override it too
    assert "unknown: may be set by the vault-encrypted file" in lines["region"]
    assert 'tier = "web"' in lines["tier"]  # a group's file is above all's: known
    assert "unknown: may be set by the vault-encrypted file" in lines["nowhere"]  # not "defined nowhere"


def test_without_secrets_the_inventory_stops_as_ansibles_does(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _project(tmp_path, PLAYBOOK, {**GROUP_VARS, "roles/app/tasks/main.yml": "- debug: msg=in role\n"})
    assert main(["vars", "-i", "hosts.ini", "--host", "web1", "site.yml", "db_password"]) != 0
    assert "Attempting to decrypt but no vault secrets found." in capsys.readouterr().err


def test_the_inventory_command_never_shows_variables_it_cannot_decrypt(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    _secrets(monkeypatch)
    _project(tmp_path, PLAYBOOK, GROUP_VARS)
    assert main(["inventory", "-i", "hosts.ini", "--host", "web1"]) == 1
    captured = capsys.readouterr()
    assert "region" not in captured.out and "known only to ansible" in captured.err


def test_a_play_vars_file_encrypted_whole_is_unknown_with_secrets(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    _secrets(monkeypatch)
    _project(tmp_path, "- hosts: web\n  gather_facts: false\n  vars: {tier: web}\n  vars_files: [secret.yml]\n"
                       "  tasks:\n    - debug: msg={{ tier }}\n", {"secret.yml": CIPHERTEXT})
    assert main(["vars", "-i", "hosts.ini", "--host", "web1", "site.yml", "tier"]) == 0
    assert "unknown: may be set by the vault-encrypted file" in capsys.readouterr().out  # play vars are below it


def test_an_include_vars_of_an_encrypted_file_fails_its_host_without_secrets(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    _project(tmp_path, "- hosts: web\n  gather_facts: false\n  tasks:\n    - include_vars: secret.yml\n"
                       "    - name: after\n      debug: msg=x\n", {"secret.yml": CIPHERTEXT})
    assert main(["plan", "-i", "hosts.ini", "site.yml"]) == 0
    out = capsys.readouterr().out
    assert "fails    web1: Task failed: Action failed: Unknown error." in out
    assert "skipped  web1: the host is stopped by 'include_vars'" in out
    _secrets(monkeypatch)
    assert main(["plan", "-i", "hosts.ini", "site.yml"]) == 0
    out = capsys.readouterr().out
    assert "fails" not in out and "stopped" not in out


def test_the_listing_stops_where_ansible_cannot_read_a_play_vars_file(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _project(tmp_path, "- hosts: web\n  gather_facts: false\n  vars_files: [secret.yml]\n  tasks:\n"
                       "    - debug: msg=x\n", {"secret.yml": CIPHERTEXT})
    assert main(["list-tasks", "-i", "hosts.ini", "site.yml"]) == 1
    captured = capsys.readouterr()
    assert captured.out == "" and f"Invalid vars_files file '{tmp_path / 'secret.yml'}'." in captured.err


@pytest.mark.parametrize(("field", "exact"), [
    ("  name: 'deploy {{ stage }}'\n", False),  # stage may come from the encrypted file
    ("  name: 'deploy {{ given }}'\n", True),  # extra vars outrank every vars file
    ("  name: deploy\n", True),
])
def test_with_secrets_the_listing_declines_where_a_load_time_template_reads_what_the_file_may_set(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        field: str, exact: bool) -> None:
    _secrets(monkeypatch)
    _project(tmp_path, f"- hosts: web\n{field}  gather_facts: false\n  vars: {{stage: dev}}\n"
                       "  vars_files: [secret.yml]\n  tasks:\n    - debug: msg=x\n", {"secret.yml": CIPHERTEXT})
    code = main(["list-tasks", "-i", "hosts.ini", "-e", "given=prod", "site.yml"])
    captured = capsys.readouterr()
    if exact:
        assert code == 0 and "play #1 (web): deploy" in captured.out
    else:
        assert code == 1 and captured.out == ""
        assert "reads stage while loading" in captured.err and "only ansible-playbook knows" in captured.err


@pytest.mark.parametrize(("config", "env", "stops"), [
    ("[defaults]\nvault_password_file = .vault_pass.txt\n", {},
     "The vault password file {dir}/.vault_pass.txt was not found"),
    ("[defaults]\nvault_password_file = .vault_pass.txt\n", {"ANSIBLE_ASK_VAULT_PASS": "true"}, None),
    ("[defaults]\nvault_identity_list = dev@missing.txt, prod@secrets\n", {},
     "The vault password file provided '{dir}/secrets' can not be a directory"),  # the last one's error
    ("[defaults]\nvault_identity_list = dev@missing.txt, prod@prompt\n", {}, None),  # the run asks
    ("[defaults]\nvault_identity_list = dev@missing.txt\nvault_password_file = present.txt\n", {}, None),
    ("", {"ANSIBLE_VAULT_PASSWORD_FILE": "nowhere.txt"}, "The vault password file {dir}/nowhere.txt was not found"),
    ("[defaults]\nvault_password_file = empty.txt\n", {},
     "Invalid vault password was provided from file ({dir}/empty.txt)"),  # known from its size
    ("[defaults]\nvault_password_file = empty-script.sh\n", {}, None),  # a script: what it prints is the run's
    # set but empty, each names its directory (ansible's list of one "", its path resolved)
    ("[defaults]\nvault_identity_list =\n", {}, "The vault password file provided '{dir}' can not be a directory"),
    ("", {"ANSIBLE_VAULT_PASSWORD_FILE": ""}, "The vault password file provided '{dir}' can not be a directory"),
    ("", {"ANSIBLE_VAULT_IDENTITY_LIST": "present.txt,"}, None),  # one of them gives a secret
])
def test_a_vault_password_file_none_of_which_exists_stops_every_command_first(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        config: str, env: dict[str, str], stops: str | None) -> None:
    """ansible's command line sets up its vault secrets before it reads anything: where every
    password file it is given is missing (or a directory) it stops, exit 1. A file that exists is
    never read here (it may be a script ansible runs)."""
    (tmp_path / "ansible.cfg").write_text(config)
    (tmp_path / "secrets").mkdir()
    (tmp_path / "present.txt").write_text("not read\n")
    (tmp_path / "empty.txt").write_text("")
    (tmp_path / "empty-script.sh").write_text("")
    (tmp_path / "empty-script.sh").chmod(0o755)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    _project(tmp_path, "- hosts: web\n  gather_facts: false\n  tasks:\n    - debug: msg=x\n", {})
    for command in (["list-tasks", "-i", "hosts.ini", "site.yml"], ["plan", "-i", "hosts.ini", "site.yml"],
                    ["inventory", "-i", "hosts.ini", "--list"]):
        code = main(command)
        err = capsys.readouterr().err
        if stops is None:
            assert code == 0, (command, err)
        else:
            assert code == 1 and stops.format(dir=tmp_path) in err, (command, err)


@pytest.mark.parametrize("given", [["-J"], ["--ask-vault-pass"], ["--vault-password-file", "vault-pass.txt"],
                                   ["--vault-pass-file", "vault-pass.txt"], ["--vault-id", "dev@prompt"]])
def test_vault_secrets_given_on_the_command_line_are_known_to_be_given_and_never_read(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], given: list[str]) -> None:
    """ansible-playbook's vault options say where the run gets its secrets: an encrypted play vars
    file is then the run's, in the listing (run in-process as argparse and the plain reading both
    take it), the plan and vars; the next command in the same process is given none."""
    Path("vault-pass.txt").write_text("never read\n")
    _project(tmp_path, "- hosts: web\n  gather_facts: false\n  vars_files: [secret.yml]\n  tasks:\n"
                       "    - debug: msg={{ token }}\n", {"secret.yml": CIPHERTEXT})
    assert main(["list-tasks", "-i", "hosts.ini", *given, "site.yml"]) == 0
    assert main(["list-tasks", "-i", "hosts.ini", "site.yml", *given]) == 0
    assert main(["plan", "-i", "hosts.ini", *given, "site.yml"]) == 0
    assert main(["vars", "-i", "hosts.ini", "--host", "web1", *given, "site.yml", "token"]) == 0
    assert "may be set by the vault-encrypted file" in capsys.readouterr().out
    assert main(["list-tasks", "-i", "hosts.ini", "site.yml"]) == 1  # given nothing this time
    assert "Invalid vars_files file" in capsys.readouterr().err


def test_an_encrypted_group_file_of_a_group_a_source_not_run_may_fill_gives_no_names(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The group_vars of groups an inventory script not run may put a host in are read for the
    names they set (engine.variables.unrun_sources); a file encrypted whole tells none, and its
    ciphertext is never read as names (it gave one per character)."""
    from engine.inventory.data import Host
    from engine.inventory.manager import load_inventory
    from engine.variables.unrun_sources import _group_files

    _secrets(monkeypatch)
    inventory_dir = tmp_path / "inventory"
    (inventory_dir / "group_vars/db").mkdir(parents=True)
    (inventory_dir / "1-hosts.ini").write_text("[web]\nw1\n")
    (inventory_dir / "2-cmdb.py").write_text("#!/bin/sh\necho '{}'\n")
    (inventory_dir / "2-cmdb.py").chmod(0o755)
    (inventory_dir / "group_vars/db/vault.yml").write_text(CIPHERTEXT)
    (inventory_dir / "group_vars/db/main.yml").write_text("db_port: 5432\n")
    inventory = load_inventory([str(inventory_dir)])
    host = inventory.data.get_host("w1")
    assert isinstance(host, Host)
    assert set(_group_files(inventory, host, inventory.unrun)) == {"db_port"}


def test_a_vault_password_script_is_never_run_and_the_listing_says_the_run_decides_whether_it_goes_on(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """ansible-playbook runs a vault password script (an executable password file, or a vault
    identity client such as a keyring script) before it reads anything, and stops if no source gives
    a secret. playbook-ls never runs it: the listing is ansible's when the script gives one, and a
    note says that this is the run's to know. A plain password file gets no note."""
    marker = tmp_path / "script-ran"
    script = tmp_path / "misc" / "vault-client.sh"
    script.parent.mkdir()
    script.write_text(f"#!/bin/sh\ntouch {marker}\necho secret\n")
    script.chmod(0o755)
    (tmp_path / "plain.txt").write_text("not read\n")
    _project(tmp_path, "- hosts: web\n  gather_facts: false\n  tasks:\n    - debug: msg=x\n", {})
    (tmp_path / "ansible.cfg").write_text("[defaults]\nvault_identity_list = default@misc/vault-client.sh\n")
    assert main(["list-tasks", "-i", "hosts.ini", "site.yml"]) == 0
    captured = capsys.readouterr()
    assert "play #1 (web)" in captured.out and not marker.exists()
    assert f"ansible-playbook first runs the vault password script {script}" in captured.err
    for command in (["plan", "-i", "hosts.ini", "site.yml"], ["vars", "-i", "hosts.ini", "site.yml", "--host", "web1"]):
        assert main(command) == 0
        assert f"ansible-playbook first runs the vault password script {script}" in capsys.readouterr().err
    assert not marker.exists()
    (tmp_path / "ansible.cfg").write_text("[defaults]\nvault_password_file = plain.txt\n")
    for command in (["list-tasks", "-i", "hosts.ini", "site.yml"], ["plan", "-i", "hosts.ini", "site.yml"]):
        assert main(command) == 0
        assert "vault password script" not in capsys.readouterr().err
