"""The catalogs for the pages: ``GET /i18n/{lang}.json`` (``auto``: the
language the request's Accept-Language prefers) and ``GET /i18n/words.js``,
the pages' side of it (reading the catalog, filling the texts, the switch).
Whoever serves the pages names the folders whose catalogs are merged."""

from __future__ import annotations

from pathlib import Path
from typing import Iterable

from fastapi import APIRouter, Header
from fastapi.responses import FileResponse, JSONResponse

from tablesim.i18n.catalog import CORE_FOLDERS, merged
from tablesim.i18n.languages import LANGUAGES, negotiate
from tablesim.i18n.numbers import CURRENCY, number_signs

WORDS_JS = Path(__file__).parent / "static" / "words.js"


def catalog_json(lang: str, folders: Iterable[Path], currency: str = CURRENCY) -> dict:
    """What a page reads: its language, the languages to switch to, how amounts are written, the messages."""
    return {"lang": lang, "languages": [{"code": c, "name": n} for c, (_, n) in LANGUAGES.items()],
            "numbers": number_signs(lang, currency), "messages": merged(lang, folders)}


def router(folders: Iterable[Path] = (), currency: str = CURRENCY) -> APIRouter:
    """The routes, with the core's catalogs and then ``folders``' (a game's own words)."""
    every = (*CORE_FOLDERS, *folders)
    r = APIRouter()

    @r.get("/i18n/words.js", include_in_schema=False)
    async def words_js():
        return FileResponse(WORDS_JS, media_type="text/javascript")

    @r.get("/i18n/{name}.json", include_in_schema=False)
    async def catalog(name: str, accept_language: str | None = Header(None)):
        lang = negotiate(accept_language) if name == "auto" else name
        if lang not in LANGUAGES:
            return JSONResponse({"error": "not_found", "detail": f"no language {name[:40]!r} "
                                 f"(languages: {', '.join(LANGUAGES)}, auto)"}, 404)
        return catalog_json(lang, every, currency)

    return r
