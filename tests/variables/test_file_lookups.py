"""The ``file``, ``template`` and ``fileglob`` lookups of the repository's own files, read before
the run by the task's search path (engine.templating.file_lookups.RepositoryLookups), recorded from
ansible-playbook: a role's files before the playbook's, a template over the task's variables, the
files a fileglob finds (their order the file system's, so the run's), ini and csvfile values, and a
playbook imported from a subdirectory reading the project's files through ``..``. ``loki_promtail`` is a
project of the values22 held-out set."""

from __future__ import annotations

from pathlib import Path

import pytest
from var_values import measure, plan_against_recording

HERE = Path(__file__).resolve().parent / "file_lookups"


@pytest.mark.parametrize("name", ["loki_promtail", "role_files", "data_files", "imported_subdir"])
def test_values(name: str) -> None:
    compared, wrong = measure(HERE / name, as_written=True)
    assert compared > 0
    assert wrong == []


@pytest.mark.parametrize(("name", "inventory"), [("loki_promtail", "hosts.ini"), ("role_files", "inventory.ini"),
                                                   ("data_files", "inventory.ini"), ("imported_subdir", "hosts.ini")])
def test_plan(name: str, inventory: str, monkeypatch: pytest.MonkeyPatch) -> None:
    result = plan_against_recording(HERE / name, inventory, monkeypatch)
    assert result.wrong == []
    assert result.decided == result.compared


def test_a_fileglob_joined_by_lookup_is_in_the_run_s_order(tmp_path: Path) -> None:
    from engine.templating.errors import OrderOnly
    from engine.templating.file_lookups import repository_lookups
    from engine.templating.templar import Templar

    (tmp_path / "files").mkdir()
    for name in ("a.conf", "b.conf"):
        (tmp_path / "files" / name).write_text(name)
    templar = Templar({}, repository_lookups(None, str(tmp_path / "site.yml"), str(tmp_path)))
    assert sorted(templar.template("{{ query('fileglob', '*.conf') | map('basename') }}")) == ["a.conf", "b.conf"]
    with pytest.raises(OrderOnly):
        templar.template("{{ lookup('fileglob', '*.conf') }}")
    outside = Templar({}, repository_lookups(None, str(tmp_path / "site.yml"), str(tmp_path / "files")))
    from engine.templating.errors import RunTimeOnly

    with pytest.raises(RunTimeOnly):
        outside.template("{{ lookup('file', '../../etc/passwd') }}")

    (tmp_path / "files" / "secret.txt").write_text("$ANSIBLE_VAULT;1.1;AES256\n6162\n")
    with pytest.raises(RunTimeOnly, match="vault-encrypted"):  # never its ciphertext as the value
        templar.template("{{ lookup('file', 'secret.txt') }}")


def test_ini_and_csvfile_read_only_the_repository_s_plain_files(tmp_path: Path) -> None:
    from engine.templating.errors import RunTimeOnly
    from engine.templating.file_lookups import repository_lookups
    from engine.templating.templar import Templar

    (tmp_path / "repo" / "files").mkdir(parents=True)
    (tmp_path / "repo" / "files" / "app.ini").write_text("[db]\nhost = pg-1\n")
    (tmp_path / "repo" / "files" / "rows.csv").write_text("a,1\r\nb,2\r\n")
    (tmp_path / "outside.ini").write_text("[db]\nhost = elsewhere\n")
    (tmp_path / "repo" / "files" / "sealed.ini").write_text("$ANSIBLE_VAULT;1.1;AES256\n6162\n")
    templar = Templar({}, repository_lookups(None, str(tmp_path / "repo" / "site.yml"), str(tmp_path / "repo")))
    assert templar.template("{{ lookup('ini', 'host', section='db', file='app.ini') }}") == "pg-1"
    assert templar.template("{{ lookup('csvfile', 'b', file='rows.csv', delimiter=',') }}") == "2"
    with pytest.raises(RunTimeOnly, match="outside the repository"):
        templar.template("{{ lookup('ini', 'host', section='db', file='../outside.ini') }}")
    with pytest.raises(RunTimeOnly, match="vault-encrypted"):  # ansible's ini decrypts it: never its ciphertext
        templar.template("{{ lookup('ini', 'host', section='db', file='sealed.ini') }}")
    with pytest.raises(RunTimeOnly, match="outside the repository"):
        templar.template("{{ lookup('csvfile', 'db', file='../outside.ini') }}")
