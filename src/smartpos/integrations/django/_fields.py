"""The id columns of ``DjangoStore``'s models: compared byte for byte on every database.

PostgreSQL (``text``, ``varchar``) and SQLite compare text byte for byte already. On MySQL and
MariaDB a column takes its database's collation, usually case- and accent-insensitive and
blind to trailing spaces (``PAD SPACE``): ``ev-1``, ``EV-1`` and ``ev-1 `` would be one event.
There these fields are ``VARCHAR`` in ``utf8mb4`` with a binary ``NO PAD`` collation
(``utf8mb4_nopad_bin`` on MariaDB, ``utf8mb4_0900_bin`` on MySQL 8), short enough to be an
index key: InnoDB's keys hold 3072 bytes (the ``DYNAMIC`` rows, the default), and a character
of ``utf8mb4`` takes up to 4.
"""

from __future__ import annotations

from typing import Any, Final

from django.db import models

__all__ = ["MYSQL_ID_CHARS", "ExactCharField", "ExactTextField", "exact_collation"]

#: Characters an unbounded id column (a referencia, a sale id) holds on MySQL/MariaDB: 2048
#: bytes, an index key with room for a second column (``referencia, seq``).
MYSQL_ID_CHARS: Final = 512


def exact_collation(connection: Any) -> str:
    """The binary ``NO PAD`` collation of ``utf8mb4`` on this MySQL or MariaDB server."""
    return "utf8mb4_nopad_bin" if connection.mysql_is_mariadb else "utf8mb4_0900_bin"


def _mysql_type(connection: Any, length: int) -> str:
    return f"varchar({length}) CHARACTER SET utf8mb4 COLLATE {exact_collation(connection)}"


def _without_mysql_w003(errors: list[Any]) -> list[Any]:
    # mysql.W003 ("may not allow unique CharFields to have a max_length > 255") dates from
    # the 767-byte keys of old row formats; these keys fit in 3072 (see the module docstring).
    return [e for e in errors if getattr(e, "id", None) != "mysql.W003"]


class ExactCharField(models.CharField):  # type: ignore[type-arg]
    """A ``CharField`` compared byte for byte (a binary ``NO PAD`` collation on MySQL)."""

    def db_type(self, connection: Any) -> str | None:
        if connection.vendor == "mysql":
            assert self.max_length is not None
            return _mysql_type(connection, self.max_length)
        return super().db_type(connection)

    def check(self, **kwargs: Any) -> list[Any]:
        return _without_mysql_w003(super().check(**kwargs))


class ExactTextField(models.TextField):  # type: ignore[type-arg]
    """A ``TextField`` compared byte for byte; on MySQL a ``VARCHAR`` of ``MYSQL_ID_CHARS``."""

    def db_type(self, connection: Any) -> str | None:
        if connection.vendor == "mysql":
            return _mysql_type(connection, MYSQL_ID_CHARS)
        return super().db_type(connection)

    def check(self, **kwargs: Any) -> list[Any]:
        return _without_mysql_w003(super().check(**kwargs))
