"""A play several playbooks import is resolved once (engine.loading.shared_plays), a role
several plays list is compiled once per context (engine.loading.shared_roles): sharing never
changes what a playbook resolves to."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from engine.loading.model import Playbook, Task
from engine.loading.resolve import Resolver
from engine.loading.shared_plays import SharedPlays
from engine.parsing.source import SourceCache, files_changed

SCENARIOS = Path(__file__).resolve().parents[1] / "differential" / "scenarios"
WRAPPERS = {
    "wrap_a.yml": "- import_playbook: site.yml\n",
    "wrap_b.yml": "- name: again\n  import_playbook: site.yml\n",
    "wrap_tagged.yml": "- import_playbook: site.yml\n  tags: [wrapped]\n  vars: {wrapped_var: 1}\n",
    "wrap_c.yml": "- import_playbook: site.yml\n",
}


def _span(span: Any) -> Any:
    return None if span is None else tuple(span)


def _task(task: Task) -> list[Any]:
    described = [task.display_name(), task.action, _span(task.span), task.handler, task.dynamic, task.implicit,
                 sorted(map(repr, task.tag_set())),
                 [(repr(s.value), s.frame.kind, s.frame.label, _span(s.span)) for s in task.effective_tags()],
                 [(repr(s.value), s.frame.kind, s.frame.label) for s in task.effective_when()],
                 # the levels that set something (one that sets nothing is inert: see the module)
                 [(f.kind, f.label, _span(f.span), repr(sorted(f.keywords))) for f in task.chain if f.keywords],
                 task.role.name if task.role is not None else None, task.include_resolved]
    described.append([_task(child) for block in task.children for child in block.tasks()])
    return described


def describe(book: Playbook, reads: list[str], resolver: Resolver) -> dict[str, Any]:
    return {
        "plays": [(play.name, play.hosts, play.tags, _span(play.span), play.templated_tags,
                   [_task(task) for block in (*play.compile(), *play.handlers) for task in block.tasks()],
                   sorted(str(problem) for problem in play.problems), sorted(play.reads), play.position)
                  for play in book.plays],
        "problems": [(str(p), p.fatal, p.exit_code, p.after_load) for p in book.problems],
        "reads": sorted({os.path.realpath(path) for path in reads}),
        "plugins": (list(book.plugins.module_paths), list(book.plugins.action_paths)) if book.plugins else None,
        "unchecked": resolver.unchecked_modules,
    }


def resolve_all(root: Path, playbooks: list[str], shared: bool) -> tuple[list[dict[str, Any]], int]:
    found, share = _resolve_all(root, playbooks, shared)
    return found, share.hits if share is not None else 0


def _resolve_all(root: Path, playbooks: list[str], shared: bool) -> tuple[list[dict[str, Any]], SharedPlays | None]:
    files_changed()
    sources = SourceCache()
    share = SharedPlays() if shared else None
    sources.shared_plays = share
    found = []
    before = os.getcwd()
    os.chdir(root)
    try:
        for playbook in playbooks:
            if not shared:
                sources = SourceCache()  # each playbook alone, as before
            resolver = Resolver(sources)
            with sources.tracking() as reads:
                book = resolver.load_playbook(playbook)
            found.append(describe(book, reads, resolver))
    finally:
        os.chdir(before)
    return found, share


def wrapped(scenario: Path, tmp_path: Path) -> Path:
    root = tmp_path / scenario.name
    shutil.copytree(scenario, root, symlinks=True)
    for name, text in WRAPPERS.items():
        (root / name).write_text(text)
    # the same plays in another file: resolved again, their roles: entries taken from site.yml's
    (root / "site_copy.yml").write_text((root / "site.yml").read_text())
    return root


@pytest.mark.parametrize("scenario", sorted(p for p in SCENARIOS.iterdir() if (p / "site.yml").is_file()),
                         ids=lambda p: p.name)
def test_shared_resolution_is_the_unshared_one(scenario: Path, tmp_path: Path) -> None:
    root = wrapped(scenario, tmp_path)
    playbooks = ["site.yml", *WRAPPERS, "site_copy.yml"]
    alone, _ = resolve_all(root, playbooks, shared=False)
    together, share = _resolve_all(root, playbooks, shared=True)
    assert together == alone
    assert share is not None
    if alone[2]["plays"]:  # wrap_b.yml and wrap_c.yml take wrap_a.yml's plays
        assert share.hits >= 2 * len(alone[2]["plays"])
    if "roles:" in (root / "site.yml").read_text() and not alone[0]["problems"]:
        assert share.roles.hits > 0  # site_copy.yml's roles: entries
    assert list(reversed(resolve_all(root, playbooks[::-1], shared=True)[0])) == alone


FLEET = {
    "playbooks/common.yml": """
- hosts: all
  roles: [{role: base, tags: [base]}]
  tasks:
    - name: common task
      debug: {msg: "{{ common_var | default('x') }}"}
      tags: ["{{ tag_from_var }}"]
      when: common_flag | default(true)
  vars: {tag_from_var: templated}
""",
    "playbooks/broken.yml": """
- hosts: db
  tasks:
    - name: a module nobody has
      no_such_namespace.no_such.module: {}
    - include_tasks: missing.yml
""",
    "playbooks/cluster.yml": """
- import_playbook: common.yml
- import_playbook: common.yml
  tags: [again]
  when: second | default(false)
- import_playbook: broken.yml
- hosts: web
  roles: [base]
""",
    "cluster.yml": "- import_playbook: playbooks/cluster.yml\n",
    "scale.yml": "- name: scale\n  import_playbook: playbooks/cluster.yml\n",
    "recover.yml": "- import_playbook: playbooks/common.yml\n  vars: {common_var: recovered}\n",
    "playbooks/library/custom_module.py": "# a module of the playbooks\n",
    "playbooks/roles/base/tasks/main.yml": "- name: base task\n  custom_module: {}\n  tags: [inner]\n",
    "playbooks/roles/base/library/role_module.py": "# a role's module\n",
    "playbooks/roles/base/handlers/main.yml": "- name: restart\n  debug: {}\n",
}


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def test_entry_playbooks_share_the_plays_they_import(tmp_path: Path) -> None:
    _write(tmp_path, FLEET)
    playbooks = ["cluster.yml", "scale.yml", "recover.yml", "playbooks/cluster.yml"]
    alone, _ = resolve_all(tmp_path, playbooks, shared=False)
    together, hits = resolve_all(tmp_path, playbooks, shared=True)
    assert together == alone
    assert hits >= 4  # scale.yml takes cluster.yml's plays (the tagged import's alone are its own)
    assert any(problem[0].find("no_such_namespace") >= 0 for problem in together[1]["problems"])


def test_a_change_of_the_files_starts_over(tmp_path: Path) -> None:
    _write(tmp_path, FLEET)
    share = SharedPlays()
    sources = SourceCache()
    sources.shared_plays = share
    before = os.getcwd()
    os.chdir(tmp_path)
    try:
        Resolver(sources).load_playbook("cluster.yml")
        (tmp_path / "playbooks/roles/base/tasks/main.yml").write_text("- name: renamed task\n  debug: {}\n")
        files_changed()
        book = Resolver(sources).load_playbook("scale.yml")
    finally:
        os.chdir(before)
    assert share.hits == 0
    assert "base : renamed task" in [t.display_name() for p in book.plays for t in p.all_tasks()]


ROLES = {
    "one.yml": """
- hosts: web
  vars: {tier: front}
  roles:
    - {role: app, tags: [app]}
    - {role: app, tags: [again]}
    - role: app
      vars: {port: 81}
  handlers:
    - name: own handler
      debug: {}
- hosts: web
  vars: {tier: front}
  roles: [pending]
""",
    "two.yml": """
- hosts: db
  vars: {tier: front}
  roles: [{role: app, when: db_ok | bool}, dep_only]
- hosts: db
  vars: {tier: back}
  roles: [app]
""",
    "three.yml": """
- hosts: all
  vars: {tier: front}
  roles: [app, {role: pending, tags: [p]}, broken]
""",
    "roles/app/tasks/main.yml": """
- name: app task
  debug: {msg: "{{ port | default(80) }}"}
  tags: ["{{ tier }}"]
  notify: restart app
- include_tasks: more.yml
- import_role: {name: dep_only}
""",
    "roles/app/tasks/more.yml": "- name: more\n  debug: {}\n  tags: [more]\n",
    "roles/app/handlers/main.yml": "- name: restart app\n  debug: {}\n",
    "roles/app/meta/main.yml": "dependencies: [{role: base, tags: [from_dep]}]\n",
    "roles/base/tasks/main.yml": "- name: base task\n  debug: {}\n",
    "roles/dep_only/tasks/main.yml": "- name: dep only task\n  debug: {}\n",
    "roles/dep_only/handlers/main.yml": "- name: dep handler\n  debug: {}\n",
    "roles/pending/tasks/main.yml": "- include_tasks: '{{ tier }}.yml'\n",
    "roles/pending/tasks/front.yml": "- name: front task\n  debug: {}\n",
    "roles/broken/tasks/main.yml": "- include_tasks: missing.yml\n- name: after\n  debug: {}\n",
}


def test_plays_listing_a_role_share_its_compile(tmp_path: Path) -> None:
    """Each play gets its own copy: its frames in the chains, its tags templated with its vars,
    its duplicates marked, its handlers; a role whose compile depends on its play is compiled again."""
    _write(tmp_path, ROLES)
    playbooks = ["one.yml", "two.yml", "three.yml", "one.yml"]
    alone, _ = resolve_all(tmp_path, playbooks, shared=False)
    together, share = _resolve_all(tmp_path, playbooks, shared=True)
    assert together == alone
    assert share is not None and share.roles.hits >= 4
    # each play followed its own copy of the pending role's include
    followed = [[child[0] for child in task[-1]] for book in (together[0], together[2]) for play in book["plays"]
                for task in play[5] if task[1] == "include_tasks" and str(task[-2]).endswith("front.yml")]
    assert followed == [["pending : front task"]] * 2
    def app_tags(play: tuple[Any, ...]) -> list[list[str]]:
        return [task[6] for task in play[5] if task[0] == "app : app task"]

    assert [app_tags(play) for play in together[1]["plays"]] == [[["'front'"]], [["'back'"]]]
