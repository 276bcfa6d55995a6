"""What the suite asks of every game, asked of each registered game and of
the suite's own (the coin toss, the card game under ``tests/``, registered
here by their entry points): a new game passes these by following
docs/games/new-game.md.

* its catalogs, if it has texts of its own: ``i18n/{en,pt,zh-Hant}.po``
  beside its table, the same ids and placeholders in each, every id its own
  (``<game>.`` or ``game.<game>``);
* every id its code makes a text of (``W("...")``, ``WORDS(f"...")``) is in
  its catalogs or the core's;
* no refusal or incident written in plain English (``Refused("...")``);
* its console (its own, or the kit's default) loads, and where the page
  draws the felt itself (no console piece of the game's) it gives what the
  page reads: ``layout.positions``, ``layout.bets``, ``layout.bet_labels``,
  ``view.boxes``;
* an option it does not take is refused naming the games that do;
* every part and benchmark its spec names loads.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gamehost import FOLDERS as SUITE, option_refusal, register
from tablesim.games import registry
from tablesim.i18n import CORE_FOLDERS, LANGUAGES, merged, placeholders, read_catalog

#: a message made where the code names its id (as the source scan of test_i18n_reasons reads it)
MADE = re.compile(r"""\b(?:W|C|WORDS|CORE_WORDS)\(\s*(f?)(["'])([a-z0-9_.{}]+)\2""")
#: a refusal or an incident written as a plain English text, not from a catalog
PLAIN = re.compile(r"""\bRefused\(\s*f?["']|\bIllegalAction\(\s*["'][^"']*["']\s*,\s*f?["']|"""
                   r"""\bopen_incident\(\s*[\w.]+\s*,\s*f?["']""")
GAMES = [*registry.names(), *(g for g in SUITE if g not in registry.names())]


@pytest.fixture
def game(request, monkeypatch):
    name = request.param
    if name in SUITE:
        register(monkeypatch, name)
    yield name
    registry.refresh()


def folder_of(name: str) -> Path:
    """The game's folder: its table part's package."""
    module = registry.spec(name).parts["table"].partition(":")[0]
    return Path(__import__(module, fromlist=["_"]).__file__).resolve().parent


def every_game(test):
    return pytest.mark.parametrize("game", GAMES, indirect=True)(test)


@every_game
def test_a_games_catalogs_have_every_language_and_only_its_own_ids(game):
    folder = registry.spec(game).catalog_dir()
    if folder is None:
        made = [m.group(3) for p in folder_of(game).rglob("*.py") for m in MADE.finditer(p.read_text("utf-8"))]
        assert not [i for i in made if i.startswith(f"{game}.")], f"{game} makes texts of its own but ships no i18n/"
        return
    cats = {lang: read_catalog(folder / f"{lang}.po") for lang in LANGUAGES}
    every = set().union(*cats.values())
    for lang, cat in cats.items():
        assert set(cat) == every, f"{game}/{lang}.po lacks {sorted(every - set(cat))}"
        assert not [k for k in cat if not (k.startswith(f"{game}.") or k == f"game.{game}")], f"{game}/{lang}.po"
    for msg_id in every:
        assert len({frozenset(placeholders(cat[msg_id])) for cat in cats.values()}) == 1, msg_id


@every_game
def test_every_id_a_games_code_makes_is_in_the_catalogs_and_none_is_plain_english(game):
    spec = registry.spec(game)
    known = merged("en", [*CORE_FOLDERS, *([spec.catalog_dir()] if spec.catalog_dir() else [])])
    for path in folder_of(game).rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        plain = PLAIN.search(text)
        assert plain is None, f"{path}: a text in plain English: {text[plain.start():plain.start() + 60]!r}"
        for m in MADE.finditer(text):
            msg_id = m.group(3)
            if m.group(1):  # an f-string: some id of the catalogs fits it
                pattern = re.compile(re.sub(r"\\\{[^}]*\\\}", "[a-z0-9_]+", re.escape(msg_id)) + "$")
                assert any(pattern.match(k) for k in known), f"{path}: no id fits {msg_id}"
            else:
                assert msg_id in known, f"{path}: {msg_id} is in no catalog"


@every_game
def test_a_games_console_loads_and_gives_the_page_its_felt(game):
    from tablesim.games.rig import mock_rig

    spec = registry.spec(game)
    rig = mock_rig(game, seed=1)
    console = spec.part("console")(rig.table, rig)
    layout, view = console.layout(), console.view()
    assert console.actions()["open_round"].describe()["enabled"]
    if spec.console_piece:
        return  # the game's own piece of the page draws its felt
    assert layout["kind"] == "boxes" and layout["positions"], layout
    assert set(layout["bet_labels"]) >= set(layout["bets"]), layout
    assert set(view["boxes"]) >= set(layout["positions"]), view


@every_game
def test_an_option_a_game_does_not_take_is_refused_naming_the_games_that_do(game):
    from tablecore.errors import InputError

    for option, (_, takers) in registry.all_options().items():
        if game in takers:
            continue
        with pytest.raises(InputError) as refused:
            registry.check_options(game, {option: 2})
        assert str(refused.value) == option_refusal(option, game)


@every_game
def test_every_part_and_bench_a_game_names_loads(game):
    """A spec names its parts as "module:attribute" texts: each one must
    import (a module folded into another leaves no name behind)."""
    from tablesim.games.gamespec import load

    spec = registry.spec(game)
    for name, target in {**spec.parts, **spec.benchmarks, **spec.service_benches}.items():
        assert load(target) is not None, f"{game}: {name} = {target}"
    for name in spec.required:
        assert callable(spec.part(name)), f"{game}: {name}"
