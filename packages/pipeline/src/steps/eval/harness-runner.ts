/**
 * The Python program of the eval-harness job: runs `levanter.eval_harness` on the config given after the
 * destination and writes lm-eval's full output (results, versions, n-shot, n-samples, configs) to the
 * destination URL with fsspec. Levanter's own entry point writes that JSON only into the working
 * directory, so the program first moves to a private temporary one.
 *
 * Usage: `python -c HARNESS_RUNNER <destination> --config_path <yaml>`.
 */
export const HARNESS_RUNNER = `
import json, os, sys, tempfile

import fsspec
import levanter.config
from levanter.eval_harness import run_eval_harness_main

destination = sys.argv[1]
os.chdir(tempfile.mkdtemp(prefix="levanter-harness-"))
outputs = levanter.config.main(run_eval_harness_main, args=sys.argv[2:])()
with fsspec.open(destination, "w") as f:
    json.dump(outputs, f, indent=2, default=str)
print(f"wrote lm-eval results to {destination}", flush=True)
`;
