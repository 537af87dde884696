"""The static resolver: provenance of inherited keywords, and every error path as a value."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from engine.loading.resolve import Resolver

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "tag-inheritance" / "playbook.yml"


def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root / "site.yml"


def load(root: Path, files: dict[str, str]):
    return Resolver().load_playbook(str(write(root, files)))


def test_same_file_through_two_paths_gives_two_contexts() -> None:
    book = Resolver().load_playbook(str(EXAMPLE))
    assert not book.problems
    subs = [t for t in book.plays[0].all_tasks() if t.name == "other_sub"]
    assert [sorted(t.tag_set()) for t in subs] == [["__play", "__role2"], ["__other", "__play"]]
    origin = {s.value: s.frame.kind for s in subs[0].effective_tags()}
    assert origin == {"__play": "play", "__role2": "roles"}
    assert subs[1].chain[1].kind == "import_role" and subs[1].chain[-2].kind == "import_tasks"


def test_tag_origin_points_at_the_tags_value() -> None:
    book = Resolver().load_playbook(str(EXAMPLE))
    task2 = next(t for t in book.plays[0].all_tasks() if t.name == "task2")
    role_tag = next(s for s in task2.effective_tags() if s.value == "__role1")
    assert role_tag.span is not None and (role_tag.span.line, role_tag.span.col) == (15, 12)
    assert task2.display_name() == "sample : task2"


def test_when_is_prepended_outer_first(tmp_path: Path) -> None:
    book = load(tmp_path, {
        "site.yml": "- hosts: all\n  roles:\n    - role: r\n      when: outer\n",
        "roles/r/tasks/main.yml": "- block:\n    - debug: msg=x\n      when: inner\n  when: middle\n",
    })
    [task] = book.plays[0].all_tasks()
    assert [s.value for s in task.effective_when()] == ["outer", "middle", "inner"]


def test_replace_keywords_take_the_nearest(tmp_path: Path) -> None:
    book = load(tmp_path, {"site.yml": "- hosts: all\n  become: true\n  tasks:\n    - block:\n"
                                       "        - debug: msg=x\n      become: false\n"})
    [task] = book.plays[0].all_tasks()
    value = task.effective("become")
    assert value.value is False and value.frame.kind == "block"


def test_dependencies_inherit_the_parent_entry(tmp_path: Path) -> None:
    book = load(tmp_path, {
        "site.yml": "- hosts: all\n  roles:\n    - {role: app, tags: [app]}\n",
        "roles/app/meta/main.yml": "dependencies:\n  - {role: common, tags: [base]}\n",
        "roles/app/tasks/main.yml": "- debug: msg=app\n",
        "roles/common/tasks/main.yml": "- name: c\n  debug: msg=common\n",
    })
    tasks = list(book.plays[0].all_tasks())
    assert [t.display_name() for t in tasks] == ["common : c", "debug"]
    assert tasks[0].tag_set() == {"app", "base"} and tasks[1].tag_set() == {"app"}


def test_include_keeps_its_own_tags_to_itself(tmp_path: Path) -> None:
    book = load(tmp_path, {
        "site.yml": "- hosts: all\n  tags: p\n  tasks:\n"
                    "    - include_tasks: {file: inc.yml, apply: {tags: [applied]}}\n"
                    "      tags: [inc]\n",
        "inc.yml": "- debug: msg=x\n",
    })
    [include] = book.plays[0].all_tasks()
    [child] = [t for b in include.children for t in b.tasks()]
    assert include.tag_set() == {"p", "inc"} and child.dynamic
    assert child.tag_set() == {"p", "applied"}


@pytest.mark.parametrize(
    ("files", "code", "where"),
    [
        ({"site.yml": "- hosts: all\n  roles: [missing]\n"}, "unresolved-role", ("site.yml", 1)),
        ({"site.yml": "- hosts: all\n  tasks:\n    - import_tasks: nope.yml\n"}, "unresolved-import", ("site.yml", 2)),
        ({"site.yml": "- hosts: all\n  tasks:\n    - debug: msg=x\n   oops: 1\n"}, "yaml-syntax", ("site.yml", 3)),
        ({"site.yml": "- hosts: all\n  taks: []\n"}, "unknown-keyword", ("site.yml", 1)),
        ({"site.yml": "- hosts: all\n  tasks:\n    - import_tasks: a.yml\n",
          "a.yml": "- import_tasks: b.yml\n", "b.yml": "- import_tasks: a.yml\n"}, "import-cycle", ("b.yml", 0)),
        ({"site.yml": "- import_playbook: site.yml\n"}, "import-cycle", ("site.yml", 0)),
        ({"site.yml": "- hosts: all\n  roles: [a]\n", "roles/a/meta/main.yml": "dependencies: [b]\n",
          "roles/b/meta/main.yml": "dependencies: [a]\n"}, "import-cycle", ("main.yml", 0)),
        ({"site.yml": "- hosts: all\n  tasks:\n    - import_tasks: t.yml\n", "t.yml": "name: not a list\n"},
         "invalid-structure", ("t.yml", 0)),
        ({"site.yml": "hosts: all\n"}, "invalid-structure", ("site.yml", 0)),
        ({"site.yml": "- hosts: all\n  tasks:\n    - name: no module\n"}, "invalid-task", ("site.yml", 2)),
        ({"site.yml": "- tasks: []\n"}, "invalid-structure", ("site.yml", 0)),
        ({"site.yml": "- hosts: all\n  tasks:\n    - import_role: {name: r, tasks_from: nope}\n",
          "roles/r/tasks/main.yml": "- debug:\n"}, "unresolved-import", ("site.yml", 2)),
    ],
)
def test_errors_are_positioned_problems(tmp_path: Path, files: dict[str, str], code: str,
                                        where: tuple[str, int]) -> None:
    book = load(tmp_path, files)
    problem = book.fatal_problems()[0]
    assert problem.code == code
    assert problem.span is not None and problem.span.file.endswith(where[0]) and problem.span.line == where[1]
    assert str(problem).startswith(problem.span.file)


def test_deep_nesting_is_reported_not_a_recursion_error(tmp_path: Path) -> None:
    files = {"site.yml": "- hosts: all\n  tasks:\n    - import_tasks: t0.yml\n"}
    files.update({f"t{i}.yml": f"- import_tasks: t{i + 1}.yml\n" for i in range(200)})
    files["t200.yml"] = "- debug: msg=end\n"
    book = load(tmp_path, files)
    assert any(p.code == "import-depth" for p in book.problems)  # depth, not a cycle (see test_import_depth)


def test_duplicate_roles_are_marked_unless_allowed(tmp_path: Path) -> None:
    book = load(tmp_path, {
        "site.yml": "- hosts: all\n  roles: [r, r, {role: r, tags: [x]}, d, d]\n",
        "roles/r/tasks/main.yml": "- debug: msg=r\n",
        "roles/d/tasks/main.yml": "- debug: msg=d\n",
        "roles/d/meta/main.yml": "allow_duplicates: true\n",
    })
    roles = [t.role for t in book.plays[0].all_tasks()]
    assert [r.duplicate_of is not None for r in roles] == [False, True, False, False, False]
    assert roles[1].duplicate_of is roles[0]


def test_a_playbook_that_expands_too_far_is_stopped_with_a_problem(tmp_path, monkeypatch) -> None:
    """An editor buffer can multiply two huge files into millions of tasks: resolution stops."""
    import engine.loading.tasks as tasks_module
    from engine.loading.resolve import Resolver

    monkeypatch.setattr(tasks_module, "MAX_ENTRIES", 50)
    (tmp_path / "many.yml").write_text("- debug: msg=x\n" * 10)
    (tmp_path / "site.yml").write_text("- hosts: all\n  tasks:\n" + "    - import_tasks: many.yml\n" * 10)
    book = Resolver().load_playbook(str(tmp_path / "site.yml"))
    assert book.plays == []
    assert [p.code for p in book.problems] == ["invalid-structure"]
    assert "expands to more than 50 tasks" in book.problems[0].message


def test_closest_keyword_memo_gives_the_same_answers() -> None:
    from engine.loading.keywords import TASK_KEYWORDS, closest_keyword

    assert closest_keyword("whne", TASK_KEYWORDS) == closest_keyword("whne", set(TASK_KEYWORDS)) == "when"
    assert closest_keyword("x" * 100, TASK_KEYWORDS) is None


def _doubling_dependencies(levels: int) -> dict[str, str]:
    """Roles r1..r<levels>, each depending twice on the next: 2**levels - 1 role uses in ansible."""
    files = {"site.yml": "- hosts: all\n  roles: [r1]\n"}
    for level in range(1, levels + 1):
        files[f"roles/r{level}/tasks/main.yml"] = f"- debug: msg=r{level}\n"
        if level < levels:
            files[f"roles/r{level}/meta/main.yml"] = f"dependencies:\n  - r{level + 1}\n  - r{level + 1}\n"
    return files


def test_role_dependency_fan_out_is_listed_in_full_like_ansible(tmp_path: Path) -> None:
    book = load(tmp_path, _doubling_dependencies(8))
    assert not book.problems
    assert len(list(book.plays[0].all_tasks())) == 2**8 - 1  # ansible lists every use; only a run skips duplicates


def test_exponential_role_dependencies_are_cut_and_reported(tmp_path: Path) -> None:
    from engine.loading.roles import MAX_ROLE_USES

    started = time.monotonic()
    book = load(tmp_path, _doubling_dependencies(25))  # 33 million uses: hours without the limit
    assert time.monotonic() - started < 60
    [problem] = book.problems
    assert problem.code == "invalid-structure" and f"{MAX_ROLE_USES:,} role uses" in problem.message
    assert problem.span is not None and problem.span.file.endswith("meta/main.yml") and problem.span.line == 1
    assert len(list(book.plays[0].all_tasks())) == MAX_ROLE_USES  # one task per role use that was kept
