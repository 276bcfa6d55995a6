"""The football card game, as the registry knows it (entry point ``tablesim.games``)."""

from tablesim.games.gamespec import GameOption, GameSpec

_HERE = "tablesim.games.football"

#: Art. 2 allows one or more decks; this table's shoe holds 1 to 8.
DECKS = GameOption("decks", "decks in the shoe", 1, lo=1, hi=8, in_analysis=True)

SPEC = GameSpec(
    name="football",
    title="Football card game",
    default_profile="macau-2003",
    options=(DECKS,),
    device_kinds=("shoe", "display"),
    id_prefix="FB",
    simulation_note=(
        "one deck: a fresh shuffled deck whenever the current one could run short (Art. 8(1)); "
        "several decks: a continuous shuffler that takes every round's cards back (Art. 8(2))"
    ),
    bench_table="all 11 boxes betting",
    console_piece=f"{_HERE}:static/football.js",
    parts={
        "profile": f"{_HERE}.profile:load_profile",
        "settings": f"{_HERE}.game:settings",
        "config_settings": f"{_HERE}.game:config_settings",
        "devices": f"{_HERE}.game:devices",
        "table": f"{_HERE}.game:table",
        "diagram": f"{_HERE}.game:diagram",
        "mock": f"{_HERE}.mockrun:mock",
        "session": f"{_HERE}.mockrun:session",
        "script": f"{_HERE}.script:script_session",
        "simulator": f"{_HERE}.simulation:simulator",
        "simulation_exact": f"{_HERE}.simulation:simulation_exact",
        "analyze": f"{_HERE}.analysis:analyze",
        "render_analysis": f"{_HERE}.analysis:render_analysis",
        "console": f"{_HERE}.console:FootballConsole",
        "dealer": f"{_HERE}.dealer:play_round",
    },
)
