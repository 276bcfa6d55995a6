"""``tablesim platform serve``: the live-dealer platform between players, the
operator's wallet and the tables (docs/platform.md)."""

from __future__ import annotations

import click

from tablesim.cli.platform_held import held, resolve

from tablesim.cli.options import nats_option

#: seconds a player's socket may be silent before the platform's keepalive ping (see ``serve``)
PING_QUIET = 35.0


@click.group("platform")
def platform() -> None:
    """The live-dealer platform: players' bets against the operator's wallet, settled exactly once (docs/platform.md)."""


@platform.command("serve")
@nats_option("--nats", "nats_url", required=True,
             help="The studio's NATS; a cluster's nodes comma-separated or the option repeated.")
@click.option("--wallet", "wallet_url", required=True, metavar="URL",
              help="The operator's wallet (its base, e.g. http://host:8070/wallet/v1).")
@click.option("--secret", "secret_file", required=True, metavar="FILE", help="The wallet's shared secret (mode 0600).")
@click.option("--tables", "tables_file", required=True, metavar="FILE",
              help="The tables offered: currency, unit, position (TOML).")
@click.option("--db", "db", required=True, metavar="FILE", help="This process's intent log (SQLite; created).")
@click.option("--keys", "keys_file", metavar="FILE",
              help="The tables' registered public keys (default: the studio's keys file).")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", type=click.IntRange(0, 65535), default=8060, show_default=True)
@click.option("--alert-after", type=click.FloatRange(1, 86400), default=30.0, show_default=True,
              help="Seconds a result may stay unpaid before it is alerted (the retries go on).")
@click.option("--ack-wait", type=click.FloatRange(1, 3600), default=30.0, show_default=True,
              help="Seconds before a result being settled by a process that went silent goes to another.")
@click.option("--backstop-after", type=click.FloatRange(1, 86400), default=120.0, show_default=True,
              help="Seconds after a result before the wallet is asked whether it was paid (settled if not).")
def serve(nats_url: str, wallet_url: str, secret_file: str, tables_file: str, db: str, keys_file: str | None,
          host: str, port: int, alert_after: float, ack_wait: float, backstop_after: float) -> None:
    """Serve the players' API (/api/...) and settle the tables' results until Ctrl-C."""
    import gc
    import signal

    import uvicorn

    from tablecore.errors import InputError
    from tablesim.platform.app import create_app
    from tablesim.platform.service import Platform
    from tablesim.platform.tables import load_tables
    from tablesim.studio import natsio
    from tablesim.studio.trust import load_trust
    from tablesim.wallet.app import bind
    from tablesim.wallet.signing import load_secret

    nats_url = natsio.check_url(nats_url, where="--nats")  # (a role's @FILE read: its URLs)
    if not wallet_url.startswith(("http://", "https://")):
        raise InputError(f"{wallet_url!r} is not an http:// or https:// URL", where="--wallet")
    secret = load_secret(secret_file)
    offers = load_tables(tables_file)
    trust = load_trust(keys_file, missing_ok=keys_file is None)
    sock = bind(host, port)
    platform_ = Platform(nats_url=nats_url, wallet_url=wallet_url, secret=secret, offers=offers, db=db, trust=trust,
                         alert_after=alert_after, ack_wait=ack_wait, backstop_after=backstop_after)
    listen = f"[{host}]" if ":" in host else host
    click.echo(f"platform: http://{listen}:{sock.getsockname()[1]} ({len(offers)} tables; stop with Ctrl-C)",
               nl=True)
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    from tablesim.platform.player.socket import MAX_FRAME
    from tablesim.web.wsframes import RawFrames

    # (no proxy headers read, no Server or Date header written: the platform reads no client address,
    # and at thousands of bets a second each answer's extra work shows; the players' socket writes its
    # frames itself, one framing for all, with no compression to negotiate). Its keepalive ping goes
    # only to a socket silent for PING_QUIET seconds (``RawFrames.send_keepalive_ping``): longer than
    # an idle page's own latency ping (player.js: PING_IDLE, 30 s), so a page that is open pings for
    # itself and only a silent one (gone, or a hidden tab its browser slowed) is pinged and, without a
    # pong in 20 s, closed
    config = uvicorn.Config(create_app(platform_), log_level="warning", access_log=False, log_config=None,
                            timeout_graceful_shutdown=2, proxy_headers=False, server_header=False,
                            date_header=False, ws=RawFrames, ws_per_message_deflate=False, ws_max_size=MAX_FRAME,
                            ws_ping_interval=PING_QUIET, ws_ping_timeout=20.0)
    # What start-up built (the web stack, the libraries) out of the collector's sight: its full
    # collections otherwise walk it again and again while bets come in (as ``tablesim serve`` does).
    gc.collect()
    gc.freeze()
    # No full collection while a table takes bets (this process's collector: platform/collector.py).
    from tablesim.platform.collector import Collector

    platform_.rounds.on_betting = Collector().betting
    try:
        uvicorn.Server(config).run(sockets=[sock])
    except KeyboardInterrupt:
        pass
    finally:
        sock.close()
    click.echo("platform: stopped")


platform.add_command(held)
platform.add_command(resolve)
