"""Hovers on one token: module, tag, role, import path, handler; None elsewhere."""

from __future__ import annotations

from pathlib import Path

import pytest
from editing_workspace import make_workspace
from hypothesis import given, settings
from hypothesis import strategies as st

from playbook_ls.features.token_hover import token_at, token_hover
from playbook_ls.features.workspace import WorkspaceIndex
from playbook_ls.features.yamltext import Doc


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_workspace(tmp_path_factory.mktemp("hover"))


@pytest.fixture(scope="module")
def index(root: Path) -> WorkspaceIndex:
    index = WorkspaceIndex(str(root))
    index.index()
    return index


@pytest.fixture(autouse=True)
def in_root(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(root)  # places are printed relative to the cwd, as the server's are


def hover_on(index: WorkspaceIndex, root: Path, name: str, needle: str, occurrence: int = 0,
             offset: int = 1) -> str | None:
    """Hover ``offset`` characters into the ``occurrence``-th ``needle`` of file ``name``."""
    lines = (root / name).read_text().splitlines()
    hits = [(number, line.index(needle)) for number, line in enumerate(lines) if needle in line]
    number, column = hits[occurrence]
    return token_hover(index, str(root / name), number, column + offset)


def test_module_key_shows_description_and_options_required_first(index: WorkspaceIndex, root: Path) -> None:
    text = hover_on(index, root, "site.yml", "ansible.builtin.template:", offset=20)
    assert text is not None
    assert text.startswith("**ansible.builtin.template** — Template a file out to a target host")
    assert text.index("`src` *path, required*") < text.index("`dest` *path, required*") < text.index("`mode`")
    assert "more:" in text  # long option lists end with the names only
    short = hover_on(index, root, "roles/web/handlers/main.yml", "service:")
    assert short is not None and short.startswith("**ansible.builtin.service**")


def test_tag_value_lists_tasks_carrying_it(index: WorkspaceIndex, root: Path) -> None:
    text = hover_on(index, root, "site.yml", "tags: web", offset=7)
    assert text is not None
    assert text.startswith("**tag `web`** — carried by 2 tasks")  # the handler is not counted
    assert "- `roles/web/tasks/main.yml:1` web : install web" in text
    assert "- `roles/common/tasks/main.yml:1` common : common step" in text
    item = hover_on(index, root, "site.yml", "- config", offset=3)
    assert item is not None and "carried by 2 tasks" in item and "`other.yml:3` other task" in item
    inline = hover_on(index, root, "site.yml", "[site]", offset=2)
    assert inline is not None and "**tag `site`**" in inline


def test_role_names_everywhere_they_are_written(index: WorkspaceIndex, root: Path) -> None:
    entry = hover_on(index, root, "site.yml", "role: web", offset=7)
    assert entry is not None
    assert entry.startswith("**role `web`** · `roles/web`")
    assert "1 task, 1 handler" in entry and "`site.yml:4` roles: entry" in entry
    for name, needle, offset in (("site.yml", "- common", 3), ("site.yml", "name: common", 8),
                                 ("roles/web/meta/main.yml", "role: common", 7)):
        text = hover_on(index, root, name, needle, offset=offset)
        assert text is not None and text.startswith("**role `common`** · `roles/common`"), (name, needle)
        assert "`roles/web/meta/main.yml:2` dependency of `web`" in text
        assert "`site.yml:6` roles: entry" in text and "import_role" in text


def test_import_and_include_paths(index: WorkspaceIndex, root: Path) -> None:
    found = hover_on(index, root, "site.yml", "tasks/setup.yml", offset=3)
    assert found == "**tasks/setup.yml** → `tasks/setup.yml`"
    dynamic = hover_on(index, root, "site.yml", "tasks/dynamic.yml", offset=3)
    assert dynamic == "**tasks/dynamic.yml** → `tasks/dynamic.yml`"
    playbook = hover_on(index, root, "site.yml", "other.yml", offset=2)
    assert playbook == "**other.yml** → `other.yml`"
    missing = hover_on(index, root, "site.yml", "tasks/missing.yml", offset=3)
    assert missing is not None and "not found" in missing and "Looked for" in missing


def test_notify_names_the_handler(index: WorkspaceIndex, root: Path) -> None:
    text = hover_on(index, root, "site.yml", "restart web", offset=2)
    assert text == "**handler `restart web`** — defined at:\n\n- `roles/web/handlers/main.yml:1` web : restart web"
    listen = hover_on(index, root, "other.yml", "reload all", offset=2)
    assert listen is not None and "`site.yml:25` local handler" in listen
    from_role = hover_on(index, root, "roles/web/tasks/main.yml", "restart web", offset=2)
    assert from_role is not None and "roles/web/handlers/main.yml:1" in from_role
    unknown = token_hover(index, str(root / "site.yml"), 17, 0)
    assert unknown is None


def test_none_elsewhere_so_the_task_hover_applies(index: WorkspaceIndex, root: Path) -> None:
    for needle, offset in (("name: Configure", 8), ("name: Configure", 1), ("hosts: web", 8), ("src: a.j2", 7)):
        assert hover_on(index, root, "site.yml", needle, offset=offset) is None, needle
    assert token_hover(index, str(root / "site.yml"), 999, 0) is None


def test_broken_text_still_answers(index: WorkspaceIndex, root: Path) -> None:
    path = str(root / "site.yml")
    broken = (root / "site.yml").read_text().replace("      tags:\n        - config", "      tags: [config, ")
    index.set_document(path, broken)
    try:
        lines = broken.splitlines()
        number = next(n for n, line in enumerate(lines) if "tags: [config" in line)
        text = token_hover(index, path, number, lines[number].index("config") + 1)
        assert text is not None and "**tag `config`**" in text
    finally:
        index.set_document(path, None)


@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet=list(" -:#[],'\"|>\nabtagsnmekyloc.{}&*!\t😀"), max_size=120),
       line=st.integers(0, 12), column=st.integers(0, 40))
def test_any_text_at_any_position_never_raises(text: str, line: int, column: int) -> None:
    token = token_at(Doc(text), line, column, "play")
    assert token is None or token.kind in ("key", "value", "item")
