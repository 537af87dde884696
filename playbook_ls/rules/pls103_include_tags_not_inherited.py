"""include-tags-not-inherited

## What it does
Checks for `include_tasks` / `include_role` with `tags:` (and, with the `when` option, a
`when:`) but no `apply:` carrying them.

## Why is this bad?
An include is dynamic: its own tags select the include task itself but are not passed to the
tasks it loads. `--tags setup` runs the include, then skips every included task that is not
itself tagged `setup` (or `always`), so nothing happens. Tags on an `import_*` do reach the
imported tasks, which is why the two are easily confused.

Not reported: a tag under which every task the include loads runs anyway (each is tagged with
it, or `always`, itself); `tags: always` on an include (the documented way to make the include
itself always run); an include whose file or role cannot be followed, since what it loads,
and so what a selection runs, is unknown. Tasks a nested include loads are that include's
business: it counts as one task, run or not by its own tags. Nor an include in a role that no
playbook of the checked tree applies (its callers cannot be resolved, or there are none): a
caller may give the role the include's tag, and then every task the include loads inherits it.

## Claim
`--tags TAG` runs none (or only the stated k of n) of the tasks the include loads. Confirmed
with ansible-core's own include loading (`IncludedFile.process_include_results`,
`StrategyBase._load_included_file`, `IncludeRole.get_block_list`) and
`Block.filter_tagged_tasks` under `--tags TAG` on public repositories (`bench/claims.py`).

## Example
```yaml title="playbook.yml"
- hosts: all
  tasks:
    - name: Set up the app
      ansible.builtin.include_tasks: setup.yml
      tags: setup
```
```yaml title="setup.yml"
- name: Install packages
  ansible.builtin.package:
    name: app
```

Use instead:
```yaml title="playbook.yml"
- hosts: all
  tasks:
    - name: Set up the app
      ansible.builtin.include_tasks:
        file: setup.yml
        apply:
          tags: setup
      tags: setup
```
```yaml title="setup.yml"
- name: Install packages
  ansible.builtin.package:
    name: app
```
or use `ansible.builtin.import_tasks`, whose tags reach the imported tasks.

## Options
- `when` (default `false`): also report a `when:` on an include without `apply:`. The
  include's condition is checked once, when the include runs, and the included tasks do
  not re-check it; that is usually what people want, hence off by default.

## Fix
`check --fix` and the editor add `apply: {tags: [...]}` with the tags that do not reach the
included tasks, under the include's arguments: `include_tasks: setup.yml` becomes a mapping
with `file: setup.yml` and `apply:`, a block mapping gets `apply:` after its last argument, a
flow mapping gets `, apply: {tags: [...]}`. Nothing else in the file changes. An include that
has `apply:` or `args:` already is left to you. For a `when` finding the editor offers
`apply: {when: ...}` (not applied by `--fix`: re-checking the condition per task changes what runs).
"""

from __future__ import annotations

from collections.abc import Iterator

from engine.loading import keywords as kw
from engine.loading.model import Task
from playbook_ls.rules.base import Finding, PlaybookContext, Severity, keyword_span, quote_list, walk_block

CODE = "PLS103"
NAME = "include-tags-not-inherited"
SEVERITY = Severity.WARNING
SCOPE = "playbook"
OPTIONS = {"when": False}

_INCLUDES = kw.INCLUDE_TASKS | kw.INCLUDE_ROLE


def check(ctx: PlaybookContext) -> Iterator[Finding]:
    for _play, task in ctx.tasks():
        if task.action not in _INCLUDES:
            continue
        frame, apply = task.frame, task.apply or {}
        # the file's tasks (and what it imports); a nested include is one task, run or not by its own tags
        loaded = [child for block in task.children for child in walk_block(block, into_includes=False)]
        # what an include that cannot be followed loads is unknown: so is what a selection runs
        known = task.include_resolved is not None and bool(loaded)
        # a caller may give the role the include's tag, and every task it loads then inherits it
        known = known and not ctx.callers_unknown
        missing = [tag for tag in frame.tags if tag not in ("always", "never") and known and not _runs_all(tag, loaded)]
        if missing and "tags" not in apply:
            verb = "selects" if len(missing) == 1 else "select"
            yield Finding(
                f"tags {quote_list(missing)} on this {_short(task.action)} {verb} the include itself but are not "
                f"passed to the tasks it loads, so --tags {missing[0]} runs {_which_run(missing[0], loaded)}; "
                f"add 'apply: {{tags: [{', '.join(map(str, missing))}]}}' or use an import",
                keyword_span(frame, "tags"))
        if ctx.options.get("when") and frame.when and "when" not in apply:
            yield Finding(
                f"the when on this {_short(task.action)} is checked once, when the include runs; the tasks it "
                "loads do not re-check it. Add 'apply: {when: ...}' if they must",
                keyword_span(frame, "when"))


def _running(tag: object, loaded: list[Task]) -> list[Task]:
    """The loaded tasks ``--tags tag`` still runs: those tagged with it by themselves, or ``always``."""
    return [child for child in loaded if tag in child.tag_set() or "always" in child.tag_set()]


def _runs_all(tag: object, loaded: list[Task]) -> bool:
    """Whether ``--tags tag`` runs every task the include loads anyway (tagged themselves, or
    ``always``): then the include's tags not being passed on changes nothing."""
    return len(_running(tag, loaded)) == len(loaded)


def _which_run(tag: object, loaded: list[Task]) -> str:
    running = _running(tag, loaded)
    if not running:
        return "none of them"
    names = quote_list([child.display_name() for child in running[:3]]) + (", ..." if len(running) > 3 else "")
    return f"only {len(running)} of its {len(loaded)} tasks ({names}), tagged themselves"


def _short(action: str) -> str:
    return action.rsplit(".", 1)[-1]
