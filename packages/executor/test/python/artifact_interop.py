"""Drives the interop graph with marin-core: python artifact_interop.py <run|resolve|fingerprint> <version> [options].

run        builds interop/total with marin.execution.lazy.run and prints its loaded value as JSON
resolve    marin.execution.lazy.resolve(total), the same through resolve
fingerprint prints the fingerprints and payloads of both handles
Options: --scale X (a changed recipe), --expected FP (pin interop/numbers), --block-until FILE (interop/numbers
holds its lease until FILE exists). A FingerprintMismatchError exits 3 with its class name on stdout.
"""

import argparse
import json
import sys

from interop_artifacts import graph
from marin.execution.artifact import FingerprintMismatchError
from marin.execution.lazy import resolve, run


def main():
    p = argparse.ArgumentParser()
    p.add_argument("command", choices=["run", "resolve", "fingerprint", "numbers"])
    p.add_argument("version")
    p.add_argument("--scale", type=float, default=1.5)
    p.add_argument("--expected")
    p.add_argument("--block-until")
    a = p.parse_args()
    numbers, total = graph(a.version, scale=a.scale, expected=a.expected, block_until=a.block_until)
    try:
        if a.command == "fingerprint":
            out = {h.name: {"fingerprint": h.fingerprint(), "payload": h.fingerprint_payload()} for h in (numbers, total)}
        elif a.command == "numbers":
            loaded = run(numbers)[0]
            out = {"path": loaded.path}
        else:
            loaded = run(total)[0] if a.command == "run" else resolve(total)
            out = {"total": loaded.total, "count": loaded.count, "path": loaded.path}
    except FingerprintMismatchError:
        print(json.dumps({"error": "FingerprintMismatchError"}))
        sys.exit(3)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
