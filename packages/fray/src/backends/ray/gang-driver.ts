/**
 * The Python driver of a gang job (replicas > 1): Ray's Jobs API runs one entrypoint, so the entrypoint asks Ray
 * for a placement group with one bundle per replica and runs each replica as a Ray task in its bundle. Each task
 * writes the job's files into its own temp dir on its node, runs the command there with `FRAY_TASK_INDEX` set,
 * prefixes its output with `[task i]`, and dies with its worker (parent-death signal), so stopping the job stops
 * every replica. The driver exits with the first non-zero exit code. It needs `ray` importable by `python` on the
 * cluster (true where Ray is installed as the cluster's own Python).
 */
/** Env var holding the driver's source. */
export const GANG_DRIVER_ENV = 'FRAY_GANG_DRIVER';
/** Env var holding the gang's spec (argv, files, cwd, bundles, strategy) as JSON. */
export const GANG_SPEC_ENV = 'FRAY_GANG_SPEC';

/** The driver's Python source. */
export const GANG_DRIVER_SOURCE = String.raw`
import ctypes, json, os, signal, subprocess, sys, tempfile
import ray
from ray.util.placement_group import placement_group
from ray.util.scheduling_strategies import PlacementGroupSchedulingStrategy

spec = json.loads(os.environ.pop("FRAY_GANG_SPEC"))
os.environ.pop("FRAY_GANG_DRIVER", None)
ray.init(address="auto", log_to_driver=True)
bundles = spec["bundles"]
pg = placement_group(bundles, strategy=spec["strategy"])
print(f"[fray] waiting for a placement group of {len(bundles)} bundles ({spec['strategy']}): {json.dumps(bundles)}", flush=True)
ray.get(pg.ready())
print("[fray] placement group ready", flush=True)

def _die_with_parent():
    ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)

@ray.remote(num_cpus=0)
def run_task(index):
    files_dir = tempfile.mkdtemp(prefix="fray-ray-files-")
    for name, content in spec["files"].items():
        with open(os.path.join(files_dir, name), "w") as f:
            f.write(content)
    argv = [os.path.join(files_dir, a) if a in spec["files"] else a for a in spec["argv"]]
    env = dict(os.environ, **spec["env"])
    env["FRAY_TASK_INDEX"] = str(index)
    proc = subprocess.Popen(argv, cwd=spec["cwd"], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, preexec_fn=_die_with_parent)
    for line in proc.stdout:
        print(f"[task {index}] {line}", end="", flush=True)
    return proc.wait()

refs = []
for i, bundle in enumerate(bundles):
    strategy = PlacementGroupSchedulingStrategy(placement_group=pg, placement_group_bundle_index=i)
    opts = {"scheduling_strategy": strategy, "num_cpus": bundle.get("CPU", 0), "num_gpus": bundle.get("GPU", 0),
            "resources": {k: v for k, v in bundle.items() if k not in ("CPU", "GPU", "memory")}}
    if "memory" in bundle:
        opts["memory"] = bundle["memory"]
    refs.append(run_task.options(**opts).remote(i))
codes = ray.get(refs)
failed = [(i, c) for i, c in enumerate(codes) if c != 0]
for i, c in failed:
    print(f"[fray] task {i} exited with code {c}", file=sys.stderr, flush=True)
sys.exit(failed[0][1] if failed else 0)
`;
