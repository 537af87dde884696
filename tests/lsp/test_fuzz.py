"""Random buffers against one running server (hypothesis, end to end).

Whatever an editor sends, the server must keep answering: after every didChange a hover, a
documentSymbol, a completion and an inlayHint request come back within ``TIMEOUT``, and so do a
hover and a completion on each of the first templated variables, never as a response error; the
server logs no internal error (its handlers swallow exceptions, so the log is where they show); and
its background refresh goes on: an edit of a sentinel playbook still gets its diagnostic.

The buffers: real playbooks cut at random offsets, tabs, NUL and other control characters,
lone surrogates (sent as JSON escapes), huge documents (5 MB), structures nested thousands of
levels deep, import cycles, alias bombs ("billion laughs"), random unicode, and variables whose
values would build gigabytes, backtrack for minutes or refer to themselves.

``PLAYBOOK_LS_FUZZ_CASES`` sets the number of examples (30 by default, the same ones each run; set,
random ones): about 2.4 buffers each, so 4,200 for 10,000 buffers (40 minutes), a long run.

The server runs under a memory limit (an alias bomb expanded by mistake must not take the
machine with it), with faulthandler on and its log written to a file, so that a crash or a
swallowed exception is reported with its traceback.
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from bounded import HANG_SECONDS
from hypothesis import HealthCheck, Phase, example, given, note, settings
from hypothesis import strategies as st
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from waiting import indexed_hover, until

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "tag-inheritance"
TIMEOUT = HANG_SECONDS  # for one answer: liveness, not speed (a 5 MB buffer on a busy machine takes its time)
SENTINEL_TIMEOUT = 60.0  # s, for the sentinel's diagnostics (the refresh runs after the fuzzed edits)
MEMORY_LIMIT = 2 << 30  # bytes of address space for the server
LOG = Path(tempfile.gettempdir()) / f"playbook-ls-fuzz-{os.getpid()}.log"
HUGE = 5_000_000

# The server, with its address space limited, faulthandler on and stderr (its log) in a file.
SERVER = """
import faulthandler, os, sys
try:
    import resource
    limit = int(os.environ["PLAYBOOK_LS_FUZZ_MEMORY"])
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
except (ImportError, ValueError, OSError):  # not on this platform: run without the limit
    pass
log = os.open(os.environ["PLAYBOOK_LS_FUZZ_LOG"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
os.dup2(log, 2)
sys.stderr = os.fdopen(2, "w", buffering=1)
faulthandler.enable()
from playbook_ls.cli.main import main
sys.exit(main(["serve"]))
"""
SERVER_ENV = {"PLAYBOOK_LS_FUZZ_LOG": str(LOG), "PLAYBOOK_LS_FUZZ_MEMORY": str(MEMORY_LIMIT)}

PLAYBOOK = "playbook.yml"
ROLE_TASKS = "roles/sample/tasks/main.yml"
SUB_TASKS = "roles/other/tasks/other_sub.yml"
ROLE_META = "roles/sample/meta/main.yml"
UNTITLED = "untitled.yml"  # open in the editor, never saved
SENTINEL = "sentinel.yml"
DOCS = [PLAYBOOK, ROLE_TASKS, SUB_TASKS, ROLE_META, UNTITLED]

REAL = [(EXAMPLE / name).read_text() for name in (PLAYBOOK, ROLE_TASKS, "roles/other/tasks/main.yml")]
REAL.append("""---
- name: Configure web servers
  hosts: web:&prod
  become: true
  vars:
    base: &base {owner: root, group: root, mode: "0644"}
  pre_tasks:
    - name: Check facts
      ansible.builtin.assert:
        that: [ansible_os_family in ['Debian', 'RedHat']]
  roles:
    - role: sample
      tags: [web, 'always']
      when: deploy | bool
  tasks:
    - name: Write the config
      ansible.builtin.template:
        <<: *base
        src: "{{ item }}.j2"
        dest: /etc/app/{{ item }}
      loop: "{{ configs | default([]) }}"
      notify: restart app
      tags: config
    - block:
        - ansible.builtin.include_tasks: roles/other/tasks/other_sub.yml
      rescue:
        - ansible.builtin.debug: {msg: "failed: {{ ansible_failed_result }}"}
      always:
        - ansible.builtin.meta: flush_handlers
  handlers:
    - name: restart app
      ansible.builtin.service: name=app state=restarted
      listen: app changed
""")


# --- buffers ----------------------------------------------------------------------------------------------

any_char = st.characters(exclude_categories=())  # NUL, controls and lone surrogates too


class Buffer:
    """A document's text and the recipe it was made from. A failing example is printed with its
    recipe (and the text only when it is short), not with megabytes of text."""

    def __init__(self, text: str, recipe: str = "") -> None:
        self.text, self.recipe = text, recipe

    def __repr__(self) -> str:
        if len(self.text) <= 300:
            return f"Buffer({self.text!r})"
        return f"Buffer(<{self.recipe}: {len(self.text):,} characters, {self.text[:60]!r}...>)"


@st.composite
def truncated(draw: st.DrawFn) -> str:
    """A real playbook cut at a random offset, or with a random piece cut out."""
    text = draw(st.sampled_from(REAL))
    end = draw(st.integers(0, len(text)))
    if draw(st.booleans()):
        start = draw(st.integers(0, end))
        return text[:start] + text[end:]
    return text[:end]


@st.composite
def with_tabs(draw: st.DrawFn) -> str:
    text = draw(st.sampled_from(REAL))
    places = sorted(draw(st.lists(st.integers(0, len(text)), min_size=1, max_size=20)), reverse=True)
    for place in places:
        text = text[:place] + draw(st.sampled_from(["\t", "\t\t", " \t", "\t- "])) + text[place:]
    if draw(st.booleans()):
        text = text.replace("  ", "\t")
    return text


@st.composite
def garbage(draw: st.DrawFn) -> str:
    """Binary, NUL and lone surrogates inside a real playbook."""
    text = draw(st.sampled_from(REAL))
    place = draw(st.integers(0, len(text)))
    junk = draw(st.one_of(st.text(any_char, min_size=1, max_size=60),
                          st.binary(min_size=1, max_size=60).map(lambda b: b.decode("latin-1")),
                          st.sampled_from(["\x00", "\ud800", "\udfff", "\ud83d", "\ufeff", "\x1b[31m", "\r",
                                           "\u2028"])))
    return text[:place] + junk + text[place:]


@st.composite
def huge(draw: st.DrawFn) -> Buffer:
    kind = draw(st.sampled_from(["line", "comment", "block scalar", "list", "plays", "documents"]))
    return Buffer(huge_text(kind), f"huge {kind}")


def huge_text(kind: str) -> str:
    """About 5 MB in one document (a playbook of many plays is kept smaller: resolving it is slow)."""
    if kind == "line":
        return "- hosts: all\n  vars:\n    x: " + "a" * HUGE + "\n"
    if kind == "comment":
        return REAL[0] + ("# " + "c" * 98 + "\n") * (HUGE // 100)
    if kind == "block scalar":
        return "- hosts: all\n  vars:\n    x: |\n" + ("      " + "b" * 94 + "\n") * (HUGE // 100)
    if kind == "list":
        return "- hosts: all\n  vars:\n    x:\n" + "      - item\n" * (HUGE // 13)
    if kind == "plays":
        play = REAL[0].removeprefix("---\n")
        return "---\n" + play * (300_000 // len(play))
    return REAL[0] * (HUGE // len(REAL[0]))  # many YAML documents


@st.composite
def deep(draw: st.DrawFn) -> Buffer:
    depth = draw(st.integers(1_000, 50_000))
    kind = draw(st.sampled_from(["flow sequence", "flow mapping", "block sequence", "block mapping", "mixed",
                                 "in a play"]))
    return Buffer(deep_text(kind, depth), f"{kind} nested {depth} deep")


def deep_text(kind: str, depth: int) -> str:
    """Collections nested thousands of levels deep."""
    if kind == "flow sequence":
        return "[" * depth + "]" * depth
    if kind == "flow mapping":
        return "{a: " * depth + "}" * depth
    if kind == "block sequence":
        return "- " * depth + "x\n"
    if kind == "block mapping":  # indentation grows with depth: keep the text under a few MB
        depth = min(depth, 1_500)
        return "".join(" " * i + "a:\n" for i in range(depth)) + " " * depth + "b\n"
    if kind == "mixed":
        return "[{a: " * (depth // 2) + "}]" * (depth // 2)
    return "- hosts: all\n  tasks:\n    - " + "{block: [" * depth + "debug" + "]}" * depth + "\n"


def cycles(doc: str) -> st.SearchStrategy[str]:
    """Files that import themselves, or each other."""
    if doc in (PLAYBOOK, UNTITLED):
        name = Path(doc).name
        return st.sampled_from([
            f"- import_playbook: {name}\n",
            f"- hosts: all\n  tasks:\n    - import_tasks: {name}\n    - include_tasks: {name}\n",
            f"- import_playbook: {UNTITLED if doc == PLAYBOOK else PLAYBOOK}\n",
            "- hosts: all\n  roles: [sample, sample]\n  tasks:\n    - include_role: {name: sample}\n",
        ])
    if doc == ROLE_META:
        return st.sampled_from(["dependencies: [sample]\n", "dependencies:\n  - role: sample\n  - other\n",
                                "dependencies: [{role: sample, tags: [x]}]\n"])
    return st.sampled_from([
        f"- import_tasks: {Path(doc).name}\n",
        "- import_tasks: main.yml\n- include_tasks: other_sub.yml\n",
        "- import_tasks: ../../other/tasks/other_sub.yml\n",
        "- include_role: {name: sample}\n- import_role: {name: other, tasks_from: other_sub}\n",
        "- import_role:\n    name: sample\n",
    ])


def bomb(levels: int, where: str, task_file: bool = False) -> str:
    """Billion laughs: 9 ** levels strings behind one alias, used at ``where`` (a play's or a task's
    keyword). In a task file, the anchors are in the task's vars and play keywords go to the task."""
    alias = f"*a{levels - 1}"
    anchors = ['    a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    anchors += [f"    a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]" for i in range(1, levels)]
    key, msg = where.removeprefix("play "), alias if where == "msg" else "hi"
    if task_file:
        lines = ["- vars:", *anchors, f"  debug: {{msg: {msg}}}"]
        lines += [f"  {key}: {alias}"] if where not in ("vars", "msg") else []
        return "\n".join(lines) + "\n"
    lines = ["- vars:", *anchors, f"  hosts: {alias if where == 'hosts' else 'all'}"]
    lines += [f"  {key}: {alias}"] if where in ("play tags", "play name") else []
    lines += ["  tasks:", f"    - debug: {{msg: {msg}}}"]
    lines += [f"      {where}: {alias}"] if where in ("tags", "when", "name", "loop", "notify") else []
    return "\n".join(lines) + "\n"


def bombs(doc: str) -> st.SearchStrategy[Buffer]:
    places = st.sampled_from(["vars", "hosts", "play tags", "play name", "tags", "when", "name", "loop", "msg",
                              "notify"])
    task_file = doc not in (PLAYBOOK, UNTITLED)

    def make(levels: int, where: str) -> Buffer:
        return Buffer(bomb(levels, where, task_file), f"alias bomb 9**{levels} at {where}")

    return st.builds(make, st.integers(2, 9), places)


def hostile(doc: str) -> st.SearchStrategy[Buffer]:
    """Shapes that once crashed or hung the server: nested complex keys (a C stack overflow),
    scalars PyYAML cannot convert (a ValueError out of the loader), recursive aliases (a
    RecursionError in templating), templates that would build gigabytes."""
    depth = st.integers(20, 40_000)
    shapes = st.one_of(
        st.builds(lambda d, k: Buffer(k * d + "x\n", f"{k.strip() or 'indent'} nested {d} deep"), depth,
                  st.sampled_from(["? ", "- ? ", ": ", "? - "])),
        st.builds(lambda v: Buffer(f"- hosts: all\n  vars:\n    a: {v}\n  tasks: []\n", f"scalar {v[:20]}"),
                  st.sampled_from(["!!int foo", "!!int 0x", "!!float bar", "9" * 5000, "!!bool maybe",
                                   "!!timestamp soon"])),
        st.just(Buffer("- hosts: all\n  tasks:\n    - import_role:\n        name: &a [*a]\n"
                       "    - debug: {msg: &m [*m]}\n      when: &w [*w]\n", "recursive aliases")),
        st.builds(lambda t: Buffer(f"- hosts: all\n  tasks:\n    - import_tasks: \"{{{{ {t} }}}}\"\n", f"template {t}"),
                  st.sampled_from(HOSTILE_TEMPLATES)),
        st.builds(lambda t, v: Buffer(hostile_var(t, v, doc not in (PLAYBOOK, UNTITLED)), f"variable {v} = {t}"),
                  st.sampled_from(HOSTILE_TEMPLATES), st.sampled_from(["big", "ansible_host", "item"])),
        st.just(Buffer("- hosts: all\n  vars:\n    x: &a [*a]\n    y: \"{{ x }}\"\n  tasks:\n"
                       "    - debug: {msg: \"{{ y }} {{ x | length }}\"}\n", "a recursive alias in vars")),
    )
    return shapes


# Templates that would build gigabytes, run for minutes or raise past the usual errors.
HOSTILE_TEMPLATES = ["'x' | center(10**9)", "'x' | center(10**11)", "'%09999999d' | format(1)",
                     "('ab' * 1000) | replace('a', 'a' * 1000)", "range(10**6) | map('string') | join",
                     "'a' | wordwrap(1) | indent(10**8)", "'x' * 10**9", "('a' * 41 + 'b') | regex_search('(a+)+$')",
                     "'a' * 41 | regex_replace('(a|a)*b', '')", "lookup('file', '/dev/zero')",
                     "query('fileglob', '/**/*')", "range(10**9) | list | length"]


def hostile_var(template: str, name: str, task_file: bool) -> str:
    """A variable set to ``template`` and read, templated, by a task: hovers and completion on it
    evaluate it."""
    value, msg = f"{name}: \"{{{{ {template} }}}}\"", f"msg: \"{{{{ {name} }}}} {{{{ {name} | default('') }}}}\""
    if task_file:
        return f"- name: uses {name}\n  vars:\n    {value}\n  debug:\n    {msg}\n"
    return f"- hosts: all\n  vars:\n    {value}\n  tasks:\n    - name: uses {name}\n      debug:\n        {msg}\n"


def variable_positions(text: str, limit: int = 3) -> list[tuple[int, int]]:
    """LSP positions (lines split at CR, LF and CRLF; characters in UTF-16 units) inside the first
    templated variables of ``text``: on the name, and after it where completion lists names."""
    found: list[tuple[int, int]] = []
    for match in re.finditer(r"\{\{-?\s*([A-Za-z_]\w*)", text[:200_000]):
        for offset in dict.fromkeys((match.start(1) + 1, match.end(1))):
            before = re.split(r"\r\n|\r|\n", text[:offset])
            found.append((len(before) - 1, len(before[-1].encode("utf-16-le", "surrogatepass")) // 2))
        if len(found) >= 2 * limit:
            break
    return found


def buffers(doc: str) -> st.SearchStrategy[Buffer]:
    small = st.one_of(truncated(), with_tabs(), garbage(), st.text(max_size=400), st.text(any_char, max_size=200),
                      cycles(doc)).map(Buffer)
    return st.one_of(small, huge(), deep(), bombs(doc), hostile(doc))


@st.composite
def edits(draw: st.DrawFn) -> list[tuple[str, Buffer, int, int]]:
    """didChange after didChange: (document, whole new text, hover line, hover character)."""
    out = []
    for _ in range(draw(st.integers(1, 4))):
        doc = draw(st.sampled_from(DOCS))
        out.append((doc, draw(buffers(doc)), draw(st.integers(0, 40)), draw(st.integers(0, 120))))
    return out


# --- the server ----------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("fuzz")
    shutil.copytree(EXAMPLE, root, dirs_exist_ok=True)
    (root / ROLE_META).parent.mkdir(parents=True, exist_ok=True)
    (root / ROLE_META).write_text("dependencies: []\n")
    (root / SENTINEL).write_text(sentinel_text(0))
    return root


def sentinel_text(number: int) -> str:
    """A playbook whose PLS105 finding sits on line 4 or 6 (0-based), alternately."""
    pad = "    - name: pad\n      debug: msg=x\n" * (number % 2)
    task = f'    - name: s{number}\n      debug: msg=x\n      when: "{{{{ x{number} }}}}"\n'
    return f"- hosts: all\n  tasks:\n{pad}{task}"


class State:
    versions: dict[str, int] = {}
    sentinels = 0
    buffers = 0  # edits sent and answered, over all examples
    log_seen = 0
    dead = False
    failure = ""  # why the server was stopped


@pytest_lsp.fixture(
    scope="module",
    config=ClientServerConfig(server_command=[sys.executable, "-c", SERVER],
                              server_env={**os.environ, **SERVER_ENV}),
)
async def client(lsp_client: LanguageClient, workspace: Path):
    await lsp_client.initialize_session(types.InitializeParams(
        capabilities=client_capabilities("visual-studio-code"),
        root_uri=workspace.as_uri(),
        workspace_folders=[types.WorkspaceFolder(uri=workspace.as_uri(), name="fuzz")]))
    State.versions, State.sentinels, State.log_seen, State.dead, State.failure = {}, 0, 0, False, ""
    task = types.HoverParams(text_document=types.TextDocumentIdentifier(uri=(workspace / ROLE_TASKS).as_uri()),
                             position=types.Position(line=1, character=3))
    await until(lambda: lsp_client.text_document_hover_async(task), indexed_hover)  # the index is built
    yield
    if State.dead or server_gone(lsp_client):
        kill(lsp_client)
    else:
        await lsp_client.shutdown_session()
    LOG.unlink(missing_ok=True)


def server_gone(client: LanguageClient) -> bool:
    server = getattr(client, "_server", None)
    return server is not None and server.returncode is not None


def kill(client: LanguageClient) -> None:
    server = getattr(client, "_server", None)
    if server is not None and server.returncode is None:
        server.kill()


def new_log() -> str:
    try:
        text = LOG.read_text(errors="replace")
    except OSError:
        return ""
    fresh, State.log_seen = text[State.log_seen:], len(text)
    return fresh


def fail(client: LanguageClient, what: str) -> None:
    """Stop the server (it may be stuck, or eating memory) and fail with its log."""
    State.dead = True
    kill(client)
    State.failure = f"{what}\n--- server log ---\n{new_log()[-6000:] or '(empty)'}"
    pytest.fail(State.failure, pytrace=False)


def check_log(client: LanguageClient) -> None:
    """Fail on an internal error in the log: handlers and the refresh thread log what they swallow."""
    try:
        text = LOG.read_text(errors="replace")[State.log_seen:]
    except OSError:
        return
    errors = [line for line in text.splitlines() if " ERROR " in line or "Fatal Python error" in line]
    if errors:
        fail(client, "the server logged an internal error: " + "; ".join(errors[:5]))


def describe(doc: str, text: str) -> str:
    return f"{doc}: {len(text)} characters: {text[:160]!r}{'...' if len(text) > 160 else ''}"


async def answered(client: LanguageClient, what: str, request: Any) -> Any:
    try:
        return await asyncio.wait_for(request, TIMEOUT)
    except TimeoutError:
        fail(client, f"no answer to {what} within {TIMEOUT:g} s")
    except Exception as exc:  # noqa: BLE001 - a response error, or the server died meanwhile
        if server_gone(client):
            fail(client, f"the server died (exit code {client._server.returncode}) during {what}")  # type: ignore[attr-defined]
        fail(client, f"{what} was answered with an error: {type(exc).__name__}: {exc}")


def change(client: LanguageClient, root: Path, doc: str, text: str) -> None:
    uri = (root / doc).as_uri()
    version = State.versions.get(uri, 0) + 1
    State.versions[uri] = version
    if version == 1:
        client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
            uri=uri, language_id="ansible", version=version, text=text)))
    else:
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)]))


async def sentinel_published(client: LanguageClient, root: Path) -> None:
    """The refresh thread is alive and got through everything before: the sentinel's edit shows."""
    State.sentinels += 1
    number = State.sentinels
    change(client, root, SENTINEL, sentinel_text(number))
    uri, line = (root / SENTINEL).as_uri(), 4 + 2 * (number % 2)
    deadline = asyncio.get_running_loop().time() + SENTINEL_TIMEOUT
    while asyncio.get_running_loop().time() < deadline:
        if any(d.code == "PLS105" and d.range.start.line == line for d in client.diagnostics.get(uri, [])):
            return
        if server_gone(client):
            fail(client, "the server died before publishing the sentinel's diagnostics")
        check_log(client)
        await asyncio.sleep(0.05)
    fail(client, f"the sentinel's PLS105 (line {line}) was not published within {SENTINEL_TIMEOUT:g} s: "
                 f"the background refresh is stuck or failing; published: {client.diagnostics.get(uri)}")


# --- the test ------------------------------------------------------------------------------------------------


@pytest.mark.asyncio(loop_scope="module")
@settings(max_examples=int(os.environ.get("PLAYBOOK_LS_FUZZ_CASES", "30")), deadline=None, derandomize=not
          os.environ.get("PLAYBOOK_LS_FUZZ_CASES"), phases=[Phase.explicit, Phase.reuse, Phase.generate],
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example])
@given(steps=edits())
# Inputs that broke the server once: a C stack overflow (SIGSEGV) in the YAML composer, a refresh that
# raises on unhashable tags, an alias bomb expanded by str() in the outline.
@example(steps=[(PLAYBOOK, Buffer(deep_text("flow sequence", 100_000), "flow sequence nested 100000 deep"), 0, 0)])
@example(steps=[(PLAYBOOK, Buffer("- hosts: all\n  tasks:\n    - debug: msg=x\n      tags: [{a: 1}]\n"), 1, 4)])
@example(steps=[(PLAYBOOK, Buffer(bomb(9, "tags"), "alias bomb 9**9 at tags"), 0, 2)])
@example(steps=[(PLAYBOOK, Buffer("? " * 30_000 + "x\n", "complex keys nested 30000 deep"), 0, 0)])
@example(steps=[(PLAYBOOK, Buffer("- hosts: all\n  vars:\n    a: !!int foo\n  tasks: []\n", "!!int foo"), 2, 8)])
async def test_random_buffers_never_break_the_server(client: LanguageClient, workspace: Path,
                                                      steps: list[tuple[str, Buffer, int, int]]) -> None:
    if State.dead:  # not a skip: hypothesis would report the skip instead of the failure
        pytest.fail(f"the server was stopped on an earlier example: {State.failure}", pytrace=False)
    for doc, buffer, line, character in steps:
        text = buffer.text
        note(f"edit {describe(doc, text)}")
        change(client, workspace, doc, text)
        where = types.TextDocumentIdentifier(uri=(workspace / doc).as_uri())
        hover = await answered(client, f"hover at {line}:{character} after the edit of {describe(doc, text)}",
                               client.text_document_hover_async(types.HoverParams(
                                   text_document=where, position=types.Position(line=line, character=character))))
        assert hover is None or isinstance(hover, types.Hover)
        outline = await answered(client, f"documentSymbol after the edit of {describe(doc, text)}",
                                 client.text_document_document_symbol_async(
                                     types.DocumentSymbolParams(text_document=where)))
        assert outline is None or isinstance(outline, list)
        at = types.Position(line=line, character=character)
        completion = await answered(client, f"completion at {line}:{character} after the edit of {describe(doc, text)}",
                                    client.text_document_completion_async(types.CompletionParams(
                                        text_document=where, position=at)))
        assert completion is None or isinstance(completion, types.CompletionList | list | tuple)
        variables = variable_positions(text)
        for var_line, var_character in variables:  # values are evaluated: the hostile ones too
            at = types.Position(line=var_line, character=var_character)
            hover = await answered(client, f"hover on a variable at {var_line}:{var_character} after the edit of "
                                           f"{describe(doc, text)}", client.text_document_hover_async(
                                               types.HoverParams(text_document=where, position=at)))
            assert hover is None or isinstance(hover, types.Hover)
            completion = await answered(client, f"completion in a variable at {var_line}:{var_character} after the "
                                                f"edit of {describe(doc, text)}", client.text_document_completion_async(
                                                    types.CompletionParams(text_document=where, position=at)))
            assert completion is None or isinstance(completion, types.CompletionList | list | tuple)
        last = max([line, *(var_line for var_line, _ in variables)])
        hints = await answered(client, f"inlayHint after the edit of {describe(doc, text)}",
                               client.text_document_inlay_hint_async(types.InlayHintParams(
                                   text_document=where, range=types.Range(start=types.Position(line=0, character=0),
                                                                          end=types.Position(line=last + 50,
                                                                                             character=0)))))
        assert hints is None or isinstance(hints, list | tuple)
        State.buffers += 1
        if State.buffers % 1000 == 0:  # a long run's progress, shown with -s
            print(f"fuzzed buffers answered: {State.buffers}", flush=True)
    await sentinel_published(client, workspace)
    check_log(client)


@pytest.mark.asyncio(loop_scope="module")
async def test_the_server_serves_the_real_files_again(client: LanguageClient, workspace: Path) -> None:
    """Back to the files on disk: the answers are the ones of an untouched server."""
    if State.dead:
        pytest.skip("the server failed during the fuzzing")
    for doc in DOCS:
        uri = (workspace / doc).as_uri()
        if uri in State.versions:
            client.text_document_did_close(types.DidCloseTextDocumentParams(
                text_document=types.TextDocumentIdentifier(uri=uri)))
    await sentinel_published(client, workspace)
    print(f"fuzzed buffers answered: {State.buffers}")
    hover = await answered(client, "hover on task1", client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=(workspace / ROLE_TASKS).as_uri()),
        position=types.Position(line=1, character=3))))
    assert hover is not None and "task1" in hover.contents.value  # type: ignore[union-attr]
