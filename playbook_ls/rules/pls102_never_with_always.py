"""never-with-always

## What it does
Checks for tasks whose effective tags contain both `never` and `always`, whether written
together or inherited from different levels.

## Why is this bad?
`always` wins: ansible runs the task on every launch, whatever `--tags` says, unless
`always` itself is skipped. A `never` that never takes effect misleads the reader.

## Example
```yaml title="playbook.yml"
- hosts: all
  tasks:
    - block:
        - name: Wipe the cache
          ansible.builtin.command: rm -rf /var/cache/app
          tags: never
      tags: always
```

Use instead:
```yaml title="playbook.yml"
- hosts: all
  tasks:
    - name: Wipe the cache
      ansible.builtin.command: rm -rf /var/cache/app
      tags: [never, wipe-cache]
```

## Fix
None: dropping `never` or dropping `always` change what runs in opposite ways, and only the
author knows which was meant. The editor offers `# noqa: PLS102`.

## Claim
The task carries both `never` and `always`, so `--tags always` (or any selection naming one of
its other tags) runs it and a run with no selection skips it, as `--list-tasks` shows. Rests on
the same tag arithmetic and listing as PLS101, compared with ansible-playbook.
"""

from __future__ import annotations

from collections.abc import Iterator

from playbook_ls.rules.base import Finding, PlaybookContext, Related, Severity, keyword_span, tag_origins, task_anchor

CODE = "PLS102"
NAME = "never-with-always"
SEVERITY = Severity.WARNING
SCOPE = "playbook"


def check(ctx: PlaybookContext) -> Iterator[Finding]:
    for _play, task in ctx.tasks():
        tags = task.tag_set()
        if "never" not in tags or "always" not in tags:
            continue
        origins = {tag: [f for f in task.chain if tag in f.tags] for tag in ("never", "always")}
        message = (f"'{task.display_name()}' has both {tag_origins('never', origins['never'])} and "
                   f"{tag_origins('always', origins['always'])}: 'always' wins, so it runs on every launch "
                   "unless 'always' is skipped; drop one of the two")
        related = [Related(span, f"'{tag}' is set here") for tag, frames in origins.items() for frame in frames
                   if (span := keyword_span(frame, "tags")) is not None]
        yield Finding(message, task_anchor(task), related)
