// Fortune 3 Card Poker on the console and the board: the dealer's hand, a
// hand per box, play/fold per box (served as /static/game.js; see
// tablesim/server/static/common.js).
import { h, cardEl, say, amount } from "./common.js";

const RANK = { T: 10, J: 11, Q: 12, K: 13, A: 14 };
const FACE = { 10: "10", 11: "J", 12: "Q", 13: "K", 14: "A" };
const hand = (category) => say(`fortune3.hand.${category}`, null, category);
// a rank in the plural ("Kings", "7s"): the picture cards and aces have names of their own
const many = (n) => say([`fortune3.many.${n}`, "fortune3.many.n"], { rank: face(n) });

function ranks(cards) {
  return (cards || []).map((c) => c.replace("^", "").slice(0, -1)).map((r) => RANK[r] || Number(r)).sort((a, b) => b - a);
}

const face = (n) => FACE[n] || String(n);

// A hand's name with the rank that makes it: "K high" and "Q high" are not the same hand.
export function handName(category, cards) {
  const r = ranks(cards);
  if (!category) return "";
  if (r.length !== 3 || r.some((x) => !x)) return hand(category);
  const top = r[0] === 14 && r[1] === 3 && r[2] === 2 ? 3 : r[0];  // 3-2-A: the ace plays low
  switch (category) {
    case "high_card": return say("fortune3.hand_named.high_card", { rank: face(r[0]) });
    case "pair": { const p = r[0] === r[1] ? r[0] : r[1]; return say("fortune3.hand_named.pair", { many: many(p) }); }
    case "three_of_a_kind": return say("fortune3.hand_named.three_of_a_kind", { many: many(r[0]) });
    case "straight": return say("fortune3.hand_named.straight", { rank: face(top) });
    case "flush": return say("fortune3.hand_named.flush", { rank: face(r[0]) });
    case "straight_flush": return say("fortune3.hand_named.straight_flush", { rank: face(top) });
    default: return hand(category);
  }
}

export function summary(o) {
  if (!o.dealer) return null;
  return say("fortune3.summary", { cards: o.dealer.cards.join(" "), hand: handName(o.dealer.hand, o.dealer.cards) }) + (o.dealer.qualifies ? "" : say("fortune3.summary_no_qualify"));
}

// The game's own events in the console's log.
export function eventText(msg) {
  const d = msg.data || {};
  if (msg.kind !== "dealer") return null;
  return say("fortune3.event.dealer", { cards: d.cards.join(" "), hand: hand(d.hand),
    qualifies: say(d.qualifies ? "fortune3.qualifies" : "fortune3.not_qualify") });
}

export function roundDetail(o) {
  if (!o.dealer) return null;
  const boxes = Object.entries(o.boxes || {});
  return [
    h("div", { class: "main" }, say("fortune3.dealer"), o.dealer.cards.map((c) => cardEl(c, { big: true })), h("span", {}, handName(o.dealer.hand, o.dealer.cards))),
    h("div", { class: "detail" }, say(o.dealer.qualifies ? "fortune3.dealer_qualifies" : "fortune3.dealer_not_qualify")),
    h("div", { class: "totals" }, boxes.map(([b, x]) => h("span", {}, say("fortune3.box_hand", { box: b, hand: handName(x.hand, x.cards) }) + (x.decision ? " " + say(`decision.${x.decision}`, null, x.decision) : "")))),
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
    h("span", { class: "who" }, say("fortune3.dealer")), ui.cardsRow(dl.cards, true),
    h("span", { id: "dealer-hand" }, dl.hand ? handName(dl.hand, dl.cards) + (dl.qualifies === false ? " — " + say("fortune3.not_qualify") : dl.qualifies ? " — " + say("fortune3.qualifies") : "") : ""),
    h("span", { class: "dim", id: "dealing-mode" }, say("fortune3.dealing_by", { mode: say(`dealing.${v.dealing}`, null, v.dealing) })),
    // Art. 11(4): the failed shuffler deals no round until a supervisor confirms it was replaced
    v.shuffler_out_of_service ? h("span", { class: "warn", id: "shuffler-out" },
      say("fortune3.shuffler_out", { round: v.shuffler_out_of_service.round })) : null,
  ), v.remote ? remoteRow(t, v.remote, ui) : null].filter(Boolean);
}

// The shared remote hand: its cards, how many remote players are in, and
// while they decide how many still do and the decision timer.
let decisionTimer = null;  // the last decision_timer message: {round_id, remaining, pending}
function remoteRow(t, r, ui) {
  const timer = decisionTimer && decisionTimer.round_id === t.round_id && r.pending ? decisionTimer.remaining : null;
  return h("div", { class: "dealer-row", id: "remote-hand" },
    h("span", { class: "who" }, say("fortune3.remote.hand")), ui.cardsRow(r.cards, false),
    h("span", { id: "remote-hand-name" }, r.hand ? handName(r.hand, r.cards) : ""),
    h("span", { id: "remote-players" }, say("fortune3.remote.players", { n: r.players })),
    remoteTotals(t, ui),
    r.played || r.folded ? h("span", { class: "dim", id: "remote-decided" },
      say("fortune3.remote.decided", { played: r.played, folded: r.folded })) : null,
    r.pending ? h("span", { class: "warn", id: "remote-pending" }, say("fortune3.remote.pending", { n: r.pending })) : null,
    r.pending ? h("span", { class: "timer", id: "remote-timer" },
      say("fortune3.remote.timer", { n: timer === null ? r.seconds : timer })) : null);
}

// What the remote players have on the shared hand, per spot (the dealer's book: the totals, never a list
// of hundreds of players); nothing before the book is read or while nobody bets there.
function remoteTotals(t, ui) {
  const totals = (t.bets || {}).remote || {};
  const spots = Object.entries(totals).filter(([, a]) => a && a !== "0");
  if (!spots.length) return null;
  return h("span", { class: "dim", id: "remote-totals" },
    spots.map(([bet, a]) => `${say(`fortune3.bet.${bet}`, null, bet)} ${amount(a)}`).join(" · "));
}

// The stream's messages of this game (the console hands it every one).
export function onMessage(msg) {
  if (msg.type !== "decision_timer") return false;
  decisionTimer = msg;
  const el = document.getElementById("remote-timer");
  if (el) el.textContent = say("fortune3.remote.timer", { n: msg.remaining });
  const pending = document.getElementById("remote-pending");
  if (pending) pending.textContent = say("fortune3.remote.pending", { n: msg.pending });
  return true;
}

// The Play: a spot of its own once made (its stake equals the Ante), with its
// result; the ante bonus's result below the spots when there is one to pay.
export function extraSpots(t, pos, b, ui) {
  const r = ui.settled(t);
  const res = r ? (r.results || {})[pos] || {} : {};
  const out = [ui.spot(t, pos, "play", say("fortune3.bet.play"), { amount: b.play || "", fixed: true })];
  if (res.ante_bonus !== undefined && res.ante_bonus !== "0") {
    out.push(h("div", { class: "bonus" }, say("fortune3.ante_bonus") + " ", ui.resultEl(res.ante_bonus, `${pos}:ante_bonus`)));
  }
  return { ante: out };
}

export function boxFoot(t, pos, b, ui) {
  const out = [h("div", { class: "hand", dataset: { hand: pos } }, b.hand ? handName(b.hand, b.cards) : "")];
  if ((t.view.pending_decisions || []).includes(pos)) {
    out.push(h("div", { class: "decide" },
      h("button", { type: "button", class: "ok", dataset: { box: pos, decision: "play" }, disabled: !ui.me, onclick: () => ui.decide(pos, "play") }, say("decision.play").toLocaleUpperCase()),
      h("button", { type: "button", class: "danger", dataset: { box: pos, decision: "fold" }, disabled: !ui.me, onclick: () => ui.decide(pos, "fold") }, say("decision.fold").toLocaleUpperCase())));
  }
  return out;
}
