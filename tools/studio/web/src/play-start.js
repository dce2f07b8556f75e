// The studio's Play tab: start a game of the open ruleset (each seat a person or a bot, the seed, the options) and
// list the games with each person's seat link and the spectator's (docs/studio.md, "Play").
import {getJSON, postJSON} from "./api.js"

const $ = sel => document.querySelector(sel)

function el(tag, text = "", attrs = {}) {
  const e = Object.assign(document.createElement(tag), attrs)
  if (text) e.textContent = text
  return e
}

function ref(file) {
  return file.path ?? `bundled:${file.bundled}`
}

let studioOf = null  // the studio's page state (its goTo), for the games list's "Go to" buttons

export function setupPlay(studio) {
  studioOf = studio
  const panel = $("#tab-play")
  $("#play-form").addEventListener("submit", e => { e.preventDefault(); start(studio) })
  // the seats follow the number as it is typed (on "change" alone, 3 typed then Start started a game of 2)
  $("#play-players").addEventListener("input", () => {
    const n = $("#play-players"), v = Number(n.value)
    if (panel.setup && Number.isInteger(v) && v >= Number(n.min) && v <= Number(n.max)) seats(v, panel.setup)
  })
  $("#play-form").addEventListener("input", () => keepForm(studio))
  $("#play-form").addEventListener("change", () => keepForm(studio))
  document.querySelector('#tabs button[data-tab="play"]').addEventListener("click", () => showPlay(studio))
  // the list follows the games while the tab is shown (decisions taken, games over, a game started elsewhere): it was
  // drawn once, when the tab was opened, and said '0 decisions' of a game long over
  setInterval(() => { if (!panel.hidden && !document.hidden) listGames().catch(() => {}) }, FOLLOW_EVERY)
  // the form drawn again from the file as saved (a save, another file opened) while the tab is shown: it kept the
  // parameters' old defaults, so a variant saved at target 30 started its game at the parent's 100 (session 20)
  return {refresh: () => { if (!panel.hidden) showPlay(studio).catch(() => {}) }}
}

const FOLLOW_EVERY = 2000  // ms between two looks at the games while the Play tab is shown

async function showPlay(studio) {
  const note = $("#play-note")
  note.textContent = ""
  // a game plays the file as saved: with text not saved, the button saves it first
  $("#play-start").textContent = studio.dirty() ? "Save and start the game" : "Start the game"
  if (studio.file) {
    try {
      const setup = await getJSON(`/api/play/setup?path=${encodeURIComponent(ref(studio.file))}`)
      $("#tab-play").setup = setup
      $("#play-title").textContent = setup.title
      const n = $("#play-players")
      Object.assign(n, {min: setup.players.min, max: setup.players.max, value: setup.players.default})
      seats(setup.players.default, setup)
      $("#play-options").replaceChildren(...[...setup.parameters, ...setup.options].map(optionField))
      takeKept(studio, setup)
      $("#play-start").disabled = false
      $("#play-form").classList.remove("cannot")
    } catch (err) {
      // which error and where, with a Go to (it said 'the ruleset has errors', over an empty 'Play : players' line)
      note.replaceChildren(el("span", err.message, {className: "refused"}), ...goTo(err.body && err.body.at))
      $("#play-form").classList.add("cannot")
      $("#play-start").disabled = true
    }
  } else {
    note.textContent = "open a ruleset to play it"
  }
  await listGames()
}

// the form (players, seed, who sits where, the options) kept for the browser's tab, per ruleset: a reload gave back
// the defaults (sessionStorage: a reload keeps it, another tab has its own)
const KEPT = "rulecraft.play"

function keepForm(studio) {
  if (!studio.file) return
  const form = {ruleset: ref(studio.file), players: $("#play-players").value, seed: $("#play-seed").value,
    seats: [...document.querySelectorAll("#play-seats select")].map(s => s.value), options: {}}
  // only what was changed from its default: a default the designer changes in the file since is taken (every value
  // was kept, so the old default came back over the new one, and the game played the old rules; session 20)
  for (const i of document.querySelectorAll("#play-options [data-option]")) {
    if (i.value !== i.dataset.default) form.options[i.dataset.option] = i.value
  }
  try { sessionStorage.setItem(KEPT, JSON.stringify(form)) } catch { /* storage off or full: nothing kept */ }
}

function takeKept(studio, setup) {
  let kept = null
  try { kept = JSON.parse(sessionStorage.getItem(KEPT) || "null") } catch { kept = null }
  if (!kept || typeof kept !== "object" || kept.ruleset !== ref(studio.file)) return
  const n = Number(kept.players)
  if (Number.isInteger(n) && n >= setup.players.min && n <= setup.players.max) {
    $("#play-players").value = String(n)
    seats(n, setup)
  }
  if (typeof kept.seed === "string" && kept.seed !== "") $("#play-seed").value = kept.seed
  const sels = [...document.querySelectorAll("#play-seats select")]
  if (Array.isArray(kept.seats)) kept.seats.forEach((k, i) => {
    if (sels[i] && [...sels[i].options].some(o => o.value === k)) sels[i].value = k
  })
  for (const i of document.querySelectorAll("#play-options [data-option]")) {
    const v = kept.options && kept.options[i.dataset.option]
    if (typeof v === "string" && (i.tagName !== "SELECT" || [...i.options].some(o => o.value === v))) i.value = v
  }
}

function seats(n, setup) {
  const list = $("#play-seats")
  const kept = [...list.querySelectorAll("select")].map(s => s.value)
  list.replaceChildren()
  for (let i = 0; i < n; i++) {
    const sel = el("select", "", {ariaLabel: `seat ${i + 1}`})
    for (const k of [setup.person, ...setup.bots]) sel.append(el("option", k === setup.person ? "a person" : `bot: ${k}`, {value: k}))
    sel.value = kept[i] ?? (i < 2 ? setup.person : setup.bots[0])
    const li = el("li", `Seat ${i + 1}: `)
    li.append(sel)
    list.append(li)
  }
}

function optionField(o) {
  // the name players read (the ruleset's title) where it has one; the name --set takes and the doc in the tooltip
  const label = el("label", `${o.title || o.name} `, {title: `${o.name}${o.doc ? `: ${o.doc}` : ""}`})
  let input
  if (o.choices) {
    input = el("select")
    for (const c of o.choices) input.append(el("option", String(c), {value: String(c)}))
  } else {
    input = el("input", "", {type: "number", min: o.min ?? "", max: o.max ?? ""})
  }
  input.value = String(o.default)
  input.dataset.option = o.name
  input.dataset.default = String(o.default)
  label.append(input)
  return label
}

async function start(studio) {
  if (studio.dirty() && !(await studio.save())) {
    $("#play-note").textContent = "not started: the file could not be saved (see above)"
    return
  }
  $("#play-start").textContent = "Start the game"
  const options = {}
  for (const i of document.querySelectorAll("#play-options [data-option]")) {
    if (i.value !== i.dataset.default) options[i.dataset.option] = i.value
  }
  try {
    await postJSON("/api/play/new", {
      ruleset: ref(studio.file), seed: Number($("#play-seed").value) || 0, options,
      seats: [...document.querySelectorAll("#play-seats select")].map(s => s.value),
    })
    $("#play-note").replaceChildren("started: give each person their link")
  } catch (err) {
    $("#play-note").replaceChildren(...refused(err))
  }
  await listGames()
}

// why a game did not start, on the page (it was in the studio's terminal only): the sentence, a button that puts the
// cursor on the rule that went wrong, and what its error says behind a click (it may name a card of a hand: the host
// who will play a seat can leave it closed)
function refused(err) {
  return [el("span", err.message, {className: "refused"}), ...goTo(err.body && err.body.at),
          ...said(err.body && err.body.said)]
}

// what a rule's error says, behind a click: it may name a card of a hand, and the host may play a seat
function said(text) {
  if (!text) return []
  const box = el("details", "", {className: "said"})
  box.append(el("summary", "What the rule's error says (it may name a card a seat cannot see)"), el("code", text))
  return [box]
}

// a button that puts the editor's cursor on a rule of a file of the folder ({path, line, col}), or nothing
function goTo(at) {
  if (!at || !studioOf) return []
  const go = el("button", `Go to ${at.path} line ${at.line}`, {type: "button", className: "go-to"})
  go.addEventListener("click", () => studioOf.goTo(at.path, at.line, at.col))
  return [" ", go]
}

async function listGames() {
  const got = await getJSON("/api/play/games")
  const list = $("#play-games")
  // drawn again only when it changed: a link being selected to copy stays selected
  const key = JSON.stringify([got.games, got.problems])
  if (list.dataset.key === key) return
  list.dataset.key = key
  list.replaceChildren(...got.games.slice().reverse().map(g => {
    const li = el("li")
    // the seed (said here only: with the ruleset it deals every hidden card, so no seat's page shows it), and for a
    // game of Play again the one it follows (its seed was not said anywhere)
    li.append(el("strong", `${g.title}`), ` seed ${g.seed}` +
      (g.after ? ` (Play again after the game of seed ${g.after.seed})` : "") +
      `, ${g.decisions} decision${g.decisions === 1 ? "" : "s"}` +
      (g.over ? ", over" : ""))
    // a game its ruleset stopped: why, on the studio's page (the seats are told where; the list said nothing)
    if (g.problem) li.append(el("div", "", {className: "stopped"}))
    if (g.problem) li.lastChild.append(el("span", g.problem, {className: "refused"}), ...goTo(g.at), ...said(g.said))
    const links = el("ul")
    for (const s of g.seats) {
      const item = el("li", `${s.name}: `)
      if (s.link) item.append(el("a", location.origin + s.link, {href: s.link, target: "_blank", rel: "noopener"}))
      else item.append(`bot (${s.kind})`)
      links.append(item)
    }
    const watch = el("li", "spectator: ")
    watch.append(el("a", location.origin + g.spectator, {href: g.spectator, target: "_blank", rel: "noopener"}))
    links.append(watch)
    li.append(links)
    return li
  }))
  for (const p of got.problems) list.append(el("li", `not resumed: ${p}`))
}
