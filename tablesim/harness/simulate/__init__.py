"""Certification-style simulation: millions of rounds through the real engine."""
