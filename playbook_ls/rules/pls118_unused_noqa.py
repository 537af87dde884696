"""unused-noqa

## What it does
Checks every `# noqa: CODES` comment in the checked files for playbook-ls codes that are not
rules (`PLS999`) and for rules that ran but found nothing there to silence: not on that line,
nor, on a task's first line, anywhere in the task. Codes that are not playbook-ls's
(ansible-lint's `name[missing]`, `yaml`) and rules that did not run are left alone, and so is a
bare `# noqa`.

## Why is this bad?
A `# noqa` outlives the problem it silenced: after a fix, it stays and will hide the next real
finding of that rule there. An unknown code silences nothing, usually a typo of the code meant.

## Example
```yaml title="playbook.yml"
- hosts: all
  tasks:
    - name: Report  # noqa: PLS101
      ansible.builtin.debug:
        msg: report
```

Use instead:
```yaml title="playbook.yml"
- hosts: all
  tasks:
    - name: Report
      ansible.builtin.debug:
        msg: report
```

## Fix
`check --fix` and the editor remove the code from the comment, or the whole `# noqa` when it
was its only code (words after the codes keep the comment as it is).

## Claim
No claim about ansible: the `# noqa` comment silences no finding of the codes it names.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from playbook_ls import rules
from playbook_ls.rules.base import Finding, NoqaContext, Severity

CODE = "PLS118"
NAME = "unused-noqa"
SEVERITY = Severity.INFO
SCOPE = "noqa"

_OUR_CODE = re.compile(r"PLS\d+", re.IGNORECASE)


def check(ctx: NoqaContext) -> Iterator[Finding]:
    for comment in ctx.comments:
        for name in comment.names:
            rule = rules.lookup(name.lower())  # matched as silencing matches them: any case
            if rule is None:
                if _OUR_CODE.fullmatch(name):
                    yield Finding(f"'# noqa: {name}' names no playbook-ls rule; use a code such as PLS101 "
                                  "(playbook-ls check --help lists them) or remove it", comment.span)
            elif rule.CODE in ctx.enabled and rule.CODE not in comment.used and rule.CODE != CODE:
                yield Finding(f"'# noqa: {name}' silences nothing here: {rule.CODE} ({rule.NAME}) finds nothing on "
                              "this line or in this task; remove it", comment.span)
