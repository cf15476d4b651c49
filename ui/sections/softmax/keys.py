"""The softmax page's widget keys."""

from __future__ import annotations

QUERY = "softmax_query"  # the query row plotted as bars
