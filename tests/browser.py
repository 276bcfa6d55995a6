"""Browser fixtures for the page tests: Playwright drives Debian's Chromium
(``/usr/bin/chromium``, or Debian's headless build of it where that is
installed: ``CHROMIUM``), never a browser Playwright downloads.

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

import contextlib
import os
import queue
import threading
from concurrent.futures import Future
from typing import Any, Callable

import pytest

#: Debian's Chromium (package chromium), or where it is installed beside it Debian's headless
#: build of the same version (package chromium-headless-shell: the same Blink and V8, without
#: the desktop browser's windows around each page; Playwright's own choice for headless tests).
#: A new context and page cost the full browser 0.59-0.62 s of CPU, the headless build 0.27-0.28.
#: ``TABLESIM_TEST_CHROMIUM=/usr/bin/chromium`` chooses the full browser anyway.
CHROMIUM = os.environ.get("TABLESIM_TEST_CHROMIUM") or next(
    (path for path in ("/usr/bin/chromium-headless-shell", "/usr/bin/chromium") if os.access(path, os.X_OK)),
    "/usr/bin/chromium")
HAVE_CHROMIUM = os.access(CHROMIUM, os.X_OK)
NO_CHROMIUM = "needs Debian's chromium at /usr/bin/chromium (apt-get install chromium); .ci/run installs it"
#: pure waiting, in milliseconds (a shared, loaded machine)
WAIT_MS = 60_000
#: how often ``until`` looks again, in milliseconds
POLL_MS = 100
# The package's own browsers are never fetched (its install step is never run;
# this only makes sure nothing of Playwright's tries).
os.environ.setdefault("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")
#: Playwright's driver (its own Node.js) keeps the code it compiled at its start here, so each
#: worker's driver reads its 3.6 MB bundle compiled instead of compiling it again (a start:
#: 0.76-0.93 -> 0.59-0.69 s of CPU); Node's own cache, made again if missing or stale
NODE_CACHE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), ".pytest_cache",
                          "node-compile-cache")

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

        os.environ.setdefault("NODE_COMPILE_CACHE", NODE_CACHE)  # (read by the driver as it starts)
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


#: what a test may do with a ``page`` that is given to the next test afterwards: the calls
#: that leave nothing behind once the page is taken back to a blank document with its
#: origins' storage and cookies cleared (``_Tab.clean``). A test that uses anything else
#: (``page.context``, routes, init scripts, an exposed function, a clock, emulated media,
#: listeners of its own...) gets a page no other test will see: it is closed after it.
REUSABLE = frozenset({
    "goto", "reload", "click", "dblclick", "tap", "hover", "focus", "fill", "type", "press", "check",
    "uncheck", "set_checked", "select_option", "dispatch_event", "set_input_files", "drag_and_drop",
    "evaluate", "evaluate_handle", "eval_on_selector", "eval_on_selector_all", "wait_for_function",
    "wait_for_selector", "wait_for_timeout", "wait_for_load_state", "wait_for_url", "locator",
    "get_by_role", "get_by_text", "get_by_label", "get_by_title", "get_by_test_id", "get_by_placeholder",
    "get_by_alt_text", "frame_locator", "query_selector", "query_selector_all", "inner_text", "inner_html",
    "text_content", "get_attribute", "input_value", "is_visible", "is_hidden", "is_enabled", "is_disabled",
    "is_editable", "is_checked", "content", "title", "url", "keyboard", "mouse", "touchscreen",
    "set_viewport_size", "viewport_size", "screenshot", "set_content", "main_frame", "frames",
    "bring_to_front", "is_closed", "errors", "_host", "_obj",
})
VIEWPORT = {"width": 1280, "height": 800}


class _Tab:
    """The ``page`` fixture's page, kept from one test to the next in its worker.

    A new context and page cost Chromium about 0.3 s of CPU more than taking a page
    already open to the next test's address (a tab, its renderer and the browser's
    side of both; about 30 tests a run use this fixture). Between two tests the page goes back to a blank
    document and every origin it showed loses its storage (session and local storage,
    cookies, caches: what a fresh context would not have), so a test sees what it saw
    with a context of its own."""

    def __init__(self, browser) -> None:
        self.context = browser.new_context(viewport=VIEWPORT, device_scale_factor=1)
        self.context.set_default_timeout(WAIT_MS)
        self.page = self.context.new_page()
        self.origins: set[str] = set()
        self.page.on("framenavigated", self._seen)

    def _seen(self, frame) -> None:  # (on the Playwright thread)
        origin = frame.url.split("/", 3)[:3]
        if len(origin) == 3 and origin[0] in ("http:", "https:"):
            self.origins.add("/".join(origin))

    def clean(self) -> None:
        """On the Playwright thread: the page blank again, with nothing kept of what it showed
        (a page the test's page opened, a popup, leaves the context to be closed instead)."""
        page = self.page._obj
        if len(self.context._obj.pages) != 1:
            raise RuntimeError("the context has another page")
        page.goto("about:blank")
        cdp = self.context._obj.new_cdp_session(page)
        try:
            for origin in sorted(self.origins):
                cdp.send("Storage.clearDataForOrigin", {"origin": origin, "storageTypes": "all"})
            cdp.send("Network.clearBrowserCache")
        finally:
            cdp.detach()
        self.origins.clear()
        self.context._obj.clear_cookies()
        if page.viewport_size != VIEWPORT:
            page.set_viewport_size(VIEWPORT)

    def close(self) -> None:
        try:
            self.context.close()
        except Exception:  # (the browser may be gone already)
            pass


class _Lent(Remote):
    """The page as a test holds it: any call outside ``REUSABLE`` keeps it from the next test."""

    def __getattr__(self, name: str) -> Any:
        if name not in REUSABLE:
            object.__setattr__(self, "_kept", False)
        return super().__getattr__(name)


_TABS: dict[int, _Tab] = {}
#: ``TABLESIM_TEST_FRESH_PAGES=1``: every test's ``page`` in a new context again (to compare, or to rule this out)
REUSE = os.environ.get("TABLESIM_TEST_FRESH_PAGES", "0") != "1"


@contextlib.contextmanager
def lent_page(chromium):
    """The worker's page for one test, with ``page.errors`` collecting what went wrong
    in it: blank, with no storage, cookies or cache of the tests before (``_Tab``); a
    test that did more than ``REUSABLE`` allows leaves it to be closed, not reused."""
    host = chromium._host
    tab = _TABS.pop(id(host), None) or _Tab(chromium)
    errors = PageErrors()
    on_error = lambda exc: errors.append(str(exc))  # noqa: E731
    on_console = lambda msg: errors.append(msg.text) if msg.type == "error" else None  # noqa: E731
    raw = tab.page._obj

    def lend() -> None:
        raw.on("pageerror", on_error)
        raw.on("console", on_console)
        raw.errors = errors

    host.run(lend)
    pg = _Lent(host, raw)
    object.__setattr__(pg, "_kept", True)
    try:
        yield pg
    finally:
        keep = pg._kept

        def back() -> None:
            raw.remove_listener("pageerror", on_error)
            raw.remove_listener("console", on_console)
            if keep and not raw.is_closed():
                tab.clean()

        try:
            host.run(back)
        except Exception:
            keep = False
        if keep and REUSE:
            _TABS[id(host)] = tab
        else:
            tab.close()


@pytest.fixture
def page(chromium):
    """A page of 1280x800 (the console's touchscreen), with ``page.errors``
    collecting what went wrong in it (``lent_page``: the worker's page, as blank
    as a new context's)."""
    with lent_page(chromium) as pg:
        yield pg


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
