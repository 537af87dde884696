"""The text normaliser leaves a placeholder for what changes from one run of either tool to the next."""

from __future__ import annotations

from engine_cases import per_host
from stdout_text import harness_paths_replaced, text_diff


def test_a_stat_result_shown_whole_compares_without_its_inode_and_times() -> None:
    # each run stats a fresh scratch copy: another inode, generation, access and change time
    first = ("skipping: [localhost] => (item={'stat': {'inode': 2204971, 'dev': 65024, 'atime': 1796052520.59, "
             "'mtime': 1796052226.18, 'ctime': 1796052520.51, 'charset': 'binary', 'version': '742365242'}})")
    second = first.replace("2204971", "8833573").replace("520.59", "346.42").replace("520.51", "346.42")
    assert text_diff(first, second.replace("742365242", "705570436")) == ""
    assert text_diff(first, first.replace("1796052226.18", "1796052226.19")) != ""  # the copy keeps its mtime


def test_the_clock_wget_prints_in_a_command_s_output_compares_as_a_placeholder() -> None:
    first = ('"stderr": "--2026-12-01 06:40:59--  https://repos.example/key\\nResolving repos.example... failed",'
             ' "stderr_lines": ["--2026-12-01 06:40:59--  https://repos.example/key"]')
    assert text_diff(first, first.replace("06:40:59", "06:55:16")) == ""
    assert text_diff(first, first.replace("repos.example/key", "repos.example/other")) != ""


def test_a_task_name_templated_from_the_scratch_path_compares_without_the_run_s_own_directory() -> None:
    # jws's "Check working directory {{ jws_archive_repository }} for local repository": ansible's
    # recording keeps its run's scratch copy in the name, each later run has another one
    recorded = [{"host": "localhost", "status": "ok",
                 "task": "jws : Check working directory /tmp/pls-run-jws__install-6kwz937p/work for local repository"}]
    later = [dict(recorded[0], task=recorded[0]["task"].replace("6kwz937p", "wvd5dsjg"))]
    assert per_host(recorded) == per_host(later) == {
        "localhost": ["jws : Check working directory <SCRATCH> for local repository => ok"]}
    assert harness_paths_replaced("/tmp/pls-run-a-b-0123abcd/home/x") == "<TMP>/home/x"
    assert harness_paths_replaced("/tmp/pls-run-a-b-0123abcd/workspace") == "<TMP>/workspace"
    other = [dict(recorded[0], task=recorded[0]["task"].replace("local repository", "a repository"))]
    assert per_host(recorded) != per_host(other)
