"""The rule profile in force at a table, as its players' page shows it.

Each round's first record (the journal's ``meta`` ``round``) names the
profile the round is played under (``profile``: its name and the sha256 of
its rules) and carries its rules (``rules``: ``tablesim.profiles.profile_rules``),
signed by the table with the rest. From them the platform makes the game's
own profile object again (the game's dataclass, each value read back to the
type its field declares) and keeps it only if its sha256 is the stamp's: the
page then draws that table's spots, pays, paytable and wheel from the
profile the table plays, not from the game's default. A table that has
opened no round since the platform read it, or rules that do not match
their stamp, show the game's default profile (``layouts.game_layout``).
"""

from __future__ import annotations

import dataclasses
import enum
import logging
import types
import typing
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from typing import Any

from tablecore.plainjson import jsonable
from tablesim.games import registry
from tablesim.games.rig import mock_rig
from tablesim.platform.player.rules import rules_of
from tablesim.profiles import profile_sha256, rules_match

log = logging.getLogger("tablesim.platform")

#: the record that begins a round, and names its profile
ROUND_RECORD = ("meta", "round")


class NotRules(ValueError):
    """Published rules that do not read as the game's profile."""


def _value(kind: Any, value: Any) -> Any:
    """``value`` (plain JSON) as the type ``kind`` a profile's field declares."""
    origin = typing.get_origin(kind)
    args = typing.get_args(kind)
    if origin in (typing.Union, types.UnionType):
        if value is None and type(None) in args:
            return None
        for arg in (a for a in args if a is not type(None)):
            return _value(arg, value)
    if kind is Any:
        return value
    if dataclasses.is_dataclass(kind):
        return _dataclass(kind, value, {})
    if isinstance(kind, type) and issubclass(kind, enum.Enum):
        return kind(value)
    if kind is Decimal:
        try:
            return Decimal(str(value))
        except InvalidOperation:
            raise NotRules(f"{value!r} is not a decimal") from None
    if kind in (int, str, bool):
        if kind is int and isinstance(value, str):
            return int(value)  # (a mapping's key: JSON writes it as text)
        if not isinstance(value, kind):
            raise NotRules(f"{value!r} is not {kind.__name__}")
        return value
    if origin in (dict, typing.Mapping, typing.MutableMapping) or kind is dict:
        key, item = args or (Any, Any)
        if not isinstance(value, dict):
            raise NotRules(f"{value!r} is not a table")
        return {_value(key, k): _value(item, v) for k, v in value.items()}
    if origin in (tuple, list, frozenset, set) or kind in (tuple, list, frozenset, set):
        if not isinstance(value, list):
            raise NotRules(f"{value!r} is not a list")
        item = args[0] if args and (len(args) < 2 or args[1] is Ellipsis) else None
        items = [_value(item if item is not None else (args[i] if i < len(args) else Any), v) for i, v in enumerate(value)]
        return (origin or kind)(items)
    if typing.get_origin(kind) is typing.Literal:
        return value
    return value


def _dataclass(cls: type, plain: Any, given: dict[str, Any]) -> Any:
    if not isinstance(plain, dict):
        raise NotRules(f"{cls.__name__}: {plain!r} is not a table")
    hints = typing.get_type_hints(cls)
    fields = {}
    for f in dataclasses.fields(cls):
        if f.name in given:
            fields[f.name] = given[f.name]
        elif f.name in plain:
            fields[f.name] = _value(hints.get(f.name, Any), plain[f.name])
        elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            raise NotRules(f"{cls.__name__}: no {f.name}")
    return cls(**fields)


def profile_from(game: str, stamp: dict, rules: dict) -> Any:
    """The game's profile object the published ``rules`` are, checked against
    ``stamp``'s sha256 (raises NotRules when they are not the stamp's)."""
    if not rules_match(stamp, rules):
        raise NotRules("the rules are not the ones the round's stamp names")
    template = registry.spec(game).load_profile(None)
    profile = _dataclass(type(template), rules, {"name": str(stamp.get("name") or ""), "description": "",
                                                 "source": ""})
    if profile_sha256(profile) != stamp.get("sha256"):  # (read back to other values than the table holds)
        raise NotRules("the rules read back are not the ones the round's stamp names")
    return profile


@lru_cache(maxsize=64)
def _layout(game: str, sha256: str, name: str, rules_json: str) -> dict:
    import json

    profile = profile_from(game, {"name": name, "sha256": sha256}, json.loads(rules_json))
    rig = mock_rig(game, seed=0)
    rig.table.profile = profile  # (the game's console draws its layout from the table's profile)
    adapter = registry.spec(game).part("console")(rig.table, rig)
    layout = {**adapter.layout(), "rules": {**rules_of(game, profile), "sha256": sha256}}
    return jsonable({"layout": layout, "limits": adapter.limits()})


def layout_in_force(game: str, data: dict) -> dict | None:
    """The page's layout and limits of ``game`` under the profile a round's
    first record (its ``data``) names and carries, or None (a record of an
    earlier release, without the rules; rules that are not the stamp's)."""
    import json

    stamp, rules = data.get("profile"), data.get("rules")
    if not isinstance(stamp, dict) or not isinstance(rules, dict):
        return None
    try:
        return _layout(game, str(stamp.get("sha256")), str(stamp.get("name") or ""),
                       json.dumps(rules, sort_keys=True))
    except Exception as exc:  # (the players are then shown the game's default profile)
        log.warning("platform: the rules of %s's profile %r are not shown: %s", game, stamp.get("name"), exc)
        return None
