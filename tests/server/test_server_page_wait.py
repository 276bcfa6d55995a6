"""The page tests' wait (``browser.until``): an element drawn a moment
later is waited for, not a failure; a mistyped expression fails at once."""

from __future__ import annotations

import time

import pytest

from browser import needs_chromium, until

pytestmark = needs_chromium

LATE = """<body><script>
setTimeout(() => { const p = document.createElement('p'); p.id = 'late'; p.textContent = 'here';
                   document.body.append(p); }, 300);
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
