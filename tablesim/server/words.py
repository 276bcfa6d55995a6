"""The table's pages in three languages: the core's catalogs and its game's
own (``GET /i18n/{lang}.json``, ``GET /i18n/words.js``; see tablesim.i18n)."""

from __future__ import annotations

from fastapi import APIRouter

from tablesim.games import registry
from tablesim.i18n.web import router


def words_router(game: str) -> APIRouter:
    folder = registry.spec(game).catalog_dir()
    return router([folder] if folder is not None else [])
