"""Variables: where a variable is set and what it overrides. The sources in ansible's precedence, the
report the editor shows, the run's variable manager, magic and play-context variables, and facts
cached before the run. Reads loading, templating, flow, launch and the inventory; the faces and
``engine.run`` read it.
"""
