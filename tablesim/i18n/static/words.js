// The pages' words: the catalog of the chosen language, asked of the server
// (/i18n/{lang}.json), fills every element marked data-i18n (its text),
// data-i18n-title and data-i18n-placeholder; t(id, params) gives a message
// with its {name} placeholders filled. The language is the one chosen on the
// page (remembered), else the first of the browser's languages we have.
const KEY = "tablesim.lang";
let cat = { lang: "", languages: [], numbers: { group: ",", decimal: ".", symbol: "", symbol_first: true }, messages: {} };

// The language of a browser's language tag: every Chinese reads Traditional Chinese.
export function pickLanguage(tags) {
  for (const tag of tags || []) {
    const primary = String(tag).toLowerCase().split("-")[0];
    if (primary === "zh") return "zh-Hant";
    if (primary === "en" || primary === "pt") return primary;
  }
  return null;
}

export function chosenLanguage() {
  let kept = null;
  try { kept = localStorage.getItem(KEY); } catch (e) { kept = null; }
  return kept || pickLanguage(navigator.languages) || "auto";
}

export function lang() { return cat.lang; }

export async function loadWords(wanted = chosenLanguage()) {
  let res = null;
  try { res = await fetch(`/i18n/${encodeURIComponent(wanted)}.json`); } catch (e) { res = null; }
  if (!res || !res.ok) return wanted === "auto" ? cat : loadWords("auto");
  cat = await res.json();
  document.documentElement.lang = cat.lang;
  fillTexts();
  return cat;
}

export function has(id) { return Object.prototype.hasOwnProperty.call(cat.messages, id); }

// A message; ``id`` may be a list: the first id the catalog has (a game's own word before the core's).
export function t(id, params, fallback) {
  const ids = Array.isArray(id) ? id : [id];
  const found = ids.find(has);
  const text = found !== undefined ? cat.messages[found] : fallback !== undefined ? String(fallback) : ids[0];
  return text.replace(/\{(\w+)\}/g, (m, k) => (params && params[k] !== undefined && params[k] !== null ? String(params[k]) : m));
}

// An amount's decimal text with the language's signs (its digits as they are:
// never through a number); with ``currency``, the table's currency. Anything
// else is shown as it is.
export function amount(value, currency = false) {
  if (value === undefined || value === null || value === "") return "";
  const m = String(value).match(/^([+-]?)(\d+)(?:\.(\d+))?$/);
  if (!m) return String(value);
  const n = cat.numbers;
  const whole = m[2].replace(/\B(?=(\d{3})+(?!\d))/g, n.group);
  const digits = whole + (m[3] ? n.decimal + m[3] : "");
  if (!currency || !n.symbol) return m[1] + digits;
  return m[1] + (n.symbol_first ? n.symbol + digits : digits + "\u00a0" + n.symbol);
}

export function fillTexts(root = document) {
  for (const el of root.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  for (const el of root.querySelectorAll("[data-i18n-title]")) el.title = t(el.dataset.i18nTitle);
  for (const el of root.querySelectorAll("[data-i18n-placeholder]")) el.placeholder = t(el.dataset.i18nPlaceholder);
  for (const el of root.querySelectorAll("[data-i18n-label]")) el.setAttribute("aria-label", t(el.dataset.i18nLabel));
}

// The language switch: a select of the languages, each in its own name.
export function languageSwitch(onChange) {
  const sel = document.createElement("select");
  sel.id = "lang";
  sel.className = "lang";
  sel.title = t("page.language");
  for (const l of cat.languages) {
    const o = document.createElement("option");
    o.value = l.code;
    o.textContent = l.name;
    sel.append(o);
  }
  sel.value = cat.lang;
  sel.onchange = async () => {
    try { localStorage.setItem(KEY, sel.value); } catch (e) { /* not kept: still switched */ }
    await loadWords(sel.value);
    sel.title = t("page.language");
    if (onChange) onChange();
  };
  return sel;
}
