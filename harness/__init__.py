"""Drives the real app for the browser tests and the benchmarks alike: a Streamlit server, Debian's
Chromium through Playwright, and waits for a drawn page. Neither tests nor benchmarks own it."""
