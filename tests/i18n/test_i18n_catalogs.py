"""The catalogs: every language has every id (no id of one language only),
the same {placeholders} in each, real words in each, a game's ids its own;
and every id the pages use is in them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tablesim.games import registry
from tablesim.i18n import CORE, CORE_FOLDERS, LANGUAGES, merged, placeholders, read_catalog

ROOT = Path(__file__).resolve().parents[2]
#: the core's catalogs and every registered game's that has its own (a game without texts of its own has none)
FOLDERS = [*CORE_FOLDERS] + [d for g in registry.names() if (d := registry.spec(g).catalog_dir()) is not None]
#: the pages, and each game's own piece of the console (wherever its folder is)
PIECES = [Path(str(f)) for g in registry.names() if (f := registry.spec(g).console_piece_file()) is not None]
PAGES = sorted({*(ROOT / "tablesim/server/static").glob("*.*"), *(ROOT / "tablesim/studio/static").glob("*.*"),
                *(ROOT / "tablesim/games").glob("*/static/*.js"), *PIECES})
#: a string in a page that reads like a message id (``console.sign_in``, ``fortune3.hand.pair``; every game's prefix)
PREFIXES = "page|card|console|board|floor|role|action|verb|dealing|decision|link|state|result|reason|event|refusal|game"
ID = re.compile(r"""["'`]((?:""" + PREFIXES + "|" + "|".join(map(re.escape, registry.names())) + r""")\.[a-z0-9_.]*[a-z0-9_])["'`]""")
HTML_ID = re.compile(r'data-i18n(?:-title|-placeholder|-label)?="([^"]+)"')


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda f: {CORE: "core"}.get(f, f.parent.name))
def test_every_language_has_the_same_ids_and_placeholders(folder):
    cats = {lang: read_catalog(folder / f"{lang}.po") for lang in LANGUAGES}
    every = set().union(*cats.values())
    for lang, cat in cats.items():
        assert not every - set(cat), f"{folder.parent.name}/{lang}.po lacks {sorted(every - set(cat))[:10]}"
    for msg_id in sorted(every):
        shapes = {lang: placeholders(cat[msg_id]) for lang, cat in cats.items()}
        assert len({frozenset(p) for p in shapes.values()}) == 1, f"{msg_id}: placeholders differ: {shapes}"


def test_the_check_fails_on_a_missing_id_and_a_different_placeholder(tmp_path):
    # the test above on a folder of broken catalogs: it must fail there
    for lang, body in {"en": 'msgid "a.one"\nmsgstr "one {n}"\n\nmsgid "a.two"\nmsgstr "two"\n',
                       "pt": 'msgid "a.one"\nmsgstr "um {x}"\n', "zh-Hant": 'msgid "a.one"\nmsgstr "一 {n}"\n'}.items():
        (tmp_path / f"{lang}.po").write_text(body, encoding="utf-8")
    with pytest.raises(AssertionError, match=r"(pt|zh-Hant)\.po lacks"):
        test_every_language_has_the_same_ids_and_placeholders(tmp_path)
    (tmp_path / "pt.po").write_text('msgid "a.one"\nmsgstr "um {x}"\n\nmsgid "a.two"\nmsgstr "dois"\n', encoding="utf-8")
    (tmp_path / "zh-Hant.po").write_text('msgid "a.one"\nmsgstr "一 {n}"\n\nmsgid "a.two"\nmsgstr "二"\n', encoding="utf-8")
    with pytest.raises(AssertionError, match="placeholders differ"):
        test_every_language_has_the_same_ids_and_placeholders(tmp_path)


def test_the_translations_are_words_of_their_language():
    zh = merged("zh-Hant", FOLDERS)
    en = merged("en", FOLDERS)
    pt = merged("pt", FOLDERS)
    han = re.compile(r"[\u4e00-\u9fff]")
    # Traditional characters, not Simplified ones (a few that differ, common on these pages)
    simplified = set("开关结设发记录连线处张区机门对暂游戏轮无时间")
    assert sum(bool(han.search(v)) for v in zh.values()) > 0.8 * len(zh)
    assert not {c for v in zh.values() for c in v} & simplified
    assert zh["console.sign_in"] == "登入" and pt["console.sign_in"] == "Iniciar sessão"
    # Portuguese differs from English where a word is a word (not a code, a name or a symbol)
    same = [k for k, v in pt.items() if v == en[k] and re.search(r"[a-z]{4,}", re.sub(r"\{\w+\}", "", v))]
    assert len(same) < 0.05 * len(pt), same


def test_a_games_ids_are_its_own():
    for game in registry.names():
        folder = registry.spec(game).catalog_dir()
        if folder is None:
            continue  # no texts of its own: the core's words only
        for lang in LANGUAGES:
            stray = [k for k in read_catalog(folder / f"{lang}.po") if not (k.startswith(f"{game}.") or k == f"game.{game}")]
            assert not stray, f"{game}/{lang}.po: ids outside the game's own: {stray}"


def test_every_id_the_pages_use_is_in_the_catalogs():
    known = merged("en", FOLDERS)
    used: dict[str, Path] = {}
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for m in ID.finditer(text):
            used.setdefault(m.group(1), page)
        for m in HTML_ID.finditer(text):
            used.setdefault(m.group(1), page)
    assert len(used) > 150  # the scan sees the pages' ids
    missing = {i: p.name for i, p in used.items() if i not in known}
    assert not missing, missing
