"""Alembic migrations of the class database (``hetdp class migrate``)."""
