// The studio's page: files, the editor and its problems, the live chart, the printed pages and variants.
import "./style.css"
import {connect, fileUri} from "./connection.js"
import {makeEditor, showDiagnostics, moveTo, keepCursorInView} from "./editor.js"
import {Chart} from "./chart.js"
import {getJSON, postJSON, getBlobURL} from "./api.js"
import {setupPlay} from "./play-start.js"
import {Simulate} from "./simulate.js"
import {tabKeys, fitToggle, helpCloses} from "./controls.js"
import {Drafts, restoredNote} from "./drafts.js"

const $ = sel => document.querySelector(sel)
const state = {
  root: "", client: null, view: null,
  file: null,  // {path (relative, or null for a bundled one), bundled, file (absolute), uri, digest, readOnly, saved}
  problems: [], chart: null, printed: {}, tab: "chart",
  diagnosticsShown: 0,  // how many times a check drew the problems list again (the tests count them)
}
window.studio = state  // for the browser tests and the benchmarks: what the page holds

function status(text, kind = "") {
  const el = $("#status")
  el.textContent = text
  el.className = kind
}

// the editor's text as a file to download: what a save the server never answered leaves the designer (a studio
// started again has a new address and token, so this page can no longer save)
function offerDownload() {
  const f = state.file
  const a = Object.assign(document.createElement("a"), {textContent: "download your text",
    download: (f.path || "ruleset.yaml").split("/").pop()})
  a.href = URL.createObjectURL(new Blob([state.view.state.doc.toString()], {type: "application/yaml"}))
  $("#status").append(" ", a)
}

// ------------------------------------------------------------------ files
async function listFiles() {
  const {files, bundled} = await getJSON("/api/files")
  const ul = $("#files")
  ul.replaceChildren(...files.map(path => item(path, () => openFile({path}), state.file && state.file.path === path)))
  if (!files.length) ul.append(Object.assign(document.createElement("li"), {className: "empty", textContent: "no rulesets here yet"}))
  $("#bundled").replaceChildren(...bundled.map(b => item(`${b.name}`, () => openFile({bundled: b.name}),
    state.file && state.file.bundled === b.name, b.title)))
  const from = $("#new-from")
  if (from.options.length <= 2) from.append(...bundled.map(b => new Option(`a copy of ${b.name}`, b.name)))
  state.bundled = bundled.map(b => b.name)
  state.files = files
  const other = $("#variant")
  const kept = other.value  // the list is made again when files come or go: the ruleset picked stays
  other.replaceChildren(new Option("pick a ruleset…", ""), ...files.map(p => new Option(p, p)),
                        ...bundled.map(b => new Option(`${b.name} (bundled)`, `bundled:${b.name}`)))
  other.value = [...other.options].some(o => o.value === kept) ? kept : ""
  if (state.simulate) state.simulate.setOthers([...other.options].slice(1).map(o => ({value: o.value, text: o.text})))
}

function item(text, onclick, current, title) {
  const li = document.createElement("li")
  const a = Object.assign(document.createElement("a"), {href: "#", textContent: text, title: title || text})
  a.addEventListener("click", e => { e.preventDefault(); onclick() })
  if (current) li.className = "current"
  li.append(a)
  return li
}

async function openFile(which) {
  // another file opened with text not saved: the studio keeps it (opened again, it comes back), so nothing is asked
  // unless the studio could not take it (stopped)
  let left = null
  if (state.file && !state.file.readOnly && isDirty()) {
    await state.drafts.flush()
    if (state.drafts.kept === state.view.state.doc.toString()) left = state.file.path
    else if (!confirm("Leave this file? Its changes are not saved.")) return
  }
  status("")
  const q = which.bundled ? `bundled=${encodeURIComponent(which.bundled)}` : `path=${encodeURIComponent(which.path)}`
  const got = await getJSON(`/api/file?${q}`)
  if (state.view) { state.view.destroy(); state.view = null }
  $("#editor").replaceChildren()  // the words of the empty page, when this is the first file opened
  $(".chart-bar").hidden = false
  state.file = {path: got.path, bundled: got.bundled, file: got.file, uri: fileUri(got.file), digest: got.digest,
                readOnly: got.readOnly, saved: got.text}
  state.problems = []
  showProblems([])
  // the text not saved the studio kept (a reload, a studio started again): back in the editor, said, undoable
  const draft = !got.readOnly && got.draft ? got.draft : null
  state.drafts.opened(draft)
  state.view = makeEditor($("#editor"), state.client, {
    uri: state.file.uri, text: draft ? draft.text : got.text, readOnly: got.readOnly, onSave: save,
    label: `the ruleset ${got.path || `${got.bundled} (bundled, read-only)`}`,
    onCursor: s => state.chart.cursor(s.doc.lineAt(s.selection.main.head).number),
    onChange: () => { markDirty(); state.drafts.changed() },
  })
  if (draft) {
    status(restoredNote(got.path, draft, got.digest), "warn")
    const discard = Object.assign(document.createElement("button"), {type: "button", id: "discard-draft",
      textContent: "Discard it (take the file's text)"})
    discard.addEventListener("click", () => {
      const view = state.view
      view.dispatch({changes: {from: 0, to: view.state.doc.length, insert: state.file.saved}})
      state.drafts.flush()
      status(`your kept text is discarded: the editor holds ${got.path} as saved`, "ok")
      view.focus()
    })
    $("#status").append(" ", discard)
  }
  else if (left && left !== got.path) status(`your text of ${left} not saved is kept: open ${left} again to go on with it`, "warn")
  // a bundled ruleset cannot be changed: say at once how to make it yours (a first user read it and found no way on)
  else if (got.readOnly) status("read-only: Make a variant (a file of your own holding only what you change) or Copy " +
    "into the folder (a whole copy)")
  $("#file-name").textContent = got.path || `${got.bundled} (bundled, read-only)`
  $("#copy").hidden = !got.readOnly
  $("#variant-of").hidden = !got.readOnly
  $("#save").disabled = got.readOnly
  markDirty()
  history.replaceState(null, "", `/?${q}${location.hash}`)
  await listFiles()
  $("#new-from").options[1].text = `a variant of ${got.path || got.bundled}`
  state.chart.soon(1)
  $("#variant").value = parentOf(got.text)
  state.simulate.setExample(got.text)
  state.variantShown = null
  refreshPrinted()
}

// the ruleset the open one extends, as the Variants list names it (a file beside it first, as the loader looks),
// or "" when it extends none (or one the list does not hold)
function parentOf(text) {
  const m = /^extends:[ \t]*["']?([^"'#\s]+)/m.exec(text)
  if (!m) return ""
  const dir = state.file.path && state.file.path.includes("/") ? state.file.path.replace(/[^/]*$/, "") : ""
  const ref = m[1]
  const near = /\.ya?ml$/.test(ref) ? [dir + ref] : [`${dir}${ref}.yaml`, `${dir}${ref}.yml`]
  if (state.file.path) for (const p of near) if (state.files.includes(p)) return p
  return !/\.ya?ml$/.test(ref) && state.bundled.includes(ref) ? `bundled:${ref}` : ""
}

function isDirty() {
  return state.view && state.view.state.doc.toString() !== state.file.saved
}

function markDirty() {
  const dirty = !!(state.file && !state.file.readOnly && isDirty())
  $("#file-name").classList.toggle("dirty", dirty)
  if (state.simulate) state.simulate.setDirty(dirty)
  $("#play-start").textContent = dirty ? "Save and start the game" : "Start the game"  // (it said Save after a save)
  document.title = `${dirty ? "● " : ""}${state.file ? (state.file.path || state.file.bundled) : ""} · rulecraft studio`
}

// true once the file holds the editor's text
async function save() {
  const f = state.file
  if (!f || f.readOnly) return false
  const text = state.view.state.doc.toString()
  try {
    const got = await postJSON("/api/save", {path: f.path, text, digest: f.digest})
    f.digest = got.digest
    f.saved = text
    state.drafts.saved()
    markDirty()
    status(`saved ${f.path}`, "ok")
    state.simulate.setExample(text)  // the options' example: a parameter the ruleset has now (it kept the template's)
    state.variantShown = null
    refreshPrinted()
    return true
  } catch (err) {
    // the file was removed on disk meanwhile: the next save writes it anew (the server asks for no file there)
    if (err.status === 409 && err.body && err.body.removed) f.digest = null
    // no answer at all (the server stopped, the network went): the server said nothing, so this page says it
    if (err.status) {
      status(err.message, "error")
      return false
    }
    status(`not saved: the studio's server did not answer (${err.message}); your text is in this page only: `
      + "keep the page open and", "error")
    offerDownload()
    return false
  }
}

// a file changed on disk (another editor, git): taken in when this page has nothing unsaved, else said
async function changedOnDisk({path, digest}) {
  const f = state.file
  if (!f || f.path !== path || digest === f.digest) return
  if (isDirty()) {
    status(`${path} changed on disk; your text is kept (saving now is refused: reload it, or save under another name)`, "error")
    return
  }
  const got = await getJSON(`/api/file?path=${encodeURIComponent(path)}`)
  const view = state.view
  const head = Math.min(view.state.selection.main.head, got.text.length)
  f.saved = got.text
  f.digest = got.digest
  view.dispatch({changes: {from: 0, to: view.state.doc.length, insert: got.text}, selection: {anchor: head}})
  status(`${path} changed on disk: loaded again`, "ok")
}

async function newFile(e) {
  e.preventDefault()
  // a name as a person types it ("my dice game"): its spaces made dashes, as the file's name cannot hold them
  const name = $("#new-name").value.trim().replace(/\s+/g, "-")
  if (!name) {  // it did nothing and said nothing
    $("#new-name").focus()
    return status("type a name for the new ruleset first (my dice game makes my-dice-game.yaml)", "error")
  }
  const from = $("#new-from").value
  if (from === "variant:" && !state.file) return status("open the ruleset to make a variant of first", "error")
  try {
    const got = await postJSON("/api/new", from === "variant:" ? {path: name, extends: source()} : {path: name, from})
    $("#new-name").value = ""
    await openFile({path: got.path})
    status(`made ${got.path}`, "ok")
    state.view.focus()  // the keys go on in the new file (the button pressed may be gone, the focus with it)
  } catch (err) {
    status(err.message, "error")
  }
}

// a variant of the bundled ruleset open, in one click: NAME-variant.yaml (or -variant-2 and on) that extends it
async function variantOfBundled() {
  const name = state.file.bundled
  for (let n = 1; n <= 20; n++) {
    try {
      const got = await postJSON("/api/new", {path: n === 1 ? `${name}-variant.yaml` : `${name}-variant-${n}.yaml`,
                                              extends: `bundled:${name}`})
      await openFile({path: got.path})
      status(`made ${got.path}, a variant of ${name}: it holds only what it changes (the comment in it shows how)`, "ok")
      state.view.focus()  // the keys go on in the new file (the button pressed may be gone, the focus with it)
      return
    } catch (err) {
      if (err.status !== 409) return status(err.message, "error")
    }
  }
  status(`${name}-variant.yaml to ${name}-variant-20.yaml are there already: name the variant with New`, "error")
}

async function copyBundled() {
  const name = state.file.bundled
  // NAME.yaml, or the first of NAME-2.yaml, NAME-3.yaml ... not there yet (a second copy was refused: the button
  // has no name to give)
  for (let n = 1; n <= 20; n++) {
    try {
      const got = await postJSON("/api/new", {path: n === 1 ? `${name}.yaml` : `${name}-${n}.yaml`, from: name})
      await openFile({path: got.path})
      status(`copied ${name} into the folder as ${got.path}`, "ok")
      state.view.focus()  // the keys go on in the new file (the button pressed may be gone, the focus with it)
      return
    } catch (err) {
      if (err.status !== 409) return status(err.message, "error")
    }
  }
  status(`${name}.yaml and ${name}-2.yaml to ${name}-20.yaml are there already: make the copy with New`, "error")
}

// ------------------------------------------------------------------ problems
function onDiagnostics(params) {
  if (!state.view) return
  const problems = showDiagnostics(state.view, state.client, params)
  if (problems === null) return
  state.problems = problems
  // the list drawn again only when it changes (the underlines are the editor's: see showDiagnostics); an edit over a
  // problem drops its underline at once, while the list still names it until this check says it is gone
  if (problemsKey(problems) !== state.problemsKey) {
    state.diagnosticsShown++
    showProblems(problems)
    requestAnimationFrame(() => state.view && keepCursorInView(state.view))
  }
  state.chart.soon(state.view.state.doc.lineAt(state.view.state.selection.main.head).number)
}

const problemsKey = problems => problems.map(p => `${p.line}:${p.col} ${p.severity} ${p.code} ${p.message} ${p.hint}`).join("\n")

function showProblems(problems) {
  state.problemsKey = problemsKey(problems)
  const ul = $("#problems")
  $("#problem-count").textContent = problems.length ? `(${problems.length})` : "(none)"
  // said by a screen reader when the number changes (a polite live region): the underlines and the list are silent
  const said = problems.length === 1 ? "1 problem" : problems.length ? `${problems.length} problems` : "no problems"
  if ($("#problems-said").textContent !== said) $("#problems-said").textContent = said
  // a check that ends while a problem has the keyboard's focus keeps it there (the list is made anew: without this,
  // Enter after a new check went nowhere)
  const had = ul.contains(document.activeElement) ? document.activeElement : null
  const was = had && {code: had.dataset.code, text: had.querySelector(".message")?.textContent,
    at: [...ul.children].indexOf(had)}
  ul.replaceChildren(...problems.map(p => {
    const li = document.createElement("li")
    li.className = p.severity
    li.dataset.line = String(p.line)
    li.dataset.code = p.code
    const where = Object.assign(document.createElement("span"), {className: "where", textContent: `${p.line}:${p.col}`})
    const code = Object.assign(document.createElement("span"), {className: "code", textContent: p.code})
    const msg = Object.assign(document.createElement("span"), {className: "message", textContent: p.message})
    li.append(where, code, msg)
    if (p.hint) li.append(Object.assign(document.createElement("div"), {className: "hint", textContent: `hint: ${p.hint}`}))
    li.addEventListener("click", () => moveTo(state.view, p.line, p.col))
    // reached with Tab like a link, and Enter puts the cursor on it as a click does
    li.tabIndex = 0
    li.addEventListener("keydown", e => { if (e.key === "Enter") { e.preventDefault(); moveTo(state.view, p.line, p.col) } })
    return li
  }))
  if (was) {
    const items = [...ul.children]
    const same = items.find(li => li.dataset.code === was.code && li.querySelector(".message")?.textContent === was.text)
    const near = same || items[Math.min(was.at, items.length - 1)]
    if (near) near.focus()
  }
}

// ------------------------------------------------------------------ printed pages and variants
function source() {
  const f = state.file
  return f.bundled ? `bundled:${f.bundled}` : f.path
}

async function refreshPrinted() {
  state.printed = {}
  if (["aid", "book", "sheets"].includes(state.tab)) await showPrinted(state.tab)
  if (state.tab === "variants") await showVariant()
  if (state.play) state.play.refresh()
}

async function showPrinted(kind) {
  if (!state.file || state.printed[kind]) return
  state.printed[kind] = true
  const frame = $(`#${kind}-frame`)
  const note = $(`#${kind}-note`)
  note.textContent = "drawing…"
  note.className = "note"
  const url = `/api/print/${kind}?path=${encodeURIComponent(source())}`
  const pdf = kind === "sheets" ? url : `/api/print/${kind}.pdf?path=${encodeURIComponent(source())}`
  $(`#${kind}-download`).href = pdf + "&download=1"
  try {
    const blob = await getBlobURL(url)
    if (frame.src.startsWith("blob:")) URL.revokeObjectURL(frame.src)
    frame.src = blob
    note.textContent = state.file.readOnly || !isDirty() ? "" : "as saved (save to see your changes here)"
  } catch (err) {
    note.textContent = err.message
    note.className = "note stale"
    state.printed[kind] = false
  }
}

// what the open ruleset (as saved) changes from the one picked: its parent, picked when the file is opened
async function showVariant() {
  const other = $("#variant").value
  const out = $("#variant-chart")
  const seq = state.variantSequence || ""  // the sequence picked to draw, when too many differ to draw them all
  if (!state.file || state.variantShown === `${other} ${source()} ${seq}`) return
  state.variantShown = `${other} ${source()} ${seq}`
  out.replaceChildren()
  $("#variant-text").textContent = ""
  $("#variant-note").textContent = ""
  if (!other) return
  $("#variant-note").textContent = "comparing…"
  try {
    const got = await getJSON(`/api/diff?a=${encodeURIComponent(other)}&b=${encodeURIComponent(source())}` +
                              (seq ? `&sequence=${encodeURIComponent(seq)}` : ""))
    out.innerHTML = got.svg
    $("#variant-text").textContent = got.text
    // many sequences differ (a variant of 400 changed all in one chart: 15 s, fitted to a strip no one could read):
    // one drawn at a time, picked from the list of those that differ
    const pick = $("#variant-sequence"), some = got.drawn.length < got.sequences.length
    pick.hidden = !some
    pick.replaceChildren(...(some ? got.sequences.map(s => new Option(`${s.title} (${s.status})`, s.id)) : []))
    if (some) pick.value = got.drawn[0]
    $("#variant-note").textContent = (got.same ? "the two rulesets say the same rules" : "")
      + (some ? `${got.sequences.length} sequences differ: the chart draws the one picked; the words list every change` : "")
      + (!state.file.readOnly && isDirty() ? " (as saved: save to see your changes here)" : "")
  } catch (err) {
    $("#variant-note").textContent = err.message
    state.variantShown = null
  }
}

function showTab(name) {
  state.tab = name
  for (const b of document.querySelectorAll("#tabs button")) {
    const on = b.dataset.tab === name
    b.classList.toggle("current", on)
    b.setAttribute("aria-selected", String(on))
    b.tabIndex = on ? 0 : -1  // one Tab stop for the list; the arrow keys move between the tabs (ARIA's tabs)
  }
  for (const p of document.querySelectorAll(".tab")) p.hidden = p.id !== `tab-${name}`
  // the tab in the address, so a reload (or the address kept) opens it again (session 18: back to the chart)
  history.replaceState(null, "", location.pathname + location.search + (name === "chart" ? "" : `#${name}`))
  if (["aid", "book", "sheets"].includes(name)) showPrinted(name)
  if (name === "variants") showVariant()
}

// the editor's place with no ruleset open: the ways to begin, each with its first click (a first user read that a
// bundled ruleset opens read-only and found no way from there to a game of their own)
function welcome() {
  const el = (tag, text = "", attrs = {}) => Object.assign(document.createElement(tag), {textContent: text, ...attrs})
  const box = el("div", "", {className: "empty-editor"})
  const first = state.bundled.includes("pig") ? "pig" : state.bundled[0]
  const ways = el("ol")
  if (first) {
    const open = el("button", `Open ${first}`, {type: "button", id: "welcome-open"})
    open.addEventListener("click", () => openFile({bundled: first}))
    const li = el("li")
    li.append(el("strong", "From a bundled game: "), "open one (", open, ` or another under Bundled on the left), ` +
      "read it, play it, then press ", el("em", "Make a variant"), " at the top: a file of your own that holds only " +
      "what you change (", el("em", "Copy into the folder"), " makes a whole copy instead).")
    ways.append(li)
  }
  const named = el("button", "Name it", {type: "button", id: "welcome-new"})
  named.addEventListener("click", () => $("#new-name").focus())
  const fresh = el("li")
  fresh.append(el("strong", "From the template: "), named, " under ", el("em", "This folder"), " (",
    el("em", "my dice game"), "), keep ", el("em", "from the template"), " and press ", el("em", "New"),
    ": a small game that loads and plays, to change into yours.")
  ways.append(fresh)
  const own = el("li")
  own.append(el("strong", "One of this folder's: "),
    state.files.length ? "open it on the left." : "this folder has none yet; those you make are listed on the left.")
  ways.append(own)
  box.append(el("h2", "No ruleset open"), el("p", "Begin one of three ways:"), ways,
    el("p", "Then: the chart of the sequence under the cursor is on the right, with the problems under the editor as " +
      "you type; Play starts a game with a link for each person; Simulate plays hundreds of games with bots. Keys " +
      "and help (top right) lists the keys."))
  return box
}

// ------------------------------------------------------------------ start
async function main() {
  history.replaceState(null, "", location.pathname + location.search.replace(/([?&])token=[^&]*&?/, "$1").replace(/[?&]$/, "") + location.hash)
  const tab = document.querySelector(`#tabs button[data-tab="${CSS.escape(location.hash.slice(1))}"]`)
  const config = await getJSON("/api/config")
  state.root = config.root
  state.drafts = new Drafts({file: () => state.file, text: () => state.view ? state.view.state.doc.toString() : "",
                             onError: message => status(message, "error")})
  $("#root").textContent = config.root
  state.client = await connect(config.root, {
    "textDocument/publishDiagnostics": onDiagnostics,
    "rulecraft/fileChanged": changedOnDisk,
    "rulecraft/filesChanged": () => listFiles(),
  }, e => {
    if (e.code === 1013 && e.reason) return status(`the studio closed this page's connection: ${e.reason}`, "error")
    // a studio started again has a new address and token (this page, reloaded, reaches nothing): the way on is the
    // address it prints, and text not saved leaves with the designer as a file
    const dirty = state.file && !state.file.readOnly && isDirty()
    status("the studio's server is gone: start it again and open the address it prints"
      + (dirty ? "; your text is in this page only: keep the page open and" : ""), "error")
    if (dirty) offerDownload()
  })
  state.chart = new Chart($("#chart"), $("#chart-note"), {
    request: async params => {
      if (!state.file) return null
      state.client.sync()
      return state.client.request("rulecraft/chart", {uri: state.file.uri, ...params})
    },
    moveTo: (line, col, top) => moveTo(state.view, line, col, top),
    picker: $("#chart-sequence"),
    download: $("#chart-download"),
    stem: () => (state.file.path || state.file.bundled).split("/").pop().replace(/\.ya?ml$/, ""),
    stepText: line => {  // the step's own lines: from its line to the next one indented no deeper
      const doc = state.view.state.doc, first = Math.min(Math.max(line, 1), doc.lines)
      const depth = text => text.length - text.trimStart().length
      const at = depth(doc.line(first).text)
      let last = first
      while (last < doc.lines && (!doc.line(last + 1).text.trim() || depth(doc.line(last + 1).text) > at)) last++
      return doc.sliceString(doc.line(first).from, doc.line(last).to)
    },
  })
  $("#chart-every").addEventListener("change", e => state.chart.setSteps(e.target.checked ? "every" : "players"))
  for (const b of document.querySelectorAll("button.fit")) fitToggle(b)
  state.simulate = new Simulate($("#tab-simulate"), {source: () => state.file && source(),
    dirty: () => !!(state.file && !state.file.readOnly && isDirty()), save,
    goTo: line => moveTo(state.view, line, 1, true)})
  $("#save").addEventListener("click", save)
  // Ctrl-S (Cmd-S) saves wherever the focus is (a tab, the chart, a problem): the browser's own "save the page"
  // opened when the focus was out of the editor
  window.addEventListener("keydown", e => {
    if ((e.ctrlKey || e.metaKey) && !e.altKey && e.key.toLowerCase() === "s") {
      e.preventDefault()
      if (!(state.view && state.view.hasFocus)) save()
    }
  })
  // closing or reloading the page with text not saved: the browser asks first (the text lives only here)
  // (unless the studio holds the text already: opened again, the file gets it back)
  window.addEventListener("beforeunload", e => {
    if (state.file && !state.file.readOnly && isDirty() && state.drafts.kept !== state.view.state.doc.toString()) {
      e.preventDefault(); e.returnValue = ""
    }
  })
  window.addEventListener("pagehide", () => state.drafts.flush(true))
  $("#copy").addEventListener("click", copyBundled)
  $("#variant-of").addEventListener("click", variantOfBundled)
  $("#new").addEventListener("submit", newFile)
  $("#variant").addEventListener("change", showVariant)
  $("#variant-sequence").addEventListener("change", e => { state.variantSequence = e.target.value; showVariant() })
  for (const b of document.querySelectorAll("#tabs button")) b.addEventListener("click", () => showTab(b.dataset.tab))
  $("#tabs").addEventListener("keydown", tabKeys)
  helpCloses($("#help"))
  showTab(state.tab)
  state.save = save
  // the cursor on a line of a file of the folder (opened first when another is open): Play's "Go to" a rule gone wrong
  state.goTo = async (path, line, col) => {
    if (!state.file || state.file.path !== path) await openFile({path})
    if (state.file && state.file.path === path) moveTo(state.view, line, col, true)
  }
  state.dirty = () => !!(state.file && !state.file.readOnly && isDirty())
  state.play = setupPlay(state)
  const params = new URLSearchParams(location.search)
  await listFiles()
  const first = params.get("path") ? {path: params.get("path")} : params.get("bundled") ? {bundled: params.get("bundled")}
    : config.open ? {path: config.open} : null
  if (first) {
    await openFile(first)
    if (tab) tab.click()  // the tab the page showed before the reload (its own set-up runs, as on a click)
  } else {
    // nothing open yet: the editor says how to begin (a line in the header's corner was all; the chart's controls
    // stood over nothing)
    status("pick a ruleset on the left, or make a new one")
    $(".chart-bar").hidden = true
    $("#editor").replaceChildren(welcome())
  }
  document.body.dataset.ready = "1"
}

main().catch(err => status(`the studio did not start: ${err.message || err}`, "error"))
