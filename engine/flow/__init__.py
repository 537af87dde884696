"""Flow: what runs where and in which order. The plan of a launch (plays, hosts, batches), the run
followed per host (each task's outcome on each host, handlers, includes, rescue, meta actions), tags,
conditions decided in three values, loops and their control, the handlers a notification reaches, and
the runs of each role. Reads loading, templating, launch, the inventory, and variables for the magic
variables and cached facts a plan starts from.
"""
