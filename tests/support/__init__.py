"""Helpers the tests share: fixtures' builders, loopback servers, TUI drivers, generated inputs.

Test modules import from here (or get fixtures from conftest.py), never from each other:
tests/test_tests_share_helpers.py checks it.
"""
