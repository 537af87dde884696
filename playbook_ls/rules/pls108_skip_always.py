"""skip-always

## What it does
Checks for launches that skip `always`: a launch profile with `always` in `skip_tags`, or
`skip = always` in the `[tags]` section of ansible.cfg.

## Why is this bad?
`always` marks what every launch depends on: fact gathering in an untagged play,
preparation tasks, `include_*` tasks tagged always so that their tagged contents can be
reached. Skipping it removes all of them at once, and later tasks fail or act on missing
facts. Skip the specific tags instead.

## Example
```yaml title="playbook.yml"
- hosts: all
  tasks:
    - name: Load settings
      ansible.builtin.include_vars: settings.yml
      tags: always
```
```yaml title=".playbook-ls.yml"
profiles:
  quick:
    playbook: playbook.yml
    skip_tags: always
```

Use instead:
```yaml title="playbook.yml"
- hosts: all
  tasks:
    - name: Load settings
      ansible.builtin.include_vars: settings.yml
      tags: always
```
```yaml title=".playbook-ls.yml"
profiles:
  quick:
    playbook: playbook.yml
    skip_tags: slow
```

## Claim
`--skip-tags always` skips the tasks tagged `always` (ansible-core's `evaluate_tags`), as
`ansible-playbook --list-tasks --skip-tags always` shows.
"""

from __future__ import annotations

from collections.abc import Iterator

from engine import files
from engine.span import Span
from playbook_ls.rules.base import Finding, ProjectContext, Severity

CODE = "PLS108"
NAME = "skip-always"
SEVERITY = Severity.WARNING
SCOPE = "project"

_ADVICE = "tasks tagged always (and their includes) will not run; skip the specific tags instead"


def check(ctx: ProjectContext) -> Iterator[Finding]:
    for profile in ctx.profiles:
        if "always" in profile.skip_tags:
            yield Finding(f"profile '{profile.name}' skips 'always': {_ADVICE}", profile.field_span("skip_tags"))
    if "always" in ctx.config_skip_tags and ctx.config_path:
        yield Finding(f"ansible.cfg sets 'skip = always' in [tags], so every launch skips 'always': {_ADVICE}",
                      _config_line(ctx.config_path))


def _config_line(path: str) -> Span:
    """Where ansible.cfg's ``[tags] skip`` line is (its first line if it cannot be found)."""
    try:
        lines = files.read_text(path).splitlines()
    except (OSError, UnicodeDecodeError):
        return Span(path, 0, 0, 0, 0)
    section = ""
    for number, line in enumerate(lines):
        stripped = line.strip()
        if stripped.startswith("["):
            section = stripped.strip("[]").strip()
        elif section == "tags" and stripped.split("=", 1)[0].strip() == "skip":
            return Span(path, number, 0, number, len(line))
    return Span(path, 0, 0, 0, 0)
