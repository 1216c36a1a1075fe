"""The migrations of the smartpos app: the tables of ``DjangoStore`` (``manage.py migrate``)."""

__all__: list[str] = []
