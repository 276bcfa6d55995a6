// What happens at the table, drawn from the round's public events only
// (never ahead of them), as the scene the game's remote view names
// (``tb.scene``; no game is named here): "spin", the wheel from the table's
// own layout, turning while the sensor reports motion and at rest on the
// segment it reported; "hands", cards in their places, face down until the
// table reveals them; "draw", a number draw as its display shows it beside
// the common box's cards. There is no video: this stands in for it.
const SUITS = { S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663" };
const SVG = "http://www.w3.org/2000/svg";
//: each wheel symbol's colour (the felt's spots and the roadmap use the same)
export const SYMBOL_COLOURS = { 1: "#f2c14e", 3: "#4f8fd9", 5: "#7b3fc4", 10: "#2fae6b", 20: "#e0523f", joker: "#111111", logo: "#d4a017" };
export const SYMBOL_INK = { 1: "#111", 3: "#111", 5: "#fff", 10: "#111", 20: "#111", joker: "#fff", logo: "#111" };
// Cards already shown face up on this page: a card turned now is animated once, not at every redraw.
const turned = new Set();

function svg(tag, attrs = {}, ...kids) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  for (const kid of kids) if (kid) el.append(kid);
  return el;
}

function still() {
  return window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
}

function last(events, kind) {
  for (let i = events.length - 1; i >= 0; i--) if (events[i].kind === kind || events[i].type === kind) return events[i];
  return null;
}

function card(code, key, { t, h }) {
  if (!code || code.replace("^", "") === "??") {
    return h("span", { class: "card down", role: "img", "aria-label": t("player.face_down") }, h("span", { class: "back" }));
  }
  const c = code.replace("^", "");
  const suit = c.slice(-1);
  const rank = c.slice(0, -1) === "T" ? "10" : c.slice(0, -1);
  const fresh = !turned.has(key) && !still();
  turned.add(key);
  return h("span", { class: `card${suit === "H" || suit === "D" ? " red" : ""}${fresh ? " turn" : ""}`, "data-card": c, role: "img",
    "aria-label": rank + (SUITS[suit] || suit) },
    h("span", { class: "rank" }, rank), h("span", { class: "suit" }, SUITS[suit] || suit));
}

// A place of ``n`` cards: the cards dealt there (face down until revealed), empty slots for the rest.
function place(id, codes, n, ui) {
  const slots = codes.map((c, i) => card(c, `${ui.round}:${id}:${i}:${c}`, ui));
  for (let i = codes.length; i < n; i++) slots.push(ui.h("span", { class: "slot", "aria-hidden": "true" }));
  return ui.h("div", { class: "cards", id }, slots);
}

function dealtTo(events, to) {
  return events.filter((e) => e.kind === "card" && e.data.to === to).map((e) => e.data.card);
}

// --- the wheel ------------------------------------------------------------------

function wheelSvg(layout, ui) {
  const segs = layout.wheel || [];
  const n = segs.length || 1;
  const step = 360 / n;
  const rotor = svg("g", { id: "rotor", class: "rotor" });
  segs.forEach((sym, i) => {
    const a0 = ((i - 0.5) * step - 90) * Math.PI / 180;
    const a1 = ((i + 0.5) * step - 90) * Math.PI / 180;
    const p = (r, a) => `${(r * Math.cos(a)).toFixed(2)} ${(r * Math.sin(a)).toFixed(2)}`;
    rotor.append(svg("path", { d: `M ${p(40, a0)} L ${p(96, a0)} A 96 96 0 0 1 ${p(96, a1)} L ${p(40, a1)} A 40 40 0 0 0 ${p(40, a0)} Z`,
      fill: SYMBOL_COLOURS[sym] || "#888", stroke: "#2b1d0e", "stroke-width": "0.6", "data-segment": i }));
    const label = svg("text", { x: "0", y: "-80", transform: `rotate(${i * step})`, "text-anchor": "middle", "dominant-baseline": "middle",
      "font-size": sym.length > 2 ? "5" : "8", "font-weight": "700", fill: SYMBOL_INK[sym] || "#111" });
    label.textContent = sym === "joker" ? "J" : sym === "logo" ? "\u2605" : sym;
    rotor.append(label);
  });
  rotor.append(svg("circle", { r: "40", fill: "#2b1d0e" }), svg("circle", { r: "34", fill: "#14583a", stroke: "#d4a017", "stroke-width": "2" }));
  return svg("svg", { viewBox: "-100 -100 200 200", class: "wheel-disc", role: "img", "aria-label": ui.t("player.wheel") },
    svg("circle", { r: "99", fill: "#2b1d0e" }), rotor,
    svg("path", { d: "M -7 -104 L 7 -104 L 0 -88 Z", fill: "#fff", stroke: "#111", "stroke-width": "1", class: "pointer" }));
}

// A turning wheel stopped where it is now (not put back to where it started), its angle kept.
function halt(rotor) {
  if (!rotor.classList.contains("spinning")) return;
  const m = new DOMMatrix(getComputedStyle(rotor).transform);
  const angle = Math.atan2(m.b, m.a) * 180 / Math.PI;
  rotor.classList.remove("spinning", "settle");
  rotor.style.transform = `rotate(${angle}deg)`;
  rotor.dataset.angle = String(angle);
}

// The wheel is drawn once per table and kept: its motion goes on across the
// redraws of the rest (each revolution reported is a redraw).
function spinScene(box, tb, events, ui) {
  const { t, h, betName } = ui;
  const started = last(events, "spin_started");
  const spin = last(events, "spin_result");
  const turn = last(events, "revolution");
  const out = last(events, "outcome");
  const symbol = spin ? spin.data.symbol : out && out.outcome ? out.outcome.symbol : null;
  const moving = !spin && !!started && tb.state === "spinning";
  let pic = box.querySelector(".wheel-box");
  if (!pic || pic.dataset.table !== tb.table) {
    pic = h("div", { class: "wheel-box", "data-table": tb.table }, wheelSvg(tb.layout, ui));
    box.replaceChildren(pic, h("div", { class: "scene-line" }));
  }
  const rotor = pic.querySelector("#rotor");
  const step = 360 / ((tb.layout.wheel || []).length || 1);
  if (spin && Number.isInteger(spin.data.segment) && rotor.dataset.round !== spin.round_id) {
    // to rest on the reported segment, under the pointer: forward from where it was, a turn at least
    halt(rotor);
    getComputedStyle(rotor).transform;  // (the turn's end a style change of its own: in the same one, no transition starts)
    const was = Number(rotor.dataset.angle || 0);
    const target = -spin.data.segment * step;
    const angle = still() ? target : was + 360 + ((((target - was) % 360) + 360) % 360);
    rotor.classList.toggle("settle", !still());
    rotor.style.transform = `rotate(${angle}deg)`;
    rotor.dataset.angle = String(angle);
    rotor.dataset.round = spin.round_id;
  } else if (moving && !still() && !rotor.classList.contains("spinning")) {
    rotor.classList.remove("settle");
    rotor.classList.add("spinning");
  } else if (!moving && !spin) {
    halt(rotor);
  }
  pic.classList.toggle("moving", moving);
  const line = symbol
    ? t("player.symbol", { symbol: betName(tb.game, symbol) }) + (spin && spin.data.turns ? ` · ${t("player.turns", { n: ui.amount(spin.data.turns) })}` : "")
    : moving ? `${t("player.spinning")}${turn ? ` · ${t("player.turn", { n: turn.data.n })}` : ""}` : t("player.wheel_waiting");
  box.querySelector(".scene-line").replaceChildren(h("div", { class: "big", id: "spin", "data-symbol": symbol || "", "aria-live": "polite" }, line));
}

// --- a draw of numbers ------------------------------------------------------------

function drawScene(tb, events, ui) {
  const { t, h, betName } = ui;
  const draw = last(events, "draw");
  const out = last(events, "outcome");
  const common = out && out.outcome && out.outcome.boxes ? out.outcome.boxes.common : null;
  const middle = (tb.layout.numbers && tb.layout.numbers.middle) || [];
  const row = (name, nums, cls) => h("div", { class: `draw-row ${cls}` }, h("span", { class: "draw-name" }, name),
    h("span", { class: "nums" }, (nums || []).map((n) => h("b", { class: "num" }, String(n)))));
  const display = h("div", { id: "draw", class: "draw-display", "aria-live": "polite" },
    h("div", { class: "draw-no" }, draw ? t("player.draw", { draw: draw.data.draw }) : t("player.draw_waiting")),
    row(betName(tb.game, "upper"), draw ? draw.data.upper : [], "up"),
    row(betName(tb.game, "middle"), middle, "mid"),
    row(betName(tb.game, "lower"), draw ? draw.data.lower : [], "down"));
  const codes = dealtTo(events, tb.box || "common");
  return [h("div", { class: "scene-row" }, display,
    h("div", { class: "box" }, h("span", { class: "small" }, t("player.common_box")), place("common-cards", codes, Math.max(2, codes.length), ui),
      common ? h("div", { id: "common-total", class: "big" }, t("player.total", { total: common.total })) : null))];
}

// --- the dealer's hand and the remote hand -------------------------------------------

function handsScene(tb, events, ui) {
  const { t, h } = ui;
  const rank = (c) => t(`${tb.game}.hand.${c}`, null, c);  // (a hand's rank in the game's words)
  const mine = tb.box || "remote";
  const dealer = last(events, "dealer");
  const ranked = events.filter((e) => e.kind === "card" && e.data.to === mine && e.data.hand).pop();
  const dealerCodes = dealer ? dealer.data.cards : dealtTo(events, "dealer");
  return [h("div", { class: "scene-row" },
    h("div", { class: "box" }, h("span", { class: "small" }, t("player.dealer_hand")), place("dealer-cards", dealerCodes, 3, ui),
      h("div", { id: "dealer-rank" }, dealer ? `${rank(dealer.data.hand)} · ${
        t(dealer.data.qualifies ? "player.qualifies" : "player.not_qualifies")}` : "")),
    h("div", { class: "box" }, h("span", { class: "small" }, t("player.remote_hand")), place("remote-cards", dealtTo(events, mine), 3, ui),
      h("div", { id: "own-rank", class: "big" }, ranked ? t("player.your_hand", { hand: rank(ranked.data.hand) }) : "")))];
}

// Draws the table's scene into ``box`` (the wheel kept across redraws; the rest drawn again;
// a game whose remote view names no scene: none, the felt only).
export function scene(box, tb, events, ui) {
  if (!tb.layout) { box.replaceChildren(); return; }
  const more = { ...ui, round: tb.round_id };
  if (tb.scene === "spin") { spinScene(box, tb, events, more); return; }
  const draw = { draw: drawScene, hands: handsScene }[tb.scene];
  box.replaceChildren(...(draw ? draw(tb, events, more).filter((x) => x) : []));
}
