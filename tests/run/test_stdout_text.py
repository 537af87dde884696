"""The text normaliser leaves a placeholder for what changes from one run of either tool to the next."""

from __future__ import annotations

from stdout_text import text_diff


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
