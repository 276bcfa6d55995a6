"""tablesim: live-dealer table system for Macau table games."""

__version__ = "0.1.0"
