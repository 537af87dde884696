"""The run's template failure, apart from the templar so that what the templar calls (lookups)
can raise it without importing the templar back."""

from __future__ import annotations


class TemplateFailure(Exception):
    """A template could not be rendered; the message is what ansible would report."""


class SeparateFailure(TemplateFailure):
    """A port of an ansible-core filter failing with an error ansible shows as a cause of its own
    below "The filter plugin 'NAME' failed.", rather than after it on one line: one ansible's
    filter raises while handling another exception (without ``from``), or one with ``help`` text
    or the value it is about (``obj``: ansible shows ``Origin: <unknown>`` and the value)."""

    def __init__(self, message: str, help: str | None = None, obj: object = None, has_obj: bool = False) -> None:
        super().__init__(message)
        self.help, self.obj, self.has_obj = help, obj, has_obj


class PluginFailure(TemplateFailure):
    """A filter plugin of ansible-core failed (``AnsibleTemplatePluginRuntimeError``): "The filter
    plugin 'NAME' failed: ...". ``separate`` is the plugin's own error when ansible shows it as a
    cause of its own, in the ``[ERROR]`` block (else None)."""

    def __init__(self, plugin: str, message: str, separate: SeparateFailure | None = None) -> None:
        super().__init__(f"The filter plugin {plugin!r} failed: {message}")
        self.plugin, self.separate = plugin, separate


class RunTimeOnly(TemplateFailure):
    """A template reads a value only the run knows (a registered result, a gathered fact): its
    result is not known before the run, whatever ``default`` or ``is defined`` around it says."""
