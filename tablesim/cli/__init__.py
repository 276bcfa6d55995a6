"""The ``tablesim`` command line."""
