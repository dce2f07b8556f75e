// A seat's page (/play?seat=TOKEN): the table as this seat sees it, drawn from the frames the server sends this
// seat alone (docs/studio.md, "Play": the protocol). Every text is the ruleset's or the server's, so it is set as
// text, never as HTML. The seat token stays in the address: a reload opens the same seat.
import "./play.css"
import {cardEl, el, zoneEl} from "./play-draw.js"
import {decisionEl} from "./play-decide.js"

const $ = sel => document.querySelector(sel)
const token = new URLSearchParams(location.search).get("seat") || ""
const state = {frame: null, story: [], notices: [], socket: null, closed: null, leaving: null}
window.play = state  // for the browser tests: what the page holds

function status(text, kind = "") {
  const s = $("#status")
  s.textContent = text
  s.className = kind
}

function send(message) {
  if (state.socket && state.socket.readyState === WebSocket.OPEN) state.socket.send(JSON.stringify(message))
}

function connect() {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:"
  const sock = new WebSocket(`${scheme}//${location.host}/play/ws?seat=${encodeURIComponent(token)}`)
  state.socket = sock
  sock.onopen = () => status("connected", "ok")
  sock.onmessage = e => receive(JSON.parse(String(e.data)))
  sock.onclose = e => {
    state.closed = {code: e.code, reason: e.reason}
    if (e.code === 4403 || e.code === 1008 || e.code === 1009) {
      status(`refused: ${e.reason || "this link opens no seat"}`, "error")
      return
    }
    status(e.code === 1013 && e.reason ? `${e.reason}: trying again…` : "connection lost: trying again…", "error")
    setTimeout(connect, 2000)
  }
}

function receive(frame) {
  if (frame.type === "error") {
    status(frame.message, "error")
    return
  }
  if (frame.type === "help") {
    const help = $("#help")
    help.textContent = frame.text
    help.hidden = false
    return
  }
  if (frame.type !== "state") return
  if (frame.next) {  // a seat asked for the next game (Play again): this seat's own link to it, gone to once (the
    if (!state.leaving) {  // frames after it say the same: a second go would abort the first)
      state.leaving = frame.next
      status("the next game is starting…", "ok")
      location.replace(frame.next)
    }
    return
  }
  state.story = frame.storyFrom === 0 ? frame.story.slice() : state.story.concat(frame.story)
  state.frame = frame
  if (frame.problem) status(frame.problem, "error")
  state.notices = [...frame.view.notices, ...state.notices].slice(0, 8)  // the latest first, kept a while
  draw(frame)
}

function names(view) {
  const out = {}
  for (const p of view.players) out[p.seat] = p.name
  return out
}

function draw(frame) {
  const view = frame.view, who = names(view)
  // a tab in the background says whose go it is (three seats in three tabs: no tab to open to find out)
  const mark = view.over ? "Game over · " : frame.asked === frame.seat && frame.seat !== null ? "Your turn · " : ""
  document.title = `${mark}${view.title}: ${view.name}`
  $("#title").textContent = view.title
  $("#you").textContent = frame.seat === null ? "watching (spectator)" : `you are ${view.name}`
  $("#whose").textContent = view.over ? "the game is over"
    : frame.asked === frame.seat ? "your turn" : `waiting for ${who[frame.asked] ?? "…"}` +
      (away(frame).has(frame.asked) ? " (their page is closed)" : "")
  $("#whose").className = !view.over && frame.asked === frame.seat ? "mine" : ""
  drawTurn(view, who)
  $("#table").replaceChildren(...view.table.map(row => row.type === "zone" ? zoneEl(row) : valueEl(row)))
  $("#stack").replaceChildren(...(view.stack ? [stackEl(view.stack, who)] : []))
  $("#players").replaceChildren(...view.players.map(p => playerEl(p, frame.asked, !view.over && away(frame).has(p.seat))))
  $("#end").replaceChildren(...(view.end ? [endEl(view.end, view)] : []))
  drawDecision(frame)
  if (!view.decision) $("#help").hidden = true
  $("#notices").replaceChildren(...state.notices.map(n => el("li", "notice", n)))
  const story = $("#story")
  story.replaceChildren(...state.story.map(l => el("li", `${l.kind}${l.private ? " private" : ""}`, l.text)))
  story.lastElementChild?.scrollIntoView({block: "nearest"})
}

// The decision drawn again with the focus kept on it (session 18: the button pressed went with the old question and
// the focus fell to the top of the page, so a player using the keyboard tabbed back through the whole table for every
// answer): when the focus was in the decision, or nowhere (the page just opened, after Play again), it goes to the
// same control of the same question, else to the first control of the new one (or Play again at the end). Focus
// elsewhere (the story, a link) is left where it is.
const FOCUSABLE = "button:not([disabled]), input:not([disabled]), select:not([disabled])"

function drawDecision(frame) {
  const box = $("#decision"), active = document.activeElement
  const inside = box.contains(active), lost = !active || active === document.body
  const at = inside && state.drawnFor === frame.decisions ? [...box.querySelectorAll(FOCUSABLE)].indexOf(active) : 0
  box.replaceChildren(decisionEl(frame.view.decision, frame, send, () => send({type: "help"})))
  state.drawnFor = frame.decisions
  if (!(inside || lost) || !(frame.asked === frame.seat && frame.seat !== null || frame.view.over)) return
  const controls = box.querySelectorAll(FOCUSABLE)
  const to = controls[Math.max(0, Math.min(at, controls.length - 1))]
  if (to) to.focus({preventScroll: true})
}

function drawTurn(view, who) {
  const parts = []
  if (view.turn) {
    const order = el("div", "order", `${view.turn.title}: `)
    view.turn.order.forEach((s, i) => {
      order.append(el("span", s === view.turn.now ? "now" : "", who[s] ?? `seat ${s + 1}`))
      if (i < view.turn.order.length - 1) order.append(" → ")
    })
    parts.push(order)
  }
  for (const h of [...view.holders, ...view.now]) parts.push(el("div", "holder", `${h.title}: ${h.text}`))
  $("#turn").replaceChildren(...parts)
  $("#effects").replaceChildren(...view.effects.map(e => el("div", "effect", `${e.title} (${e.text})`)))
}

function valueEl(row) {
  const d = el("div", "value")
  d.append(el("span", "title", row.title + ": "), el("span", "", row.text))
  return d
}

function stackEl(stack, who) {
  const d = el("div", "stack")
  d.append(el("h3", "", stack.title))
  const cards = el("div", "cards")
  for (const c of stack.cards || []) cards.append(cardEl(c))
  d.append(cards)
  for (const e of stack.entries || []) d.append(el("div", "", e))
  if (stack.order?.length) d.append(el("div", "small", "asks: " + stack.order.map(s => who[s]).join(", ")))
  return d
}

// the people's seats with no page open (a closed tab, a lost connection): the server says so in every state
function away(frame) {
  return new Set(frame.view.over ? [] : frame.away || [])
}

function playerEl(p, asked, gone) {
  const d = el("div", `player${p.you ? " you" : ""}${p.seat === asked ? " asked" : ""}`)
  const head = el("h3", "", p.name + (p.you ? " (you)" : ""))
  if (p.points !== null && p.points !== undefined) head.append(el("span", "points", `${p.points} points`))
  if (gone) head.append(el("span", "away", "page closed"))
  d.append(head)
  for (const h of p.holds) d.append(el("div", "holds", h))
  for (const row of p.rows) d.append(row.type === "zone" ? zoneEl(row) : valueEl(row))
  return d
}

function endEl(end, view) {
  const d = el("div", "end")
  const won = end.scores.filter(s => end.winners.includes(s.seat)).map(s => s.name)
  d.append(el("h3", "", `The end: ${won.length ? won.join(" and ") + (won.length > 1 ? " win" : " wins") : "nobody wins"}`))
  const table = el("table", "scores")
  const parts = [...new Set(end.scores.flatMap(s => s.parts.map(p => p.title)))]
  const head = el("tr")
  for (const t of ["", ...parts, "total"]) head.append(el("th", "", t))
  table.append(head)
  for (const s of end.scores) {
    const tr = el("tr", end.winners.includes(s.seat) ? "winner" : "")
    tr.append(el("th", "", s.name))
    for (const t of parts) tr.append(el("td", "", String(s.parts.find(p => p.title === t)?.points ?? "")))
    tr.append(el("td", "total", String(s.total ?? "")))
    table.append(tr)
  }
  d.append(table)
  const piles = view.table.some(r => r.type === "zone") || view.players.some(p => p.rows.some(r => r.type === "zone"))
  if (piles) d.append(el("p", "small", "Everything is revealed: every pile above shows its cards."))
  return d
}

if (token) connect()
else status("refused: this address has no seat token", "error")
