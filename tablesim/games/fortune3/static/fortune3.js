// Fortune 3 Card Poker on the console and the board: the dealer's hand, a
// hand per box, play/fold per box (served as /static/game.js; see
// tablesim/server/static/common.js).
import { h, cardEl, HANDS } from "./common.js";

export function summary(o) {
  if (!o.dealer) return null;
  return `dealer ${o.dealer.cards.join(" ")} — ${HANDS[o.dealer.hand] || o.dealer.hand}${o.dealer.qualifies ? "" : ", does not qualify"}`;
}

export function roundDetail(o) {
  if (!o.dealer) return null;
  const boxes = Object.entries(o.boxes || {});
  return [
    h("div", { class: "main" }, "Dealer", o.dealer.cards.map((c) => cardEl(c, { big: true })), h("span", {}, HANDS[o.dealer.hand] || o.dealer.hand)),
    h("div", { class: "detail" }, o.dealer.qualifies ? "dealer qualifies" : "dealer does not qualify"),
    h("div", { class: "totals" }, boxes.map(([b, x]) => h("span", {}, `box ${b}: ${HANDS[x.hand] || x.hand}${x.decision ? " " + x.decision : ""}`))),
  ];
}

export function pill(o) {
  return h("span", { class: "pill", title: HANDS[o.dealer.hand] }, (o.dealer.hand || "").split("_").map((w) => w[0].toUpperCase()).join(""));
}

export const boxClass = "f3";

export function header(t, ui) {
  const v = t.view;
  const dl = v.dealer;
  return [h("div", { class: "dealer-row", id: "dealer" },
    h("span", { class: "who" }, "Dealer"), ui.cardsRow(dl.cards, true),
    h("span", {}, dl.hand ? `${HANDS[dl.hand] || dl.hand}${dl.qualifies === false ? " — does not qualify" : dl.qualifies ? " — qualifies" : ""}` : ""),
    h("span", { class: "dim", id: "dealing-mode" }, `dealing by ${v.dealing}`),
  )];
}

export function boxFoot(t, pos, b, ui) {
  const out = [h("div", { class: "hand" }, b.hand ? HANDS[b.hand] || b.hand : "")];
  if ((t.view.pending_decisions || []).includes(pos)) {
    out.push(h("div", { class: "decide" },
      h("button", { type: "button", class: "ok", dataset: { box: pos, decision: "play" }, disabled: !ui.me, onclick: () => ui.decide(pos, "play") }, "PLAY"),
      h("button", { type: "button", class: "danger", dataset: { box: pos, decision: "fold" }, disabled: !ui.me, onclick: () => ui.decide(pos, "fold") }, "FOLD")));
  }
  return out;
}
