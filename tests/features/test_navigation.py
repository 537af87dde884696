"""Definition and references as pure functions over an indexed repository."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from navigation_repo import Repo, build, indexed_repo

from playbook_ls.features import navigation, yamlnav
from playbook_ls.features.navigation import definition, references


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Repo]:
    yield from indexed_repo(tmp_path_factory)


def test_role_names_lead_to_the_role_entry_file(repo: Repo) -> None:
    assert repo.where(definition(repo.index, *repo.at("web.yml", "role: web", offset=8))) == [
        ("roles/web/tasks/main.yml", 0, "")]
    assert repo.where(definition(repo.index, *repo.at("web.yml", "name: base", offset=7))) == [
        ("roles/base/tasks/main.yml", 0, "")]
    # a meta dependency, and an import_role in a role no playbook uses
    assert repo.where(definition(repo.index, *repo.at("roles/web/meta/main.yml", "base"))) == [
        ("roles/base/tasks/main.yml", 0, "")]
    assert repo.where(definition(repo.index, *repo.at("roles/lonely/tasks/main.yml", "base"))) == [
        ("roles/base/tasks/main.yml", 0, "")]


def test_import_and_include_targets_lead_to_the_file(repo: Repo) -> None:
    cases = [
        (("site.yml", "web.yml"), "web.yml"),
        (("web.yml", "tasks/prepare.yml"), "tasks/prepare.yml"),  # include_tasks: what the resolver found
        (("web.yml", "tasks/common.yml"), "tasks/common.yml"),  # import_tasks with file:
        (("tasks/common.yml", "more.yml"), "tasks/more.yml"),  # relative to the importing file
        (("web.yml", "extra"), "roles/base/tasks/extra.yml"),  # tasks_from
    ]
    for (name, needle), expected in cases:
        assert repo.where(definition(repo.index, *repo.at(name, needle))) == [(expected, 0, "")], needle


def test_notify_leads_to_handlers_by_name_and_listen(repo: Repo) -> None:
    both = [("roles/web/handlers/main.yml", 0, "restart web"), ("roles/web/handlers/main.yml", 2, "also restart")]
    assert repo.where(definition(repo.index, *repo.at("web.yml", "restart web"))) == both
    assert repo.where(definition(repo.index, *repo.at("roles/web/tasks/main.yml", "restart web"))) == both
    assert repo.where(definition(repo.index, *repo.at("web.yml", "reload things"))) == [
        ("web.yml", 30, "reload things")]
    assert definition(repo.index, *repo.at("roles/lonely/tasks/main.yml", "nobody")) == []


def test_nothing_to_follow_elsewhere(repo: Repo) -> None:
    assert definition(repo.index, *repo.at("web.yml", "hosts")) == []
    assert definition(repo.index, *repo.at("web.yml", "msg=hi")) == []
    assert references(repo.index, *repo.at("web.yml", "debug")) == []


def test_tag_references_are_carriers_then_written_places(repo: Repo) -> None:
    found = repo.where(references(repo.index, *repo.at("web.yml", "www")))
    carriers = [place for place in found if place[2] != "www"]
    assert ("roles/web/tasks/main.yml", 0, "install web") in carriers
    assert ("roles/base/tasks/main.yml", 0, "base main") in carriers  # through the web role's dependency
    assert ("roles/web/handlers/main.yml", 0, "restart web") in carriers
    assert ("web.yml", 4, "prepare") not in carriers
    assert found[-1] == ("web.yml", 8, "www")  # the part of the comma string, not the whole value


def test_tag_references_find_quoted_imported_and_apply_tags(repo: Repo) -> None:
    found = repo.where(references(repo.index, *repo.at("web.yml", "front")))
    assert found[-1] == ("web.yml", 2, "front")  # without the quotes
    assert ("tasks/more.yml", 0, "more") in found
    nightly = repo.where(references(repo.index, *repo.at("site.yml", "nightly")))
    assert nightly[-1] == ("site.yml", 1, "nightly")
    applied = repo.where(references(repo.index, *repo.at("web.yml", "applied")))
    assert applied == [("roles/base/tasks/extra.yml", 0, "base extra"), ("web.yml", 28, "applied")]


def test_role_references_list_every_use(repo: Repo) -> None:
    expected = [("roles/lonely/tasks/main.yml", 4, "base"), ("roles/web/meta/main.yml", 1, "base"),
                ("web.yml", 25, "base")]
    assert repo.where(references(repo.index, *repo.at("web.yml", "name: base", offset=7))) == expected
    assert repo.where(references(repo.index, *repo.at("roles/web/meta/main.yml", "base"))) == expected


def test_the_buffer_decides_what_is_under_the_cursor(repo: Repo) -> None:
    path = repo.path("tasks/more.yml")
    repo.index.set_document(path, "- name: more\n  debug: msg=m\n  notify: reload things\n")
    try:
        assert yamlnav.classify(repo.index.load(path).data, [], 2, 12).kind == yamlnav.NOTIFY
        found = repo.where(definition(repo.index, path, 2, 12))
        assert found == [("web.yml", 30, "reload things")]
    finally:
        repo.index.set_document(path, None)


def test_templated_role_names_and_unknown_roles_lead_nowhere(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    repo = build(tmp_path, {
        "play.yml": "- hosts: all\n  roles:\n    - missing\n    - '{{ who }}'\n    - role: shared\n",
        "roles/shared/meta/main.yml": "dependencies: []\n",
    })
    assert definition(repo.index, *repo.at("play.yml", "missing")) == []
    assert definition(repo.index, *repo.at("play.yml", "who")) == []
    # a role without tasks opens at its first main file
    assert repo.where(definition(repo.index, *repo.at("play.yml", "shared"))) == [
        ("roles/shared/meta/main.yml", 0, "")]
    assert navigation.role_entry_file(str(tmp_path / "roles" / "missing")) is None
