"""Oracle of the ArtifactStep vector test: reads tagged cases (JSON) on stdin and prints, per case, what
marin-core computes: canonical fingerprint payload, fingerprint, path, record bytes, version/name validation.

Tagged values: {"t": "int", "v": "<digits>"}, {"t": "float", "v": "<repr>"}, {"t": "str"|"bool"|"null", "v": ...},
{"t": "list"|"tuple"|"set", "v": [...]}, {"t": "dict", "v": [[key, value], ...]}, {"t": "enum", "v": <str|int>},
{"t": "path", "v": "<str>"}, {"t": "dep", "v": <index>}, {"t": "ctx", "v": "output_path"|"prefix"|"region"|"arg:<key>"}.
"""

import enum
import json
import os
import sys
from pathlib import Path

from marin.execution.artifact import Artifact, ArtifactRecord, is_mutable_version, validate_path_segment, validate_version
from marin.execution.lazy import ArtifactStep
from marin.experiment.namespacing import user_namespaced_name
from rigging.provenance import Provenance, username_segment


def make_enum(value):
    return enum.Enum("VectorEnum", {"MEMBER": value})["MEMBER"]


def decode(node, ctx, deps):
    t, v = node["t"], node.get("v")
    if t == "int":
        return int(v)
    if t == "float":
        return float(v)
    if t in ("str", "bool"):
        return v
    if t == "null":
        return None
    if t == "list":
        return [decode(x, ctx, deps) for x in v]
    if t == "tuple":
        return tuple(decode(x, ctx, deps) for x in v)
    if t == "set":
        return {decode(x, ctx, deps) for x in v}
    if t == "dict":
        return {k: decode(x, ctx, deps) for k, x in v}
    if t == "enum":
        return make_enum(v)
    if t == "path":
        return Path(v)
    if t == "dep":
        return ctx.artifact_path(deps[v])
    if t == "ctx":
        if v == "output_path":
            return ctx.output_path
        if v == "prefix":
            return ctx.prefix
        if v == "region":
            return ctx.region
        return ctx.runtime_arg(v[len("arg:"):])
    raise ValueError(f"unknown tag {t}")


def outcome(fn, value):
    try:
        fn(value)
        return "ok"
    except ValueError:
        return "error"


PROVENANCE = Provenance(
    tree_hash="abc1234", base_commit="def5678", dirty=True, branch="main", built_by="vector",
    git_remote=None, created_at="2026-11-25T12:00:00.000001", command_line=("vectors.py", "--x"),
)


def config_case(case):
    deps = [
        ArtifactStep(name=d["name"], version=d["version"], artifact_type=Artifact, run=lambda c: None, build_config=lambda ctx: None)
        for d in case["deps"]
    ]
    handle = ArtifactStep(
        name=case["name"], version=case["version"],
        artifact_type=Artifact,
        run=lambda c: None,
        build_config=lambda ctx: decode(case["config"], ctx, deps),
        deps=tuple(deps),
        runtime_args={k: f"real-{k}" for k in case["runtime_args"]},
    )
    payload = handle.fingerprint_payload()
    fingerprint = handle.fingerprint()
    record = ArtifactRecord(
        name=handle.name, version=handle.version, fingerprint=fingerprint, result_type="vectors.Thing",
        output_path=handle.path("gs://bucket/prefix"), deps=[f"{d.name}@{d.version}" for d in deps],
        dep_paths=[d.path("gs://bucket/prefix") for d in deps], config=json.loads(payload),
        result={"score": decode(case["result"], None, deps)} if case.get("result") is not None else None,
        fingerprint_payload=payload, provenance=PROVENANCE,
    )
    return {"payload": payload, "fingerprint": fingerprint, "path": handle.path("gs://bucket/prefix"),
            "record": record.model_dump_json(indent=2)}


def main():
    cases = json.load(sys.stdin)
    out = {"configs": [], "strings": []}
    for case in cases["configs"]:
        try:
            out["configs"].append(config_case(case))
        except Exception as e:  # reported, compared as an error on the TS side
            out["configs"].append({"error": f"{type(e).__name__}: {e}"})
    for s in cases["strings"]:
        out["strings"].append({
            "version": outcome(validate_version, s),
            "name": outcome(lambda x: validate_path_segment("name", x), s),
            "mutable": is_mutable_version(s),
        })
    out["users"] = []
    for raw in cases.get("users", []):
        os.environ["MARIN_PROVENANCE"] = json.dumps({"tree_hash": "", "base_commit": "", "dirty": False, "built_by": raw})
        try:
            out["users"].append({"segment": username_segment(), "namespaced": user_namespaced_name("train/x", "dev")})
        except RuntimeError:
            out["users"].append({"error": True})
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
