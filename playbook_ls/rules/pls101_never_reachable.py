"""never-reachable-by-inherited-tag

## What it does
Checks for tasks tagged `never` that also inherit other tags from an enclosing level: the
play, a `roles:` entry, an `import_role` / `import_tasks` / `import_playbook`, a block or a
role dependency.

## Why is this bad?
`never` keeps a task out of default runs, but `--tags X` runs every task that carries `X`,
and tags are inherited. So `--tags web`, meant to run a role's normal tasks, also runs the
role's `never` tasks (a database reset, a debug dump) because they inherit `web` from the
`roles:` entry. Nothing on the task itself shows it. A file reached through several paths
is reported once per path, because each path brings its own tags.

## Example
```yaml title="playbook.yml"
- hosts: all
  tags: web
  tasks:
    - name: Drop the database
      ansible.builtin.command: dropdb app
      tags: never
```

Use instead:
```yaml title="playbook.yml"
- hosts: all
  tasks:
    - name: Deploy
      ansible.builtin.command: deploy
      tags: web
    - name: Drop the database
      ansible.builtin.command: dropdb app
      tags: [never, reset-db]
```
or keep the tags and always launch with `--skip-tags never` when selecting them.

## Claim
`ansible-playbook --list-tasks --tags TAG` (and a run with `--tags TAG`) includes the task for
each inherited tag named. The tag arithmetic is ansible-core's `evaluate_tags`, and the
listing it rests on is compared with ansible-playbook's on every recorded and public playbook
(`tests/differential`, `bench/realworld.py`).
"""

from __future__ import annotations

from collections.abc import Iterator

from engine.loading.model import Task
from engine.span import Span
from playbook_ls.rules.base import (
    Finding,
    PlaybookContext,
    Related,
    Severity,
    keyword_span,
    never_exposure,
    tag_origins,
    task_anchor,
)

CODE = "PLS101"
NAME = "never-reachable-by-inherited-tag"
SEVERITY = Severity.WARNING
SCOPE = "playbook"


def check(ctx: PlaybookContext) -> Iterator[Finding]:
    for _play, task in ctx.tasks():
        exposure = never_exposure(task)
        if exposure is None or not exposure.inherited or "always" in task.tag_set():
            continue
        tags = list(exposure.inherited)
        origins = ", ".join(tag_origins(tag, frames) for tag, frames in exposure.inherited.items())
        selectors = " or ".join(f"--tags {tag}" for tag in tags)
        message = (f"'{task.display_name()}' is tagged 'never' but inherits {origins}, so {selectors} runs it; "
                   f"launch with --skip-tags never when selecting {'it' if len(tags) == 1 else 'them'}, "
                   f"or move the tag{'s' if len(tags) > 1 else ''} off the enclosing level")
        related = [Related(keyword_span(frame, "tags"), f"'{tag}' is inherited from here")
                   for tag, frames in exposure.inherited.items() for frame in frames if keyword_span(frame, "tags")]
        span = _never_item(task) if exposure.never_frame is task.frame else None
        if exposure.never_frame is not task.frame and keyword_span(exposure.never_frame, "tags"):
            related.append(Related(keyword_span(exposure.never_frame, "tags"), "'never' is set here"))
        yield Finding(message, span or task_anchor(task), related)


def _never_item(task: Task) -> Span | None:
    """The ``never`` item of the task's own ``tags:``, or the whole ``tags:`` value."""
    data = task.data if isinstance(task.data, dict) else {}
    tags = data.get("tags")
    spans = getattr(tags, "item_spans", None)
    if spans and "never" in tags:
        return spans[tags.index("never")]
    return keyword_span(task.frame, "tags")
