"""The run's template failure, apart from the templar so that what the templar calls (lookups)
can raise it without importing the templar back."""

from __future__ import annotations


class TemplateFailure(Exception):
    """A template could not be rendered; the message is what ansible would report."""


class PluginFailure(TemplateFailure):
    """A filter plugin of ansible-core failed (``AnsibleTemplatePluginRuntimeError``): "The filter
    plugin 'NAME' failed: ...". ``handled`` is the plugin's own message when ansible's plugin
    raised it while handling another exception (no ``from``): ansible then shows it as a cause
    of its own below the plugin's failure, in the ``[ERROR]`` block (else None)."""

    def __init__(self, plugin: str, message: str, handled: str | None = None) -> None:
        super().__init__(f"The filter plugin {plugin!r} failed: {message}")
        self.plugin, self.handled = plugin, handled


class FailureWhileHandling(TemplateFailure):
    """A port of an ansible-core filter failing where ansible's filter raises its error while
    handling another exception, without ``from`` (ansible shows it as a cause of its own)."""
