// What happens at the table, per game, from the round's public events: the
// spin, the draw and the common box's cards, the remote and dealer hands.
const SUITS = { S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663" };

function card(code, h) {
  if (!code || code === "??") return h("span", { class: "card down" }, "??");
  const c = code.replace("^", "");
  const suit = c.slice(-1);
  const rank = c.slice(0, -1) === "T" ? "10" : c.slice(0, -1);
  return h("span", { class: suit === "H" || suit === "D" ? "card red" : "card", "data-card": c }, rank + (SUITS[suit] || suit));
}

function last(events, kind) {
  for (let i = events.length - 1; i >= 0; i--) if (events[i].kind === kind || events[i].type === kind) return events[i];
  return null;
}

function wheel(tb, events, { t, h, betName }) {
  const spin = last(events, "spin_result");
  const turn = last(events, "revolution");
  const out = last(events, "outcome");
  const symbol = spin ? spin.data.symbol : out && out.outcome ? out.outcome.symbol : null;
  if (tb.state === "spinning" && !symbol) return [h("div", { class: "big", id: "spin" }, t("player.spinning")), turn ? h("span", { class: "small" }, `${turn.data.n}`) : null];
  return [h("div", { class: "small" }, t("player.outcome")),
    h("div", { class: "big", id: "spin", "data-symbol": symbol || "" }, symbol ? t("player.symbol", { symbol: betName("wheel", symbol) }) : "—")];
}

function hand(events, to, h) {
  return events.filter((e) => e.kind === "card" && e.data.to === to).map((e) => card(e.data.card, h));
}

function football(tb, events, { t, h }) {
  const draw = last(events, "draw");
  const out = last(events, "outcome");
  const common = out && out.outcome && out.outcome.boxes ? out.outcome.boxes.common : null;
  return [
    h("div", { id: "draw" }, draw ? h("b", {}, t("player.draw", { draw: draw.data.draw })) : "—",
      draw ? h("span", { class: "small" }, ` ↑ ${(draw.data.upper || []).join(" ")} · ↓ ${(draw.data.lower || []).join(" ")}`) : null),
    h("div", {}, h("span", { class: "small" }, t("player.common_box"))),
    h("div", { class: "cards", id: "common-cards" }, hand(events, "common", h)),
    common ? h("div", { id: "common-total", class: "big" }, t("player.total", { total: common.total })) : null,
  ];
}

function fortune3(tb, events, { t, h }) {
  const dealer = last(events, "dealer");
  const mine = tb.box || "remote";
  return [
    h("div", {}, h("span", { class: "small" }, t("player.remote_hand"))),
    h("div", { class: "cards", id: "remote-cards" }, hand(events, mine, h)),
    h("div", {}, h("span", { class: "small" }, t("player.dealer_hand"))),
    h("div", { class: "cards", id: "dealer-cards" }, dealer ? dealer.data.cards.map((c) => card(c, h)) : hand(events, "dealer", h)),
    dealer ? h("div", {}, t(`fortune3.hand.${dealer.data.hand}`, null, dealer.data.hand), " · ",
      t(dealer.data.qualifies ? "player.qualifies" : "player.not_qualifies")) : null,
  ];
}

export function scene(tb, events, ui) {
  const draw = { wheel, football, fortune3 }[tb.game];
  return draw ? draw(tb, events, ui).filter((x) => x) : [];
}
