"""The page tests' wait (``browser.until``): an element drawn a moment
later is waited for, not a failure; a mistyped expression fails at once."""

from __future__ import annotations

import time

import pytest

from browser import needs_chromium, until

pytestmark = needs_chromium

# The element is drawn 300 ms after the wait's first look finds it missing (the second look for
# it: the test's own is the first), not 300 ms after the page loads: on a loaded machine the
# test's first look came after those 300 ms, found it drawn, and failed.
LATE = """<body><script>
const look = document.querySelector.bind(document); let misses = 0;
document.querySelector = (sel) => {
  const el = look(sel);
  if (!el && sel === '#late' && ++misses === 2)
    setTimeout(() => { const p = document.createElement('p'); p.id = 'late'; p.textContent = 'here';
                       document.body.append(p); }, 300);
  return el; };
</script></body>"""


def test_an_element_not_drawn_yet_is_waited_for(page):
    page.set_content(LATE)
    assert page.evaluate("document.querySelector('#late')") is None  # (Playwright's own wait would fail here)
    assert until(page, "document.querySelector('#late').textContent === 'here'", timeout=20) is True


def test_a_mistyped_expression_fails_at_once(page):
    page.set_content(LATE)
    began = time.monotonic()
    with pytest.raises(Exception, match="ReferenceError|is not defined"):
        until(page, "documnet.querySelector('#late').textContent === 'here'", timeout=20)
    assert time.monotonic() - began < 15


@pytest.fixture
def origin():
    """A plain page served on 127.0.0.1 (an origin of its own): its address."""
    import http.server
    import threading

    class Plain(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802
            body = b"<!doctype html><body><p>plain</p></body>"
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Plain)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        server.server_close()


KEPT = "[sessionStorage.getItem('s'), localStorage.getItem('l'), document.cookie]"


def test_the_next_tests_page_keeps_nothing_of_the_one_before(chromium, origin):
    """The ``page`` fixture hands the worker's page on from test to test
    (browser.lent_page): the next test's is blank, at 1280x800, with no
    storage, cookie or error of the test before; a test that touched more
    than its documents (here its context) leaves it to be closed."""
    import browser

    with browser.lent_page(chromium) as first:
        first.goto(f"{origin}/a")
        first.evaluate("sessionStorage.setItem('s', '1'); localStorage.setItem('l', '1'); document.cookie = 'c=1'")
        first.set_viewport_size({"width": 390, "height": 844})
        first.goto(f"{origin}/b")
        first.evaluate("setTimeout(() => { throw new Error('late') }, 0)")
        until(first, "true")
        assert first.evaluate(KEPT) == ["1", "1", "c=1"]
        raw = first._obj
    with browser.lent_page(chromium) as second:
        assert second._obj is raw or not browser.REUSE  # (the same page, unless TABLESIM_TEST_FRESH_PAGES=1)
        assert second.url == "about:blank"
        assert second.viewport_size == browser.VIEWPORT
        second.goto(f"{origin}/a")
        assert second.evaluate(KEPT) == [None, None, ""]
        assert second.errors == []
        second.context  # (a call that is not REUSABLE)
    with browser.lent_page(chromium) as third:
        assert third._obj is not raw
        third.goto(f"{origin}/a")
        assert third.evaluate(KEPT) == [None, None, ""]
