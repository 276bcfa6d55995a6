"""The Wheel of Fortune, as the registry knows it (entry point ``tablesim.games``)."""

from tablesim.games.gamespec import GameSpec, RemoteView, folder_parts

_HERE = "tablesim.games.wheel"

SPEC = GameSpec(
    name="wheel",
    title="Wheel of Fortune",
    default_profile="macau-2003",
    device_kinds=("wheel",),
    id_prefix="WHEEL",
    simulation_note="every valid spin uniform over the wheel's segments (no-spins re-spun)",
    bench_table="10 players",
    service_benches={"bet_intake": f"{_HERE}.simulation:INTAKE"},
    console_piece=f"{_HERE}:static/wheel.js",
    parts={**folder_parts(_HERE, console="WheelConsole"), "remote": f"{_HERE}.spec:VIEW"},
)


class WheelView(RemoteView):
    """A remote player is the position of their own bets (on the symbols);
    the lobby lists the symbol."""

    position = "player"
    scene = "spin"

    def short(self, outcome: dict) -> dict:
        return {"symbol": outcome.get("symbol")}

    def rules(self, profile) -> dict:
        return {"pays": {s.name: format(s.pays, "f") for s in profile.symbols},
                "segments": {s.name: s.segments for s in profile.symbols}}


VIEW = WheelView()
