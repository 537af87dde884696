"""Property: on generated playbooks with comments everywhere (random.Random over many seeds),
applying any fix offered leaves every line outside its edited range byte-identical, and the
fixed file, checked again, has one finding of that rule fewer (issue 19, item 3)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from playbook_ls.check.runner import run_check
from playbook_ls.config import load_settings
from playbook_ls.fixes import apply_edits, fixes_for

SEEDS = range(60)
SETUP = "- name: Install  # c\n  ansible.builtin.debug:\n    msg: app\n"


class Gen:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.step = " " * self.rng.choice((2, 4))
        self.count = 0

    def comment(self) -> str:
        self.count += 1
        return self.rng.choice(("", "", f"  # c{self.count}", f"   # noqa-looking: no {self.count}", " #x"))

    def filler(self, indent: str) -> list[str]:
        """Blank lines and comment lines between entries."""
        return self.rng.choice(([], [], [""], [f"{indent}# between {self.count}"], ["", f"{indent}#"]))

    def tags(self, indent: str, tags: list[str]) -> list[str]:
        style = self.rng.choice(("scalar", "flow", "block", "comma", "quoted"))
        if style == "scalar" or len(tags) == 1 and style == "comma":
            return [f"{indent}tags: {tags[0]}{self.comment()}"]
        if style == "flow":
            return [f"{indent}tags: [{', '.join(tags)}]{self.comment()}"]
        if style == "quoted":
            return [f"{indent}tags: [{', '.join(repr(t) for t in tags)}]{self.comment()}"]
        if style == "comma":
            return [f"{indent}tags: {','.join(tags)}{self.comment()}"]
        return [f"{indent}tags:{self.comment()}", *(f"{indent}{self.step}- {t}{self.comment()}" for t in tags)]

    def condition(self, indent: str, key: str) -> list[str]:
        # boolean whatever the variables hold: the forms --fix rewrites (others are only offered)
        expr = self.rng.choice(("enabled is defined", "x | bool", "os == 'Debian'", "a is defined and b | bool"))
        style = self.rng.choice(("double", "single", "flow", "block", "fine"))
        if style == "double":
            return [f'{indent}{key}: "{{{{ {expr} }}}}"{self.comment()}']
        if style == "single" and "'" not in expr:
            return [f"{indent}{key}: '{{{{ {expr} }}}}'{self.comment()}"]
        if style == "flow" and "'" not in expr:
            return [f"{indent}{key}: ['{{{{ {expr} }}}}', other]{self.comment()}"]
        if style == "block":
            return [f"{indent}{key}:{self.comment()}", f'{indent}{self.step}- "{{{{ {expr} }}}}"{self.comment()}',
                    f"{indent}{self.step}- other{self.comment()}"]
        return [f"{indent}{key}: {expr}{self.comment()}"]

    def task(self, indent: str, number: int) -> list[str]:
        inner = indent + "  "
        kind = self.rng.choice(("free", "block", "flow", "when", "typo", "reserved", "noqa", "scalar"))
        name = self.rng.choice((f"Task {number}", f'"Task {number}"', f"'Task {number}'"))
        lines = [f"{indent}- name: {name}{self.comment()}"]
        body: list[list[str]] = []
        if kind == "free":
            body.append([f"{inner}ansible.builtin.include_tasks: setup.yml{self.comment()}"])
        elif kind == "block":
            body.append([f"{inner}include_tasks:{self.comment()}", f"{inner}{self.step}file: setup.yml{self.comment()}",
                         *self.filler(inner + self.step)])
        elif kind == "flow":
            body.append([f"{inner}include_tasks: {{file: setup.yml}}{self.comment()}"])
        else:
            body.append([f"{inner}ansible.builtin.debug:{self.comment()}",
                         f"{inner}{self.step}msg: hi{self.comment()}"])
        if kind in ("free", "block", "flow"):
            body.append(self.tags(inner, self.rng.sample(["setup", "deploy", "always"], self.rng.randint(1, 2))))
        if kind == "when":
            body.append(self.condition(inner, self.rng.choice(("when", "changed_when", "failed_when"))))
        if kind == "typo":
            body.append([f"{inner}tag: deploy{self.comment()}"])
        if kind == "reserved":
            body.append(self.tags(inner, self.rng.sample(["all", "untagged", "report"], 2)))
        if kind == "noqa":
            lines[0] = f"{indent}- name: {name}  # noqa: PLS101"
        if kind == "scalar":
            body.append([f"{inner}vars:", f"{inner}{self.step}text: |", f"{inner}{self.step}{self.step}# not a comment",
                         f"{inner}{self.step}{self.step}line{self.comment()}"])
            body.append(self.condition(inner, "when"))
        self.rng.shuffle(body)
        for part in body:
            lines += part + self.filler(inner)
        return lines

    def playbook(self) -> str:
        lines = self.rng.choice(([], ["---"], ["# a generated playbook", "---  # start"]))
        lines += [f"- hosts: all{self.comment()}", *self.filler("  "), f"  tasks:{self.comment()}"]
        indent = self.rng.choice(("  ", "  " + self.step))
        for number in range(self.rng.randint(3, 7)):
            lines += self.task(indent, number)
        return "\n".join(lines) + self.rng.choice(("\n", "\n", "\n\n# the end\n", ""))


def _check(root: Path) -> list:
    return run_check([str(root)], load_settings(None, str(root)), use_cache=False).findings


def _count(findings: list, code: str) -> int:
    return sum(1 for f in findings if f.code == code and f.span and f.span.file.endswith("site.yml"))


@pytest.mark.parametrize("seed", SEEDS)
def test_any_fix_edits_only_its_range_and_removes_its_finding(repo: Path, seed: int) -> None:
    text = Gen(seed).playbook()
    (repo / "setup.yml").write_text(SETUP)
    site = repo / "site.yml"
    site.write_text(text)
    findings = [f for f in _check(repo) if f.span and f.span.file.endswith("site.yml")]
    old = text.split("\n")
    tried = 0
    for finding in findings:
        for fix in fixes_for(finding, text):
            new_text = apply_edits(text, fix.edits)
            new = new_text.split("\n")
            first, last = min(e.line for e in fix.edits), max(e.end_line for e in fix.edits)
            after = len(old) - last - 1
            assert new[:first] == old[:first], (seed, fix)
            assert new[len(new) - after:] == old[last + 1:], (seed, fix)
            site.write_text(new_text)
            again = _check(repo)
            assert not any(f.code == "PLS111" for f in again), (seed, fix, new_text)
            assert _count(again, finding.code) < _count(findings, finding.code), (seed, fix.title, new_text)
            tried += 1
        site.write_text(text)
    assert tried or not findings


@pytest.mark.parametrize("seed", range(0, 60, 3))
def test_fix_applies_every_safe_fix_and_keeps_every_comment(repo: Path, seed: int) -> None:
    from playbook_ls.fixes import apply as fixing
    from playbook_ls.fixes import fixable

    text = Gen(seed).playbook()
    (repo / "setup.yml").write_text(SETUP)
    site = repo / "site.yml"
    site.write_text(text)
    findings = _check(repo)
    for _ in range(fixing.PASSES):
        planned = fixing.plan(findings, fixing.editable([str(repo)], str(repo)))
        if not planned:
            break
        fixing.write(planned)
        findings = _check(repo)
    assert not [f for f in findings if f.code in fixable() | {"PLS111"}], (seed, site.read_text())
    after = site.read_text()
    comments = [line.split("#", 1)[1] for line in text.split("\n") if "#" in line and "noqa" not in line]
    assert all(comment in after for comment in comments), seed
