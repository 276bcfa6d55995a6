// The rules at the table: the paytable and short rules of the game under the
// rule profile the platform read (its pays, commission, qualifier), and the
// table's recent results (a roadmap of the last rounds, from the stream).
// What is drawn follows the scene the game's remote view names (``tb.scene``)
// and the rules it sends; a game's words are its own ids (``<game>.hand.*``):
// no game is named here. A game with no scene: its pays per bet, if it sends any.
import { has } from "/i18n/words.js";
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
  const intro = (params) => (has(`player.rules.${game}`) ? [h("p", {}, t(`player.rules.${game}`, params))] : []);
  if (tb.scene === "spin") {
    return [...intro(),
      table(Object.entries(r.pays || {}).map(([s, p]) => [betName(game, s), String((r.segments || {})[s] ?? ""), to1(p)]),
        [t("player.col.symbol"), t("player.col.segments"), t("player.col.pays")], h)];
  }
  if (tb.scene === "draw") {
    const middle = ((tb.layout.numbers || {}).middle || []).join(", ");
    return [...intro(),
      // (in the felt's order: the published pays are in no particular one)
      table((tb.layout.bets || Object.keys(r.pays || {})).filter((b) => (r.pays || {})[b] !== undefined).map((b) => [b, r.pays[b]]).map(([b, p]) => [betName(game, b), to1(p),
        (r.commission || {})[b] ? t("player.commission", { pct: amount(r.commission[b]) }) : "—",
        t(`player.on_middle.${(r.on_middle || {})[b]}`, null, (r.on_middle || {})[b] || "—")]),
      [t("player.col.bet"), t("player.col.pays"), t("player.col.commission"), t("player.col.on_middle", { middle })], h)];
  }
  if (tb.scene !== "hands") {  // (no scene of the page's: the pays the rules give per bet, in the felt's order)
    const bets = (tb.layout.bets || []).filter((b) => (r.pays || {})[b] !== undefined);
    return [...intro(), ...(bets.length ? [table(bets.map((b) => [betName(game, b), to1(r.pays[b])]), [t("player.col.bet"), t("player.col.pays")], h)] : [])];
  }
  const hand = (c) => t(`${game}.hand.${c}`, null, c);
  const q = r.qualifier || {};
  const ranking = r.ranking || [];
  return [...intro({ ante: amount(r.ante_pays || "1"), play: amount(r.play_pays || "1") }),
    h("p", {}, t("player.rules.qualifier", { hand: hand(q.category || "high_card"), card: RANKS[q.high_card] || String(q.high_card || "") })),
    table(ranking.map((c) => [hand(c), (r.pair_plus || {})[c] ? to1(r.pair_plus[c]) : "—", (r.ante_bonus || {})[c] ? to1(r.ante_bonus[c]) : "—"]),
      [t("player.col.hand"), betName(game, "pair_plus"), t("player.col.ante_bonus")], h)];
}

// One result of the roadmap (the game's short result): what it was, as a small tile (its colour the wheel's symbol's).
function tile(tb, r, { t, h, betName }) {
  if (r.status !== "settled") return h("span", { class: "road void", title: t("state.void") }, "×");
  if (tb.scene === "spin") {
    return h("span", { class: "road", style: `--sym:${SYMBOL_COLOURS[r.symbol] || "#888"};--sym-ink:${SYMBOL_INK[r.symbol] || "#111"}`, title: betName(tb.game, r.symbol) },
      r.symbol === "joker" ? "J" : r.symbol === "logo" ? "\u2605" : r.symbol);
  }
  if (tb.scene === "draw") {
    return h("span", { class: `road ${Number(r.total) % 2 ? "odd" : "even"}`, title: t("player.draw", { draw: r.draw }) }, String(r.total ?? "—"));
  }
  if (tb.scene !== "hands") return h("span", { class: "road", title: r.round_id }, "•");  // (settled: nothing of the game's to say)
  const name = t(`${tb.game}.hand.${r.hand}`, null, r.hand || "—");
  return h("span", { class: `road${r.qualifies ? " q" : ""}`, title: name }, name);
}

export function roadmap(tb, results, ui) {
  if (!results.length) return [ui.h("p", { class: "small" }, ui.t("player.no_results"))];
  // the oldest first, as a roadmap reads
  return [ui.h("div", { class: "roadmap", id: "roadmap-tiles" }, [...results].reverse().map((r) => tile(tb, r, ui)))];
}

// A result as the roadmap keeps it: the game's short result, which the outcome every player is shown carries.
export function short(m) {
  if (m.status !== "settled") return { round_id: m.round_id, status: m.status };
  return { ...(m.short || {}), round_id: m.round_id, status: "settled" };
}
