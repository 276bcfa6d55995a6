// The football card game on the console and the board: the draw as the
// display shows it, a total per box and the common box (served as
// /static/game.js; see tablesim/server/static/common.js).
import { h } from "./common.js";

function digits(draw) {
  return [draw.upper.map((n) => h("span", { class: "digit" }, n)), " ", draw.lower.map((n) => h("span", { class: "digit lower" }, n))];
}

export function summary(o) {
  if (!o.boxes) return null;
  return `draw ${o.draw}: common box total ${o.boxes.common ? o.boxes.common.total : "?"}`;
}

export function roundDetail(o) {
  if (!o.boxes) return null;
  return [
    h("div", { class: "main" }, `Draw ${o.draw}`,
      h("span", {}, o.upper.map((n) => h("span", { class: "digit" }, n))),
      h("span", {}, o.lower.map((n) => h("span", { class: "digit lower" }, n)))),
    h("div", { class: "totals" }, Object.entries(o.boxes).map(([b, x]) =>
      h("span", { class: b === "common" ? "common" : "" }, `${b === "common" ? "common" : "box " + b}: ${x.total}`))),
  ];
}

export function pill(o) {
  return h("span", { class: "pill" }, o.boxes && o.boxes.common ? o.boxes.common.total : "?");
}

export function boardLive(t) {
  const v = t.view || {};
  return v.draw ? h("span", { class: "main" }, `Draw ${v.draw.index} `, ...digits(v.draw)) : null;
}

export const boxClass = "fb";

export function header(t) {
  const d = t.view.draw;
  return [h("div", { class: "draw" + (d ? "" : " pending"), id: "draw" },
    h("span", { class: "no" }, d ? `DRAW ${d.index}` : t.view.drawing ? "drawing…" : "no draw"),
    h("span", { class: "side" }, h("span", { class: "lbl" }, "UPPER"), (d ? d.upper : []).map((n) => h("span", { class: "digit" }, n))),
    h("span", { class: "side" }, h("span", { class: "lbl" }, "LOWER"), (d ? d.lower : []).map((n) => h("span", { class: "digit lower" }, n))),
  )];
}

export function boxFoot(t, pos, b) {
  return [
    h("div", { class: "total", dataset: { total: pos } }, b.total === null || b.total === undefined ? "" : b.total),
    h("div", { class: "third" }, b.third_due ? "third card due" : ""),
  ];
}
