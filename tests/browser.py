"""Browser fixtures for the page tests: Playwright drives Debian's Chromium
(``/usr/bin/chromium``), never a browser Playwright downloads.

One browser per test process (an xdist worker), started the first time a
test of that worker asks for it; each test gets a fresh context (no
cookies, storage or init scripts left by another test) and a page in it.
Waits are Playwright's own, generous: a loaded machine is slow, not wrong.

Playwright's sync API runs an asyncio loop that counts as running on the
thread that started it for as long as Playwright is up; on the test's own
thread that would make every later ``asyncio.run()`` of the same worker
fail ("cannot be called from a running event loop"). So Playwright lives on
a thread of its own, and the test holds proxies whose every call runs there.
"""

from __future__ import annotations

import os
import queue
import threading
from concurrent.futures import Future
from typing import Any, Callable

import pytest

CHROMIUM = "/usr/bin/chromium"
HAVE_CHROMIUM = os.access(CHROMIUM, os.X_OK)
NO_CHROMIUM = "needs Debian's chromium at /usr/bin/chromium (apt-get install chromium); .ci/run installs it"
#: pure waiting, in milliseconds (a shared, loaded machine)
WAIT_MS = 60_000
#: how often ``until`` looks again, in milliseconds
POLL_MS = 100
# The package's own browsers are never fetched (its install step is never run;
# this only makes sure nothing of Playwright's tries).
os.environ.setdefault("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")

#: Chromium features off. Each context is a window of the full browser (its
#: headless mode), and each window preloads the address bar's two pop-ups as
#: pages of their own: a renderer process each, about half of what a context
#: costs in CPU, for an address bar no test uses. The list replaces
#: Playwright's own ``--disable-features`` (Chromium keeps the last), so
#: Playwright's are repeated first.
DISABLED_FEATURES = (
    "AvoidUnnecessaryBeforeUnloadCheckSync", "DestroyProfileOnBrowserClose", "HttpsUpgrades",
    "HttpsFirstBalancedModeAutoEnable", "LensOverlay", "MediaRouter", "PaintHolding",
    "ThirdPartyStoragePartitioning", "AvoidCorsURLLoaderRestartOnRedirect", "OptimizationHints",
    "NetworkTimeServiceQuerying", "AimEnabled", "PreconnectToSearch",
    "WebUIOmniboxPopup", "WebUIOmniboxAimPopup",
)

needs_chromium = pytest.mark.skipif(not HAVE_CHROMIUM, reason=NO_CHROMIUM)

#: ``python -m pytest --screenshots``: the browser tests leave pictures of what they saw in
#: ``artifacts/`` (for a person to look at; no test reads them). Off by default: a picture
#: is a page's whole rendering and encoding, about a tenth of a page test's CPU.
SCREENSHOTS = {"wanted": False}


def screenshot(page, path) -> None:
    """A picture of ``page`` at ``path`` (its folder made), when the run asked for them."""
    if SCREENSHOTS["wanted"]:
        os.makedirs(os.path.dirname(str(path)), exist_ok=True)
        page.screenshot(path=str(path))


def until(page, expression: str, timeout: float = WAIT_MS / 1000) -> Any:
    """Wait until the page's JavaScript ``expression`` is truthy; its value.

    An element not there yet (a TypeError: ``textContent`` of null, while the
    page draws or after a reload) counts as "not yet", as it would for a
    person looking: Playwright's own wait fails at the predicate's first
    exception, which made a test fail when it looked a moment early. Any other
    error (a mistyped name) still fails at once. A function, not a string to
    evaluate: the pages' Content-Security-Policy forbids eval."""
    body = (f"() => {{ try {{ return ({expression}); }} "
            "catch (e) { if (e instanceof TypeError) return false; throw e; } }")
    # Checked every 100 ms, not at every animation frame (Playwright's default): a frame-rate
    # poll keeps the page drawing 60 frames a second for as long as a test waits, in the
    # renderer, the GPU process and the browser (the browser tests' CPU: 82-111 s -> 69-93 s
    # in interleaved pairs on a loaded machine, with their wall time down as much).
    return page.wait_for_function(body, timeout=timeout * 1000, polling=POLL_MS).json_value()


class PageErrors(list):
    """JavaScript exceptions and console errors a page reported."""

    def real(self) -> list[str]:
        # A refused API call is logged by the browser as a failed resource; that is not a page error.
        return [e for e in self if "Failed to load resource" not in e]


class PlaywrightThread:
    """Playwright and its browser on one thread; ``run(fn)`` calls ``fn`` there."""

    def __init__(self) -> None:
        self.jobs: queue.Queue = queue.Queue()
        started: Future = Future()
        self.thread = threading.Thread(target=self._main, args=(started,), name="playwright", daemon=True)
        self.thread.start()
        self.browser = Remote(self, started.result())

    def _main(self, started: Future) -> None:
        from playwright.sync_api import sync_playwright

        try:
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True,
                                             args=["--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                                                   f"--disable-features={','.join(DISABLED_FEATURES)}"])
                started.set_result(browser)
                while (job := self.jobs.get()) is not None:
                    fn, done = job
                    try:
                        done.set_result(fn())
                    except BaseException as exc:  # handed to the test's thread
                        done.set_exception(exc)
                browser.close()
        except BaseException as exc:
            if not started.done():
                started.set_exception(exc)

    def run(self, fn: Callable[[], Any]) -> Any:
        done: Future = Future()
        self.jobs.put((fn, done))
        return done.result()

    def stop(self) -> None:
        self.jobs.put(None)
        self.thread.join(30)


class Remote:
    """A Playwright object used from the test's thread: attributes and calls
    run on the Playwright thread, and the Playwright objects they return come
    back as proxies too."""

    def __init__(self, host: PlaywrightThread, obj: Any) -> None:
        object.__setattr__(self, "_host", host)
        object.__setattr__(self, "_obj", obj)

    def _wrap(self, value: Any) -> Any:
        from playwright._impl._sync_base import SyncBase

        return Remote(self._host, value) if isinstance(value, SyncBase) else value

    def __getattr__(self, name: str) -> Any:
        value = self._host.run(lambda: getattr(self._obj, name))
        if callable(value) and not isinstance(value, type) and hasattr(type(self._obj), name):
            return lambda *args, **kwargs: self._wrap(self._host.run(lambda: value(*args, **kwargs)))
        return self._wrap(value)


@pytest.fixture(scope="session")
def chromium():
    if not HAVE_CHROMIUM:
        pytest.skip(NO_CHROMIUM)
    host = PlaywrightThread()
    try:
        yield host.browser
    finally:
        host.stop()


@pytest.fixture
def page(chromium):
    """A page of 1280x800 (the console's touchscreen) in a context of its own,
    with ``page.errors`` collecting what went wrong in it."""
    context = chromium.new_context(viewport={"width": 1280, "height": 800}, device_scale_factor=1)
    context.set_default_timeout(WAIT_MS)
    try:
        pg = context.new_page()
        errors = PageErrors()
        pg.on("pageerror", lambda exc: errors.append(str(exc)))
        pg.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
        pg._host.run(lambda: setattr(pg._obj, "errors", errors))
        yield pg
    finally:
        context.close()


#: visible texts cut or spilling out of their box (a label too long for its spot in one language): an
#: element whose own text is wider than its box, or a box that clips (overflow not visible) wider
#: content with text in it; and texts reaching past the viewport's sides. ``skip``: a selector of
#: elements cut on purpose (a log's lines, ellipsis and title)
CLIPPED = """(skip) => { const bad = [];
  const vw = document.documentElement.clientWidth;
  for (const el of document.querySelectorAll('body *')) {
    const r = el.getBoundingClientRect(); const s = getComputedStyle(el);
    if (!(r.width > 0 && r.height > 0 && s.visibility !== 'hidden' && s.display !== 'none') || el.closest('[hidden], svg')) continue;
    if (skip && el.closest(skip)) continue;
    const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    const clips = s.overflowX !== 'visible';
    const label = `${el.tagName.toLowerCase()}#${el.id}.${el.className} "${el.textContent.trim().slice(0, 30)}"`;
    if (el.clientWidth > 0 && el.scrollWidth > el.clientWidth + 1 && (own || (clips && el.textContent.trim())))
      bad.push(`${label} ${el.scrollWidth}>${el.clientWidth}`);
    else if (own && (r.left < -0.5 || r.right > vw + 0.5)) bad.push(`${label} past the side`);
  }
  return bad; }"""


def clipped(page, skip: str | None = None) -> list[str]:
    """The page's texts cut by their box or past the viewport's side (``CLIPPED``)."""
    return page.evaluate(CLIPPED, skip)
