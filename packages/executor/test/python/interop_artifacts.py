"""The interop graph in Python, mirrored by test/helpers/interop-graph.ts: interop/numbers writes numbers.json,
interop/total sums it into a value artifact (result_type interop_artifacts.Total). Each body appends a line to
$RUNS_LOG (a local file; default <prefix>/runs.log) so a test sees which language built what. The data goes
through rigging's StoragePath, so the prefix may be gs://."""

import json
import os
import time

from marin.execution.artifact import Artifact
from marin.execution.lazy import ArtifactStep
from rigging.filesystem.storage_path import StoragePath


class Total(Artifact):
    total: int
    count: int


def _log_run(what):
    log = os.environ.get("RUNS_LOG") or os.path.join(os.environ["MARIN_PREFIX"], "runs.log")
    with open(log, "a") as f:
        f.write(f"py {what}\n")


def _wait_for(path):
    while path and not os.path.exists(path):
        time.sleep(0.2)


def graph(version, scale=1.5, expected=None, block_until=None):
    def run_numbers(config):
        _log_run("numbers")
        StoragePath(config["out"]).mkdirs()
        StoragePath(config["out"] + "/numbers.json").write_text(json.dumps(list(range(config["n"]))))
        if block_until:
            print("holding", flush=True)
            _wait_for(block_until)

    numbers = ArtifactStep(
        name="interop/numbers",
        version=version,
        artifact_type=Artifact,
        run=run_numbers,
        build_config=lambda ctx: {"n": 5, "scale": scale, "out": ctx.output_path},
        expected_fingerprint=expected,
    )

    def run_total(config):
        _log_run("total")
        xs = json.loads(StoragePath(config["input"] + "/numbers.json").read_text())
        return Total(total=sum(xs), count=len(xs))

    total = ArtifactStep(
        name="interop/total",
        version=version,
        artifact_type=Total,
        run=run_total,
        build_config=lambda ctx: {"input": ctx.artifact_path(numbers), "label": "sum"},
        deps=(numbers,),
    )
    return numbers, total
