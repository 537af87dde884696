"""pause: ansible's action plugin as it runs without a terminal on stdin (the bundled engine
never prompts): ``seconds``/``minutes`` sleep (at least one second), a prompt without them is
not waited for, with ansible's warning. Like ansible's action (BYPASS_HOST_LOOP) it pauses once
for all the hosts of a task: the executor runs it for the first host only, which alone registers
the result (``engine.run.free.BYPASS_HOST_LOOP``)."""
from __future__ import annotations

import datetime
import time
from typing import Any

from engine.run.modules import ModuleContext
from engine.run.modules._args import Arg, action_spec_name, validate

BYPASS_HOST_LOOP = True
SPEC = {
    "echo": Arg(type="bool", default=True),
    "minutes": Arg(type="int()"),  # the action's {'type': int}: floats allowed, cut
    "seconds": Arg(type="int()"),
    "prompt": Arg(),
}


NAMED = True  # validate_argument_spec's messages name the action plugin as the task's name loads it


def run(args: dict[str, Any], ctx: ModuleContext, action: str = "pause") -> dict[str, Any]:
    params = validate(action_spec_name(action), args, SPEC, mutually_exclusive=(("minutes", "seconds"),),
                      controller=True)
    result: dict[str, Any] = {"changed": False, "rc": 0, "stderr": "", "stdout": "", "start": None, "stop": None,
                              "delta": None, "echo": params["echo"]}
    unit, seconds = "minutes", None
    if params["minutes"] is not None:
        seconds = params["minutes"] * 60
    elif params["seconds"] is not None:
        seconds, unit = params["seconds"], "seconds"
    start = time.time()
    result["start"] = str(datetime.datetime.now())
    if seconds is None:
        result["warnings"] = ["Not waiting for response to prompt as stdin is not interactive"]
    else:
        seconds = max(seconds, 1)
        # what the action displays while it waits (the callback prints it before the result)
        result["_ansible_display"] = [f"Pausing for {seconds} seconds"]
        if params["prompt"]:
            result["_ansible_display"].append("(ctrl+C then 'C' = continue early, ctrl+C then 'A' = abort)\r")
        time.sleep(seconds)
    duration = time.time() - start
    result["stop"] = str(datetime.datetime.now())
    result["delta"] = int(duration)
    result["stdout"] = f"Paused for {round(duration / 60.0 if unit == 'minutes' else duration, 2)} {unit}"
    result["user_input"] = ""
    return result
