// The rules at the table: the paytable and short rules of the game under the
// rule profile the platform read (its pays, commission, qualifier), and the
// table's recent results (a roadmap of the last rounds, from the stream).
import { SYMBOL_COLOURS, SYMBOL_INK } from "/player/scene.js";

const RANKS = { 11: "J", 12: "Q", 13: "K", 14: "A" };

function table(rows, head, h) {
  return h("table", { class: "paytable" },
    h("thead", {}, h("tr", {}, head.map((x) => h("th", { scope: "col" }, x)))),
    h("tbody", {}, rows.map((r) => h("tr", {}, r.map((x) => h("td", {}, x))))));
}

export function paytable(tb, { t, h, amount, betName }) {
  const r = (tb.layout && tb.layout.rules) || {};
  const game = tb.game;
  const to1 = (x) => t("player.to_one", { pays: amount(x) });
  if (game === "wheel") {
    return [h("p", {}, t("player.rules.wheel")),
      table(Object.entries(r.pays || {}).map(([s, p]) => [betName("wheel", s), String((r.segments || {})[s] ?? ""), to1(p)]),
        [t("player.col.symbol"), t("player.col.segments"), t("player.col.pays")], h)];
  }
  if (game === "football") {
    const middle = ((tb.layout.numbers || {}).middle || []).join(", ");
    return [h("p", {}, t("player.rules.football")),
      // (in the felt's order: the published pays are in no particular one)
      table((tb.layout.bets || Object.keys(r.pays || {})).filter((b) => (r.pays || {})[b] !== undefined).map((b) => [b, r.pays[b]]).map(([b, p]) => [betName("football", b), to1(p),
        (r.commission || {})[b] ? t("player.commission", { pct: amount(r.commission[b]) }) : "—",
        t(`player.on_middle.${(r.on_middle || {})[b]}`, null, (r.on_middle || {})[b] || "—")]),
      [t("player.col.bet"), t("player.col.pays"), t("player.col.commission"), t("player.col.on_middle", { middle })], h)];
  }
  const hand = (c) => t(`fortune3.hand.${c}`, null, c);
  const q = r.qualifier || {};
  const ranking = r.ranking || [];
  return [h("p", {}, t("player.rules.fortune3", { ante: amount(r.ante_pays || "1"), play: amount(r.play_pays || "1") })),
    h("p", {}, t("player.rules.qualifier", { hand: hand(q.category || "high_card"), card: RANKS[q.high_card] || String(q.high_card || "") })),
    table(ranking.map((c) => [hand(c), (r.pair_plus || {})[c] ? to1(r.pair_plus[c]) : "—", (r.ante_bonus || {})[c] ? to1(r.ante_bonus[c]) : "—"]),
      [t("player.col.hand"), betName("fortune3", "pair_plus"), t("player.col.ante_bonus")], h)];
}

// One result of the roadmap: what it was, as a small tile (its colour the wheel's symbol's).
function tile(game, r, { t, h, betName }) {
  if (r.status !== "settled") return h("span", { class: "road void", title: t("state.void") }, "×");
  if (game === "wheel") {
    return h("span", { class: "road", style: `--sym:${SYMBOL_COLOURS[r.symbol] || "#888"};--sym-ink:${SYMBOL_INK[r.symbol] || "#111"}`, title: betName("wheel", r.symbol) },
      r.symbol === "joker" ? "J" : r.symbol === "logo" ? "\u2605" : r.symbol);
  }
  if (game === "football") {
    return h("span", { class: `road ${Number(r.total) % 2 ? "odd" : "even"}`, title: t("player.draw", { draw: r.draw }) }, String(r.total ?? "—"));
  }
  const name = t(`fortune3.hand.${r.hand}`, null, r.hand || "—");
  return h("span", { class: `road${r.qualifies ? " q" : ""}`, title: name }, name);
}

export function roadmap(tb, results, ui) {
  if (!results.length) return [ui.h("p", { class: "small" }, ui.t("player.no_results"))];
  // the oldest first, as a roadmap reads
  return [ui.h("div", { class: "roadmap", id: "roadmap-tiles" }, [...results].reverse().map((r) => tile(tb.game, r, ui)))];
}

// A result as the roadmap keeps it, from the outcome every player is shown.
export function short(game, m) {
  const o = m.outcome || {};
  if (m.status !== "settled") return { round_id: m.round_id, status: m.status };
  if (game === "wheel") return { round_id: m.round_id, status: "settled", symbol: o.symbol };
  if (game === "football") {
    const common = (o.boxes || {}).common || {};
    return { round_id: m.round_id, status: "settled", draw: o.draw, total: common.total };
  }
  const d = o.dealer || {};
  return { round_id: m.round_id, status: "settled", hand: d.hand, qualifies: d.qualifies };
}
