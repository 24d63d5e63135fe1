"""python resolve_hello_world.py VERSION: marin.execution.lazy.resolve(hello_world/stats) on $MARIN_PREFIX; prints
the loaded value and the record's fingerprint as JSON."""

import json
import sys

from hello_world_artifacts import build
from marin.execution.lazy import resolve

data, stats = build(sys.argv[1])
loaded = resolve(stats)
print(json.dumps({"sum": loaded.sum, "min": loaded.min, "max": loaded.max, "path": loaded.path,
                  "fingerprint": loaded.record.fingerprint, "expected": stats.fingerprint()}))
