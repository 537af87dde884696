"""Fixes for findings, as minimal text edits: the code actions of the language server and
``playbook-ls check --fix`` both come from :func:`fixes_for`.

The fixers are registered in :data:`playbook_ls.fixes.rule_fixes.FIXERS` (one small function per
rule with an obvious correction); "add ``# noqa: CODE``" is offered for every rule
(:mod:`playbook_ls.fixes.noqa`). Every fix is verified before it is offered: the edited text
parses, to the old data changed as the fix says and in no other way.
"""

from __future__ import annotations

import logging

from playbook_ls.fixes.base import Edit, Fix, Source, apply_edits, overlaps, verified
from playbook_ls.rules.base import Finding

log = logging.getLogger("playbook-ls")

__all__ = ["Edit", "Fix", "Source", "apply_edits", "fixable", "fixes_for", "overlaps", "safe_fix"]


def fixable() -> set[str]:
    """The codes ``check --fix`` can fix."""
    from playbook_ls.fixes.rule_fixes import FIXERS

    return set(FIXERS) - {"PLS114"}


def fixes_for(finding: Finding, text: str | Source, noqa: bool = True) -> list[Fix]:
    """The verified fixes of ``finding`` in a file whose text is ``text``: the rule's own first,
    then (with ``noqa``) the ``# noqa`` ones. A fixer that fails offers nothing."""
    from playbook_ls.fixes import noqa as noqa_fixes
    from playbook_ls.fixes.rule_fixes import FIXERS

    if finding.span is None:
        return []
    source = text if isinstance(text, Source) else Source(text, finding.span.file)
    fixers = [FIXERS[finding.code]] if finding.code in FIXERS else []
    if noqa:
        fixers.append(noqa_fixes.add_noqa)
    found: list[Fix] = []
    for fixer in fixers:
        try:
            for fix in fixer(finding, source):
                fix.code = finding.code
                if verified(fix, source):
                    found.append(fix)
        except Exception:  # noqa: BLE001 - a broken fixer offers nothing and stops nothing
            log.exception("the %s fixer failed on %s", finding.code, finding.span.human())
    return found


def safe_fix(finding: Finding, source: Source) -> Fix | None:
    """The fix ``check --fix`` applies for ``finding``, if there is one."""
    return next((fix for fix in fixes_for(finding, source, noqa=False) if fix.safe), None)
