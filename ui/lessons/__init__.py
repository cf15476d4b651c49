"""Lessons: a lecture the whole hall follows, and a tour a student takes alone (issue 35)."""
