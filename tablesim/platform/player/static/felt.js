// The felt: the table's spots laid out as on the table, each with its pay,
// limits and the chips on it (placed by the table: solid; waiting to be
// placed: outlined), and the chip rack, one colour per value.
import { add, sign, times } from "/player/money.js";
import { SYMBOL_COLOURS } from "/player/scene.js";

//: the rack's chips, in the table's units (a chip's colour is its multiple's)
export const CHIPS = ["1", "5", "25", "100", "500"];
//: at most this many chips drawn on a spot's stack (the amount is written beside it)
const STACK = 6;

// An amount as chips of the rack, the largest first (what a dealer would stack): their multiples.
export function chipsOf(amount, unit) {
  const out = [];
  let left = amount;
  for (const k of [...CHIPS].reverse()) {
    const chip = times(unit, k);
    while (sign(left) > 0 && sign(add(left, `-${chip}`)) >= 0 && out.length < STACK) {
      out.push(k);
      left = add(left, `-${chip}`);
    }
  }
  if (sign(left) > 0 && out.length < STACK) out.push("odd");  // (a part no chip of the rack makes)
  return out;
}

function stack(amount, unit, kind, h) {
  if (!sign(amount)) return [];
  return chipsOf(amount, unit).map((c, i) => h("span", { class: `mini c${c} ${kind}`, style: `--i:${i}`, "aria-hidden": "true" }));
}

// One spot: ``shown`` = {placed, pending} amounts; ``pays``, ``note``: what the rules say of it.
export function spot(tb, bet, shown, ui, span = 1) {
  const { t, h, money, amount, betName } = ui;
  const lim = (tb.limits || {})[bet] || {};
  const rules = (tb.layout && tb.layout.rules) || {};
  // (Fortune 3: the Ante's even money; Pair Plus by the hand, its best pay said: the paytable has the rest)
  const best = (table) => Object.values(table || {}).reduce((a, b) => (sign(add(b, `-${a}`)) > 0 ? b : a), "0");
  const pays = rules.pays ? rules.pays[bet] : bet === "ante" ? rules.ante_pays : null;
  const upTo = bet === "pair_plus" && rules.pair_plus ? best(rules.pair_plus) : null;
  const commission = rules.commission ? rules.commission[bet] : null;
  const colour = tb.scene === "spin" ? SYMBOL_COLOURS[bet] : null;  // (a wheel's spot in its symbol's colour)
  const style = [colour ? `--sym:${colour}` : "", span > 1 ? `grid-column:span ${span}` : ""].filter(Boolean).join(";");
  return h("button", { class: `spot${shown.won ? " win" : ""}`, "data-bet": bet, disabled: !tb.betting, onclick: ui.onSpot(bet),
    style: style || null },
  h("span", { class: "name" }, betName(tb.game, bet)),
  pays ? h("span", { class: "small pays" }, t("player.pays", { pays: amount(pays) })) : null,
  upTo ? h("span", { class: "small pays" }, t("player.pays_up_to", { pays: amount(upTo) })) : null,
  commission ? h("span", { class: "small commission" }, t("player.commission", { pct: amount(commission) })) : null,
  h("span", { class: "small" }, t("player.spot_limits", { min: amount(lim.min), max: amount(lim.max) })),
  h("span", { class: "stack" }, stack(shown.placed, tb.unit, "placed", h), stack(shown.pending, tb.unit, "pending", h)),
  h("span", { class: "stake" }, sign(shown.placed) ? t("player.placed", { amount: money(shown.placed, tb.currency) }) : "",
    sign(shown.pending) ? ` ${t("player.pending", { amount: money(shown.pending, tb.currency) })}` : ""));
}

//: at most this many spots side by side in a row (a longer row wraps), and on a phone
const WIDEST = 8;
const WIDEST_PHONE = 4;

const gcd = (a, b) => (b ? gcd(b, a % b) : a);

// How the spots lie on the felt, from what the game's remote view says of it (``tb.felt``):
// its rows of bets (each row's spots share its width; a bet no row names goes in a row after
// them, a bet the layout lacks is left out; no rows: one row of every bet), boxes or circles.
// -> { spots: [[bet, span]], columns, phone (the columns on a phone), circles }
export function arrangement(tb) {
  const bets = (tb.layout && tb.layout.bets) || [];
  const felt = tb.felt || {};
  const named = new Set();
  const rows = [];
  for (const row of felt.rows || []) {
    const kept = row.filter((b) => bets.includes(b) && !named.has(b));
    kept.forEach((b) => named.add(b));
    if (kept.length) rows.push(kept);
  }
  const rest = bets.filter((b) => !named.has(b));
  if (rest.length) rows.push(rest);
  const widths = rows.map((r) => Math.min(r.length, WIDEST));
  const columns = widths.reduce((a, w) => (a * w) / gcd(a, w), 1);
  const spots = rows.flatMap((r, i) => r.map((b) => [b, columns / widths[i]]));
  // on a phone a felt of single spots wraps at four; rows of wider spots keep their shape
  const phone = spots.every(([, span]) => span === 1) ? Math.min(columns, WIDEST_PHONE) : columns;
  return { spots, columns, phone, circles: !!felt.circles };
}

export function rack(tb, chosen, ui) {
  const { t, h, amount, onChip } = ui;
  return CHIPS.map((k) => {
    const value = times(tb.unit, k);
    return h("button", { class: `chip c${k}${chosen === value ? " on" : ""}`, "data-amount": value,
      "aria-pressed": chosen === value ? "true" : "false", "aria-label": t("player.chip", { amount: `${amount(value)} ${tb.currency}` }),
      onclick: () => onChip(value) }, amount(value));
  });
}
