"""The modules that work on the local machine (issue 17) where a recording cannot show them: ports
on loopback servers the test starts, check mode writing nothing, and the refusal of the modules
that change the system. Their results are compared with ansible's in tests/run_modules and the
scenarios under tests/run/scenarios."""

from __future__ import annotations

import socket
import tarfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers import run_playbook

from engine.run.modules import (
    MODULE_NAMES,
    SYSTEM_MODULES,
    ModuleContext,
    changes_the_system,
    get_module,
    missing_module_message,
)


def _context(root: Path, check: bool = False) -> ModuleContext:
    return ModuleContext(check_mode=check, diff=False, task_vars={}, search_paths=[str(root)],
                         render=lambda text, **_: text, evaluate=lambda _: True)


@pytest.fixture
def banner_server() -> Iterator[int]:
    """A loopback TCP server that greets each connection with a line, then closes it."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    stop = threading.Event()

    def serve() -> None:
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                connection, _ = server.accept()
            except OSError:
                continue
            with connection:
                connection.sendall(b"SSH-2.0-OpenSSH_9.6 ready\r\n")

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield server.getsockname()[1]
    stop.set()
    thread.join()
    server.close()


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_wait_for_a_listening_port(banner_server: int, tmp_path: Path) -> None:
    wait_for = get_module("wait_for")
    result = wait_for({"port": banner_server, "timeout": 5}, _context(tmp_path))
    assert result["state"] == "started" and result["port"] == banner_server and not result.get("failed")
    found = wait_for({"port": banner_server, "search_regex": r"OpenSSH_(\d+)\.(?P<minor>\d)", "timeout": 5},
                     _context(tmp_path))
    assert found["search_regex"] == r"OpenSSH_(\d+)\.(?P<minor>\d)" and not found.get("failed")


def test_wait_for_a_port_that_never_says_it_times_out(banner_server: int, tmp_path: Path) -> None:
    result = get_module("wait_for")({"port": banner_server, "search_regex": "never", "timeout": 1},
                                    _context(tmp_path))
    assert result["failed"]
    assert result["msg"] == f"Timeout when waiting for search string never in 127.0.0.1:{banner_server}"


def test_wait_for_reads_a_port_whatever_the_descriptors_open(banner_server: int, tmp_path: Path) -> None:
    """The engine runs in long-lived processes (the language server, a test session): with over
    1,024 descriptors open, select.select refused the connection's ("filedescriptor out of range")."""
    import os
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if max(soft, hard if hard != resource.RLIM_INFINITY else 4096) < 1200:
        pytest.skip("the descriptor limit is under 1,200")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, 1200), hard))
    null = os.open(os.devnull, os.O_RDONLY)
    opened = [null]
    try:
        while len(opened) < 1100:  # every lower descriptor taken: the connection's is over 1,024
            opened.append(os.dup(null))
        found = get_module("wait_for")({"port": banner_server, "search_regex": "OpenSSH", "timeout": 5},
                                       _context(tmp_path))
        assert not found.get("failed"), found
    finally:
        for descriptor in opened:
            os.close(descriptor)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_wait_for_a_port_to_stop(banner_server: int, tmp_path: Path) -> None:
    wait_for = get_module("wait_for")
    free = _free_port()
    assert not wait_for({"port": free, "state": "stopped", "timeout": 2}, _context(tmp_path)).get("failed")
    busy = wait_for({"port": banner_server, "state": "stopped", "timeout": 1}, _context(tmp_path))
    assert busy["failed"] and busy["msg"] == f"Timeout when waiting for 127.0.0.1:{banner_server} to stop."


def test_wait_for_drained_is_refused_not_pretended(tmp_path: Path) -> None:
    result = get_module("wait_for")({"port": 22, "state": "drained", "timeout": 1}, _context(tmp_path))
    assert result["failed"] and "--engine ansible" in result["msg"]


@pytest.mark.parametrize("name", ["apt", "ansible.builtin.package", "ansible.legacy.systemd", "user",
                                  "ansible.posix.mount", "community.general.ufw"])
def test_modules_that_change_the_system_are_named_as_such(name: str) -> None:
    assert get_module(name) is None and changes_the_system(name)
    assert missing_module_message(name) == (
        f"'{name}' changes the system (packages, services, users, mounts...), which playbook-ls's engine does not do")


def test_other_missing_modules_keep_the_plain_message() -> None:
    assert not changes_the_system("amazon.aws.ec2_instance")
    assert missing_module_message("amazon.aws.ec2_instance") == (
        "playbook-ls's engine has no module 'amazon.aws.ec2_instance'")
    assert not SYSTEM_MODULES & MODULE_NAMES


@pytest.mark.parametrize("name", ["ini_file", "ansible.builtin.ini_file", "community.general.ini_file"])
def test_ini_file_under_the_names_ansible_routes(name: str) -> None:
    assert get_module(name) is get_module("community.general.ini_file")


CHECK_MODE = """
- hosts: localhost
  gather_facts: false
  tasks:
    - blockinfile: {path: "{{ playbook_dir }}/f.txt", block: x, create: true, backup: true}
    - blockinfile: {path: "{{ playbook_dir }}/new/f.txt", block: x, create: true}
    - replace: {path: "{{ playbook_dir }}/f.txt", regexp: one, replace: two, backup: true, mode: "0600"}
    - tempfile: {path: "{{ playbook_dir }}"}
    - raw: touch "{{ playbook_dir }}/raw"
    - script: make.sh
    - script: make.sh
      args: {creates: "{{ playbook_dir }}/made"}
    - find: {paths: "{{ playbook_dir }}", recurse: true}
    - slurp: {src: "{{ playbook_dir }}/f.txt"}
    - wait_for: {path: "{{ playbook_dir }}/f.txt"}
"""


def test_check_mode_writes_nothing_and_reports_what_would_change(tmp_path: Path) -> None:
    """Statuses as ansible-playbook -c local --check gives them (ini_file, which needs the
    community.general collection to be resolved, is checked in tests/run_modules)."""
    (tmp_path / "files").mkdir()
    (tmp_path / "files" / "make.sh").write_text(f"#!/bin/sh\ntouch {tmp_path}/made\n")
    (tmp_path / "f.txt").write_text("one\n")
    before = sorted(p.name for p in tmp_path.rglob("*"))
    code, out, data = run_playbook(tmp_path, CHECK_MODE, check=True)
    assert code == 0 and "Traceback" not in out
    assert sorted(p.name for p in tmp_path.rglob("*")) == sorted({*before, "site.yml"})
    assert (tmp_path / "f.txt").read_text() == "one\n"
    statuses = [task["status"] for task in data["tasks"]]
    assert statuses == ["changed", "changed", "changed", "skipped", "skipped", "skipped", "changed", "ok", "ok",
                        "skipped"]


def test_raw_warns_that_it_ignores_the_environment(tmp_path: Path) -> None:
    result: dict[str, Any] = get_module("raw")({"_raw_params": "echo $X"},
                                               ModuleContext(False, False, {}, [str(tmp_path)], lambda t, **_: t,
                                                             lambda _: True, environment={"X": "1"}))
    assert result["stdout"] == "\n" and result["warnings"] == ["raw module does not support the environment keyword"]


def _snapshot(root: Path) -> dict[str, tuple[int, int, bytes]]:
    return {str(p.relative_to(root)): (p.stat().st_mode, p.stat().st_size, p.read_bytes() if p.is_file() else b"")
            for p in sorted(root.rglob("*"))}


def test_random_arguments_in_check_mode_never_write(tmp_path_factory: pytest.TempPathFactory) -> None:
    """The module functions themselves (ini_file too, which a playbook reaches only with the
    collection installed) under random arguments: whatever they answer or raise (the executor
    turns an exception into a failed task), check mode leaves the files as they were."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    modules = ["blockinfile", "replace", "find", "tempfile", "slurp", "wait_for", "raw", "script",
               "community.general.ini_file", "get_url", "uri", "unarchive", "git"]
    options = ["path", "dest", "block", "marker", "insertafter", "insertbefore", "create", "backup", "state", "mode",
               "regexp", "replace", "after", "before", "validate", "paths", "patterns", "recurse", "prefix",
               "suffix", "src", "search_regex", "timeout", "_raw_params", "cmd", "creates", "removes", "chdir",
               "section", "option", "value", "values", "exclusive", "allow_no_value", "follow", "url", "checksum",
               "remote_src", "list_files", "exclude", "repo", "version", "clone", "update"]

    def values(root: Path) -> Any:
        return st.one_of(st.sampled_from([f"{root}/exists.txt", f"{root}/missing.txt", f"{root}/dir",
                                          f"{root}/missing/deep.txt", f"{root}/exists.txt/below", "exists.txt",
                                          "make.sh", "", "(", "^o", "0644", "u+x", "yes", "no", "absent", "present",
                                          "directory", "file", "s", "a/b", "%s", "a\u0000b",
                                          f"file://{root}/exists.txt", f"file://{root}/missing.txt",
                                          "sha1:0123", f"sha1:file://{root}/exists.txt", "t.tgz",
                                          f"{root}/files/t.tgz"]),
                         st.booleans(), st.integers(-1, 3), st.none(), st.lists(st.sampled_from(["a", "o"])))

    root = tmp_path_factory.mktemp("fuzz")

    @settings(max_examples=300, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
    @given(module=st.sampled_from(modules), args=st.dictionaries(st.sampled_from(options), values(root), max_size=6))
    def check(module: str, args: dict[str, Any]) -> None:
        for child in sorted(root.rglob("*"), reverse=True):
            child.unlink() if not child.is_dir() else child.rmdir()
        (root / "exists.txt").write_text("one\n[s]\no = 1\n")
        (root / "dir").mkdir()
        (root / "files").mkdir()
        (root / "files" / "make.sh").write_text(f"#!/bin/sh\ntouch {root}/made\n")
        with tarfile.open(root / "files" / "t.tgz", "w:gz") as archive:
            archive.add(root / "exists.txt", arcname="member.txt")
        before = _snapshot(root)
        try:
            get_module(module)(dict(args), _context(root, check=True))
        except Exception:  # noqa: BLE001, S110 - a failed task, as the executor reports it
            pass
        assert _snapshot(root) == before, f"{module} {args} wrote in check mode"

    check()


@pytest.fixture
def http_root(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """A loopback HTTP server (the standard library's) serving a directory."""
    import functools
    import http.server

    served = tmp_path / "served"
    served.mkdir()
    (served / "a.txt").write_text("hello from http\n")
    (served / "data.json").write_text('{"a": 1, "b": [true, null]}')
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(served))
    handler.log_message = lambda *args: None  # type: ignore[attr-defined]
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", tmp_path
    server.shutdown()
    server.server_close()


def test_get_url_over_http_then_not_modified(http_root: tuple[str, Path]) -> None:
    """The values ansible-playbook -c local gave against the same server (by hand)."""
    base, root = http_root
    get_url = get_module("get_url")
    dest = root / "a.txt"
    first = get_url({"url": f"{base}/a.txt", "dest": str(dest), "mode": "0600"}, _context(root))
    assert (first["changed"], first["msg"], first["status_code"], first["mode"]) == (True, "OK (16 bytes)", 200, "0600")
    assert first["checksum_src"] == "77bf8a08070bd04e1fc50da6673bb0031772c71b" and first["checksum_dest"] is None
    assert first["md5sum"] == "12823156f9fa3a23a174a035d9091924" and dest.read_text() == "hello from http\n"
    again = get_url({"url": f"{base}/a.txt", "dest": str(dest)}, _context(root))
    assert (again["changed"], again["msg"], again["status_code"]) == (False, "HTTP Error 304: Not Modified", 304)
    missing = get_url({"url": f"{base}/nope", "dest": str(root / "nope")}, _context(root))
    assert missing["failed"] and (missing["msg"], missing["status_code"], missing["response"]) == (
        "Request failed", 404, "HTTP Error 404: File not found")


def test_get_url_in_check_mode_only_asks(http_root: tuple[str, Path]) -> None:
    base, root = http_root
    result = get_module("get_url")({"url": f"{base}/a.txt", "dest": str(root / "new.txt")}, _context(root, True))
    assert result["changed"] and result["msg"] == "OK (16 bytes)" and not (root / "new.txt").exists()
    assert result["checksum_src"] == "da39a3ee5e6b4b0d3255bfef95601890afd80709"  # a HEAD answer has no body


def test_uri_json_status_and_dest(http_root: tuple[str, Path]) -> None:
    base, root = http_root
    uri = get_module("uri")
    answer = uri({"url": f"{base}/data.json"}, _context(root))
    assert answer["json"] == {"a": 1, "b": [True, None]} and answer["status"] == 200
    assert (answer["content_type"], answer["redirected"], answer["msg"]) == ("application/json", False, "OK (27 bytes)")
    assert "content" not in answer
    text = uri({"url": f"{base}/a.txt", "return_content": True}, _context(root))
    assert text["content"] == "hello from http\n" and "json" not in text
    missing = uri({"url": f"{base}/missing"}, _context(root))
    assert missing["failed"] and missing["msg"] == "Status code was 404 and not [200]: HTTP Error 404: File not found"
    allowed = uri({"url": f"{base}/missing", "status_code": [200, 404]}, _context(root))
    assert not allowed.get("failed") and allowed["body"].startswith("<!DOCTYPE HTML>")
    (root / "out").mkdir()
    stored = uri({"url": f"{base}/a.txt", "dest": str(root / "out") + "/"}, _context(root))
    assert stored["changed"] and stored["path"] == str(root / "out" / "a.txt")
    assert (root / "out" / "a.txt").read_text() == "hello from http\n"


def test_uri_is_skipped_in_check_mode(http_root: tuple[str, Path]) -> None:
    base, root = http_root
    result = get_module("ansible.builtin.uri")({"url": f"{base}/a.txt"}, _context(root, True))
    assert result == {"changed": False, "skipped": True, "_ansible_action_skip": True,  # no failed key after
                      "msg": "This action (ansible.builtin.uri) does not support check mode."}
