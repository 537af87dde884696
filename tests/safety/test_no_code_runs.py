"""Opening, listing or linting a repository never runs code from it.

Every test builds the booby-trapped repository of ``trap_repo.py`` (inventory and vault
password scripts, plugins of every type, collections, ``lookup('pipe')`` and Jinja2 sandbox
escapes in every templated place, YAML ``!!python`` tags, Python project files, modules that
shadow playbook-ls's own imports, git configuration that runs commands) and runs playbook-ls on
it in a subprocess with a scrubbed environment. Each trap creates its own marker file if it
runs; no marker may appear.

The first group of tests fires the traps on purpose, so a trap that could never fire (a
typo, a quoting mistake) does not make the product tests pass vacuously. The ``ansible``
contrast test shows what ``ansible-playbook --syntax-check`` runs on the same repository.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from trap_repo import (
    JINJA_ESCAPES,
    Kind,
    Trap,
    build_trap_repo,
    describe_fired,
    escape,
    marker_dir,
    markers,
    pipe_lookup,
    planted,
)

BIN = Path(sys.executable).parent
TIMEOUT = 60
CHECK_CODES = {0, 1, 2}  # docs: 0 clean, 1 findings, 2 usage or config error
LISTING_CODES = {0, 1, 4, 5, 250}  # ansible-playbook's: 1 error, 4 parser error, 5 bad options, 250 crash (cycles)


def playbook_ls() -> list[str]:
    """The installed console script; else the module, with -P so the working directory is not importable."""
    script = BIN / "playbook-ls"
    return [str(script)] if script.is_file() else [sys.executable, "-P", "-m", "playbook_ls"]


def scrubbed_env(root: Path, **extra: str) -> dict[str, str]:
    """A minimal environment: no ANSIBLE_* or PYTHON* variables, home and caches under ``root``."""
    for name in ("home", "tmp"):
        (root / name).mkdir(exist_ok=True)
    env = {
        "PATH": os.environ.get("PATH") or os.defpath,  # so that a trap that runs finds `touch`
        "HOME": str(root / "home"),
        "TMPDIR": str(root / "tmp"),
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "NO_COLOR": "1",
        "PLAYBOOK_LS_CACHE_DIR": str(root / "cache"),
        "XDG_CACHE_HOME": str(root / "xdg-cache"),
    }
    env.update(extra)
    return env


@dataclass
class Result:
    argv: list[str]
    returncode: int
    stdout: str
    stderr: str

    def __str__(self) -> str:
        return (f"$ {' '.join(self.argv)}\nexit {self.returncode}\n--- stdout (head)\n{self.stdout[:2000]}"
                f"\n--- stderr (head)\n{self.stderr[:2000]}")


def run(argv: list[str], cwd: Path, env: dict[str, str]) -> Result:
    proc = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=TIMEOUT,
                          stdin=subprocess.DEVNULL)  # a prompt (vars_prompt, vault) must not wait for input
    return Result(argv, proc.returncode, proc.stdout, proc.stderr)


@dataclass
class TrapRoot:
    root: Path
    repo: Path
    traps: dict[str, Trap] = field(default_factory=dict)

    def fired(self) -> list[str]:
        return markers(self.root)

    def assert_nothing_ran(self, result: Result | None = None) -> None:
        fired = self.fired()
        assert not fired, (f"code from the repository ran ({len(fired)} traps fired):\n{describe_fired(self.root)}"
                           + (f"\n{result}" if result else ""))

    def playbook_ls(self, *args: str, env: dict[str, str] | None = None) -> Result:
        result = run([*playbook_ls(), *args], self.repo, env or scrubbed_env(self.root))
        self.assert_nothing_ran(result)
        assert "Traceback" not in result.stderr, str(result)
        assert "internal error" not in result.stderr, str(result)
        return result


@pytest.fixture
def trapped(tmp_path: Path) -> TrapRoot:
    repo = build_trap_repo(tmp_path)
    traps = {trap.name: trap for trap in planted(tmp_path)}
    assert not markers(tmp_path), "building the trap repository fired traps"
    return TrapRoot(tmp_path, repo, traps)


def of_kind(trapped: TrapRoot, *kinds: Kind) -> list[Trap]:
    return [trap for trap in trapped.traps.values() if trap.kind in kinds]


def missing(trapped: TrapRoot, traps: list[Trap]) -> list[str]:
    fired = set(trapped.fired())
    return [f"{t.name} ({t.path})" for t in traps if t.name not in fired]


# --- the traps are live --------------------------------------------------------------------


def test_the_trap_repository_has_every_kind_of_trap(trapped: TrapRoot) -> None:
    counts = {kind: len(of_kind(trapped, kind)) for kind in Kind}
    assert all(counts.values()), counts
    assert len(trapped.traps) >= 200, counts
    for required in ("inventory-script", "inventory-dir.script", "inventory-plugin", "vault-password-file",
                     "vault-id-client", "filter-plugin", "lookup-plugin", "library-module", "module-utils",
                     "callback-plugin", "vars-plugin", "collection.filter-plugin", "role.library-module",
                     "role.module-utils", "role.filter-plugin", "python-project.conftest",
                     "python-project.sitecustomize", "site.vars.lookup-pipe", "site.vars.query-pipe",
                     "site.play-tags.pipe", "site.import-tasks-path.pipe", "templated.play-hosts.pipe",
                     "site.vars.cycler", "site.vars.mro-subclasses", "site.vars.template-reference",
                     "site.vars.unsafe-pipe", "yaml-tag.vars-file.os-system", "git.core-fsmonitor"):
        assert required in trapped.traps, required


def test_python_traps_fire_when_imported(trapped: TrapRoot) -> None:
    traps = of_kind(trapped, Kind.PYTHON)
    files = sorted({str(trapped.repo / t.path) for t in traps})
    # -I: the working directory and PYTHON* variables stay out of sys.path; run_path adds nothing either
    code = ("import runpy, sys\n"
            "for path in sys.argv[1:]:\n"
            "    try:\n"
            "        runpy.run_path(path, run_name='trap')\n"
            "    except BaseException as exc:\n"
            "        print(path, repr(exc))\n")
    result = run([sys.executable, "-I", "-c", code, *files], trapped.root, scrubbed_env(trapped.root))
    assert result.returncode == 0, str(result)
    assert not missing(trapped, traps), f"{missing(trapped, traps)}\n{result}"


def test_script_traps_fire_when_run(trapped: TrapRoot) -> None:
    traps = of_kind(trapped, Kind.SCRIPT)
    for path in sorted({t.path for t in traps}):
        run([str(trapped.repo / path), "--list"], trapped.root, scrubbed_env(trapped.root))
    assert not missing(trapped, traps), missing(trapped, traps)


def test_jinja_escapes_fire_outside_a_sandbox(trapped: TrapRoot) -> None:
    import jinja2

    traps = of_kind(trapped, Kind.JINJA)
    environment = jinja2.Environment()
    for trap in traps:
        environment.from_string(trap.payload).render()
    assert not missing(trapped, traps), missing(trapped, traps)


def test_yaml_python_tags_fire_in_an_unsafe_loader(trapped: TrapRoot) -> None:
    yaml = pytest.importorskip("yaml")  # PyYAML, which ansible-core brings
    traps = of_kind(trapped, Kind.YAML)
    for path in sorted({t.path for t in traps}):
        yaml.unsafe_load((trapped.repo / path).read_text(encoding="utf-8"))
    assert not missing(trapped, traps), missing(trapped, traps)


def test_pickle_trap_fires_when_unpickled(trapped: TrapRoot) -> None:
    import pickle

    traps = of_kind(trapped, Kind.PICKLE)
    for trap in traps:
        with open(trapped.repo / trap.path, "rb") as handle:
            pickle.load(handle)
    assert not missing(trapped, traps), missing(trapped, traps)


def test_git_configuration_trap_fires_on_git_status(trapped: TrapRoot) -> None:
    git = shutil.which("git")
    if git is None:
        pytest.skip("git is not installed")
    run([git, "status"], trapped.repo, scrubbed_env(trapped.root, GIT_CONFIG_NOSYSTEM="1"))
    assert "git.core-fsmonitor" in trapped.fired()


def _scalars(node: object) -> Iterator[str]:
    from ruamel.yaml.nodes import MappingNode, ScalarNode, SequenceNode

    if isinstance(node, ScalarNode):
        yield node.value
    elif isinstance(node, SequenceNode):
        for item in node.value:
            yield from _scalars(item)
    elif isinstance(node, MappingNode):
        for key, value in node.value:
            yield from _scalars(key)
            yield from _scalars(value)


def test_trap_text_survives_yaml_quoting(trapped: TrapRoot) -> None:
    """Each trap in a YAML file is intact in one of the file's scalars, as a YAML reader sees it."""
    from ruamel.yaml import YAML

    composer = YAML(typ="rt")
    by_file: dict[str, list[Trap]] = {}
    for trap in trapped.traps.values():
        if trap.path.endswith((".yml", ".yaml")):
            by_file.setdefault(trap.path, []).append(trap)
    assert len(by_file) >= 20
    for path, traps in by_file.items():
        scalars = list(_scalars(composer.compose((trapped.repo / path).read_text(encoding="utf-8"))))
        for trap in traps:
            wanted = trap.payload.removeprefix("{{ ").removesuffix(" }}") if trap.payload else str(
                marker_dir(trapped.root) / trap.name)
            assert any(wanted in scalar for scalar in scalars), f"{trap.name} is mangled in {path}"


UNSANDBOXED = """\
import os, sys
sys.path.insert(0, __SOURCE__)  # the playbook-ls under test, whichever one is installed
import jinja2
import engine.templating.load_time as templating

def unsandboxed():
    env = jinja2.Environment(undefined=jinja2.StrictUndefined)
    env.globals["lookup"] = env.globals["query"] = env.globals["q"] = (
        lambda plugin, *terms, **options: [os.system(t) for t in terms] if plugin.endswith("pipe") else "")
    return env

assert hasattr(templating, "_environment"), "engine.templating.load_time._environment is gone: update this control"
templating._environment = unsandboxed

# playbook-ls templates a variable only when something reads it; read them all, so that every
# variable trap is one playbook-ls would template were it read
lazy_init = templating.LazyVars.__init__
def read_all(self, variables):
    lazy_init(self, variables)
    self.items()
templating.LazyVars.__init__ = read_all
from playbook_ls.cli.main import main
sys.exit(main(sys.argv[1:]))
"""


def test_control_the_traps_reach_playbook_ls_templating(trapped: TrapRoot) -> None:
    """Control: ``playbook-ls check`` with its sandbox swapped for a plain Jinja2 environment
    and a naive ``lookup`` fires dozens of traps. So the Jinja2 traps sit where playbook-ls
    templates, and the tests below test its sandbox, not code paths that never see a trap."""
    # -P: the repository (the working directory) must not be importable, or its playbook_ls/ would run
    program = UNSANDBOXED.replace("__SOURCE__", repr(str(Path(__file__).resolve().parents[2])))
    result = run([sys.executable, "-P", "-c", program, "check", ".", "--no-cache"], trapped.repo,
                 scrubbed_env(trapped.root))
    fired = set(trapped.fired())
    assert not {name for name in fired if name.startswith("shadow.")}, sorted(fired)
    expected = {"site.vars.lookup-pipe", "site.vars.query-pipe", "site.vars.cycler", "site.vars.mro-subclasses",
                "site.vars.template-reference", "site.play-tags.pipe", "site.import-tasks-path.pipe",
                "site.roles-entry-name.pipe", "site.vars-prompt-default.pipe", "site.vars-files-path.pipe",
                "templated.play-hosts.pipe", "templated.play-name.template-reference", "vars-files.pipe",
                "role.defaults.pipe", "role.vars.mro-subclasses", "trapped-deps.dependency-name.pipe",
                "listed.vars.cycler"}
    assert expected <= fired and len(fired) >= 40, f"{sorted(expected - fired)} did not fire\n{result}"


def test_the_sandbox_refuses_every_escape(tmp_path: Path) -> None:
    """engine.templating.load_time.render, in this process, on each escape alone."""
    from engine.templating.load_time import Unresolved, render, render_or

    marker_dir(tmp_path).mkdir()
    for which in JINJA_ESCAPES:
        payload = escape(tmp_path, which, f"render.{which}")
        try:
            value = render(payload, {"x": 1})
        except Unresolved:
            value = None
        assert value in (None, payload), (which, value)
        render_or([payload, "{{ x }}"], {"x": payload})
        render_or("{{ x }}", {"x": payload})  # a variable's value is templated recursively
    assert not markers(tmp_path), markers(tmp_path)


# --- playbook-ls runs none of them ---------------------------------------------------------


def _check_summary(result: Result) -> None:
    assert re.search(r"^(Found \d+ findings?|All checks passed) .*\b\d+ files\.$", result.stdout, re.M), str(result)


def _check_json(result: Result) -> None:
    summary = json.loads(result.stdout)["summary"]
    assert summary["playbooks"] >= 5 and summary["files"] >= 30 and summary["roles"] >= 3, summary


def _check_sarif(result: Result) -> None:
    data = json.loads(result.stdout)
    assert data["version"] == "2.1.0" and data["runs"][0]["results"], str(result)[:500]


def _check_github(result: Result) -> None:
    lines = [line for line in result.stdout.splitlines() if line]
    assert lines and all(line.startswith("::") for line in lines), str(result)


def _listed(result: Result) -> None:
    assert result.returncode == 0 and "listed task" in result.stdout and "evil_role : role more" in result.stdout, \
        str(result)


def _stopped_on_an_unresolvable_template(result: Result) -> None:
    assert result.returncode == 4 and "cannot resolve" in result.stderr, str(result)


@dataclass(frozen=True)
class Case:
    id: str
    args: tuple[str, ...]
    codes: frozenset[int]
    check: Callable[[Result], None] | None = None


CHECK = frozenset(CHECK_CODES)
LISTING = frozenset(LISTING_CODES)
CASES = [
    Case("check-text", ("check", "."), CHECK, _check_summary),
    Case("check-json", ("check", ".", "--format", "json"), CHECK, _check_json),
    Case("check-sarif", ("check", ".", "--format", "sarif"), CHECK, _check_sarif),
    Case("check-github", ("check", ".", "--format", "github"), CHECK, _check_github),
    Case("check-no-cache-one-job", ("check", ".", "--no-cache", "--jobs", "1", "--statistics", "--config",
                                    ".playbook-ls.yml"), CHECK),
    Case("list-tasks-inventory-script", ("list-tasks", "site.yml", "-i", "inventory.py"), LISTING,
         _stopped_on_an_unresolvable_template),
    Case("list-tasks-inventory-dir", ("list-tasks", "site.yml", "-i", "inventory/"), LISTING,
         _stopped_on_an_unresolvable_template),
    Case("list-tasks-inventory-plugin", ("list-tasks", "site.yml", "-i", "inventory.yml"), LISTING,
         _stopped_on_an_unresolvable_template),
    # the script is not run, so its hosts are unknown: --limit is not checked against them and the
    # listing goes on to stop at the first template it must not evaluate
    Case("list-tags-limit-inventory-script", ("list-tags", "site.yml", "-i", "inventory.py", "--limit", "somehost"),
         LISTING, _stopped_on_an_unresolvable_template),
    Case("list-tags-limit-inventory-dir", ("list-tags", "site.yml", "-i", "inventory/", "--limit", "somehost"),
         LISTING, _stopped_on_an_unresolvable_template),
    Case("list-tasks-resolving", ("list-tasks", "listed.yml", "-i", "inventory.py", "-i", "inventory/", "-i",
                                  "inventory.yml", "--limit", "web"), LISTING, _listed),
    Case("list-tasks-resolving-json", ("list-tasks", "listed.yml", "--format", "json", "-e", "@extra_vars.yml"),
         LISTING, lambda r: _check_tasks_json(r, 15)),
    Case("list-tags-resolving", ("list-tags", "listed.yml", "--tags", "listed,role", "--skip-tags", "never"), LISTING,
         lambda r: None if r.returncode == 0 and "TASK TAGS" in r.stdout else pytest.fail(str(r))),
    # playbooks load in order and the first fatal problem stops the listing: the fatal ones come last
    Case("list-tasks-every-playbook", ("list-tasks", "listed.yml", "playbooks/python_tags.yml",
                                       "roles/evil_role/tests/test.yml",
                                       "roles/evil_role/molecule/default/converge.yml",
                                       "roles/evil_role/files/looks-like-a-playbook.yml", "playbooks/collection.yml",
                                       "plays/templated.yml"), LISTING,
         # the collection's role and module are found (without running its code): the listing
         # stops only at the last playbook's lookup
         lambda r: None if "plays/templated.yml" in r.stderr else pytest.fail(f"stopped too early\n{r}")),
    Case("list-tags-templated-plays", ("list-tags", "plays/templated.yml"), LISTING,
         _stopped_on_an_unresolvable_template),
]


def _check_tasks_json(result: Result, at_least: int) -> None:
    assert result.returncode == 0, str(result)
    tasks = [t for book in json.loads(result.stdout)["playbooks"] for play in book["plays"] for t in play["tasks"]]
    assert len(tasks) >= at_least, len(tasks)


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_playbook_ls_runs_nothing_from_the_repository(trapped: TrapRoot, case: Case) -> None:
    result = trapped.playbook_ls(*case.args)
    assert result.returncode in case.codes, str(result)
    if case.check:
        case.check(result)


def test_command_line_values_are_not_run_either(trapped: TrapRoot) -> None:
    """Extra vars and tags from the command line are templated in the sandbox too."""
    root = trapped.root
    extra = json.dumps({"cli_json": escape(root, "cycler", "cli.extra-vars-json.cycler"),
                        "cli_json_mro": escape(root, "mro-subclasses", "cli.extra-vars-json.mro-subclasses")})
    for playbook in ("listed.yml", "site.yml"):
        result = trapped.playbook_ls(
            "list-tasks", playbook,
            "-e", f"cli_kv={pipe_lookup(root, 'cli.extra-vars-kv.pipe')}",
            "-e", extra,
            "-e", "@extra_vars.yml",
            "-e", f"l_tag={escape(root, 'template-reference', 'cli.extra-vars-override.template-reference')}",
            "--tags", pipe_lookup(root, "cli.tags.pipe"),
            "--skip-tags", escape(root, "lipsum", "cli.skip-tags.lipsum"))
        assert result.returncode in LISTING_CODES, str(result)


def test_a_second_check_reads_its_cache_and_runs_nothing(trapped: TrapRoot) -> None:
    first = trapped.playbook_ls("check", ".", "--format", "json")
    second = trapped.playbook_ls("check", ".", "--format", "json")
    assert first.returncode == second.returncode and json.loads(first.stdout) == json.loads(second.stdout)
    assert any((trapped.root / "cache").iterdir()), "the check cache was not written"


def test_check_with_pyproject_settings(trapped: TrapRoot) -> None:
    (trapped.repo / ".playbook-ls.yml").unlink()  # pyproject.toml's [tool.playbook-ls] is used instead
    result = trapped.playbook_ls("check", ".", "--format", "json")
    assert result.returncode in CHECK_CODES, str(result)
    _check_json(result)


def test_hostile_ansible_environment(trapped: TrapRoot) -> None:
    """The user's ANSIBLE_* variables may point into the repository too; they change nothing."""
    env = scrubbed_env(
        trapped.root,
        ANSIBLE_CONFIG="ansible.cfg",
        ANSIBLE_INVENTORY="inventory.py,inventory/,inventory.yml",
        ANSIBLE_VAULT_PASSWORD_FILE="vault-pass.sh",
        ANSIBLE_VAULT_IDENTITY_LIST="dev@vault-id-client.py",
        ANSIBLE_FILTER_PLUGINS="filter_plugins",
        ANSIBLE_LOOKUP_PLUGINS="lookup_plugins",
        ANSIBLE_TEST_PLUGINS="test_plugins",
        ANSIBLE_LIBRARY="library",
        ANSIBLE_MODULE_UTILS="module_utils",
        ANSIBLE_ACTION_PLUGINS="action_plugins",
        ANSIBLE_CALLBACK_PLUGINS="callback_plugins",
        ANSIBLE_CALLBACKS_ENABLED="evil_callback",
        ANSIBLE_STDOUT_CALLBACK="evil_stdout",
        ANSIBLE_VARS_PLUGINS="vars_plugins",
        ANSIBLE_VARS_ENABLED="host_group_vars,evil_vars",
        ANSIBLE_INVENTORY_PLUGINS="inventory_plugins",
        ANSIBLE_INVENTORY_ENABLED="evil_inv,script,auto,yaml,ini,constructed",
        ANSIBLE_COLLECTIONS_PATH="collections",
        ANSIBLE_ROLES_PATH="roles:more_roles",
        ANSIBLE_RUN_TAGS=pipe_lookup(trapped.root, "env.run-tags.pipe"),
    )
    for args in (("check", "."), ("list-tasks", "listed.yml", "site.yml", "--limit", "web")):
        result = trapped.playbook_ls(*args, env=env)
        assert result.returncode in (CHECK_CODES if args[0] == "check" else LISTING_CODES), str(result)


@pytest.mark.parametrize("variable", ["PLAYBOOK_LS_CACHE_DIR", "XDG_CACHE_HOME"])
def test_a_cache_directory_inside_the_repository_runs_nothing(trapped: TrapRoot, variable: str) -> None:
    env = scrubbed_env(trapped.root)
    del env["PLAYBOOK_LS_CACHE_DIR"]
    env[variable] = ".cache/playbook-ls" if variable == "PLAYBOOK_LS_CACHE_DIR" else ".cache"
    result = trapped.playbook_ls("check", ".", env=env)
    assert result.returncode in CHECK_CODES, str(result)


# --- contrast: what running something from the repository does -----------------------------


@pytest.mark.ansible
def test_ansible_syntax_check_runs_repository_code(trapped: TrapRoot) -> None:
    """Why the rule matters: even ``ansible-playbook --syntax-check`` runs repository code.

    With ansible-core 2.19 and the trap repository's ansible.cfg it runs the vault password
    script and the vault-id client script, imports the inventory plugin, runs the inventory
    script, imports the vars, cache, connection and become plugins, and templates the
    ``import_playbook`` path, running its ``lookup('pipe')``. It stops at the first
    unresolvable import, so the rest of the playbook's traps are never reached.
    """
    executable = BIN / "ansible-playbook"
    if not executable.is_file():
        pytest.skip("ansible-playbook is not installed next to the test interpreter")
    result = run([str(executable), "--syntax-check", "-i", "inventory.py", "site.yml"], trapped.repo,
                 scrubbed_env(trapped.root))
    fired = set(trapped.fired())
    expected = {"vault-password-file", "vault-id-client", "inventory-plugin", "inventory-script", "vars-plugin",
                "site.import-playbook-path.pipe"}
    assert expected <= fired, f"not fired: {sorted(expected - fired)}; fired: {sorted(fired)}\n{result}"


def test_python_m_inside_the_repository_imports_the_repository(trapped: TrapRoot) -> None:
    """Why the console script (or ``python -P``) matters: ``python -m playbook_ls`` puts the
    working directory first on sys.path, so inside a repository with a ``playbook_ls/``
    directory it runs the repository's code before a line of playbook-ls. A language client
    must not start the server that way with the workspace as its working directory."""
    env = scrubbed_env(trapped.root)
    unsafe = run([sys.executable, "-m", "playbook_ls", "--version"], trapped.repo, env)
    assert "shadow.playbook-ls" in trapped.fired(), str(unsafe)
    for name in trapped.fired():
        (marker_dir(trapped.root) / name).unlink()
    safe = run([sys.executable, "-P", "-m", "playbook_ls", "--version"], trapped.repo, env)
    assert safe.returncode == 0 and "playbook-ls" in safe.stdout, str(safe)
    trapped.assert_nothing_ran(safe)
