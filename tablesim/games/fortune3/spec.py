"""Fortune 3 Card Poker, as the registry knows it (entry point ``tablesim.games``)."""

from tablesim.games.gamespec import GameOption, GameSpec

_HERE = "tablesim.games.fortune3"

#: Art. 7: cards come from a shoe one at a time, or three at once from a shuffler
DEALING = GameOption("dealing", "how cards are dealt", "shoe", choices=("shoe", "shuffler"))

SPEC = GameSpec(
    name="fortune3",
    title="Fortune 3 Card Poker",
    default_profile="macau-2008",
    options=(DEALING,),
    device_kinds=("shoe", "shuffler"),
    id_prefix="F3",
    simulation_note="a full deck freshly shuffled for every round (Art. 3)",
    bench_table="all 7 boxes betting (Ante, Pair Plus or both), Q-6-4 decisions",
    benchmarks={"fortune3_hands": f"{_HERE}.bench:hands"},
    service_benches={"card_to_console": f"{_HERE}.bench:CARDS"},
    console_piece=f"{_HERE}:static/fortune3.js",
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
        "console": f"{_HERE}.console:Fortune3Console",
        "dealer": f"{_HERE}.dealer:play_round",
    },
)
