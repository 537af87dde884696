"""The run's template failure, apart from the templar so that what the templar calls (lookups)
can raise it without importing the templar back."""

from __future__ import annotations


class TemplateFailure(Exception):
    """A template could not be rendered; the message is what ansible would report."""
