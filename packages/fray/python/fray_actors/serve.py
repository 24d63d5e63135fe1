"""The process of a Python actor that ``@marin/fray``'s backends start: ``python -m fray_actors.serve '<spec JSON>'``.

The spec is ``{"module", "attr", "args", "name", "host"?}``: ``module.attr(*args)`` builds the instance (a class or a
factory function; both are called), which is served with ``host_actor``. Once it serves, one line
``FRAY_ACTOR_READY {"address", "pid"}`` goes to stdout: that line is readiness, as for a TypeScript actor. A failure
while building prints the traceback to stderr and exits 1 before any ready line. The process serves until SIGTERM or
SIGINT, or until the process named by ``FRAY_ACTOR_PARENT_PID`` is gone (checked every second).
"""

from __future__ import annotations

import importlib
import json
import os
import signal
import sys
import threading

from fray_actors.host import host_actor

READY_PREFIX = "FRAY_ACTOR_READY "
PARENT_PID_ENV = "FRAY_ACTOR_PARENT_PID"


def build_instance(spec: dict) -> object:
    """``module.attr(*args)``; refuses a result that is not an object with attributes (None, numbers, strings)."""
    target = getattr(importlib.import_module(spec["module"]), spec["attr"])
    instance = target(*spec.get("args", []))
    if instance is None or isinstance(instance, (bool, int, float, str, bytes, list, dict)):
        raise TypeError(f"actor entry {spec['module']}.{spec['attr']} returned {instance!r}, not an object with methods")
    return instance


def _parent_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def main(argv: list[str]) -> int:
    spec = json.loads(argv[1])
    instance = build_instance(spec)
    hosted = host_actor(instance, name=spec["name"], host=spec.get("host") or os.environ.get("FRAY_ACTOR_HOST") or "127.0.0.1")
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    sys.stdout.write(READY_PREFIX + json.dumps({"address": hosted.address, "pid": os.getpid()}) + "\n")
    sys.stdout.flush()
    parent = int(os.environ.get(PARENT_PID_ENV) or 0)
    while not stop.wait(1.0):
        if parent > 0 and not _parent_alive(parent):
            break
    hosted.stop(0)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
