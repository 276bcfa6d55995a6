"""Accessibility and fit checks of a page as a browser draws it (Playwright on
Debian's Chromium), in the page itself from its computed styles, with no
library fetched:

- ``unlabelled``: every visible control (button, select, input, link) has an
  accessible name (its text, aria-label, aria-labelledby, title or label);
- ``unreachable``: every visible, enabled control is reached by Tab;
- ``illegible``: every visible text's contrast with what is behind it (the
  backgrounds of its ancestors blended, each colour of a gradient tried) is
  WCAG AA: 4.5:1, or 3:1 for large text (24 px, or 18.66 px bold); texts of
  disabled controls, of aria-hidden parts and of SVG pictures are exempt, as
  WCAG has them;
- ``outside``: visible elements reaching past the viewport's sides (a phone
  scrolls down, never sideways).
"""

from __future__ import annotations

CONTROLS = "button, select, input, textarea, a[href], [tabindex]:not([tabindex='-1'])"

_VISIBLE = """
const visible = (el) => { const r = el.getBoundingClientRect(); const s = getComputedStyle(el);
  return r.width > 0 && r.height > 0 && s.visibility !== 'hidden' && s.display !== 'none' && !el.closest('[hidden]'); };
"""

UNLABELLED = "() => {" + _VISIBLE + f"""
  return [...document.querySelectorAll({CONTROLS!r})].filter(visible).filter((el) => {{
    const by = (el.getAttribute('aria-labelledby') || '').split(' ').map((id) => document.getElementById(id)).filter(Boolean);
    const label = el.id && document.querySelector(`label[for="${{el.id}}"]`);
    return !((el.textContent || '').trim() || el.getAttribute('aria-label') || el.title || by.some((x) => x.textContent.trim()) || label);
  }}).map((el) => el.outerHTML.slice(0, 120));
}}"""

FOCUSABLE = "() => {" + _VISIBLE + f"""
  return [...document.querySelectorAll({CONTROLS!r})].filter(visible).filter((el) => !el.disabled)
    .map((el) => el.id || el.dataset.bet || el.dataset.amount || el.dataset.table || el.outerHTML.slice(0, 60));
}}"""

FOCUSED = """() => { const el = document.activeElement;
  return el && el !== document.body ? (el.id || el.dataset.bet || el.dataset.amount || el.dataset.table || el.outerHTML.slice(0, 60)) : null; }"""

ILLEGIBLE = "() => {" + _VISIBLE + """
  const rgba = (c) => { const m = c.match(/rgba?\\(([^)]+)\\)/); if (!m) return null;
    const p = m[1].split(/[ ,\\/]+/).filter(Boolean).map(Number); return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1]; };
  const over = (top, under) => top.slice(0, 3).map((v, i) => v * top[3] + under[i] * (1 - top[3])).concat([1]);
  const lum = (c) => { const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]); };
  const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
  // the grounds behind an element: its ancestors' colours blended, from the first opaque one (a gradient: each of its colours)
  const grounds = (el) => {
    const layers = [];
    for (let e = el; e; e = e.parentElement) {
      const s = getComputedStyle(e);
      const grad = s.backgroundImage && s.backgroundImage.includes('gradient') ? s.backgroundImage.match(/rgba?\\([^)]+\\)/g) || [] : [];
      if (grad.length) { layers.push(grad.map(rgba)); if (grad.map(rgba).every((c) => c[3] === 1)) break; continue; }
      const c = rgba(s.backgroundColor);
      if (c && c[3] > 0) { layers.push([c]); if (c[3] === 1) break; }
    }
    let out = [[255, 255, 255, 1]];
    for (const layer of layers.reverse()) out = layer.flatMap((c) => out.map((u) => over(c, u)));
    return out;
  };
  const bad = [];
  for (const el of document.querySelectorAll('body *')) {
    if (!visible(el) || el.closest('svg, [aria-hidden="true"], :disabled, option')) continue;
    const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    if (!own) continue;
    const s = getComputedStyle(el);
    const size = parseFloat(s.fontSize);
    const large = size >= 24 || (size >= 18.66 && Number(s.fontWeight) >= 700);
    let opacity = 1;
    for (let e = el; e; e = e.parentElement) opacity *= Number(getComputedStyle(e).opacity);
    const ink = rgba(s.color);
    const worst = Math.min(...grounds(el).map((g) => ratio(over([...ink.slice(0, 3), ink[3] * opacity], g), g)));
    if (worst < (large ? 3 : 4.5)) bad.push(`${el.tagName.toLowerCase()}${el.id ? '#' + el.id : ''}.${el.className} "${el.textContent.trim().slice(0, 30)}" ${worst.toFixed(2)}`);
  }
  return bad;
}"""

OUTSIDE = "() => {" + _VISIBLE + """
  const w = document.documentElement.clientWidth;
  return [...document.querySelectorAll('body *')].filter(visible).filter((el) => !el.closest('svg')).filter((el) => {
    const r = el.getBoundingClientRect(); return r.left < -0.5 || r.right > w + 0.5; })
    .map((el) => `${el.tagName.toLowerCase()}#${el.id}.${el.className} ${Math.round(el.getBoundingClientRect().right)}`);
}"""


def unlabelled(page) -> list[str]:
    return page.evaluate(UNLABELLED)


def illegible(page) -> list[str]:
    return page.evaluate(ILLEGIBLE)


def outside(page) -> list[str]:
    return page.evaluate(OUTSIDE) + ([] if page.evaluate("document.documentElement.scrollWidth <= "
                                                         "document.documentElement.clientWidth") else ["scrollWidth"])


def unreachable(page, presses: int = 120) -> list[str]:
    """The visible, enabled controls Tab never reached (Tab from the page's start, round to where it began)."""
    want = page.evaluate(FOCUSABLE)
    page.evaluate("document.activeElement && document.activeElement.blur()")
    reached = []
    for _ in range(presses):
        page.keyboard.press("Tab")
        now = page.evaluate(FOCUSED)
        if now is not None and reached and now == reached[0]:
            break
        if now is not None:
            reached.append(now)
    # (a live table's round goes on while Tab walks: a control disabled meanwhile, such as a bet's
    # undo when betting closes, is not asked for; one enabled before and after must be reached)
    still = page.evaluate(FOCUSABLE)
    return [c for c in want if c not in reached and c in still]
