/**
 * The Python program of the eval-harness job: runs `levanter.eval_harness` on the config given after the
 * destination and writes lm-eval's full output (results, versions, n-shot, n-samples, configs) to the
 * destination URL with fsspec. Levanter's own entry point writes that JSON only into the working
 * directory, so the program first moves to a private temporary one.
 *
 * Two things are adjusted before Levanter loads the tasks:
 * - lm-eval 0.4.13 builds a dict spec (`{task: "arc_easy", num_fewshot: 10}`, which is what Levanter's
 *   `TaskConfig` becomes) as an inline task made of those fields alone, so a registered task's definition
 *   (dataset, prompt, choices, metrics) would be lost. A dict naming a registered task is built from the
 *   registered definition with the dict's fields as overrides, as lm-eval's task guide describes.
 * - The task-data file (JSON, `{}` for none) maps a task's reported name to dataset overrides
 *   (`dataset_path: "json"`, `dataset_kwargs.data_files`), so a registered task reads a local slice
 *   through its own definition. Levanter's `TaskConfig` has no `dataset_kwargs`, hence the side file.
 *
 * Usage: `python -c HARNESS_RUNNER <destination> <task-data.json> --config_path <yaml>`.
 */
export const HARNESS_RUNNER = `
import json, os, sys, tempfile

import fsspec
import levanter.config
from levanter.eval_harness import run_eval_harness_main
from lm_eval.tasks._index import Kind
from lm_eval.tasks.manager import TaskManager

destination, task_data_path = sys.argv[1], sys.argv[2]
with open(task_data_path) as f:
    task_data = json.load(f)

_load_spec = TaskManager._load_spec


def _load_spec_registered(self, spec):
    if isinstance(spec, dict) and isinstance(spec.get("task"), str):
        entry = self._entry(spec["task"])
        if entry is not None and entry.kind == Kind.TASK and entry.yaml_path is not None:
            overrides = dict(spec)
            overrides.update(task_data.get(spec.get("task_alias") or spec["task"], {}))
            return self._factory.build(entry, overrides=overrides, registry=self._index)
    return _load_spec(self, spec)


TaskManager._load_spec = _load_spec_registered

os.chdir(tempfile.mkdtemp(prefix="levanter-harness-"))
outputs = levanter.config.main(run_eval_harness_main, args=sys.argv[3:])()
with fsspec.open(destination, "w") as f:
    json.dump(outputs, f, indent=2, default=str)
print(f"wrote lm-eval results to {destination}", flush=True)
`;
