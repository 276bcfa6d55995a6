"""A game's pays and rules as the player's page shows them (its paytable and
help), from a rule profile: what the profile pays is what the page says,
amounts as decimal texts. What a game says is its own (its ``RemoteView.rules``)."""

from __future__ import annotations

from tablesim.games import registry


def rules_of(game: str, profile) -> dict:
    """The page's paytable of ``game`` under ``profile`` (the game's own profile object)."""
    return {"profile": profile.name, **registry.spec(game).remote_view().rules(profile)}
