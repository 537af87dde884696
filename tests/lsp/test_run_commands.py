"""End to end: the ▶ Check / ▶ Run lenses and the playbook-ls.checkTasks / runTasks commands.

Each test has its own server on its own tmp_path workspace, with a local playbook whose tasks
write only inside tmp_path.
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from bounded import HANG_SECONDS
from lsprotocol import types
from pytest_lsp import LanguageClient
from session import SERVE, start_session
from waiting import condition, doc, until

PLAYBOOK = """\
- name: files
  hosts: localhost
  gather_facts: false
  tasks:
    - name: say hello
      debug:
        msg: hello
    - name: write the file
      copy:
        content: "written\\n"
        dest: "{{ playbook_dir }}/out.txt"
      tags: [files]

- name: slow
  hosts: localhost
  gather_facts: false
  tasks:
    - name: nap
      command: sleep 300
      tags: [slow]
"""
SOURCE = "playbook-ls run"
CHECK, RUN = "playbook-ls.checkTasks", "playbook-ls.runTasks"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    (tmp_path / "site.yml").write_text(PLAYBOOK)
    role = tmp_path / "roles" / "unused" / "tasks"
    role.mkdir(parents=True)
    (role / "main.yml").write_text("- name: lonely\n  debug:\n    msg: hi\n  tags: [lone]\n")
    return tmp_path


@pytest_lsp.fixture(config=SERVE)
async def client(lsp_client: LanguageClient, workspace: Path):
    lsp_client.answer = None  # type: ignore[attr-defined] - what the "user" picks
    lsp_client.asked = []  # type: ignore[attr-defined]

    @lsp_client.feature(types.WINDOW_SHOW_MESSAGE_REQUEST)
    def ask(params: types.ShowMessageRequestParams) -> types.MessageActionItem | None:
        lsp_client.asked.append(params)  # type: ignore[attr-defined]
        answer = lsp_client.answer  # type: ignore[attr-defined]
        return types.MessageActionItem(title=answer) if answer else None

    await start_session(lsp_client, workspace, initialization_options={"runRepositoryCode": True})
    yield
    await lsp_client.shutdown_session()


async def lenses(client: LanguageClient, path: Path) -> list[types.CodeLens]:
    return await until(lambda: client.text_document_code_lens_async(
        types.CodeLensParams(text_document=doc(path))), lambda found: bool(found)) or []


async def execute(client: LanguageClient, command: str, **arguments: Any) -> dict[str, Any]:
    result = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=command, arguments=[arguments]))
    assert isinstance(result, dict), result
    return result


def run_hints(client: LanguageClient, path: Path) -> list[tuple[int, str]]:
    return sorted((d.range.start.line, d.message) for d in client.diagnostics.get(path.as_uri(), [])
                  if d.source == SOURCE and d.severity == types.DiagnosticSeverity.Hint)


async def wait_hints(client: LanguageClient, path: Path, ready: Any = bool) -> list[tuple[int, str]]:
    return await condition(lambda: run_hints(client, path), ready)


def _running(pid: int) -> bool:
    """Whether process ``pid`` still runs (a zombie waiting to be reaped has ended)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


def logged(client: LanguageClient) -> str:
    return "\n".join(m.message for m in client.log_messages)


@pytest.mark.asyncio
async def test_check_and_run_lenses_above_plays_and_tasks(client: LanguageClient, workspace: Path) -> None:
    found = await lenses(client, workspace / "site.yml")
    by_line: dict[int, list[str]] = {}
    for lens in found:
        assert lens.command is not None
        by_line.setdefault(lens.range.start.line, []).append(lens.command.title)
    runs = {line: [t for t in titles if t.startswith("▶")] for line, titles in by_line.items()}
    assert runs[0] == ["▶ Check play", "▶ Run play"]
    assert runs[13] == ["▶ Check play", "▶ Run play"]
    assert runs[7] == ["▶ Check --tags files", "▶ Run --tags files"]
    assert runs[4] == ["▶ Check play", "▶ Run play"]  # untagged: only its play's run reaches it
    write = next(lens for lens in found if lens.range.start.line == 7 and lens.command.title == "▶ Run --tags files")
    assert write.command.command == RUN
    [arguments] = write.command.arguments
    assert (arguments["playbook"], arguments["play"], arguments["tags"]) == (str(workspace / "site.yml"), 0, "files")
    # a role no playbook uses cannot be run: its lenses have no ▶
    lone = await lenses(client, workspace / "roles/unused/tasks/main.yml")
    assert lone and not [lens for lens in lone if lens.command.title.startswith("▶")]


@pytest.mark.asyncio
async def test_check_changes_nothing_and_reports_outcomes(client: LanguageClient, workspace: Path) -> None:
    site = workspace / "site.yml"
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=site.as_uri(), language_id="ansible", version=1, text=PLAYBOOK)))
    result = await execute(client, CHECK, playbook=site.as_uri(), play=0)
    assert result["exit_code"] == 0 and result["check"] is True and not result["cancelled"]
    assert result["recap"]["localhost"]["changed"] == 1
    assert not (workspace / "out.txt").exists()
    assert not client.asked  # a check asks nothing
    assert await wait_hints(client, site) == [(4, "ok on localhost"), (7, "changed on localhost (check mode)")]
    assert "TASK [write the file]" in logged(client)
    # a log message is where most clients hide it: the whole output is also shown as a document
    [shown] = [d for d in client.shown_documents if d.uri.endswith("/check-site.yml.txt")]
    output = Path(shown.uri.removeprefix("file://")).read_text()
    assert "TASK [write the file]" in output and "PLAY RECAP" in output and output.endswith("exit code 0\n")
    [reports] = [r for token, r in client.progress_reports.items() if str(token).startswith("playbook-ls-run")]
    assert isinstance(reports[0], types.WorkDoneProgressBegin) and isinstance(reports[-1], types.WorkDoneProgressEnd)
    assert [r.message for r in reports[1:-1]] == ["1/2 say hello", "2/2 write the file"]
    # an edit of the file clears its outcomes
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=site.as_uri(), version=2),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text=PLAYBOOK + "\n")]))
    assert await wait_hints(client, site, lambda found: not found) == []


@pytest.mark.asyncio
async def test_check_of_a_task_runs_only_its_tag_selection(client: LanguageClient, workspace: Path) -> None:
    result = await execute(client, CHECK, playbook=str(workspace / "site.yml"), play=0, tags="files")
    assert [(t["task"], t["status"]) for t in result["tasks"]] == [("write the file", "changed")]
    assert not (workspace / "out.txt").exists()


@pytest.mark.asyncio
async def test_run_asks_first_and_cancel_runs_nothing(client: LanguageClient, workspace: Path) -> None:
    client.answer = "Cancel"  # type: ignore[attr-defined]
    result = await execute(client, RUN, playbook=str(workspace / "site.yml"), play=0)
    [asked] = client.asked  # type: ignore[attr-defined]
    assert asked.message.startswith("Run 2 tasks on localhost for real?")
    assert [a.title for a in asked.actions or []] == ["Run", "Cancel"]
    assert result["cancelled"] is True and result["tasks"] == []
    assert not (workspace / "out.txt").exists()
    assert "TASK [" not in logged(client)


@pytest.mark.asyncio
async def test_run_confirmed_writes_the_file(client: LanguageClient, workspace: Path) -> None:
    client.answer = "Run"  # type: ignore[attr-defined]
    site = workspace / "site.yml"
    result = await execute(client, RUN, playbook=str(site), play=0)
    assert result["exit_code"] == 0 and result["check"] is False
    assert (workspace / "out.txt").read_text() == "written\n"
    assert await wait_hints(client, site) == [(4, "ok on localhost"), (7, "changed on localhost")]
    # the next run replaces the outcomes: the file is there now, so nothing changes
    result = await execute(client, RUN, playbook=str(site), play=0, tags="files")
    assert [t["status"] for t in result["tasks"]] == ["ok"]
    assert await wait_hints(client, site, lambda found: len(found) == 1) == [(7, "ok on localhost")]


@pytest.mark.asyncio
async def test_cancelling_the_progress_stops_the_run(client: LanguageClient, workspace: Path) -> None:
    client.answer = "Run"  # type: ignore[attr-defined]
    running = asyncio.ensure_future(execute(client, RUN, playbook=str(workspace / "site.yml"), play=1))

    def napping() -> Any:
        return next((token for token, reports in client.progress_reports.items()
                     if str(token).startswith("playbook-ls-run")
                     and any("nap" in (getattr(r, "message", None) or "") for r in reports)), None)

    deadline = time.monotonic() + HANG_SECONDS
    while napping() is None and not running.done() and time.monotonic() < deadline:
        await asyncio.sleep(0.02)
    token = napping()
    assert token is not None
    client.window_work_done_progress_cancel(types.WorkDoneProgressCancelParams(token=token))
    result = await asyncio.wait_for(running, 60)  # the task sleeps 300 s: only the cancel ends it this soon
    assert result["cancelled"] is True
    assert client.progress_reports[token][-1].message == "cancelled"
    # the server is alive and runs again
    result = await execute(client, CHECK, playbook=str(workspace / "site.yml"), play=0, tags="files")
    assert result["exit_code"] == 0


@pytest.mark.asyncio
async def test_an_invalid_playbook_is_a_message_not_a_dead_server(client: LanguageClient, workspace: Path) -> None:
    (workspace / "broken.yml").write_text("- hosts: localhost\n  tasks:\n    - name: x\n      debug: [unclosed\n")
    result = await execute(client, CHECK, playbook=str(workspace / "broken.yml"))
    assert result["error"] and result["exit_code"] != 0
    errors = [m.message for m in client.messages if m.type == types.MessageType.Error]
    assert errors and "broken.yml" in errors[-1]
    result = await execute(client, CHECK, playbook=str(workspace / "missing.yml"))
    assert "could not be found" in result["error"]
    result = await execute(client, CHECK)  # no playbook at all
    assert "playbook" in result["error"]
    assert not (workspace / "out.txt").exists()
    result = await execute(client, CHECK, playbook=str(workspace / "site.yml"), play=0)
    assert result["exit_code"] == 0 and "error" not in result


@pytest.mark.asyncio
async def test_a_launch_profile_runs_through_resolve_launch(client: LanguageClient, workspace: Path) -> None:
    (workspace / ".playbook-ls.yml").write_text(
        "profiles:\n  local:\n    playbook: site.yml\n    inventory: 'localhost,'\n    job_type: run\n"
        "    job_tags: files\n")
    result = await execute(client, CHECK, profile="local")  # check wins over the profile's job_type
    assert result["check"] is True and [(t["task"], t["status"]) for t in result["tasks"]] == [
        ("write the file", "changed")]
    assert not (workspace / "out.txt").exists()
    client.answer = "Run"  # type: ignore[attr-defined]
    result = await execute(client, RUN, profile="local")
    assert client.asked[0].message.startswith("Run 1 task on localhost for real?")  # type: ignore[attr-defined]
    assert result["exit_code"] == 0 and (workspace / "out.txt").read_text() == "written\n"
    result = await execute(client, CHECK, profile="nope")
    assert "no launch profile 'nope'" in result["error"]


def configure(client: LanguageClient, **options: Any) -> None:
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings={"playbook-ls": options}))


@pytest.mark.asyncio
async def test_the_task_set_at_a_position_is_what_its_lens_runs(client: LanguageClient, workspace: Path) -> None:
    site = workspace / "site.yml"
    result = await execute(client, CHECK, uri=site.as_uri(), line=9)  # inside "write the file"
    assert (result["tags"], [(t["task"], t["status"]) for t in result["tasks"]]) == (
        ["files"], [("write the file", "changed")])
    result = await execute(client, CHECK, path="site.yml", line=1)  # on the first play: all of it
    assert [t["task"] for t in result["tasks"]] == ["say hello", "write the file"]
    result = await execute(client, CHECK, path="roles/unused/tasks/main.yml", line=0)
    assert result["error"].startswith("roles/unused/tasks/main.yml:1: no task or play there")
    assert not (workspace / "out.txt").exists()


@pytest.mark.asyncio
async def test_confirm_run_false_runs_without_asking(client: LanguageClient, workspace: Path) -> None:
    configure(client, confirmRun=False)
    result = await execute(client, RUN, path="site.yml", line=7)
    assert result["exit_code"] == 0 and not client.asked  # type: ignore[attr-defined]
    assert (workspace / "out.txt").read_text() == "written\n"


@pytest.mark.asyncio
async def test_run_output_as_notifications_when_asked(client: LanguageClient, workspace: Path) -> None:
    outputs: list[str] = []
    client.feature("playbook-ls/runOutput")(lambda params: outputs.append(params.text))
    configure(client, runOutput="notification")
    await execute(client, CHECK, playbook="site.yml", play=0)
    text = "\n".join(outputs)
    assert "TASK [write the file]" in text and "PLAY RECAP" in text
    assert "TASK [write the file]" not in logged(client)  # not also as log messages


@pytest.mark.asyncio
async def test_launch_profiles_are_listed_from_the_settings_or_a_profiles_file(
        client: LanguageClient, workspace: Path) -> None:
    (workspace / ".playbook-ls.yml").write_text(
        "profiles:\n  local:\n    playbook: site.yml\n    inventory: 'localhost,'\n    job_tags: files\n")
    (workspace / "launch").mkdir()
    (workspace / "launch" / "profiles.yml").write_text(
        "profiles:\n  elsewhere:\n    playbook: ../site.yml\n    inventory: 'localhost,'\n    job_type: check\n")
    configure(client)
    listed = await until(lambda: execute(client, "playbook-ls.listProfiles"), lambda found: found["profiles"])
    assert listed["error"] is None
    [local] = listed["profiles"]
    assert (local["name"], local["playbook"], local["job_tags"]) == ("local", str(workspace / "site.yml"), ["files"])
    configure(client, profilesFile="launch/profiles.yml")
    listed = await until(lambda: execute(client, "playbook-ls.listProfiles"),
                         lambda found: [p["name"] for p in found["profiles"]] == ["elsewhere"])
    assert listed["profiles"][0]["job_type"] == "check"
    result = await execute(client, CHECK, profile="elsewhere")  # the run finds it in the same file
    assert result["exit_code"] == 0, result
    configure(client, profilesFile="launch/missing.yml")
    listed = await until(lambda: execute(client, "playbook-ls.listProfiles"), lambda found: found["error"])
    assert "profiles file" in listed["error"] and "missing.yml" in listed["error"]


@pytest.mark.asyncio
async def test_the_result_says_what_the_launch_really_ran(client: LanguageClient, workspace: Path) -> None:
    (workspace / ".playbook-ls.yml").write_text(
        "profiles:\n  careful:\n    playbook: site.yml\n    inventory: 'localhost,'\n    job_type: check\n"
        "    job_tags: files\n")
    # the profile prompts for neither the tags nor the mode: its own are used, and reported
    result = await execute(client, RUN, profile="careful", tags="slow")
    assert (result["check"], result["tags"], result["playbook"]) == (True, ["files"], str(workspace / "site.yml"))
    assert not client.asked and not (workspace / "out.txt").exists()  # type: ignore[attr-defined]


MARKER_PLAYBOOK = """\
- hosts: localhost
  gather_facts: false
  tasks:
    - name: nap then mark
      shell: echo $$ > {pid}; sleep 300 && touch {marker}
"""


@pytest.mark.asyncio
async def test_cancel_request_of_the_command_stops_a_real_run(client: LanguageClient, workspace: Path) -> None:
    """$/cancelRequest of the executeCommand itself (not only the progress) kills the worker."""
    marker, pid = workspace / "marker", workspace / "nap.pid"
    (workspace / "mark.yml").write_text(MARKER_PLAYBOOK.format(marker=marker, pid=pid))
    client.answer = "Run"  # type: ignore[attr-defined]
    await lenses(client, workspace / "mark.yml")  # indexed
    msg_id = "run-to-cancel"
    request = asyncio.ensure_future(client.protocol.send_request_async(
        types.WORKSPACE_EXECUTE_COMMAND, types.ExecuteCommandParams(
            command=RUN, arguments=[{"playbook": str(workspace / "mark.yml"), "play": 0}]), msg_id=msg_id))

    def napping() -> bool:
        return any(str(token).startswith("playbook-ls-run") and any(
            "nap" in (getattr(r, "message", None) or "") for r in reports)
            for token, reports in client.progress_reports.items())

    deadline = time.monotonic() + HANG_SECONDS
    while not (napping() and pid.exists() and pid.read_text().strip()) and not request.done():
        assert time.monotonic() < deadline, "the task never started"
        await asyncio.sleep(0.02)
    client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id=msg_id))
    with pytest.raises(Exception, match="(?i)cancel"):
        await asyncio.wait_for(request, 60)
    shell = int(pid.read_text())
    while _running(shell):  # the task's shell is killed with the worker, long before its sleep ends
        assert time.monotonic() < deadline, "the run went on after the cancel"
        await asyncio.sleep(0.05)
    assert not marker.exists(), "the run went on after the cancel"
    # and the server runs again, once it has seen its killed worker go (a moment after the cancel)
    result = await execute(client, CHECK, playbook=str(workspace / "site.yml"), play=0, tags="files")
    while "already in progress" in str(result.get("error")) and time.monotonic() < deadline:
        await asyncio.sleep(0.1)
        result = await execute(client, CHECK, playbook=str(workspace / "site.yml"), play=0, tags="files")
    assert result["exit_code"] == 0


NEEDS_ANSIBLE = """\
- name: accounts
  hosts: all
  gather_facts: false
  tasks:
    - name: look root up
      ansible.builtin.getent:
        database: passwd
        key: root
      tags: [lookup]
    - name: say which
      debug:
        msg: "{{ 'root' in ansible_facts.getent_passwd | default({}) }}"
      tags: [lookup]

- name: other
  hosts: all
  gather_facts: false
  tasks:
    - name: elsewhere
      debug:
        msg: other play
"""


def _with_ansible(workspace: Path) -> Path:
    from playbook_ls.features.ansible_runs import find_ansible_playbook

    if find_ansible_playbook() is None:
        pytest.skip("ansible-playbook is not installed (the test extra installs ansible-core)")
    (workspace / "accounts.yml").write_text(NEEDS_ANSIBLE)
    inventory = workspace / "hosts.ini"
    inventory.write_text(f"localhost ansible_connection=local ansible_python_interpreter={sys.executable}\n")
    return inventory


@pytest.mark.asyncio
async def test_a_module_the_engine_lacks_is_run_by_ansible_playbook(client: LanguageClient, workspace: Path) -> None:
    inventory = _with_ansible(workspace)
    playbook = workspace / "accounts.yml"
    result = await execute(client, CHECK, playbook=str(playbook), play=0, tags="lookup", inventory=str(inventory))
    assert result["engine"] == "ansible" and result["exit_code"] == 0, (result, logged(client))
    assert [(t["task"], t["status"], t["line"]) for t in result["tasks"]] == [
        ("look root up", "ok", 4), ("say which", "ok", 9)]
    output = logged(client)
    assert "--check --tags lookup" in output and "TASK [look root up]" in output and "PLAY RECAP" in output
    assert "has no module 'ansible.builtin.getent'" in output  # why ansible-playbook runs it
    # ansible cannot run one play: said before it runs, as a warning the user sees
    assert any("the other play of accounts.yml runs too" in m.message for m in client.messages)
    assert await wait_hints(client, playbook) == [(4, "ok on localhost"), (9, "ok on localhost")]
    reports = next(r for token, r in client.progress_reports.items() if str(token).startswith("playbook-ls-run"))
    assert [r.message for r in reports[1:-1]][:2] == ["1/2 look root up", "2/2 say which"]


@pytest.mark.asyncio
async def test_a_real_run_with_ansible_playbook_says_so_before(client: LanguageClient, workspace: Path) -> None:
    inventory = _with_ansible(workspace)
    client.answer = "Cancel"  # type: ignore[attr-defined]
    result = await execute(client, RUN, playbook=str(workspace / "accounts.yml"), play=0, inventory=str(inventory))
    [asked] = client.asked  # type: ignore[attr-defined]
    assert "With ansible-playbook: " in asked.message and "has no module 'ansible.builtin.getent'" in asked.message
    assert "the other play of accounts.yml runs too" in asked.message
    assert result["cancelled"] is True and result["tasks"] == []


@pytest.mark.asyncio
async def test_the_bundled_engine_can_be_insisted_on(client: LanguageClient, workspace: Path) -> None:
    inventory = _with_ansible(workspace)
    result = await execute(client, CHECK, playbook=str(workspace / "accounts.yml"), play=0, inventory=str(inventory),
                           engine="bundled")
    assert result["engine"] == "bundled" and "has no module 'ansible.builtin.getent'" in result["error"]
