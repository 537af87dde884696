"""Consent: playbook-ls runs code from the repository only when the user asked for it.

The booby-trapped repository of ``trap_repo.py`` holds every kind of code ansible would run (an
inventory script and directory, inventory plugins in the repository and in a collection on
``collections_path``, vars, filter, lookup and test plugins, a callback enabled in ansible.cfg,
``pipe`` lookups, a library/ module, action plugins). The language server gets every request
and every command a client can send, and the command line every command that only shows
something, without the user's consent (no ``runRepositoryCode`` initialization option, no
``--run-inventory-code``), with and without ansible's programs on PATH: no trap may fire. With
consent the same paths do run the repository's code, so that these tests can fail.

The commands run this checkout's playbook-ls (``python -P -m playbook_ls`` with PYTHONPATH set
to it), whatever else is installed.
"""

from __future__ import annotations

import os
import re
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest
from lsp_session import CAPABILITIES, Session
from test_no_code_runs import Result, TrapRoot, run, scrubbed_env
from trap_repo import build_trap_repo, markers, planted

CHECKOUT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
TRUST = "runRepositoryCode"
INDEXING = "indexing the workspace"
PROFILES = """\
profiles:
  listed:
    playbook: listed.yml
    inventory: inventory/
  scripted:
    playbook: listed.yml
    inventory: inventory.py
"""


def environment(root: Path, ansible_on_path: bool) -> dict[str, str]:
    """The scrubbed environment, this checkout importable, ansible's programs on PATH or not
    (they stay beside the interpreter, where playbook-ls looks first)."""
    path = [part for part in (os.environ.get("PATH") or os.defpath).split(os.pathsep)
            if ansible_on_path or Path(part).resolve() != BIN.resolve()]
    if ansible_on_path and str(BIN) not in path:
        path.insert(0, str(BIN))
    return scrubbed_env(root, PATH=os.pathsep.join(path), PYTHONPATH=str(CHECKOUT))


def playbook_ls(trapped: TrapRoot, *args: str, ansible_on_path: bool = True) -> Result:
    return run([sys.executable, "-P", "-m", "playbook_ls", *args], trapped.repo,
               environment(trapped.root, ansible_on_path))


@pytest.fixture
def trapped(tmp_path: Path) -> TrapRoot:
    repo = build_trap_repo(tmp_path)
    (repo / "profiles.yml").write_text(PROFILES, encoding="utf-8")
    assert not markers(tmp_path), "building the trap repository fired traps"
    return TrapRoot(tmp_path, repo, {trap.name: trap for trap in planted(tmp_path)})


# --- the command line ----------------------------------------------------------------------

SHOWING = [
    ("launch", "listed", "--config", "profiles.yml"),
    ("launch", "scripted", "--config", "profiles.yml", "--format", "json"),
    ("launch", "listed", "--config", "profiles.yml", "-i", "inventory.yml", "--check"),
    ("run", "listed.yml", "--dry", "-i", "inventory.py"),
    ("run", "listed.yml", "--dry", "-i", "inventory/", "--check"),
    ("run", "listed.yml", "--dry", "-i", "inventory.yml", "--engine", "ansible"),
    ("run", "listed.yml", "--dry", "--engine", "auto"),  # ansible.cfg's inventory: the script
    ("run", "--dry", "--profile", "scripted", "--config", "profiles.yml"),
    ("plan", "listed.yml", "-i", "inventory/"),
    ("plan", "listed.yml"),
    ("vars", "listed.yml", "--host", "somehost", "-i", "inventory.py"),
    ("vars", "listed.yml", "--host", "somehost", "-i", "inventory/"),
]


@pytest.mark.parametrize("ansible_on_path", [True, False], ids=["ansible-on-path", "no-ansible-on-path"])
@pytest.mark.parametrize("args", SHOWING, ids=[" ".join(args) for args in SHOWING])
def test_commands_that_show_run_nothing_without_consent(trapped: TrapRoot, args: tuple[str, ...],
                                                        ansible_on_path: bool) -> None:
    result = playbook_ls(trapped, *args, ansible_on_path=ansible_on_path)
    trapped.assert_nothing_ran(result)
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr, str(result)
    assert result.returncode in (0, 1, 2, 4, 5), str(result)


def test_what_is_not_run_is_said_with_how_to_allow_it(trapped: TrapRoot) -> None:
    launch = playbook_ls(trapped, "launch", "scripted", "--config", "profiles.yml")
    assert launch.returncode == 0, str(launch)
    assert "not run" in launch.stdout and "--run-inventory-code" in launch.stdout, str(launch)
    dry = playbook_ls(trapped, "run", "listed.yml", "--dry", "-i", "inventory.py")
    assert dry.returncode == 0 and "--run-inventory-code" in dry.stderr, str(dry)
    trapped.assert_nothing_ran()


@pytest.mark.parametrize("args", [
    ("launch", "scripted", "--config", "profiles.yml", "--run-inventory-code"),
    ("run", "listed.yml", "--dry", "-i", "inventory.py", "--run-inventory-code"),
    ("plan", "listed.yml", "-i", "inventory.py", "--run-inventory-code"),
], ids=["launch", "run-dry", "plan"])
def test_with_consent_the_inventory_script_runs(trapped: TrapRoot, args: tuple[str, ...]) -> None:
    """The control: the same commands with --run-inventory-code run the script."""
    result = playbook_ls(trapped, *args)
    assert "inventory-script" in trapped.fired(), str(result)


def test_help_says_what_runs() -> None:
    import argparse

    from playbook_ls.cli.main import build_parser

    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices
    launch = commands["launch"].format_help()
    assert "Nothing is run" in launch and "--run-inventory-code" in launch
    assert "--run-inventory-code" in commands["run"].format_help()


# --- the language server -------------------------------------------------------------------


def _uri(path: Path) -> str:
    return path.as_uri()


def _positions(text: str) -> list[tuple[int, int]]:
    """A position on each line's first word and inside each ``{{ ... }}``."""
    found = []
    for number, line in enumerate(text.splitlines()):
        stripped = len(line) - len(line.lstrip(" -"))
        if line.strip():
            found.append((number, stripped))
        found += [(number, match.start() + 3) for match in re.finditer(r"\{\{ ", line)]
    return found


def _indexed(session: Session, uri: str, line: int) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        answer = session.request("textDocument/hover", {"textDocument": {"uri": uri},
                                                        "position": {"line": line, "character": 6}})
        value = str((answer.get("result") or {}).get("contents", {}).get("value", ""))
        if value and INDEXING not in value:
            return
        time.sleep(0.2)
    raise AssertionError("the workspace was never indexed")


def _start(trapped: TrapRoot, options: dict[str, Any], ansible_on_path: bool = True) -> Session:
    session = Session([sys.executable, "-P", "-m", "playbook_ls", "serve"], trapped.repo,
                      environment(trapped.root, ansible_on_path), trapped.root / "server.stderr")
    folder = {"uri": _uri(trapped.repo), "name": "trap"}
    answer = session.request("initialize", {"processId": None, "rootUri": _uri(trapped.repo),
                                            "capabilities": CAPABILITIES, "workspaceFolders": [folder],
                                            "initializationOptions": options})
    assert "result" in answer, answer
    session.notify("initialized", {})
    return session


OPENED = ["listed.yml", "site.yml", "tasks/evil.yml", "roles/evil_role/tasks/main.yml", "inventory.yml",
          "group_vars/all/main.yml", "plays/templated.yml", "playbooks/collection.yml"]


def _every_request(session: Session, repo: Path) -> list[dict[str, Any]]:
    """Every request a client may send on the open files, and every lens's command; the code
    lenses found."""
    lenses: list[dict[str, Any]] = []
    for name in OPENED:
        text = (repo / name).read_text(encoding="utf-8")
        uri = _uri(repo / name)
        session.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "ansible", "version": 1,
                                                                 "text": text}})
    _indexed(session, _uri(repo / "listed.yml"), 17)
    for name in OPENED:
        text = (repo / name).read_text(encoding="utf-8")
        document = {"textDocument": {"uri": _uri(repo / name)}}
        whole = {"start": {"line": 0, "character": 0}, "end": {"line": len(text.splitlines()), "character": 0}}
        for method, params in (("textDocument/documentSymbol", document), ("textDocument/foldingRange", document),
                               ("textDocument/inlayHint", {**document, "range": whole}),
                               ("textDocument/codeAction", {**document, "range": whole,
                                                            "context": {"diagnostics": []}})):
            session.request(method, params)
        found = session.request("textDocument/codeLens", document).get("result") or []
        lenses += found
        for line, character in _positions(text)[:80]:
            at = {**document, "position": {"line": line, "character": character}}
            for method in ("textDocument/hover", "textDocument/definition", "textDocument/completion",
                           "textDocument/documentHighlight"):
                session.request(method, at)
            session.request("textDocument/references", {**at, "context": {"includeDeclaration": True}})
    return lenses


def _commands(session: Session, repo: Path, lenses: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each lens's command once per kind and arguments, and the run commands in every form; the
    results of the run commands."""
    seen = set()
    for lens in lenses:
        command = lens.get("command") or {}
        key = (command.get("command"), repr(command.get("arguments")))
        if command and key not in seen and len(seen) < 60:
            seen.add(key)
            session.request("workspace/executeCommand", {"command": command["command"],
                                                         "arguments": command.get("arguments") or []}, wait=180)
    site, listed = str(repo / "site.yml"), str(repo / "listed.yml")
    results = []
    for command in ("playbook-ls.checkTasks", "playbook-ls.runTasks"):
        for arguments in ({"playbook": listed}, {"playbook": listed, "play": 0, "tags": "listed"},
                          {"playbook": site, "inventory": "inventory/", "engine": "ansible"},
                          {"uri": _uri(repo / "listed.yml"), "line": 17}, {"profile": "trap"},
                          {"playbook": listed, "engine": "bundled", "inventory": "inventory.yml"}):
            answer = session.request("workspace/executeCommand", {"command": command, "arguments": [arguments]},
                                     wait=180)
            results.append(answer.get("result") or answer)
    session.request("workspace/executeCommand", {"command": "playbook-ls.listProfiles", "arguments": []})
    session.request("workspace/executeCommand", {"command": "playbook-ls.showPlan",
                                                 "arguments": [{"path": listed, "inventory": "inventory/"}]}, wait=180)
    for selection in ({"profile": "trap"}, {"tags": "listed"}, None):
        session.request("workspace/executeCommand", {"command": "playbook-ls.setSelection", "arguments": [selection]})
    return results


@pytest.mark.parametrize(("options", "ansible_on_path"), [
    ({}, True),
    ({"inventory": "inventory/", "confirmRun": False, "engine": "ansible"}, False),
], ids=["defaults", "inventory-setting-no-ansible-on-path"])
def test_no_request_or_command_runs_anything_without_consent(trapped: TrapRoot, options: dict[str, Any],
                                                             ansible_on_path: bool) -> None:
    session = _start(trapped, options, ansible_on_path)
    try:
        lenses = _every_request(session, trapped.repo)
        titles = [lens["command"]["title"] for lens in lenses if lens.get("command")]
        assert any(title.endswith("(needs trust)") for title in titles), titles
        assert not [title for title in titles if title.startswith("▶ Run")], titles
        results = _commands(session, trapped.repo, lenses)
        # a configuration sent later cannot grant what only the initialization options can
        session.notify("workspace/didChangeConfiguration", {"settings": {"playbook-ls": {TRUST: True}}})
        results.append(session.request("workspace/executeCommand", {
            "command": "playbook-ls.checkTasks", "arguments": [{"playbook": str(trapped.repo / "listed.yml")}]},
            wait=180)["result"])
        time.sleep(1)  # anything started in the background has had its moment
    finally:
        session.close()
    trapped.assert_nothing_ran()
    assert results and all(r.get("trust_needed") is True and TRUST in r.get("error", "") for r in results), results
    refusals = [message for message in session.shown() if TRUST in message]
    assert len(refusals) >= len(results), session.shown()  # the lenses' own checks were refused too


CONSENTED = {
    "ansible.cfg": "[defaults]\ninventory = inventory.py\n",
    "site.yml": """\
        - name: checked
          hosts: localhost
          gather_facts: false
          tasks:
            - name: a lookup runs even in check mode
              ansible.builtin.debug:
                msg: "{{ lookup('pipe', 'touch MARKERS/pipe-lookup') }}"
        """,
    "inventory.py": """\
        #!/bin/sh
        touch MARKERS/inventory-script
        echo '{"all": {"hosts": ["localhost"]}, "_meta": {"hostvars": {"localhost": {"ansible_connection": "local"}}}}'
        """,
}


@pytest.mark.parametrize("trusted", [False, True], ids=["untrusted", "trusted"])
def test_a_check_runs_the_repositorys_code_only_in_a_trusted_workspace(tmp_path: Path, trusted: bool) -> None:
    """The control for the test above: in a trusted workspace the plan view runs the inventory
    script, and the check runs it and the lookup (and ends); in an untrusted one neither does,
    and the check is refused."""
    repo, marks = tmp_path / "repo", tmp_path / "markers"
    repo.mkdir()
    marks.mkdir()
    for name, text in CONSENTED.items():
        (repo / name).write_text(textwrap.dedent(text).replace("MARKERS", str(marks)), encoding="utf-8")
    (repo / "inventory.py").chmod(0o755)
    root = TrapRoot(tmp_path, repo)
    session = _start(root, {TRUST: True} if trusted else {})
    try:
        _indexed(session, _uri(repo / "site.yml"), 4)
        lenses = session.request("textDocument/codeLens", {"textDocument": {"uri": _uri(repo / "site.yml")}})["result"]
        plan = next(lens["command"] for lens in lenses if lens["command"]["title"] == "Plan per host")
        session.request("workspace/executeCommand", {"command": plan["command"], "arguments": plan["arguments"]},
                        wait=180)
        after_plan = sorted(p.name for p in marks.iterdir())
        check = next(lens["command"] for lens in lenses if lens["command"]["title"].startswith("▶ Check play"))
        result = session.request("workspace/executeCommand", {"command": check["command"],
                                                              "arguments": check["arguments"]}, wait=180)["result"]
    finally:
        session.close()
    assert after_plan == (["inventory-script"] if trusted else []), after_plan
    if trusted:
        assert check["title"] == "▶ Check play", check
        assert result["exit_code"] == 0 and result["check"] is True, result
        assert sorted(p.name for p in marks.iterdir()) == ["inventory-script", "pipe-lookup"], result
    else:
        assert not list(marks.iterdir()), (list(marks.iterdir()), result)
        assert result["trust_needed"] is True, result
        assert check["title"] == "▶ Check play (needs trust)" and TRUST in check.get("tooltip", ""), check


def test_a_dry_run_starts_no_interpreter_the_inventory_names(tmp_path: Path) -> None:
    """A run checks before it starts that the Python each local host would run modules with
    starts (engine.run.interpreter_discovery.broken_interpreters): that runs a program the
    inventory names, and, for discovery, the names of ``ansible_interpreter_python_fallback`` in a
    shell. ``run --dry`` runs nothing of the repository's, so it makes neither check; the run the
    user asked for does (the control: its interpreter script runs)."""
    repo = tmp_path / "repo"
    repo.mkdir()
    marks = tmp_path / "marks"
    marks.mkdir()
    interpreter = repo / "bin" / "python"
    interpreter.parent.mkdir()
    interpreter.write_text(f"#!/bin/sh\ntouch '{marks}/interpreter'\nexit 1\n")
    interpreter.chmod(0o755)
    injected = f"nope'; touch '{marks}/fallback'; echo '"
    (repo / "hosts.yml").write_text(
        "all:\n  hosts:\n"
        f"    named: {{ansible_connection: local, ansible_python_interpreter: '{interpreter}'}}\n"
        f"    found: {{ansible_connection: local, ansible_interpreter_python_fallback: [\"{injected}\"]}}\n")
    (repo / "site.yml").write_text("- hosts: all\n  gather_facts: false\n  tasks:\n    - command: 'true'\n")
    env = scrubbed_env(tmp_path, PYTHONPATH=str(CHECKOUT))
    dry = run([sys.executable, "-P", "-m", "playbook_ls", "run", "site.yml", "-i", "hosts.yml", "--dry"], repo, env)
    assert dry.returncode == 0, str(dry)
    assert sorted(path.name for path in marks.iterdir()) == [], str(dry)
    asked = run([sys.executable, "-P", "-m", "playbook_ls", "run", "site.yml", "-i", "hosts.yml", "--engine", "auto"],
                repo, env)
    assert "interpreter" in {path.name for path in marks.iterdir()}, str(asked)
