"""``tablesim studio credentials``: the studio's bus closed by role.

Writes the broker's ``users.conf`` (included by every node's configuration)
and, for each role, a file with its connection URLs (``<role>.url``, mode
0600, password inside), so nobody types a credential and the open bus is
never the one that works. Passwords are 32 random bytes each; the broker's
file and the role files are readable by their owner only.

The roles and what the broker lets each do:

- ``admin``: the studio's operator (``studio init``, ``studio register-key``);
- one user per table, named as the table: publishes its own records,
  status and presence only; answers the bet and decision requests sent to
  its own subjects (it alone may subscribe to them, so nobody else can join
  its queue group and answer in its place); reads only its own subjects,
  through readers filtered on them that it makes itself; never the
  JetStream API's direct reads (``STREAM.MSG.GET``: a message of any table,
  a face-down card among them), never another reader;
- ``platform``: sends bet and decision requests to any table (the only
  role that may); reads the stream through its own readers (its durable
  settlement reader and ephemeral ones) and acknowledges its own; reads a
  stored message by its number (the check of a stream numbered anew);
  tells its other processes, and is told, of the balances settlement moved
  (``tablesim.platform.credited``, the only role that may);
- ``studio``: the floor and the anchor: reads the stream through its own
  readers, the tables' status and the keys' bucket; publishes nothing of
  the tables'.

Every role gets its replies on its own inbox (``_INBOX.<user>.>``, the prefix
tablesim's connections use when the URL names a user), none another's.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from tablecore import natsurl
from tablecore.errors import InputError
from tablesim.studio import wire

ROLES = ("admin", "platform", "studio")
#: the durable readers of the platform's settlement and of the floor
PLATFORM_DURABLE, STUDIO_DURABLE = "tablesim-platform", "tablesim-studio"
KV = "KV_TABLESIM_KEYS"
STREAM = wire.STREAM


def _list(items: list[str], indent: str) -> str:
    return ",\n".join(f'{indent}"{s}"' for s in items)


def table_permissions(table: str) -> tuple[list[str], list[str], list[str]]:
    """(publish allowed, publish denied, subscribe allowed) of a table's user."""
    own = [f"tablesim.{table}.{kind}" for kind in (*wire.RECORD_KINDS, "status", "live")]
    api = [f"$JS.API.STREAM.INFO.{STREAM}",
           f"$JS.API.CONSUMER.CREATE.{STREAM}.*.tablesim.{table}.*",  # (its own readers, filtered on its subjects)
           f"$JS.API.CONSUMER.INFO.{STREAM}.*", f"$JS.API.CONSUMER.MSG.NEXT.{STREAM}.*",
           f"$JS.API.CONSUMER.DELETE.{STREAM}.*"]
    deny = [f"$JS.API.CONSUMER.*.{STREAM}.{name}" for name in (STUDIO_DURABLE, PLATFORM_DURABLE)] + \
           [f"$JS.API.CONSUMER.MSG.NEXT.{STREAM}.{name}" for name in (STUDIO_DURABLE, PLATFORM_DURABLE)] + \
           [f"$JS.API.CONSUMER.CREATE.{STREAM}.{name}.>" for name in (STUDIO_DURABLE, PLATFORM_DURABLE)] + \
           [f"$JS.API.STREAM.MSG.GET.{STREAM}", f"$JS.API.DIRECT.GET.{STREAM}", f"$JS.API.DIRECT.GET.{STREAM}.>"]
    subscribe = [f"_INBOX.{table}.>", wire.bets_subject(table), wire.decisions_subject(table),
                 f"tablesim.{table}.live"]
    return own + api, deny, subscribe


def _readers(durable: str) -> list[str]:
    """The JetStream API a studio reader needs to read the stream through its own readers."""
    return [
        "$JS.API.INFO", f"$JS.API.STREAM.INFO.{STREAM}",
        f"$JS.API.CONSUMER.CREATE.{STREAM}", f"$JS.API.CONSUMER.CREATE.{STREAM}.>",
        f"$JS.API.CONSUMER.DURABLE.CREATE.{STREAM}.{durable}",
        f"$JS.API.CONSUMER.INFO.{STREAM}.*", f"$JS.API.CONSUMER.MSG.NEXT.{STREAM}.*",
        f"$JS.API.CONSUMER.DELETE.{STREAM}.*", f"$JS.ACK.{STREAM}.>", f"$JS.API.STREAM.MSG.GET.{STREAM}",
        f"$JS.API.STREAM.INFO.{KV}", f"$JS.API.CONSUMER.CREATE.{KV}", f"$JS.API.CONSUMER.CREATE.{KV}.>",
        f"$JS.API.CONSUMER.INFO.{KV}.*", f"$JS.API.CONSUMER.MSG.NEXT.{KV}.*", f"$JS.API.CONSUMER.DELETE.{KV}.*",
        f"$JS.API.DIRECT.GET.{KV}.>",
    ]


def users_conf(tables: list[str], passwords: dict[str, str]) -> str:
    """The broker's ``users.conf`` for these tables."""
    blocks = [f'    {{ user: admin, password: "{passwords["admin"]}" }}']
    for table in tables:
        publish, deny, subscribe = table_permissions(table)
        blocks.append(f'''    {{ user: {table}, password: "{passwords[table]}", permissions: {{
        publish: {{ allow: [
{_list(publish, "          ")}
        ], deny: [
{_list(deny, "          ")}
        ] }}
        subscribe: {{ allow: [{", ".join(f'"{s}"' for s in subscribe)}] }}
        allow_responses: true
    }} }}''')
    other_durable = {PLATFORM_DURABLE: STUDIO_DURABLE, STUDIO_DURABLE: PLATFORM_DURABLE}
    platform = ["tablesim.*.bets", "tablesim.*.decisions", wire.CREDITED_SUBJECT, *_readers(PLATFORM_DURABLE)]
    studio = _readers(STUDIO_DURABLE)
    for user, allow, extra_sub in (("platform", platform, [f'"{wire.CREDITED_SUBJECT}"']),
                                   ("studio", studio, ['"tablesim.*.status"'])):
        durable = PLATFORM_DURABLE if user == "platform" else STUDIO_DURABLE
        deny = [f"$JS.API.CONSUMER.*.{STREAM}.{other_durable[durable]}",
                f"$JS.API.CONSUMER.MSG.NEXT.{STREAM}.{other_durable[durable]}",
                f"$JS.API.CONSUMER.CREATE.{STREAM}.{other_durable[durable]}.>"]
        blocks.append(f'''    {{ user: {user}, password: "{passwords[user]}", permissions: {{
        publish: {{ allow: [
{_list(allow, "          ")}
        ], deny: [
{_list(deny, "          ")}
        ] }}
        subscribe: {{ allow: ["_INBOX.{user}.>"{", " + ", ".join(extra_sub) if extra_sub else ""}] }}
    }} }}''')
    return ("# Written by `tablesim studio credentials`: who may publish and read what on the\n"
            "# studio's bus (the same file on every node; readable by the nats-server user only).\n"
            "# Run the command again to add a table or change every password.\n\n"
            "authorization {\n  users: [\n" + "\n".join(blocks) + "\n  ]\n}\n")


def write(out: str | Path, tables: list[str], servers: str) -> dict[str, Path]:
    """Write ``users.conf`` and a ``<role>.url`` per role into ``out``; the role files by role."""
    for table in tables:
        try:
            wire.check_token(table, "table id")
        except InputError as exc:
            raise InputError(exc.message, where="--table") from None
        if table in ROLES:
            raise InputError(f"{table!r} is a role's name, not a table's", where="--table")
    if len(set(tables)) != len(tables):
        raise InputError("a table is named twice", where="--table")
    why, joined = natsurl.check(servers)
    if why is not None:
        raise InputError(why, where="--servers")
    if any("@" in u for u in natsurl.split(joined)):
        raise InputError("the servers are given without a user (the roles' users are written here)",
                         where="--servers")
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    passwords = {name: secrets.token_urlsafe(32) for name in (*ROLES, *tables)}
    _secret_file(folder / "users.conf", users_conf(tables, passwords))
    files = {}
    for name, password in passwords.items():
        urls = ",".join(u.replace("://", f"://{name}:{password}@", 1) for u in natsurl.split(joined))
        files[name] = _secret_file(folder / f"{name}.url", urls + "\n")
    return files


def _secret_file(path: Path, text: str) -> Path:
    """Written whole (a temporary file renamed), readable by its owner only."""
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)
    return path
