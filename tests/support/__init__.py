"""Helpers tests share that are not tests (generated inputs)."""
