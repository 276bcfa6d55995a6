"""The Wheel of Fortune, as the registry knows it (entry point ``tablesim.games``)."""

from tablesim.games.gamespec import GameSpec

_HERE = "tablesim.games.wheel"

SPEC = GameSpec(
    name="wheel",
    title="Wheel of Fortune",
    default_profile="macau-2003",
    device_kinds=("wheel",),
    id_prefix="WHEEL",
    simulation_note="every valid spin uniform over the wheel's segments (no-spins re-spun)",
    bench_table="10 players",
    service_benches={"bet_intake": f"{_HERE}.bench:INTAKE"},
    console_piece=f"{_HERE}:static/wheel.js",
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
        "console": f"{_HERE}.console:WheelConsole",
        "dealer": f"{_HERE}.dealer:play_round",
    },
)
