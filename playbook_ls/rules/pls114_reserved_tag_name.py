"""reserved-tag-name

## What it does
Checks for `all`, `tagged` or `untagged` written as a tag. They are selector names for
`--tags` / `--skip-tags`, reserved by ansible (`always` and `never` are fine: those are meant
to be written on tasks).

## Why is this bad?
As a tag they do not mean what they say: a task tagged `untagged` is selected by
`--tags untagged` although it has tags, and one tagged `all` gains nothing (`--tags all`
selects every task that is not `never` anyway). Readers take them for the special
selectors.

## Example
```yaml title="playbook.yml"
- hosts: all
  tasks:
    - name: Report
      ansible.builtin.debug:
        msg: report
      tags: all
```

Use instead:
```yaml title="playbook.yml"
- hosts: all
  tasks:
    - name: Report
      ansible.builtin.debug:
        msg: report
      tags: always
```

## Fix
Offered in the editor only, never applied by `check --fix`: replace `all` with `always`, or
remove the tag. `always` runs the task under any `--tags`, which `all` did not; removing the
tag changes what `--tags tagged` / `untagged` select; which one is meant is the author's call.

## Claim
ansible-core treats the name as a selector (`all`, `tagged`, `untagged`) or gives it a meaning
(`always`, `never`) wherever it is written as a tag, so the tag does not select what its name
suggests.
"""

from __future__ import annotations

from collections.abc import Iterator

from playbook_ls.rules.base import Finding, PlaybookContext, Severity, keyword_span

CODE = "PLS114"
NAME = "reserved-tag-name"
SEVERITY = Severity.WARNING
SCOPE = "playbook"

RESERVED = ("all", "tagged", "untagged")


def check(ctx: PlaybookContext) -> Iterator[Finding]:
    seen: set[int] = set()
    for _play, task in ctx.tasks():
        for frame in task.chain:
            if id(frame) in seen:
                continue
            seen.add(id(frame))
            for tag in frame.tags:
                if tag in RESERVED:
                    yield Finding(f"'{tag}' is a reserved selector name for --tags / --skip-tags, not a tag "
                                  "to write; use 'always' to always run, or a descriptive name",
                                  keyword_span(frame, "tags"))
