"""Call Fray actors hosted from TypeScript (``@marin/fray``'s ``hostActor`` / ``createActor``) with plain grpcio."""

from fray_actors.client import ActorClient, ActorError, decode_frame, encode_frame

__all__ = ["ActorClient", "ActorError", "decode_frame", "encode_frame"]
