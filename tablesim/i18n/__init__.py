"""The table's words in Traditional Chinese (as written in Macau), English and
Portuguese: gettext catalogs with symbolic message ids (``console.sign_in``),
read at run time with Babel (no compile step), a game's own catalogs merged
over the core's, a language chosen from an Accept-Language header, and
amounts written with the locale's signs (from their decimal text, never a
float). The core knows no game: whoever serves a page names the folders
whose catalogs are merged (see :func:`tablesim.i18n.catalog.merged`)."""

from tablesim.i18n.catalog import CORE, CORE_FOLDERS, merged, placeholders, read_catalog, say
from tablesim.i18n.languages import DEFAULT, LANGUAGES, negotiate
from tablesim.i18n.numbers import CURRENCY, format_amount, number_signs

__all__ = ["CORE", "CORE_FOLDERS", "CURRENCY", "DEFAULT", "LANGUAGES", "format_amount", "merged", "negotiate",
           "number_signs", "placeholders", "read_catalog", "say"]
