# Serves a trained checkpoint (a Hugging Face export written by @marin/pipeline's train step) as a Fray actor that
# TypeScript and Python can call, scoring token sequences the way Levanter's `eval_lm` scores its validation set:
#
#   python served_lm.py --config_path serve_config.yaml --output-log PATH
#
# The config is YAML with `hf_checkpoint`, Levanter's `model` and `trainer` sections (as `eval_lm` reads them),
# `batch_size` (sequences per compiled batch) and `seq_len` (positions per sequence). Once the model is loaded and its
# scoring function compiled, the process serves the actor with `fray_actors.host_actor` and prints exactly one line
# on its stdout, `FRAY_ACTOR_READY {"address": "host:port", "pid": N}`, which is how its caller finds it; everything
# else (Levanter's and JAX's logging) goes to --output-log. It serves until it is terminated (SIGTERM/SIGKILL), or
# until the process whose pid is in FRAY_ACTOR_PARENT_PID is gone (when FRAY_ACTOR_PARENT_HOST is this host). Inside
# an Iris task it binds IRIS_ADVERTISE_HOST and registers the endpoint `<IRIS_JOB_ID>/actor` before the ready line.
#
# Methods (frames of packages/fray/src/actors/DESIGN.md; arrays are little-endian bytes in the frame's blobs):
#   loglikelihood({"tokens": int32[sum(lengths)], "lengths": int32[n]})
#     -> {"logprob": float64[n], "tokens": int32[n], "bytes": int32[n]}
#        per sequence: the summed log-probability of each token given the ones before it (the first token is
#        context only), how many tokens were scored, and their UTF-8 byte length (Levanter's bits-per-byte count).
#        Attention does not cross an EOS token, as in Levanter's causal examples.
#   health() -> {"model", "batch_size", "seq_len", "vocab_size", "eos_id", "calls", "sequences"}
import argparse
import json
import os
import socket
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field

READY_PREFIX = "FRAY_ACTOR_READY "
PARENT_PID_ENV = "FRAY_ACTOR_PARENT_PID"
PARENT_HOST_ENV = "FRAY_ACTOR_PARENT_HOST"


def _import_fray_actors():
    """`fray_actors` from the path, else from the copies shipped beside this file (fray_actors_client.py, …)."""
    try:
        import fray_actors.host  # noqa: F401

        return
    except ImportError:
        pass
    here = os.path.dirname(os.path.abspath(__file__))
    package = os.path.join(tempfile.mkdtemp(prefix="fray-actors-"), "fray_actors")
    os.makedirs(package)
    for name in ("client", "host"):
        with open(os.path.join(here, f"fray_actors_{name}.py"), encoding="utf-8") as src:
            text = src.read()
        with open(os.path.join(package, f"{name}.py"), "w", encoding="utf-8") as dst:
            dst.write(text)
    with open(os.path.join(package, "__init__.py"), "w", encoding="utf-8") as init:
        init.write("")
    sys.path.insert(0, os.path.dirname(package))


def _redirect_output(path):
    """Sends fds 1 and 2 to `path` and returns a writer on the original stdout (for the ready line only). A bucket
    URL cannot be appended to while serving, so its output stays in a local temp file instead."""
    if path.startswith("file://"):
        path = path[len("file://") :]
    elif "://" in path:
        path = os.path.join(tempfile.mkdtemp(prefix="served-lm-"), "served_lm.log")
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    original = os.fdopen(os.dup(1), "w", buffering=1)
    log = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    sys.stdout.flush()
    sys.stderr.flush()
    os.dup2(log, 1)
    os.dup2(log, 2)
    os.close(log)
    return original


def _watch_parent():
    """Exits when the pid in FRAY_ACTOR_PARENT_PID is gone, if FRAY_ACTOR_PARENT_HOST names this host (a pid means
    nothing on another machine): a crashed caller leaves no server behind."""
    raw = os.environ.get(PARENT_PID_ENV)
    if not raw or os.environ.get(PARENT_HOST_ENV) != socket.gethostname():
        return
    parent = int(raw)

    def watch():
        while True:
            try:
                os.kill(parent, 0)
            except ProcessLookupError:
                os._exit(0)
            except PermissionError:
                pass
            time.sleep(1.0)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def _proto_field(number, value):
    """One protobuf field: a string (wire type 2) or an int (wire type 0)."""

    def varint(n):
        out = bytearray()
        while True:
            byte = n & 0x7F
            n >>= 7
            if n:
                out.append(byte | 0x80)
            else:
                out.append(byte)
                return bytes(out)

    if isinstance(value, int):
        return varint(number << 3) + varint(value)
    data = value.encode("utf-8") if isinstance(value, str) else value
    return varint((number << 3) | 2) + varint(len(data)) + data


def _register_iris_endpoint(address, actor):
    """Inside an Iris task: registers `<IRIS_JOB_ID>/actor` -> `address` with the controller, as @marin/fray's actor
    hosts do (the controller drops it when the task ends). A plain grpcio call of iris.v1.ControllerService/
    RegisterEndpoint with the request encoded by hand (6 fields), so no generated code is needed. Returns the name."""
    controller = os.environ.get("IRIS_CONTROLLER_ADDRESS")
    job_id, task_id, attempt = (os.environ.get(k) for k in ("IRIS_JOB_ID", "IRIS_TASK_ID", "IRIS_ATTEMPT_ID"))
    if not controller or not job_id or not task_id or attempt is None:
        return None
    import uuid

    import grpc

    name = f"{job_id}/actor"
    request = b"".join(
        [
            _proto_field(1, name),
            _proto_field(2, address),
            _proto_field(3, task_id),
            _proto_field(4, int(attempt)),
            _proto_field(5, _proto_field(1, "actor") + _proto_field(2, actor)),
            _proto_field(6, str(uuid.uuid4())),
        ]
    )
    token = os.environ.get("IRIS_AUTH_TOKEN")
    metadata = [("authorization", f"Bearer {token}")] if token else None
    with grpc.insecure_channel(controller) as channel:
        register = channel.unary_unary("/iris.v1.ControllerService/RegisterEndpoint")
        register(request, timeout=30, metadata=metadata)
    return name


def _serve_config_class():
    from levanter.compat.hf_checkpoints import RepoRef
    from levanter.models.llama import LlamaConfig
    from levanter.models.lm_model import LmConfig
    from levanter.trainer import TrainerConfig

    @dataclass
    class ServeLmConfig:
        hf_checkpoint: RepoRef
        trainer: TrainerConfig = field(default_factory=TrainerConfig)
        model: LmConfig = field(default_factory=LlamaConfig)
        batch_size: int = 8
        seq_len: int = 2048

    return ServeLmConfig


class ServedLm:
    """A causal LM held in memory; `loglikelihood` scores batches of token sequences."""

    def __init__(self, config):
        import haliax as hax
        import jax
        import jax.numpy as jnp
        import numpy as np
        from haliax import Axis

        from levanter.compat.hf_checkpoints import HFCheckpointConverter
        from levanter.data.text.examples import GrugLmExample, named_lm_example_from_grug
        from levanter.tokenizers import load_tokenizer
        from levanter.utils.hf_utils import byte_length_of_token
        from levanter.utils.tree_utils import inference_mode

        self._np = np
        self._lock = threading.Lock()
        self._calls = 0
        self._sequences = 0
        self.name = str(config.hf_checkpoint)
        self.batch_size = config.batch_size
        self.seq_len = config.seq_len
        tokenizer = load_tokenizer(str(config.hf_checkpoint))
        self.eos_id = tokenizer.eos_token_id
        vocab_size = len(tokenizer)
        self.vocab_size = vocab_size
        compute_mapping = config.trainer.compute_axis_mapping
        mp = config.trainer.mp
        converter = config.model.hf_checkpoint_converter()
        if not isinstance(converter, HFCheckpointConverter):
            raise ValueError("the model config has no Hugging Face converter")
        converter = converter.replaced(reference_checkpoint=config.hf_checkpoint, tokenizer=tokenizer)
        with config.trainer.use_device_mesh():
            self._model = converter.load_pretrained(
                config.model.model_type,
                ref=config.hf_checkpoint,
                axis_mapping=config.trainer.parameter_axis_mapping,
                dtype=mp.compute_dtype,
            )
        byte_lengths = np.array([byte_length_of_token(tokenizer, i) for i in range(len(tokenizer.get_vocab()))], dtype=np.int32)
        bytes_per_token = jnp.asarray(byte_lengths)
        Batch = Axis("batch", self.batch_size)
        Pos = config.model.max_Pos.resize(self.seq_len)
        eos_id = self.eos_id

        def example_of(tokens, weight):
            return GrugLmExample.causal(tokens, loss_weight=weight, eos_id=eos_id, block_cross_document_attention=True)

        @jax.jit
        def build(tokens, weights):
            return jax.vmap(example_of)(tokens, weights)

        @hax.named_jit(axis_resources=compute_mapping)
        def score(model, grug):
            model = inference_mode(model, True)
            model = mp.cast_to_compute(model)
            example = named_lm_example_from_grug(grug, Pos=Pos, batch_axis=Batch)
            losses = model.compute_next_token_loss(example, reduction=None, reduction_axis=()).array
            weights = example.loss_weight.array
            next_ids = jnp.roll(example.tokens.array, -1, axis=-1)
            weighted = losses * weights
            return (
                jnp.sum(weighted, axis=-1),
                jnp.sum(weights, axis=-1),
                jnp.sum(bytes_per_token.at[next_ids].get() * weights, axis=-1),
            )

        self._build = build
        self._score = score
        self._mesh = config.trainer.use_device_mesh
        # Compile once before serving, so readiness means "answers at full speed".
        self._run(np.zeros((self.batch_size, self.seq_len), dtype=np.int32), np.zeros((self.batch_size, self.seq_len), dtype=np.float32))

    def _run(self, tokens, weights):
        with self._mesh():
            loss, count, nbytes = self._score(self._model, self._build(tokens, weights))
        np = self._np
        return np.asarray(loss, dtype=np.float64), np.asarray(count, dtype=np.float64), np.asarray(nbytes, dtype=np.float64)

    def loglikelihood(self, batch):
        np = self._np
        if not isinstance(batch, dict) or not isinstance(batch.get("tokens"), bytes) or not isinstance(batch.get("lengths"), bytes):
            raise ValueError('loglikelihood takes {"tokens": int32 bytes, "lengths": int32 bytes}')
        tokens = np.frombuffer(batch["tokens"], dtype="<i4")
        lengths = np.frombuffer(batch["lengths"], dtype="<i4")
        if int(lengths.sum()) != tokens.size or (lengths < 0).any():
            raise ValueError(f"lengths sum to {int(lengths.sum())}, but {tokens.size} tokens were sent")
        if lengths.size and int(lengths.max()) > self.seq_len:
            raise ValueError(f"a sequence of {int(lengths.max())} tokens is longer than the served seq_len {self.seq_len}")
        if tokens.size and (int(tokens.min()) < 0 or int(tokens.max()) >= self.vocab_size):
            raise ValueError(f"token ids must be in [0, {self.vocab_size})")
        n = lengths.size
        logprob = np.zeros(n, dtype="<f8")
        counts = np.zeros(n, dtype="<i4")
        nbytes = np.zeros(n, dtype="<i4")
        starts = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
        positions = np.arange(self.seq_len)
        with self._lock:
            for first in range(0, n, self.batch_size):
                rows = range(first, min(n, first + self.batch_size))
                padded = np.zeros((self.batch_size, self.seq_len), dtype=np.int32)
                weights = np.zeros((self.batch_size, self.seq_len), dtype=np.float32)
                for r, i in enumerate(rows):
                    length = int(lengths[i])
                    padded[r, :length] = tokens[starts[i] : starts[i] + length]
                    # The last real token predicts nothing (the causal mask covers it for a full-length row).
                    weights[r] = positions < length - 1
                loss, count, b = self._run(padded, weights)
                k = len(rows)
                logprob[first : first + k] = 0.0 - loss[:k]  # 0.0 - x: an empty sequence scores 0.0, not -0.0
                counts[first : first + k] = count[:k].round().astype(np.int32)
                nbytes[first : first + k] = b[:k].round().astype(np.int32)
            self._calls += 1
            self._sequences += n
        return {"logprob": logprob.tobytes(), "tokens": counts.tobytes(), "bytes": nbytes.tobytes()}

    def health(self):
        return {
            "model": self.name,
            "batch_size": self.batch_size,
            "seq_len": self.seq_len,
            "vocab_size": self.vocab_size,
            "eos_id": self.eos_id,
            "calls": self._calls,
            "sequences": self._sequences,
        }


def main(argv):
    parser = argparse.ArgumentParser(description="Serve a trained checkpoint as a Fray actor.")
    parser.add_argument("--config_path", required=True)
    parser.add_argument("--output-log", required=True)
    parser.add_argument("--name", default="served-lm")
    args = parser.parse_args(argv)
    ready_out = _redirect_output(args.output_log)
    _watch_parent()
    _import_fray_actors()

    import draccus

    import levanter
    from fray_actors.host import host_actor

    config = draccus.parse(_serve_config_class(), config_path=args.config_path, args=[])
    levanter.initialize(config)
    served = ServedLm(config)
    host = os.environ.get("IRIS_ADVERTISE_HOST") or "127.0.0.1"
    hosted = host_actor(served, name=args.name, host=host, port=0, max_workers=4)
    endpoint = _register_iris_endpoint(hosted.address, args.name)
    if endpoint is not None:
        print(f"registered the Iris endpoint {endpoint}", flush=True)
    ready_out.write(READY_PREFIX + json.dumps({"address": hosted.address, "pid": os.getpid()}) + "\n")
    ready_out.flush()
    print(f"serving {served.name} at {hosted.address}", flush=True)
    hosted.wait()


if __name__ == "__main__":
    main(sys.argv[1:])
