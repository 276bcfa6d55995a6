"""NATS server URLs as the user gives them: one ``nats://HOST:PORT`` or a
comma-separated list of a cluster's nodes (``--studio``, ``--nats``,
``[studio] urls``). Kept in the core so that the table configuration (below
the studio) checks them exactly as the studio's own options do."""

from __future__ import annotations

from urllib.parse import urlsplit


def split(text: str | list[str] | tuple[str, ...] | None) -> list[str]:
    """The URLs of a comma-separated string (or a list), blanks dropped; an
    item ``@FILE`` stands for the URLs written in FILE (a role's file of
    ``tablesim studio credentials``: its password never on a command line)."""
    parts = text if isinstance(text, (list, tuple)) else str(text or "").split(",")
    out: list[str] = []
    for p in parts:
        if isinstance(p, str) and p.strip().startswith("@"):
            out.extend(split(_read(p.strip()[1:])))
        elif isinstance(p, str) and p.strip():
            out.append(p.strip())
    return out


def _read(path: str) -> str:
    """A role's URL file's text ('' if it cannot be read: the URL is then refused as missing, naming the file)."""
    try:
        with open(path, encoding="utf-8") as f:
            return f.read(64 * 1024).replace("\n", ",")
    except (OSError, UnicodeDecodeError):
        return ""


def bad(url: str) -> str | None:
    """Why ``url`` is not one NATS URL (None: it is one)."""
    parts = urlsplit(url or "")
    try:
        port = parts.port
    except ValueError:
        port = None
    if parts.scheme not in ("nats", "tls") or not parts.hostname or port is None:
        return "is not a NATS URL (nats://HOST:PORT)"
    return None


def shown(url: str) -> str:
    """The URL(s) as shown, logged or sent: a password or token is never repeated."""
    out = []
    for one in split(url) or [url or ""]:
        parts = urlsplit(one)
        if "@" not in parts.netloc:
            out.append(one)
            continue
        user, _, host = parts.netloc.rpartition("@")
        name = user.split(":", 1)[0] if ":" in user else ""
        out.append(parts._replace(netloc=f"{name + ':' if name else ''}***@{host}").geturl())
    return ",".join(out)


def check(text: str | list[str] | None) -> tuple[str | None, str]:
    """(why it is refused or None, the URLs joined by commas)."""
    urls = split(text)
    if not urls:
        return f"{shown(str(text or ''))!r} is not a NATS URL (nats://HOST:PORT)", ""
    for url in urls:
        why = bad(url)
        if why is not None:
            return f"{shown(url)!r} {why}", ""
    return None, ",".join(urls)


def inbox_prefix(text: str | list[str] | None) -> str:
    """The reply inbox prefix of a connection made with these URLs:
    ``_INBOX.<user>`` when they name a user, so that the broker's
    permissions can give each user its own replies only (config/nats/users.conf);
    nats-py's default ``_INBOX`` otherwise."""
    for url in split(text):
        netloc = urlsplit(url).netloc
        if "@" in netloc:
            user = netloc.rpartition("@")[0].split(":", 1)[0]
            if user and all(c.isalnum() or c in "-_" for c in user):
                return f"_INBOX.{user}"
    return "_INBOX"
