"""Fixtures for the webhook tests: real servers, started only when a test asks for them."""

from servers import postgres_server, redis_server, redis_server_unsafe

__all__ = ["postgres_server", "redis_server", "redis_server_unsafe"]
