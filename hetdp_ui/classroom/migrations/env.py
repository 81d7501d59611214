"""Alembic's environment: migrations run on the connection :func:`hetdp_ui.classroom.db.upgrade`
passes in (``config.attributes["connection"]``), or on ``HETDP_DATABASE_URL``'s database when the
``alembic`` command is used directly."""

from alembic import context

from hetdp_ui.classroom.db import Base, database_url, engine_for

connection = context.config.attributes.get("connection")
if connection is None:
    with engine_for(database_url()).begin() as connection:
        context.configure(connection=connection, target_metadata=Base.metadata, render_as_batch=True)
        with context.begin_transaction():
            context.run_migrations()
else:
    context.configure(connection=connection, target_metadata=Base.metadata, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()
