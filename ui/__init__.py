"""Streamlit-side helpers shared by the frame and every page: state, sidebar, caching, charts."""
