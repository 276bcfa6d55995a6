"""A game's pays and rules as the player's page shows them (its paytable and
help), from a rule profile: what the profile pays is what the page says,
amounts as decimal texts."""

from __future__ import annotations


def _texts(pays: dict) -> dict[str, str]:
    return {k: format(v, "f") for k, v in pays.items()}


def rules_of(game: str, profile) -> dict:
    """The page's paytable of ``game`` under ``profile`` (the game's own profile object)."""
    out: dict = {"profile": profile.name}
    if game == "wheel":
        out["pays"] = {s.name: format(s.pays, "f") for s in profile.symbols}
        out["segments"] = {s.name: s.segments for s in profile.symbols}
    elif game == "football":
        out["pays"] = _texts(profile.pays)
        # (a fraction of the win: the page says it in percent, exact)
        out["commission"] = {k: format(v * 100, "f").rstrip("0").rstrip(".") for k, v in profile.commission.items() if v}
        out["on_middle"] = dict(profile.on_middle)
    elif game == "fortune3":
        out["ante_pays"], out["play_pays"] = format(profile.ante_pays, "f"), format(profile.play_pays, "f")
        out["ante_bonus"], out["pair_plus"] = _texts(profile.ante_bonus), _texts(profile.pair_plus)
        out["ranking"] = list(profile.ranking)
        out["qualifier"] = {"category": profile.qualifier_category, "high_card": profile.qualifier_high_card}
    return out
