"""A live class: sessions that record lesson answers, the instructor's live view, a private poll.

:mod:`.db` holds the schema (SQLAlchemy 2) and the database it lives in — SQLite in the app's data
directory by default, PostgreSQL when ``HETDP_DATABASE_URL`` names one — with its migrations
(Alembic, ``migrations/``); :mod:`.store` the operations the live-class page, the lesson panel and
``hetdp class`` call. Nothing here imports Streamlit.
"""
