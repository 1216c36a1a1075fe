"""The management commands of the smartpos Django application."""

__all__: list[str] = []
