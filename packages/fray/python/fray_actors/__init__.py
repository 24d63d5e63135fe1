"""Fray actors from Python: call actors hosted from TypeScript (``ActorClient``) and host actors TypeScript calls
(``host_actor``), over plain grpcio with the wire format of ``@marin/fray``'s actors."""

from fray_actors.client import ActorClient, ActorError, decode_frame, encode_frame
from fray_actors.host import HostedActor, call_cancelled, host_actor, public_methods

__all__ = ["ActorClient", "ActorError", "HostedActor", "call_cancelled", "decode_frame", "encode_frame", "host_actor", "public_methods"]
