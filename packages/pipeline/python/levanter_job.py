# Runs a Levanter entry point the way @marin/pipeline's Levanter jobs do:
#
#   python levanter_job.py --output-log PATH [--echo] [--metrics PATH] -- -m levanter.main.train_lm --config_path X
#   python levanter_job.py --output-log PATH -- -c "<code>" ARG...
#
# - Everything the process writes to stdout and stderr (Python logging, tqdm, JAX/XLA's C++ logging) goes to
#   PATH instead of the job's output; with --echo it also goes to the job's output (the executor's --verbose).
# - With --metrics, the metrics Levanter's `json_logger` tracker logs go to a JSON-lines file, one record per
#   step: {"step": N, "time": <unix seconds>, "metrics": {"train/loss": ..., ...}} (names as Levanter logs
#   them, nested dictionaries joined with "/", numbers only). Records are written when the next step's first
#   metric arrives, and at exit, so a record holds everything logged at its step (train, eval, throughput).
# - A path that is not on this machine's disk (gs://...) is written locally and copied there with fsspec at exit.
#
# Levanter's own config stays runnable by hand (`python -m levanter.main.train_lm --config_path X`): this file
# only adds a logging handler to the tracker's logger, it changes nothing Levanter does.
import argparse
import atexit
import json
import logging
import os
import runpy
import shutil
import sys
import tempfile
import threading
import time

JSON_LOGGER_NAME = "levanter.json_logger"


def _is_local(path):
    return "://" not in path or path.startswith("file://")


class _LocalFile:
    """A file on this machine's disk that ends up at `target` (copied there at exit when `target` is remote)."""

    def __init__(self, target, name):
        self.target = target
        if _is_local(target):
            self.path = target[len("file://"):] if target.startswith("file://") else target
            os.makedirs(os.path.dirname(os.path.abspath(self.path)), exist_ok=True)
        else:
            self.path = os.path.join(tempfile.mkdtemp(prefix="marin-levanter-"), name)

    def publish(self):
        if _is_local(self.target):
            return
        import fsspec

        with open(self.path, "rb") as src, fsspec.open(self.target, "wb") as dst:
            shutil.copyfileobj(src, dst)


def _flatten(value, prefix, out):
    if isinstance(value, dict):
        for k, v in value.items():
            _flatten(v, f"{prefix}/{k}" if prefix else str(k), out)
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        out[prefix] = value
    return out


class MetricsFileHandler(logging.Handler):
    """Turns the `json_logger` tracker's `log` records into one JSON line per step."""

    def __init__(self, path):
        super().__init__(level=logging.INFO)
        self._file = open(path, "a", encoding="utf-8")
        self._pending = None

    def emit(self, record):
        try:
            data = json.loads(record.getMessage())
        except (ValueError, TypeError):
            return
        if not isinstance(data, dict) or data.get("event") != "log":
            return
        step = data.get("step")
        if not isinstance(step, int) or isinstance(step, bool):
            return
        metrics = _flatten(data.get("metrics") or {}, "", {})
        if not metrics:
            return
        if self._pending is not None and self._pending["step"] != step:
            self._write()
        if self._pending is None:
            self._pending = {"step": step, "time": 0.0, "metrics": {}}
        self._pending["time"] = round(time.time(), 3)
        self._pending["metrics"].update(metrics)

    def _write(self):
        record, self._pending = self._pending, None
        self._file.write(json.dumps(record, allow_nan=True) + "\n")
        self._file.flush()

    def close(self):
        if self._pending is not None:
            self._write()
        if not self._file.closed:
            self._file.close()
        super().close()


def _redirect_output(log_path, echo):
    """Points file descriptors 1 and 2 at `log_path` (and, with `echo`, also at the original stdout)."""
    sys.stdout.flush()
    sys.stderr.flush()
    log_fd = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    if not echo:
        os.dup2(log_fd, 1)
        os.dup2(log_fd, 2)
        os.close(log_fd)
        return None
    original = os.dup(1)
    read_fd, write_fd = os.pipe()
    os.dup2(write_fd, 1)
    os.dup2(write_fd, 2)
    os.close(write_fd)

    def pump():
        while True:
            chunk = os.read(read_fd, 65536)
            if not chunk:
                break
            os.write(log_fd, chunk)
            os.write(original, chunk)

    thread = threading.Thread(target=pump, name="levanter-job-output", daemon=True)
    thread.start()
    return thread


def main():
    parser = argparse.ArgumentParser(prog="levanter_job.py")
    parser.add_argument("--output-log", required=True)
    parser.add_argument("--echo", action="store_true")
    parser.add_argument("--metrics", default=None)
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if len(command) < 2 or command[0] not in ("-m", "-c"):
        parser.error("expected -- -m MODULE [ARG...] or -- -c CODE [ARG...]")

    output_log = _LocalFile(args.output_log, "levanter.log")
    published = [output_log]
    handler = None
    if args.metrics is not None:
        metrics = _LocalFile(args.metrics, "metrics.jsonl")
        published.append(metrics)
        handler = MetricsFileHandler(metrics.path)
        logging.getLogger(JSON_LOGGER_NAME).addHandler(handler)
    echo_thread = None

    def finish():
        if handler is not None:
            handler.close()
        sys.stdout.flush()
        sys.stderr.flush()
        if echo_thread is not None:
            # Closing the pipe's write ends lets the echo thread drain what is left and stop.
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 1)
            os.dup2(devnull, 2)
            echo_thread.join(timeout=5)
        for f in published:
            try:
                f.publish()
            except Exception as e:  # noqa: BLE001 - the job's own outcome matters more than a copy
                print(f"cannot copy {f.path} to {f.target}: {e}", file=sys.__stderr__)

    atexit.register(finish)
    echo_thread = _redirect_output(output_log.path, args.echo)

    if command[0] == "-m":
        sys.argv = [command[1], *command[2:]]
        runpy.run_module(command[1], run_name="__main__", alter_sys=True)
    else:
        sys.argv = ["-c", *command[2:]]
        exec(compile(command[1], "<string>", "exec"), {"__name__": "__main__"})


if __name__ == "__main__":
    main()
