"""The player's page's words: every id in all three languages with the same
placeholders, and every id the page's files use in the catalogs (its own,
the core's or a game's)."""

from __future__ import annotations

import re

from tablesim.games import registry
from tablesim.i18n import CORE, LANGUAGES, merged, placeholders, read_catalog
from tablesim.platform.player.routes import CATALOG, STATIC

ID = re.compile(r"""["'`]((?:player|state|game)\.[a-z0-9_.]*[a-z0-9_])["'`]""")
HTML_ID = re.compile(r'data-i18n(?:-title|-placeholder|-label)?="([^"]+)"')


def test_every_language_has_every_id_with_the_same_placeholders():
    cats = {lang: read_catalog(CATALOG / f"{lang}.po") for lang in LANGUAGES}
    every = set().union(*cats.values())
    assert len(every) > 50
    for lang, cat in cats.items():
        assert not every - set(cat), f"{lang}.po lacks {sorted(every - set(cat))[:10]}"
        assert all(k.startswith("player.") for k in cat), lang
    for msg_id in every:
        assert len({frozenset(placeholders(c[msg_id])) for c in cats.values()}) == 1, msg_id


def test_every_id_the_page_uses_is_in_the_catalogs():
    known = merged("en", [CORE, CATALOG, *(registry.spec(g).catalog_dir() for g in registry.names())])
    used = set()
    for page in STATIC.iterdir():
        body = page.read_text(encoding="utf-8")
        used |= {m.group(1) for m in ID.finditer(body)} | {m.group(1) for m in HTML_ID.finditer(body)}
    assert {"player.disconnect_notice", "player.timer", "state.void"} <= used
    assert not used - set(known), sorted(used - set(known))
