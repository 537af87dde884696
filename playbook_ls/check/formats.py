"""Output formats of ``playbook-ls check``: text, json, sarif (2.1.0), github, statistics.

Spans are 0-based inside playbook-ls; every format here prints 1-based lines and columns.
Paths are printed relative to the current directory when they are below it.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from typing import Any

from playbook_ls import __version__, rules
from playbook_ls.check.runner import CheckResult
from playbook_ls.rules.base import Finding, display_path

_COLOURS = {"error": "\033[31m", "warning": "\033[33m", "info": "\033[36m"}
_BOLD, _RESET = "\033[1m", "\033[0m"


def render(result: CheckResult, fmt: str, colour: bool = False, statistics: bool = False) -> str:
    if statistics:
        return render_statistics(result, fmt)
    if fmt == "text":
        return render_text(result, colour)
    return {"json": render_json, "sarif": render_sarif, "github": render_github}[fmt](result)


def _position(finding: Finding) -> tuple[str, int, int]:
    span = finding.span
    if span is None:
        return ("", 0, 0)
    return (display_path(span.file), span.line + 1, span.col + 1)


def render_text(result: CheckResult, colour: bool = False) -> str:
    lines = []
    for finding in result.findings:
        path, line, col = _position(finding)
        code = finding.code
        if colour:
            path = f"{_BOLD}{path}{_RESET}"
            code = f"{_COLOURS[finding.severity]}{code}{_RESET}"
        where = f"{path}:{line}:{col}: " if finding.span is not None else ""  # a finding about no file
        lines.append(f"{where}{code} {finding.message}")
    lines += [f"note: {notice}" for notice in result.notices]
    lines.append(_summary(result))
    return "\n".join(lines) + "\n"


def _plural(count: int, word: str) -> str:
    """``1 file``, ``2 files``; ``info`` is uncountable."""
    return f"{count} {word}{'s' if count != 1 and word != 'info' else ''}"


def _summary(result: CheckResult) -> str:
    if not result.findings:
        return f"All checks passed ({_plural(result.playbooks, 'playbook')}, {_plural(result.files, 'file')})."
    counts = Counter(f.severity for f in result.findings)
    parts = [_plural(counts[level], level) for level in ("error", "warning", "info") if counts[level]]
    total = _plural(len(result.findings), "finding")
    return f"Found {total} ({', '.join(parts)}) in {_plural(result.files, 'file')}."


def render_statistics(result: CheckResult, fmt: str) -> str:
    counts = Counter(f.code for f in result.findings)
    rows = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    if fmt == "json":
        return json.dumps([{"code": code, "name": rules.RULES[code].NAME, "count": count} for code, count in rows],
                          indent=2) + "\n"
    width = max((len(str(count)) for count in counts.values()), default=1)
    return "".join(f"{count:>{width}}\t{code}\t{rules.RULES[code].NAME}\n" for code, count in rows)


def _related(finding: Finding) -> list[dict[str, Any]]:
    return [{"path": display_path(r.span.file), "line": r.span.line + 1, "column": r.span.col + 1,
             "message": r.message} for r in finding.related]


def render_json(result: CheckResult) -> str:
    findings = []
    for finding in result.findings:
        path, line, col = _position(finding)
        span = finding.span
        findings.append({
            "code": finding.code, "name": finding.name, "severity": finding.severity, "message": finding.message,
            "path": path, "line": line, "column": col,
            "end_line": span.end_line + 1 if span else 0, "end_column": span.end_col + 1 if span else 0,
            "related": _related(finding),
        })
    summary = {"files": result.files, "playbooks": result.playbooks, "roles": result.roles,
               "findings": len(findings), "module_names_checked": result.modules_checked}
    return json.dumps({"version": __version__, "summary": summary, "notices": result.notices,
                       "findings": findings}, indent=2) + "\n"


def _uri(path: str) -> str:
    from urllib.parse import quote

    raw = os.fsencode(path)  # the file name's own bytes, percent-encoded, even when they are not UTF-8
    return quote(raw.replace(os.sep.encode(), b"/")) if not os.path.isabs(path) else "file://" + quote(raw)


def _sarif_location(span: Any) -> dict[str, Any]:
    path = display_path(span.file)
    location: dict[str, Any] = {"uri": _uri(path)}
    if not os.path.isabs(path):
        location["uriBaseId"] = "%SRCROOT%"
    region = {"startLine": span.line + 1, "startColumn": span.col + 1}
    if (span.end_line, span.end_col) > (span.line, span.col):
        region.update(endLine=span.end_line + 1, endColumn=span.end_col + 1)
    return {"physicalLocation": {"artifactLocation": location, "region": region}}


_SARIF_LEVEL = {"error": "error", "warning": "warning", "info": "note"}


def render_sarif(result: CheckResult) -> str:
    codes = list(rules.RULES)
    descriptors = []
    for code in codes:
        module = rules.RULES[code]
        doc = (module.__doc__ or "").strip()
        summary = first_paragraph(doc)
        descriptors.append({
            "id": code, "name": module.NAME,
            "shortDescription": {"text": summary},
            "fullDescription": {"text": summary},
            "help": {"text": doc, "markdown": doc},
            "defaultConfiguration": {"level": _SARIF_LEVEL[module.SEVERITY]},
        })
    results = []
    for finding in result.findings:
        entry: dict[str, Any] = {
            "ruleId": finding.code, "ruleIndex": codes.index(finding.code),
            "level": _SARIF_LEVEL[finding.severity], "message": {"text": finding.message},
        }
        if finding.span is not None:
            entry["locations"] = [_sarif_location(finding.span)]
        if finding.related:
            entry["relatedLocations"] = [{**_sarif_location(r.span), "id": index, "message": {"text": r.message}}
                                         for index, r in enumerate(finding.related)]
        results.append(entry)
    log = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "playbook-ls", "version": __version__, "semanticVersion": __version__,
                                "rules": descriptors}},
            "originalUriBaseIds": {"%SRCROOT%": {"uri": _directory_uri(os.getcwd())}},
            "columnKind": "unicodeCodePoints",
            "invocations": [{
                "executionSuccessful": True,
                "toolExecutionNotifications": [{"level": "warning", "message": {"text": notice}}
                                               for notice in result.notices],
            }],
            "results": results,
        }],
    }
    return json.dumps(log, indent=2) + "\n"


def _directory_uri(path: str) -> str:
    from pathlib import Path

    uri = Path(path).resolve().as_uri()
    return uri if uri.endswith("/") else uri + "/"


def first_paragraph(doc: str) -> str:
    """The rule's 'What it does' paragraph, on one line."""
    marker = "## What it does"
    text = doc.split(marker, 1)[1] if marker in doc else doc
    return " ".join(text.strip().split("\n\n", 1)[0].split())


_GITHUB_LEVEL = {"error": "error", "warning": "warning", "info": "notice"}


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render_github(result: CheckResult) -> str:
    """GitHub Actions workflow commands: one annotation per finding."""
    lines = [f"::notice title=playbook-ls::{_escape_data(notice)}" for notice in result.notices]
    for finding in result.findings:
        path, line, col = _position(finding)
        properties = [f"title={_escape_property(f'{finding.code} {finding.name}')}"]
        if finding.span is not None:
            span = finding.span
            properties = [f"file={_escape_property(path)}", f"line={line}", f"col={col}",
                          f"endLine={span.end_line + 1}", *properties]
            if span.end_line == span.line:
                properties.insert(4, f"endColumn={span.end_col + 1}")
        lines.append(f"::{_GITHUB_LEVEL[finding.severity]} {','.join(properties)}::"
                     f"{_escape_data(f'{finding.code} {finding.message}')}")
    return "".join(f"{line}\n" for line in lines)
