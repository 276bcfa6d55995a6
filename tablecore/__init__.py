"""The core shared by the device layer (``drivers``) and the table
(``tablesim``): cards, exact money, errors, validation, the record codec and
the table's typed records. It sits below both, so the drivers import nothing
of ``tablesim``, and it imports neither of them (both checked by
import-linter)."""
