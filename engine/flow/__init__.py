"""Flow: what runs where and in which order. The plan of a launch (plays, hosts, batches), tags,
conditions decided in three values, loops and their control, the handlers a notification reaches, and
the runs of each role. Reads loading, templating, launch, the inventory, and variables for the magic
variables and cached facts a plan starts from.
"""
