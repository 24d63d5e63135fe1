"""Serve a Python object as a Fray actor that TypeScript (``connectActor``, ``ActorHandle``) and Python can call.

The same service and frames as ``@marin/fray``'s ``hostActor``: ``/fray.actors.v1.ActorService/Call`` and
``/Health`` with raw-bytes messages, errors as a gRPC status plus the Fray code in ``fray-error-code``.

    hosted = host_actor(Scorer(model_path), name="scorer")
    print(hosted.address)      # host:port for connectActor(address) on the TS side
    hosted.wait()              # serve until stopped
"""

from __future__ import annotations

import json
import os
import threading
from concurrent import futures
from typing import Any

import grpc

from fray_actors.client import ERROR_CODE_KEY, ERROR_NAME_KEY, ActorError, decode_frame, encode_frame

SERVICE = "fray.actors.v1.ActorService"
_STATUS = {
    "FRAY_ACTOR_METHOD_NOT_FOUND": grpc.StatusCode.UNIMPLEMENTED,
    "FRAY_ACTOR_UNSERIALIZABLE": grpc.StatusCode.INVALID_ARGUMENT,
    "FRAY_ACTOR_PROTOCOL": grpc.StatusCode.INVALID_ARGUMENT,
    "FRAY_ACTOR_METHOD_FAILED": grpc.StatusCode.UNKNOWN,
}
_MAX_MESSAGE = 1024 * 1024 * 1024
_CALL = threading.local()


def call_cancelled() -> bool:
    """Inside an actor method: whether the caller gave up on this call (cancelled it, or its deadline passed).

    A long method polls it between units of work and returns early; the caller has already got
    ``FRAY_ACTOR_CALL_CANCELLED`` or ``FRAY_TIMEOUT``, so what it returns is dropped. Outside a call it is False.
    """
    context = getattr(_CALL, "context", None)
    return context is not None and not context.is_active()


def public_methods(instance: object) -> dict[str, Any]:
    """Callables of ``instance`` whose names do not start with ``_`` (Marin's rule)."""
    return {n: getattr(instance, n) for n in dir(instance) if not n.startswith("_") and callable(getattr(instance, n))}


class HostedActor:
    """A running actor server; ``address`` is what callers connect to."""

    def __init__(self, server: grpc.Server, address: str, name: str, methods: list[str]):
        self._server = server
        self.address = address
        self.name = name
        self.methods = methods

    def wait(self) -> None:
        self._server.wait_for_termination()

    def stop(self, grace: float | None = None) -> None:
        self._server.stop(grace)


def host_actor(instance: object, name: str | None = None, host: str = "127.0.0.1", port: int = 0, max_workers: int = 16) -> HostedActor:
    """Serves ``instance``'s public methods; methods run on a thread pool of ``max_workers``."""
    methods = public_methods(instance)
    actor_name = name or type(instance).__name__
    if not methods:
        raise ValueError(f"actor {actor_name!r} has no public method to serve")

    def fail(context: grpc.ServicerContext, code: str, message: str, error_name: str | None = None) -> None:
        metadata = [(ERROR_CODE_KEY, code)] + ([(ERROR_NAME_KEY, error_name)] if error_name else [])
        context.set_trailing_metadata(metadata)
        context.abort(_STATUS[code], message)

    def call(request: bytes, context: grpc.ServicerContext) -> bytes:
        try:
            frame = decode_frame(request)
            method = frame["method"]
        except (ActorError, ValueError, KeyError) as e:
            fail(context, "FRAY_ACTOR_PROTOCOL", f"malformed actor frame: {e}")
        fn = methods.get(method)
        if fn is None:
            fail(context, "FRAY_ACTOR_METHOD_NOT_FOUND", f'actor "{actor_name}" has no method "{method}"; it has {", ".join(sorted(methods))}')
        _CALL.context = context
        try:
            value = fn(*frame.get("args", []))
        except Exception as e:  # the method's own failure goes back to the caller with its type name
            fail(context, "FRAY_ACTOR_METHOD_FAILED", str(e), type(e).__name__)
        finally:
            _CALL.context = None
        try:
            return encode_frame({"value": value})
        except (ActorError, ValueError, TypeError) as e:
            fail(context, "FRAY_ACTOR_UNSERIALIZABLE", f'result of "{method}": {e}')

    def health(request: bytes, context: grpc.ServicerContext) -> bytes:
        return json.dumps({"name": actor_name, "methods": sorted(methods), "pid": os.getpid()}).encode("utf-8")

    handler = grpc.method_handlers_generic_handler(
        SERVICE,
        {"Call": grpc.unary_unary_rpc_method_handler(call), "Health": grpc.unary_unary_rpc_method_handler(health)},
    )
    options = [("grpc.max_receive_message_length", _MAX_MESSAGE), ("grpc.max_send_message_length", _MAX_MESSAGE)]
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=max_workers), options=options)
    server.add_generic_rpc_handlers((handler,))
    bound = server.add_insecure_port(f"{host}:{port}")
    server.start()
    return HostedActor(server, f"{host}:{bound}", actor_name, sorted(methods))
