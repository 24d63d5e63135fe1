"""A Python client for Fray actors: the wire format of packages/fray/src/actors/DESIGN.md over grpcio generic calls.

No generated stubs: both methods of ``fray.actors.v1.ActorService`` carry raw bytes. A call's request and response
are frames: ``u32be header length | UTF-8 JSON header (with "blobs": [lengths]) | blob 0 | blob 1 ...``, where every
``bytes``-like value inside the arguments or result travels as a blob and is marked ``{"$fray_blob": i}`` in the
JSON. Errors carry the exact Fray code in the trailing metadata ``fray-error-code``.

    with ActorClient("127.0.0.1:40123") as actor:
        actor.call("add", 1)          # by name
        actor.add(1)                  # the same, Marin's handle.method(...) style
"""

from __future__ import annotations

import json
import struct
from typing import Any

import grpc

CALL_PATH = "/fray.actors.v1.ActorService/Call"
HEALTH_PATH = "/fray.actors.v1.ActorService/Health"
ERROR_CODE_KEY = "fray-error-code"
ERROR_NAME_KEY = "fray-error-name"
BLOB_MARKER = "$fray_blob"
_MAX_MESSAGE = 1024 * 1024 * 1024


class ActorError(Exception):
    """A failed actor call: ``code`` is the Fray error code (``FRAY_ACTOR_METHOD_NOT_FOUND``, ``FRAY_TIMEOUT`` ...)."""

    def __init__(self, code: str, message: str, error_name: str | None = None):
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.error_name = error_name


def _lower(value: Any, path: str, blobs: list[bytes]) -> Any:
    if value is None or isinstance(value, (str, bool)):
        return value
    if isinstance(value, (int, float)):
        if isinstance(value, float) and (value != value or value in (float("inf"), float("-inf"))):
            raise ActorError("FRAY_ACTOR_UNSERIALIZABLE", f"the number {value} at {path!r} cannot be sent to an actor")
        return value
    if isinstance(value, (bytes, bytearray, memoryview)):
        blobs.append(bytes(value))
        return {BLOB_MARKER: len(blobs) - 1}
    if isinstance(value, (list, tuple)):
        return [_lower(v, f"{path}[{i}]", blobs) for i, v in enumerate(value)]
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if not isinstance(k, str):
                raise ActorError("FRAY_ACTOR_UNSERIALIZABLE", f"a non-string key at {path!r} cannot be sent to an actor")
            out[k] = _lower(v, k if path == "" else f"{path}.{k}", blobs)
        return out
    raise ActorError("FRAY_ACTOR_UNSERIALIZABLE", f"a {type(value).__name__} at {path!r} cannot be sent to an actor")


def _raise(value: Any, blobs: list[bytes]) -> Any:
    if isinstance(value, list):
        return [_raise(v, blobs) for v in value]
    if isinstance(value, dict):
        if len(value) == 1 and isinstance(value.get(BLOB_MARKER), int):
            return blobs[value[BLOB_MARKER]]
        return {k: _raise(v, blobs) for k, v in value.items()}
    return value


def encode_frame(header: dict) -> bytes:
    """Encodes a header dict whose values may hold bytes into a frame."""
    blobs: list[bytes] = []
    lowered = _lower(header, "", blobs)
    lowered["blobs"] = [len(b) for b in blobs]
    head = json.dumps(lowered, separators=(",", ":"), allow_nan=False).encode("utf-8")
    return b"".join([struct.pack(">I", len(head)), head, *blobs])


def decode_frame(frame: bytes) -> dict:
    """Decodes a frame, restoring bytes values."""
    if len(frame) < 4:
        raise ActorError("FRAY_ACTOR_PROTOCOL", "frame shorter than its header length")
    (n,) = struct.unpack(">I", frame[:4])
    header = json.loads(frame[4 : 4 + n].decode("utf-8"))
    lengths = header.pop("blobs", [])
    blobs, at = [], 4 + n
    for length in lengths:
        blobs.append(frame[at : at + length])
        at += length
    if at != len(frame):
        raise ActorError("FRAY_ACTOR_PROTOCOL", "frame length does not match its blobs")
    return _raise(header, blobs)


def _error_of(e: grpc.RpcError) -> ActorError:
    metadata = dict(e.trailing_metadata() or ())
    code = metadata.get(ERROR_CODE_KEY)
    if code is not None:
        return ActorError(code, e.details() or "", metadata.get(ERROR_NAME_KEY))
    status = e.code()
    if status == grpc.StatusCode.DEADLINE_EXCEEDED:
        return ActorError("FRAY_TIMEOUT", e.details() or "deadline exceeded")
    if status == grpc.StatusCode.CANCELLED:
        return ActorError("FRAY_ACTOR_CALL_CANCELLED", e.details() or "cancelled")
    return ActorError("FRAY_ACTOR_UNAVAILABLE", e.details() or str(status))


class ActorClient:
    """A connection to one actor at ``host:port``; every call has a deadline (``timeout`` seconds)."""

    def __init__(self, address: str, timeout: float = 60.0):
        self.address = address
        self.timeout = timeout
        options = [("grpc.max_receive_message_length", _MAX_MESSAGE), ("grpc.max_send_message_length", _MAX_MESSAGE)]
        self._channel = grpc.insecure_channel(address, options=options)
        self._call = self._channel.unary_unary(CALL_PATH)
        self._health = self._channel.unary_unary(HEALTH_PATH)

    def call(self, method: str, *args: Any, timeout: float | None = None) -> Any:
        """Calls ``method`` with positional ``args`` (JSON values and bytes); raises ``ActorError`` with a code."""
        frame = encode_frame({"method": method, "args": list(args)})
        try:
            reply = self._call(frame, timeout=self.timeout if timeout is None else timeout)
        except grpc.RpcError as e:
            raise _error_of(e) from e
        return decode_frame(reply)["value"]

    def health(self, timeout: float | None = None) -> dict:
        """The actor's name, methods and pid."""
        try:
            return json.loads(self._health(b"", timeout=self.timeout if timeout is None else timeout))
        except grpc.RpcError as e:
            raise _error_of(e) from e

    def close(self) -> None:
        self._channel.close()

    def __enter__(self) -> ActorClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return lambda *args, **kw: self.call(name, *args, **kw)
