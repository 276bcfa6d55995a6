"""Finding and loading rule profiles and table configurations from ``config/``.

Profiles are TOML files under ``config/rules/`` named ``<game>-<profile>.toml``.
A profile may be named (``macau-2008``) or given as a path to any TOML file;
no name means the game's default (its spec's ``default_profile``).
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

from tablecore.errors import ConfigError, InputError
from tablecore.money import WrittenFloat

#: a rule profile's name: plain, so that no name passes for another by a
#: space, a look-alike letter or a control character ("macau-2008 ")
PROFILE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,39}")

def config_root() -> Path:
    """The directory holding ``rules/`` and ``tables/``.

    In a source checkout (and an editable install) this is the repository's
    ``config/``; in an installed package it is the packaged copy.
    """
    here = Path(__file__).resolve().parent.parent / "config"
    if (here / "rules").is_dir():
        return here
    return Path(__file__).resolve().parent / "_config"


def read_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as fh:
            # floats keep their spelling: an amount written 1e3 is refused as it is elsewhere
            return tomllib.load(fh, parse_float=WrittenFloat)
    except FileNotFoundError:
        raise ConfigError("file not found", where=str(path)) from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"not valid TOML: {exc}", where=str(path)) from None
    except UnicodeDecodeError as exc:  # TOML is UTF-8 by definition
        raise ConfigError(f"not UTF-8 text (byte {exc.start}: {exc.object[exc.start]:#04x})",
                          where=str(path)) from None
    except OSError as exc:
        raise ConfigError(f"cannot read: {exc.strerror}", where=str(path)) from None


def rule_profile_path(game: str, profile: str | None = None, default: str | None = None) -> Path:
    """``profile`` (a name or a path) of ``game``; None: ``default``."""
    name = profile or default
    if not name:
        raise ConfigError(f"no rule profile named for {game} (and no default given)")
    candidate = Path(name)
    if candidate.suffix == ".toml" or candidate.exists():
        return candidate
    path = config_root() / "rules" / f"{game}-{name}.toml"
    if not path.exists():
        known = sorted(p.stem.removeprefix(f"{game}-") for p in (config_root() / "rules").glob(f"{game}-*.toml"))
        raise ConfigError(f"no rule profile {name!r} for {game} (known: {', '.join(known) or 'none'})")
    return path


def load_rule_profile_data(game: str, profile: str | None = None, default: str | None = None) -> tuple[dict[str, Any], str]:
    """The raw profile table and the file name to quote in errors."""
    path = rule_profile_path(game, profile, default)
    data = read_toml(path)
    found = data.get("game")
    if found != game:
        raise ConfigError(f"profile is for game {found!r}, not {game!r}", where=f"{path}: game")
    return data, str(path)


def profile_header(r) -> tuple[str, str]:
    """The keys every rule profile starts with: ``game`` (checked when the
    file was found), ``name`` and an optional ``description``."""
    r.str("game")
    name = r.str("name")
    if not PROFILE_NAME.fullmatch(name):
        raise r.fail("name", f"{name!r} must be 1 to 40 of A-Z a-z 0-9 . _ -, beginning with a letter or digit "
                             "(it is shown and recorded as the rules a round was played under)")
    return name, r.str("description", "")


def script_profile(table, load):
    """A script's ``table.profile`` (default: the game's default profile),
    loaded with ``load``; a bad one is an error at ``table.profile``."""
    name = table.str("profile") if table.has("profile") else None
    try:
        return load(name)
    except InputError as exc:
        raise table.fail("profile", exc.message) from None


# --- what the journal records of a profile -------------------------------------------

#: fields of a profile object that are not rules: its name, description and file
NOT_RULES = ("name", "description", "source")


def _plain(value: Any, parts: tuple[str, ...] = NOT_RULES) -> Any:
    """A profile's values as JSON: exact decimals as text, sets sorted.
    ``parts``: the fields left out of the profile's parts (its symbols, its
    draws); the profile's own name, description and file are always left out."""
    import dataclasses
    from decimal import Decimal

    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name), parts) for f in dataclasses.fields(value)
                if f.name not in NOT_RULES}
    return _plain_part(value, parts)


def _plain_part(value: Any, parts: tuple[str, ...]) -> Any:
    import dataclasses
    from decimal import Decimal

    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain_part(getattr(value, f.name), parts) for f in dataclasses.fields(value)
                if f.name not in parts}
    if isinstance(value, Decimal):
        return format(value.normalize(), "f")
    if isinstance(value, dict):
        return {str(k): _plain_part(v, parts) for k, v in value.items()}
    if isinstance(value, (set, frozenset)):
        return sorted((_plain_part(v, parts) for v in value), key=repr)
    if isinstance(value, (list, tuple)):
        return [_plain_part(v, parts) for v in value]
    if hasattr(value, "value") and hasattr(value, "name"):  # an enum
        return value.value
    return value


def profile_content(profile: Any) -> dict[str, Any]:
    """The rules of a loaded profile as canonical JSON values (no name, description or path)."""
    return _plain(profile)


def profile_sha256(profile: Any) -> str:
    """SHA-256 of the profile's canonical content (its rules, not its name or comments)."""
    import hashlib
    import json

    text = json.dumps(profile_content(profile), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def profile_stamp(profile: Any) -> dict[str, str]:
    """What each round's first journal record says of its rule profile."""
    return {"name": str(getattr(profile, "name", "")), "sha256": profile_sha256(profile)}


def profile_rules(profile: Any) -> dict[str, Any]:
    """The profile's rules as each round's first record publishes them beside
    its stamp, for whoever shows the table's rules (the players' page reads
    the pays in force from them, not from a copy of its own): the content
    with the names of its parts kept (which of a wheel's symbols pays what).
    ``rules_match`` checks them against the stamp."""
    return _plain(profile, parts=("description", "source"))


def _content_of_rules(value: Any, top: bool = True) -> Any:
    """``profile_rules``'s form back to ``profile_content``'s: the parts' names left out."""
    if isinstance(value, dict):
        return {k: _content_of_rules(v, False) for k, v in value.items() if top or k != "name"}
    if isinstance(value, list):
        return [_content_of_rules(v, False) for v in value]
    return value


def rules_match(stamp: Any, rules: Any) -> bool:
    """Whether ``rules`` (as ``profile_rules`` made them) are the rules the stamp's sha256 names."""
    import hashlib
    import json

    if not isinstance(stamp, dict) or not isinstance(rules, dict) or not isinstance(stamp.get("sha256"), str):
        return False
    text = json.dumps(_content_of_rules(rules), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest() == stamp["sha256"]


def _first_difference(a: Any, b: Any, path: str = "") -> str:
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if a.get(k) != b.get(k):
                return _first_difference(a.get(k), b.get(k), f"{path}.{k}" if path else k)
    return path or "(content)"


def _raw_rules(data: Any) -> Any:
    """A profile file's table with numbers compared by value (1 == 1.0) and
    without its name and description."""
    from decimal import Decimal

    if isinstance(data, dict):
        return {str(k): _raw_rules(v) for k, v in data.items() if k not in ("name", "description")}
    if isinstance(data, list):
        return [_raw_rules(v) for v in data]
    if isinstance(data, (int, float)) and not isinstance(data, bool):
        return format(Decimal(repr(data) if isinstance(data, float) else data).normalize(), "f")
    return data


def check_builtin_name(game: str, profile: Any, parse: Any, data: dict[str, Any] | None = None) -> None:
    """Refuse a profile that takes a built-in regulation's name with other rules:
    a round's record must never show "macau-2008" over different pays.
    ``data``: the profile's file as read, to name the first key that differs."""
    # (case aside: "MACAU-2008" is shown as the regulation too)
    builtin = next((path for path in (config_root() / "rules").glob(f"{game}-*.toml")
                    if path.stem.removeprefix(f"{game}-").casefold() == profile.name.casefold()), None)
    if builtin is None:
        return
    source = getattr(profile, "source", "")
    if source and Path(source).resolve() == builtin.resolve():
        return
    reference_data = read_toml(builtin)
    reference = parse(reference_data, str(builtin))
    mine, theirs = profile_content(profile), profile_content(reference)
    if mine != theirs:
        key = _first_difference(_raw_rules(data), _raw_rules(reference_data)) if data is not None else "(content)"
        if key == "(content)":
            key = _first_difference(mine, theirs)
        raise ConfigError(f"{profile.name!r} is the name of the built-in {game} regulation, but this profile's "
                          f"rules differ from it ({key}): give the profile its own name", where=f"{source}: name")


#: a pay (win per unit staked) is 0 or within these bounds; a commission rate 0 or within its own
PAY_RANGE = ("0.01", "1000")
RATE_RANGE = ("0.0001", "0.5")


def _sane(reader: Any, key: str, bounds: tuple[str, str], what: str) -> Any:
    from decimal import Decimal

    value = reader.decimal(key)
    lo, hi = Decimal(bounds[0]), Decimal(bounds[1])
    if value != 0 and not lo <= value <= hi:
        raise reader.fail(key, f"{value} is not a sane {what} (0, or {bounds[0]} to {bounds[1]})")
    return value


def sane_pay(reader: Any, key: str) -> Any:
    """A pay ratio read from ``reader[key]``: refused (naming the key) outside PAY_RANGE."""
    return _sane(reader, key, PAY_RANGE, "pay")


def sane_rate(reader: Any, key: str) -> Any:
    """A commission rate read from ``reader[key]``: refused outside RATE_RANGE."""
    return _sane(reader, key, RATE_RANGE, "commission rate")
