"""experiments/hello_world_artifacts.js in Python (marin-core 0.2.227): the same names, configs and result type,
so marin.execution.lazy.resolve finds the TypeScript-built records. Each body appends `py <step>` to
<prefix>/py-runs.log, so a test sees when Python rebuilt something."""

import json
import os
from pathlib import Path

from marin.execution.artifact import Artifact
from marin.execution.lazy import ArtifactStep


class HelloStats(Artifact):
    sum: int
    min: int
    max: int


def _log(what):
    with open(os.path.join(os.environ["MARIN_PREFIX"], "py-runs.log"), "a") as f:
        f.write(f"py {what}\n")


def build(version):
    def run_data(config):
        _log("data")
        Path(config["output_path"]).mkdir(parents=True, exist_ok=True)
        Path(config["output_path"], "numbers.json").write_text(json.dumps(list(range(config["n"]))))

    data = ArtifactStep(
        name="hello_world/data", version=version, artifact_type=Artifact, run=run_data,
        build_config=lambda ctx: {"n": 100, "output_path": ctx.output_path},
    )

    def run_stats(config):
        _log("stats")
        numbers = json.loads(Path(config["input_path"], "numbers.json").read_text())
        return HelloStats(sum=sum(numbers), min=min(numbers), max=max(numbers))

    stats = ArtifactStep(
        name="hello_world/stats", version=version, artifact_type=HelloStats, run=run_stats,
        build_config=lambda ctx: {"input_path": ctx.artifact_path(data)}, deps=(data,),
    )
    return data, stats
