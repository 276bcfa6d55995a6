"""Benchmarks of ``tablesim bench``: measured on this machine, never asserted by tests."""
