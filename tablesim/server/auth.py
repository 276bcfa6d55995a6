"""Operator tokens: who may change the table through the API.

Every mutating call carries ``Authorization: Bearer <token>``. A token
belongs to one operator with a role: ``dealer`` (bets, betting, dealing,
spins, decisions, misdeal, pause, resume) or ``supervisor`` (everything a
dealer may do, plus void and incident resolution). A missing or unknown
token gets 401, a token whose role is not enough gets 403; either way
nothing is changed.

Tokens come from a token file (``--tokens``, ``TokenStore.from_config``), from
a table configuration's ``[operators]`` (``from_operators``: its operators,
or its ``tokens_file``, generated on the first run if absent), or are
generated on the first run and kept in a file next to the journal (mode
0600), so a restarted table keeps its tokens.
"""

from __future__ import annotations

import hmac
import json
import os
import re
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

from tablecore.secretfile import read_owner_only
from tablecore.errors import ConfigError

ROLES = ("dealer", "supervisor")
#: what each role may do: a supervisor may do everything a dealer may
RANK = {"dealer": 1, "supervisor": 2}


@dataclass(frozen=True)
class Operator:
    name: str
    role: str

    @property
    def actor(self) -> str:
        """How the journal names this operator: ``role:name``."""
        return f"{self.role}:{self.name}"

    def may(self, role: str) -> bool:
        return RANK[self.role] >= RANK[role]


class TokenStore:
    def __init__(self, entries: Iterable[tuple[str, Operator]], source: str = "") -> None:
        self.entries = list(entries)
        self.source = source
        for token, op in self.entries:
            if op.role not in ROLES:
                raise ConfigError(f"unknown role {op.role!r} (roles: {', '.join(ROLES)})", where=source or None)
            if len(token) < 16:
                raise ConfigError(f"the token of {op.name!r} is too short (16 characters at least)", where=source or None)

    def check(self, token: str | None) -> Operator | None:
        """The operator holding ``token``, or None. Compares in constant time."""
        if not token:
            return None
        found = None
        for known, op in self.entries:
            if hmac.compare_digest(known.encode(), token.encode()):
                found = op
        return found

    def first(self, role: str) -> tuple[str, Operator] | None:
        for token, op in self.entries:
            if op.role == role:
                return token, op
        return None

    @staticmethod
    def from_config(data: Any, source: str = "") -> "TokenStore":
        """``{"operators": [{"name": .., "role": .., "token": ..}, ...]}``."""
        if not isinstance(data, dict) or not isinstance(data.get("operators"), list):
            raise ConfigError("expected a list 'operators' of {name, role, token}", where=source or None)
        entries = []
        for i, item in enumerate(data["operators"]):
            where = f"{source}: operators[{i}]" if source else f"operators[{i}]"
            if not isinstance(item, dict) or set(item) - {"name", "role", "token"}:
                raise ConfigError("an operator has exactly name, role and token", where=where)
            name, role, token = item.get("name"), item.get("role"), item.get("token")
            if not all(isinstance(v, str) and v for v in (name, role, token)):
                raise ConfigError("name, role and token must be non-empty strings", where=where)
            entries.append((token, Operator(name, role)))
        if not entries:
            raise ConfigError("no operators: nobody could act on the table", where=source or None)
        return TokenStore(entries, source)

    @staticmethod
    def generate(prefix: str = "mock") -> "TokenStore":
        """A dealer and a supervisor with fresh tokens (``<prefix>-dealer``, ...)."""
        name = (lambda role: f"{prefix}-{role}") if prefix else (lambda role: role)
        return TokenStore(
            [
                (secrets.token_urlsafe(24), Operator(name("dealer"), "dealer")),
                (secrets.token_urlsafe(24), Operator(name("supervisor"), "supervisor")),
            ],
            "generated",
        )

    @staticmethod
    def from_operators(operators: Any, prefix: str = "") -> tuple["TokenStore", bool, str]:
        """The tokens of a table configuration's ``[operators]``
        (:class:`tablesim.harness.tableconfig.OperatorsConfig`): its list, or its
        token file (generated on the first run). Returns (tokens, created, where)."""
        if operators.entries:
            store = TokenStore([(e.token, Operator(e.name, e.role)) for e in operators.entries], operators.where)
            return store, False, operators.where
        store, created = load_or_create(operators.tokens_file, prefix=prefix)
        return store, created, str(operators.tokens_file)

    def as_config(self) -> dict[str, Any]:
        return {"operators": [{"name": op.name, "role": op.role, "token": t} for t, op in self.entries]}


def read_token_file(path: str | Path) -> TokenStore:
    """A token file's operators. Refused (one line) if it is not a regular
    file or others may read it: as the journal's key file, a token is a
    secret only its owner reads (mode 0600)."""
    path = Path(path)
    text = read_owner_only(path, "the token file", error=ConfigError)
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise ConfigError(f"cannot read the token file: {exc}", where=str(path)) from None
    return TokenStore.from_config(data, str(path))


def load_or_create(path: Path, prefix: str = "mock") -> tuple[TokenStore, bool]:
    """A table's tokens from ``path``; generated (operators ``<prefix>-dealer``
    and ``<prefix>-supervisor``) and saved (0600) on the first run. Returns
    (tokens, created)."""
    if path.is_file():
        return read_token_file(path), False
    store = TokenStore.generate(prefix)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except OSError as exc:
        raise ConfigError(f"cannot create the token file: {exc.strerror}", where=str(path)) from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(store.as_config(), fh, indent=2)
            fh.write("\n")
    except OSError as exc:  # (a full disk) a partial file would stop every later start
        path.unlink(missing_ok=True)
        raise ConfigError(f"cannot write the token file: {exc.strerror}", where=str(path)) from None
    store.source = str(path)
    return store, True


#: an operator's name: the person (a dealer's, a supervisor's), as reports and history show it
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 ._'-]{0,39}$")


def parse_operator(spec: str) -> Operator:
    """``dealer:Ana`` (``--operator``) -> the operator; a bad one is one line."""
    role, _, name = spec.partition(":")
    if role not in ROLES or not NAME.match(name):
        raise ConfigError(f"{spec!r} is not ROLE:NAME (role {' or '.join(ROLES)}; a name of 1 to 40 letters, digits, "
                          "spaces, . _ ' -)", where="--operator")
    return Operator(name, role)


def with_operators(store: TokenStore, named: list[Operator], path: Path | None) -> tuple[TokenStore, list[str]]:
    """The table's tokens with the named operators added: one already there
    keeps its token, a new one gets a fresh token, and the token file (if
    any) is written again (0600) so a restart keeps them. Returns the store
    and the new operators' names."""
    have = {(op.role, op.name) for _, op in store.entries}
    new = [op for op in dict.fromkeys(named) if (op.role, op.name) not in have]
    if not new:
        return store, []
    entries = store.entries + [(secrets.token_urlsafe(24), op) for op in new]
    out = TokenStore(entries, store.source)
    if path is not None:
        tmp = path.with_name(path.name + ".tmp")
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(out.as_config(), fh, indent=2)
                fh.write("\n")
            os.replace(tmp, path)
        except OSError as exc:
            tmp.unlink(missing_ok=True)
            raise ConfigError(f"cannot write the token file: {exc.strerror}", where=str(path)) from None
    return out, [op.actor for op in new]


def bearer(header: str | None) -> str | None:
    if not header:
        return None
    scheme, _, value = header.partition(" ")
    if scheme.lower() != "bearer" or not value.strip():
        return None
    return value.strip()
