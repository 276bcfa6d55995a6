// Fortune 3 Card Poker on the console and the board: the dealer's hand, a
// hand per box, play/fold per box (served as /static/game.js; see
// tablesim/server/static/common.js).
import { h, cardEl, HANDS } from "./common.js";

const RANK = { T: 10, J: 11, Q: 12, K: 13, A: 14 };
const FACE = { 10: "10", 11: "J", 12: "Q", 13: "K", 14: "A" };
const MANY = { 11: "Jacks", 12: "Queens", 13: "Kings", 14: "Aces" };

function ranks(cards) {
  return (cards || []).map((c) => c.replace("^", "").slice(0, -1)).map((r) => RANK[r] || Number(r)).sort((a, b) => b - a);
}

const face = (n) => FACE[n] || String(n);

// A hand's name with the rank that makes it: "K high" and "Q high" are not the same hand.
export function handName(category, cards) {
  const r = ranks(cards);
  if (!category) return "";
  if (r.length !== 3 || r.some((x) => !x)) return HANDS[category] || category;
  const top = r[0] === 14 && r[1] === 3 && r[2] === 2 ? 3 : r[0];  // 3-2-A: the ace plays low
  switch (category) {
    case "high_card": return `${face(r[0])} high`;
    case "pair": { const p = r[0] === r[1] ? r[0] : r[1]; return `Pair of ${MANY[p] || face(p) + "s"}`; }
    case "three_of_a_kind": return `Three ${MANY[r[0]] || face(r[0]) + "s"}`;
    case "straight": return `Straight to ${face(top)}`;
    case "flush": return `Flush, ${face(r[0])} high`;
    case "straight_flush": return `Straight flush to ${face(top)}`;
    default: return HANDS[category] || category;
  }
}

export function summary(o) {
  if (!o.dealer) return null;
  return `dealer ${o.dealer.cards.join(" ")} — ${handName(o.dealer.hand, o.dealer.cards)}${o.dealer.qualifies ? "" : ", does not qualify"}`;
}

export function roundDetail(o) {
  if (!o.dealer) return null;
  const boxes = Object.entries(o.boxes || {});
  return [
    h("div", { class: "main" }, "Dealer", o.dealer.cards.map((c) => cardEl(c, { big: true })), h("span", {}, handName(o.dealer.hand, o.dealer.cards))),
    h("div", { class: "detail" }, o.dealer.qualifies ? "dealer qualifies" : "dealer does not qualify"),
    h("div", { class: "totals" }, boxes.map(([b, x]) => h("span", {}, `box ${b}: ${handName(x.hand, x.cards)}${x.decision ? " " + x.decision : ""}`))),
  ];
}

export function pill(o) {
  return h("span", { class: "pill", title: handName(o.dealer.hand, o.dealer.cards) }, (o.dealer.hand || "").split("_").map((w) => w[0].toUpperCase()).join(""));
}

export const boxClass = "f3";

export function header(t, ui) {
  const v = t.view;
  const dl = v.dealer;
  return [h("div", { class: "dealer-row", id: "dealer" },
    h("span", { class: "who" }, "Dealer"), ui.cardsRow(dl.cards, true),
    h("span", { id: "dealer-hand" }, dl.hand ? `${handName(dl.hand, dl.cards)}${dl.qualifies === false ? " — does not qualify" : dl.qualifies ? " — qualifies" : ""}` : ""),
    h("span", { class: "dim", id: "dealing-mode" }, `dealing by ${v.dealing}`),
    // Art. 11(4): the failed shuffler deals no round until a supervisor confirms it was replaced
    v.shuffler_out_of_service ? h("span", { class: "warn", id: "shuffler-out" },
      `shuffler out of service since ${v.shuffler_out_of_service.round}: a supervisor confirms it was replaced or deals by the shoe`) : null,
  )];
}

// The Play: a spot of its own once made (its stake equals the Ante), with its
// result; the ante bonus's result below the spots when there is one to pay.
export function extraSpots(t, pos, b, ui) {
  const r = ui.settled(t);
  const res = r ? (r.results || {})[pos] || {} : {};
  const out = [ui.spot(t, pos, "play", "Play", { amount: b.play || "", fixed: true })];
  if (res.ante_bonus !== undefined && res.ante_bonus !== "0") {
    out.push(h("div", { class: "bonus" }, "Ante bonus ", ui.resultEl(res.ante_bonus, `${pos}:ante_bonus`)));
  }
  return { ante: out };
}

export function boxFoot(t, pos, b, ui) {
  const out = [h("div", { class: "hand", dataset: { hand: pos } }, b.hand ? handName(b.hand, b.cards) : "")];
  if ((t.view.pending_decisions || []).includes(pos)) {
    out.push(h("div", { class: "decide" },
      h("button", { type: "button", class: "ok", dataset: { box: pos, decision: "play" }, disabled: !ui.me, onclick: () => ui.decide(pos, "play") }, "PLAY"),
      h("button", { type: "button", class: "danger", dataset: { box: pos, decision: "fold" }, disabled: !ui.me, onclick: () => ui.decide(pos, "fold") }, "FOLD")));
  }
  return out;
}
