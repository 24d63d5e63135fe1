"""A marin-core sweep worker: python sweep_worker.py ROOT LOG [--hold]. Runs marin.execution.sweep.claim_and_run on
targets cell0..cell5 (config {"i": i}); each run appends `py <target>` to LOG and sleeps 0.5 s. With --hold the
first claimed target prints `holding` and never finishes (a test SIGKILLs the worker there)."""

import sys
import time

from marin.execution.sweep import SweepTarget, claim_and_run


def main():
    root, log = sys.argv[1], sys.argv[2]
    hold = "--hold" in sys.argv[3:]
    targets = [SweepTarget(target_id=f"cell{i}", config={"i": i}) for i in range(6)]

    def run_fn(target):
        with open(log, "a") as f:
            f.write(f"py {target.target_id}\n")
        if hold:
            print("holding", flush=True)
            while True:
                time.sleep(1)
        time.sleep(0.5)

    claim_and_run(root, targets, run_fn)  # outside Iris: a SoloLeader
    print("done", flush=True)


if __name__ == "__main__":
    main()
