"""The class poll's store, one per server process (SQLite file or DATABASE_URL), shared by its sessions."""

from __future__ import annotations

import streamlit as st


@st.cache_resource(show_spinner=False)
def store():
    """SQLAlchemy is imported here, when a room is first opened, not by a page without one."""
    from services.poll.store import Store

    return Store()
