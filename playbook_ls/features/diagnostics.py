"""Rule findings as LSP diagnostics."""

from __future__ import annotations

from collections.abc import Callable

from lsprotocol import types

from playbook_ls.features.convert import lsp_range, path_to_uri
from playbook_ls.rules.base import Finding

SEVERITY = {
    "error": types.DiagnosticSeverity.Error,
    "warning": types.DiagnosticSeverity.Warning,
    "info": types.DiagnosticSeverity.Information,
}


def to_diagnostic(finding: Finding, lines_of: Callable[[str], list[str]], docs_uri: str | None,
                  encoding: str = "utf-16") -> types.Diagnostic:
    """``lines_of(path)`` gives a file's lines, for converting columns to the client's units."""
    assert finding.span is not None
    related = [
        types.DiagnosticRelatedInformation(
            location=types.Location(uri=path_to_uri(r.span.file),
                                    range=lsp_range(r.span, lines_of(r.span.file), encoding)),
            message=r.message)
        for r in finding.related
    ]
    return types.Diagnostic(
        range=lsp_range(finding.span, lines_of(finding.span.file), encoding),
        message=finding.message,
        severity=SEVERITY[finding.severity],
        code=finding.code,
        code_description=types.CodeDescription(href=f"{docs_uri}/{finding.code}.md") if docs_uri else None,
        source="playbook-ls",
        related_information=related or None,
    )
