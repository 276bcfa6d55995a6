"""The pictures of docs/player.md and docs/console.md, made from a studio demo
in Chromium (Debian's, driven by Playwright; nothing downloaded).

    python scripts/docs_screenshots.py [--out docs] [--rounds 6]

starts ``tablesim studio demo`` (a broker, one mock table per game playing
rounds by itself, the reference wallet, the platform and the floor) and
opens the player's page six times, each with a launch link of its own: in
English, Portuguese and Traditional Chinese, at 1280x800 and at 390x844.
For each game the six pages sit at its table, put a bet down while betting
is open, and are taken twice a round: in the middle of the scene's motion
(the wheel turning, the Fortune 3 hands dealt with the dealer's face down,
the football draw shown while the boxes are dealt) and at rest (the result
and its banner). A page missed in one round is taken in the next (at most
``--rounds`` rounds a game). Then each game's dealer console at 1280x800,
its round complete. Also the lobby at both sizes in the three languages.

The pictures go to ``OUT/player/<game>-<motion|rest>-<desktop|phone>-<en|pt|zh>.png``,
``OUT/player/lobby-<desktop|phone>[-pt|-zh].png`` and ``OUT/console-<game>.png``,
each reduced to 128 colours (Pillow) to keep the docs small. The Chinese ones
need a CJK font on the machine (Debian's fonts-noto-cjk). Each picture's page
is checked too: anything past the viewport's sides, any error of the page or
its console is said (one line each) and the status is 1. A bad option is one
line and status 2; the demo is stopped on the way out, whatever happens.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
SIZES = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}
LANGS = {"en": ("en-US", "en"), "pt": ("pt-PT", "pt"), "zh": ("zh-TW", "zh-Hant")}
#: the demo's tables, each with where its players bet and the chip they put down there
TABLES = {"wheel": ("WHEEL-DEMO", "10"), "football": ("FB-DEMO", "odd"), "fortune3": ("F3-DEMO", "ante")}
#: the scene in the middle of its motion, and at rest, as the page shows them (JavaScript)
MOTION = {
    "wheel": "!!document.querySelector('.wheel-box.moving')",
    "football": "!!document.querySelector('#draw .num') && !!document.querySelector('.spot[disabled]')"
                " && document.querySelector('#result').hidden",
    "fortune3": "document.querySelectorAll('#remote-cards .card:not(.down)').length === 3"
                " && document.querySelectorAll('#dealer-cards .card.down').length === 3",
}
REST = ("!document.querySelector('#result').hidden && !document.querySelector('#banner').hidden"
        " && !document.querySelector('#rotor')?.getAnimations().length")  # (a wheel come to rest: the result may come first)
#: what reaches past the viewport's sides (a phone scrolls down, never sideways)
OUTSIDE = """() => { const w = document.documentElement.clientWidth;
  const out = [...document.querySelectorAll('body *')].filter((el) => { const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && !el.closest('[hidden], svg') && (r.left < -0.5 || r.right > w + 0.5); })
    .map((el) => `${el.tagName.toLowerCase()}#${el.id}.${el.className}`);
  return document.documentElement.scrollWidth > w ? out.concat(['scrollWidth']) : out; }"""
#: what each picture's page showed wrong: (picture, what)
PROBLEMS: list[tuple[str, str]] = []
BETTING = ".spot:not([disabled])"


def fail(message: str) -> None:
    print(f"docs_screenshots: {message}", file=sys.stderr)
    raise SystemExit(2)


def small(path: Path) -> None:
    """A picture in 128 colours: a third of its size, the page's flat colours and text as they were."""
    from PIL import Image

    with Image.open(path) as im:
        flat = im.convert("RGB").quantize(colors=128, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    flat.save(path, optimize=True)


class Demo:
    """``tablesim studio demo --json`` as a process of its own session (stopped with its children)."""

    def __init__(self, folder: Path, bet_seconds: float, pace: float) -> None:
        self.log = open(folder / "demo.err", "w")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tablesim.cli.main", "studio", "demo", "--json", "--dir", str(folder / "studio"),
             "--bet-seconds", str(bet_seconds), "--pace", str(pace)],
            stdout=subprocess.PIPE, stderr=self.log, text=True, cwd=ROOT, start_new_session=True,
            env={**os.environ, "PYTHONPATH": str(ROOT)})
        lines = []
        for line in self.proc.stdout:  # (the addresses: one JSON document once everything answers)
            lines.append(line)
            if line.rstrip() == "}":
                break
        try:
            self.info = json.loads("".join(lines))
        except ValueError:
            self.stop()
            fail(f"the studio demo did not start (its logs: {folder}): {(folder / 'demo.err').read_text()[-2000:]}")

    def launch_link(self, player: str) -> str:
        cmd = self.info["another_launch_link"]
        cmd = [sys.executable, "-m", "tablesim.cli.main", *cmd[1:]]
        cmd[cmd.index("--player") + 1] = player
        out = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, check=True).stdout.strip()
        return out.splitlines()[-1]

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGINT)  # (the demo stops its children in order)
            try:
                self.proc.wait(60)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
        self.log.close()


def shoot(page, path: Path) -> None:
    if page.viewport_size["width"] < 800 and page.locator("#scene").is_visible():
        # a phone: the scene just under the timer's bar (it stays at the top), the banner and the felt below it
        page.evaluate("window.scrollTo(0, document.querySelector('#scene').getBoundingClientRect().top + scrollY"
                      " - document.querySelector('#timebar').offsetHeight - 12)")
    page.screenshot(path=str(path))
    small(path)
    for what in page.evaluate(OUTSIDE) + getattr(page, "errors", []):
        PROBLEMS.append((path.name, what))
    if hasattr(page, "errors"):
        page.errors.clear()
    print(f"  {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")


def at_table(pages: dict, table: str) -> None:
    for page in pages.values():
        if page.locator("#lobby-view").is_visible():
            page.click(f".table-card[data-table='{table}'] button")
        page.wait_for_selector(".spot")


def to_lobby(pages: dict) -> None:
    for page in pages.values():
        if page.locator("#table-view").is_visible():
            page.click("#to-lobby")


def play(pages: dict, game: str, out: Path, rounds: int) -> None:
    """Each page at ``game``'s table taken mid-motion and at rest, over at most ``rounds`` rounds."""
    table, spot = TABLES[game]
    at_table(pages, table)
    todo = {(key, phase) for key in pages for phase in ("motion", "rest")}
    for _ in range(rounds):
        if not todo:
            return
        # a round taking bets: a chip on the spot of each page's (the felt with chips, a result of its own)
        first = next(iter(pages.values()))
        first.wait_for_selector(BETTING, timeout=120_000)
        bettors = {}
        for page in pages.values():  # (a player's one bet, whichever of their pages shows it)
            bettors.setdefault(page.player, page)
        for page in bettors.values():
            try:
                page.click(".chip[data-amount='25']", timeout=5000)
                page.click(f".spot[data-bet='{spot}']", timeout=5000)
                page.click("#place", timeout=5000)
            except Exception:  # (betting closed meanwhile: this page is taken without its bet)
                pass
        first.wait_for_selector(".spot[disabled]", timeout=120_000)
        # until the next round opens (a result stays on the page until then)
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline and todo and not first.locator(BETTING).count():
            for key, page in pages.items():
                for phase, test in (("motion", MOTION[game]), ("rest", REST)):
                    if (key, phase) in todo and page.evaluate(test):
                        shoot(page, out / f"{game}-{phase}-{key[0]}-{key[1]}.png")
                        todo.discard((key, phase))
                        if phase == "motion" and game == "fortune3" and page.locator("#decide-play").is_visible():
                            page.click("#decide-play")  # (the player plays: the result has its Play)
            first.wait_for_timeout(50)
    if todo:
        print(f"  not taken in {rounds} rounds: {sorted(todo)}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=str(ROOT / "docs"), help="the docs folder (player/ and the console's pictures)")
    ap.add_argument("--rounds", type=int, default=6, help="rounds a game at most to take every picture")
    ap.add_argument("--bet-seconds", type=float, default=10.0)
    ap.add_argument("--pace", type=float, default=0.8, help="the mock dealers' seconds between two cards")
    ap.add_argument("--only", choices=("player", "console"), help="only the player's page's pictures, or the consoles'")
    args = ap.parse_args(argv)
    if args.rounds < 1:
        fail(f"--rounds: {args.rounds} is not a number of rounds (1 or more)")
    if not os.access(CHROMIUM, os.X_OK):
        fail(f"needs Debian's chromium at {CHROMIUM} (apt-get install chromium)")
    if shutil.which("nats-server") is None:
        fail("needs nats-server on PATH (apt-get install nats-server)")
    out = Path(args.out).resolve()
    (out / "player").mkdir(parents=True, exist_ok=True)
    from playwright.sync_api import sync_playwright

    folder = Path(tempfile.mkdtemp(prefix="tablesim-shots-"))
    done = False
    demo = Demo(folder, args.bet_seconds, args.pace)
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM)
            if args.only != "console":
                pages = {}
                players = [f"demo{i}" for i in range(1, 5)]
                for n, (size, lang) in enumerate((s, la) for s in SIZES for la in LANGS):
                    context = browser.new_context(viewport=SIZES[size], locale=LANGS[lang][0], device_scale_factor=1)
                    page = context.new_page()
                    page.set_default_timeout(60_000)
                    page.errors = []  # (the page's errors and its console's, said with the next picture)
                    page.on("pageerror", lambda exc, page=page: page.errors.append(f"error: {exc}"))
                    page.on("console", lambda msg, page=page: page.errors.append(f"console: {msg.text}")
                            if msg.type == "error" else None)
                    page.goto(demo.launch_link(players[n % len(players)]))
                    page.wait_for_selector(".table-card")
                    page.wait_for_function(f"() => document.documentElement.lang === {LANGS[lang][1]!r}")
                    page.player = players[n % len(players)]
                    pages[(size, lang)] = page
                for (size, lang), page in pages.items():
                    shoot(page, out / "player" / f"lobby-{size}{'' if lang == 'en' else f'-{lang}'}.png")
            # each game's console: the round the pages played, complete (the remote players' bets in it)
            context = browser.new_context(viewport=SIZES["desktop"], locale="en-US", device_scale_factor=1)
            console = context.new_page()
            for game, (table, _) in TABLES.items():
                print(game)
                console.goto(demo.info["tables"][table]["link"])
                if args.only != "console":
                    play(pages, game, out / "player", args.rounds)
                    to_lobby(pages)
                if args.only != "player":
                    console.wait_for_function("() => document.body.dataset.state === 'complete'", timeout=180_000)
                    console.wait_for_timeout(500)
                    shoot(console, out / f"console-{game}.png")
            browser.close()
        done = True
        for name, what in PROBLEMS:
            print(f"docs_screenshots: {name}: {what}", file=sys.stderr)
    finally:
        demo.stop()
        if done:
            shutil.rmtree(folder, ignore_errors=True)
        else:
            print(f"docs_screenshots: the demo's logs are kept in {folder}", file=sys.stderr)
    return 1 if PROBLEMS else 0


if __name__ == "__main__":
    raise SystemExit(main())
