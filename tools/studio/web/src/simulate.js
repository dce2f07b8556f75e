// The Simulate tab: N games of the open ruleset (as saved) with its bots, options and seed, over the studio's
// /simulate websocket; progress and Cancel while it runs; then the report's plots, the seed-matched comparison
// and the chart shaded by coverage. Plots and charts are shown as <img> from data: URLs, never put into the
// page's DOM: an SVG shown as an image runs no script, whatever a ruleset's names hold. All text is textContent.
import "./simulate.css"
import {getJSON} from "./api.js"
import {comparison, el, svgImage} from "./simtable.js"
import {SweepForm, showSweepPlot, sweepView} from "./simsweep.js"

const BOTS = ["random", "first", "greedy"]
// the form, kept for this tab across a reload (sessionStorage: a reload keeps it, another tab has its own); a reload
// in the middle of a run lost 500 games' settings, options and sweep, and said nothing of the run it stopped
const KEPT = "rulecraft.simulate"

function field(label, input) {
  return el("label", {className: "sim-field"}, el("span", {textContent: label}), input)
}

function lines(text) {
  return text.split(/[\n,]/).map(s => s.trim()).filter(Boolean)
}

// "45 s", "1 min 9 s", "2 h 5 min"
function duration(ms) {
  const s = Math.max(0, Math.round(ms / 1000))
  if (s < 60) return `${s} s`
  if (s < 3600) return `${Math.floor(s / 60)} min${s % 60 ? ` ${s % 60} s` : ""}`
  return `${Math.floor(s / 3600)} h${Math.floor(s % 3600 / 60) ? ` ${Math.floor(s % 3600 / 60)} min` : ""}`
}

export class Simulate {
  // host: the tab's element; source(): the open ruleset ("path" or "bundled:NAME") or null; dirty(): unsaved text?
  // save(): saves the open file, resolves to whether it was saved
  // goTo(line): the cursor on that line of the open ruleset
  constructor(host, {source, dirty, save, goTo}) {
    this.source = source
    this.dirty = dirty
    this.save = save
    this.goTo = goTo
    this.sock = null
    this.running = false
    this.info = {runs: 0, progressSeen: 0, results: 0, cancelled: 0, last: null}  // for the tests
    this.build(host)
  }

  build(host) {
    const num = (value, min, max) => el("input", {type: "number", value, min, max, step: 1})
    this.games = num(200, 1, 5000)
    this.seed = num(1, -1e15, 1e15)
    this.players = el("input", {type: "number", min: 1, max: 64, step: 1, placeholder: "the ruleset's"})
    this.bots = el("input", {value: "random", title: `one per seat (${BOTS.join(", ")}); the last fills the rest`})
    this.sets = el("textarea", {rows: 2, placeholder: "NAME=VALUE", title: "options and parameters, NAME=VALUE, one a line"})
    this.versus = el("select", {ariaLabel: "Compare with"}, new Option("nothing", ""), new Option("the same ruleset (other bots or options)", "same"))
    this.botsB = el("input", {value: "random"})
    this.setsB = el("textarea", {rows: 2, placeholder: "NAME=VALUE", title: "options and parameters, NAME=VALUE, one a line"})
    this.sideB = el("fieldset", {className: "sim-b", hidden: true}, el("legend", {textContent: "B"}),
                    field("Bots", this.botsB), field("Options", this.setsB))
    this.versus.addEventListener("change", () => { this.sideB.hidden = !this.versus.value })
    this.run = el("button", {type: "submit", textContent: "Run", id: "sim-run"})
    this.cancel = el("button", {type: "button", textContent: "Cancel", id: "sim-cancel", disabled: true})
    this.cancel.addEventListener("click", () => this.stop())
    // what the Options boxes take: the open ruleset's parameters and options, each with its default and range or
    // choices (session 17: the boxes said one example; a ruleset's option was found by reading its file)
    this.knobs = el("p", {className: "note", id: "sim-knobs"})
    this.sweep = new SweepForm()
    const form = el("form", {id: "sim-form"},
      el("fieldset", {}, el("legend", {textContent: "A: the open ruleset (saved first)"}),
         field("Games", this.games), field("Seed", this.seed), field("Players", this.players),
         field("Bots", this.bots), field("Options", this.sets)),
      el("fieldset", {}, el("legend", {textContent: "Compare with"}), this.versus), this.sideB, this.sweep.box,
      el("div", {className: "sim-buttons"}, this.run, this.cancel), this.knobs)
    form.addEventListener("submit", e => { e.preventDefault(); this.start() })
    this.bar = el("progress", {id: "sim-bar", max: 1, value: 0, ariaLabel: "games played"})
    this.count = el("span", {id: "sim-count"})
    // how long the run has gone on, and (once games have ended) about how long it has left: ticks every second, so a
    // long game (greedy bots on dml: a minute a game) is seen to go on, not frozen at '0 / 20 games'
    this.clock = el("span", {id: "sim-clock", className: "note"})
    this.note = el("p", {className: "note", id: "sim-note"})
    this.out = el("div", {id: "sim-out"})
    host.replaceChildren(form, el("div", {className: "sim-progress"}, this.bar, this.count, this.clock), this.note, this.out)
    form.addEventListener("input", () => this.keep())
    form.addEventListener("change", () => this.keep())
    this.restore()
  }

  fields() {
    return {games: this.games, seed: this.seed, players: this.players, bots: this.bots, sets: this.sets,
            botsB: this.botsB, setsB: this.setsB, sweepValues: this.sweep.values}
  }

  keep() {
    const kept = {versus: this.versus.value, sweep: this.sweep.pick.value, running: this.running ? this.runningNow : null,
                  result: this.keptKey || null}
    for (const [k, e] of Object.entries(this.fields())) kept[k] = e.value
    try { sessionStorage.setItem(KEPT, JSON.stringify(kept)) } catch { /* storage off or full: nothing kept */ }
  }

  restore() {
    let kept = null
    try { kept = JSON.parse(sessionStorage.getItem(KEPT) || "null") } catch { kept = null }
    if (!kept || typeof kept !== "object") return
    for (const [k, e] of Object.entries(this.fields())) if (typeof kept[k] === "string") e.value = kept[k]
    // the lists' choices come later (the folder's rulesets, the ruleset's parameters): picked then
    this.wantVersus = typeof kept.versus === "string" ? kept.versus : ""
    this.sweep.want = typeof kept.sweep === "string" ? kept.sweep : ""
    const r = kept.running
    if (r && typeof r === "object") {  // the run belonged to the page reloaded: the studio stopped it
      this.say(`the page was reloaded while ${Number(r.games)} games of ${String(r.ruleset)} played: the run stopped ` +
        "with it and kept nothing; its settings are back in the form: press Run to play them again", "stale")
      this.keep()
    } else if (typeof kept.result === "string") {  // a run that ended: the studio keeps its result; asked for again
      this.keptKey = kept.result
      this.resuming = true
      this.socket().then(sock => sock.send(JSON.stringify({type: "resume", kept: kept.result}))).catch(() => {})
    }
  }

  // the example in the options' boxes: a parameter of the open ruleset with its default (another ruleset's name
  // there read as an option this one has), or NAME=VALUE
  setExample(text) {
    const m = /^parameters:[ \t]*\n[ \t]+([A-Za-z_]\w*):[ \t]*\{?[ \t]*default:[ \t]*([^,}\s]+)/m.exec(text || "")
    const example = m ? `${m[1]}=${m[2]}` : "NAME=VALUE"
    this.sets.placeholder = this.setsB.placeholder = example
    this.showKnobs()
  }

  // the saved ruleset's parameters and options (the Play tab's /api/play/setup: as a run plays it, saved)
  async showKnobs() {
    const ref = this.source()
    this.knobs.textContent = ""
    if (!ref) return
    let setup
    try {
      setup = await getJSON(`/api/play/setup?path=${encodeURIComponent(ref)}`)
    } catch {
      return  // a ruleset that does not load says why in the problems list and when run
    }
    if (ref !== this.source()) return  // another file opened meanwhile
    this.sweep.setKnobs(setup.parameters)
    const knobs = [...setup.parameters, ...setup.options]
    if (!knobs.length) return void (this.knobs.textContent = "This ruleset has no parameters or options to set.")
    const said = o => o.choices ? `${o.name}: ${o.choices.map(String).join(" or ")} (default ${o.default})`
      : `${o.name}: ${o.default}` + (o.min !== null && o.min !== undefined ? ` (${o.min} to ${o.max ?? "any"})` : "")
    this.knobs.replaceChildren("Options takes: ", ...knobs.flatMap((o, i) =>
      [i ? "; " : "", el("code", {textContent: said(o), title: o.doc || o.title || o.name})]))
  }

  // the other rulesets a run may be compared with ({value, text}); called when the files change
  setOthers(options) {
    const keep = this.versus.value || this.wantVersus || ""
    this.wantVersus = ""
    this.versus.replaceChildren(new Option("nothing", ""), new Option("the same ruleset (other bots or options)", "same"),
                                ...options.map(o => new Option(o.text, o.value)))
    this.versus.value = [...this.versus.options].some(o => o.value === keep) ? keep : ""
    this.sideB.hidden = !this.versus.value
  }

  say(text, kind = "") {
    this.note.textContent = text
    this.note.className = `note ${kind}`
  }

  socket() {
    if (this.sock && this.sock.readyState <= WebSocket.OPEN) return this.opened
    const scheme = location.protocol === "https:" ? "wss:" : "ws:"
    this.sock = new WebSocket(`${scheme}//${location.host}/simulate`)
    this.sock.onmessage = e => this.got(JSON.parse(e.data))
    this.sock.onclose = () => { if (this.running) this.finish("the studio's server is gone", "stale") }
    this.opened = new Promise((resolve, reject) => {
      this.sock.onopen = () => resolve(this.sock)
      this.sock.onerror = () => reject(new Error("the simulation's websocket did not open"))
    })
    return this.opened
  }

  // the open file has unsaved text: Run saves it first (a run plays the file as saved), and says so
  setDirty(dirty) {
    if (!this.running) this.run.textContent = dirty ? "Save and run" : "Run"
  }

  async start() {
    const ref = this.source()
    if (this.running) return
    if (!ref) return this.say("not run: open a ruleset first (on the left), or make one with New", "stale")
    if (this.dirty() && !(await this.save())) return this.say("not run: the file could not be saved (see above)", "stale")
    const bots = lines(this.bots.value)
    const bad = [...bots, ...lines(this.botsB.value)].find(b => !BOTS.includes(b))
    if (bad) return this.say(`'${bad}' is not a bot here: ${BOTS.join(", ")}`, "stale")
    const msg = {type: "start", ruleset: ref, games: Number(this.games.value), seed: Number(this.seed.value),
                 agents: bots, set: lines(this.sets.value.replace(/,/g, "\n"))}
    if (this.players.value) msg.players = Number(this.players.value)
    msg.sweep = this.sweep.asked() || undefined
    if (msg.sweep && this.versus.value) return this.say("a sweep plays the open ruleset alone: set Compare with to nothing", "stale")
    this.sweeping = msg.sweep || null
    if (this.versus.value) {
      msg.compare = {ruleset: this.versus.value === "same" ? ref : this.versus.value, agents: lines(this.botsB.value),
                     set: lines(this.setsB.value)}
    }
    this.running = true
    // the focus goes from Run, disabled while the games play, to Cancel (it fell to the top of the page), and back
    const onRun = document.activeElement === this.run
    this.run.disabled = true
    this.cancel.disabled = false
    if (onRun) this.cancel.focus()
    this.bar.value = 0
    this.count.textContent = "starting…"
    this.out.replaceChildren()  // the last run's figures would read as this one's
    this.say("")
    this.keptKey = null  // (the last run's result is let go: this run's comes)
    this.resuming = false
    this.runningNow = {games: msg.games * (msg.compare ? 2 : msg.sweep ? msg.sweep.values.length : 1), ruleset: ref}
    this.keep()
    try {
      (await this.socket()).send(JSON.stringify(msg))
      this.info.runs++
    } catch (err) {
      this.finish(err.message, "stale")
    }
  }

  stop() {
    if (!this.running || !this.sock) return
    this.sock.send(JSON.stringify({type: "cancel"}))
    this.cancel.disabled = true
    this.count.textContent += " — cancelling…"
  }

  // the clock beside the count: the time so far, and the time left at the pace of the games ended so far
  tick() {
    const now = performance.now(), p = this.pace
    if (!this.running || !p) return
    let said = `${duration(now - p.start)} so far`
    if (p.sideDone > 0 && p.done < this.total) said += `, about ${duration((now - p.sideStart) / p.sideDone * (this.total - p.done))} left`
    this.clock.textContent = said
  }

  finish(text, kind = "") {
    clearInterval(this.ticking)
    this.clock.textContent = this.pace ? `in ${duration(performance.now() - this.pace.start)}` : ""
    this.running = false
    this.keep()
    this.run.disabled = false
    this.setDirty(this.dirty())
    const active = document.activeElement
    if (active === this.cancel || !active || active === document.body) this.run.focus({preventScroll: true})
    this.cancel.disabled = true
    this.say(text, kind)
  }

  got(msg) {
    if (msg.type === "started") {
      this.names = msg.runs
      this.total = msg.games * msg.runs.length
      this.count.textContent = `0 / ${msg.games} games: loading the ruleset, making its code, playing the first games…`
      const now = performance.now()
      this.pace = {start: now, sideStart: now, side: 0, sideDone: 0, done: 0}
      clearInterval(this.ticking)
      this.ticking = setInterval(() => this.tick(), 1000)
      this.tick()
    } else if (msg.type === "progress") {
      this.info.progressSeen++
      const before = msg.run * (this.total / this.names.length)
      this.bar.value = (before + msg.done) / this.total
      if (msg.run !== this.pace.side) Object.assign(this.pace, {side: msg.run, sideStart: performance.now()})
      Object.assign(this.pace, {sideDone: msg.done, done: before + msg.done})
      const side = this.sweeping ? ` at ${this.sweeping.name} = ${this.sweeping.values[msg.run]}`
        : this.names.length > 1 ? ` of ${msg.run ? "B" : "A"} (${this.names[msg.run]})` : ""
      this.count.textContent = `${msg.done} / ${msg.total} games${side}` +
        (msg.done ? "" : ": loading the ruleset, making its code, playing the first games…")  // a large ruleset's first game takes a while
    } else if (msg.type === "making") {  // the games are played; the plots of a long game take a few seconds
      this.bar.value = 1
      this.count.textContent = `${this.total} games played: making the report and its plots…`
    } else if (msg.type === "cancelled") {
      this.info.cancelled++
      this.count.textContent = `cancelled after ${msg.done ?? 0} of ${msg.total} games`
      this.finish("cancelled: the games stopped, nothing was kept")
    } else if (msg.type === "error" && this.resuming) {  // the result before the reload is no longer kept: said
      this.resuming = false
      this.keptKey = null
      this.keep()
      this.say(msg.message, "stale")
    } else if (msg.type === "error") {
      if (this.count.textContent === "starting…") this.count.textContent = "not run"  // refused before 'started'
      this.finish(msg.message, "stale")
      // the ruleset's first error, in the open file: a button puts the cursor on it
      if (msg.at && msg.at.path === this.source() && this.goTo) {
        const go = el("button", {type: "button", className: "go-to", textContent: `Go to line ${msg.at.line}`})
        go.addEventListener("click", () => this.goTo(msg.at.line))
        this.note.append(" ", go)
      }
    } else if (msg.type === "result") {
      this.info.results++
      this.info.last = msg
      this.count.textContent = `${msg.runs.map(r => r.done).join(" + ")} games played`
      if (msg.resumed) this.say("the last run's result, kept across the reload of the page")  // (the focus left be)
      else this.finish("")
      this.resuming = false
      if (msg.kept) { this.keptKey = msg.kept; this.keep() }
      this.show(msg)
    } else if (msg.type === "sweep") {
      showSweepPlot(this.out, msg)
    } else if (msg.type === "chart") {
      const box = this.out.querySelector(`.sim-chart[data-run="${msg.run}"]`)
      if (box) box.replaceChildren(svgImage(msg.svg, `the chart of ${msg.sequence}, shaded by how often each step ran`))
    }
  }

  show(msg) {
    if (msg.sweep) return void this.out.replaceChildren(sweepView(msg, row => this.sock.send(JSON.stringify({type: "sweep", row}))))
    const parts = []
    if (msg.compare) parts.push(comparison(msg))
    msg.runs.forEach((run, i) => parts.push(this.side(run, i, msg)))
    this.out.replaceChildren(...parts)
  }

  // one side's own plots, the steps it never reached and its text report: open for a run alone; folded under the
  // comparison (side by side, each plot at half the tab's width, their words were too small to read)
  side(run, i, msg) {
    const two = msg.runs.length > 1
    const title = two ? `${i ? "B" : "A"}: ${run.name}` : run.name
    const never = run.coverage.never.length
    const head = el("summary", {}, el("h3", {textContent: `${title}: ${run.done} games, ${msg.players} players ` +
      `(${run.agents.join(", ")})`}), two ? el("span", {className: "note", textContent: ` its own plots (scales of ` +
      `its own), ${never ? `the step${never > 1 ? "s" : ""} no game reached (${never})` : "every step reached"}, ` +
      "its text report"}) : "")
    const parts = [head]
    if (run.errors.length) {
      parts.push(el("p", {className: "note stale",
        textContent: `errors in ${run.errors.length} games; the first, seed ${run.errors[0].seed}: ${run.errors[0].error}`}))
    }
    for (const f of run.figures) {
      parts.push(el("figure", {className: "sim-figure", dataset: {name: f.name}},
        svgImage(f.svg, f.caption), el("figcaption", {textContent: f.caption})))
    }
    parts.push(this.coverage(run, i, msg))
    parts.push(el("details", {}, el("summary", {textContent: "The text report (as rulecraft simulate prints it)"}),
                  el("pre", {textContent: run.text})))
    return el("details", {className: "sim-side", open: !two}, ...parts)
  }

  coverage(run, i, msg) {
    const cov = run.coverage
    const pick = el("select", {title: "the sequence to chart", ariaLabel: "the sequence to chart, shaded"},
      ...cov.sequences.map(s => new Option(`${s.title || s.id}${s.never ? ` (${s.never} never reached)` : ""}`, s.id)))
    const first = cov.sequences.find(s => s.never) || cov.sequences[0]
    if (first) pick.value = first.id
    const box = el("div", {className: "sim-chart", dataset: {run: String(i)}})
    const draw = () => {
      box.replaceChildren(el("p", {className: "note", textContent: "drawing…"}))
      this.sock.send(JSON.stringify({type: "chart", run: i, sequence: pick.value}))
    }
    pick.addEventListener("change", draw)
    if (first) draw()
    // the steps never reached as a designer finds them: the sequence, the step's number on its chart, its line; a
    // click shows that sequence's chart and (a step of the open ruleset) puts the cursor on the step
    const steps = cov.steps || []
    const here = i === 0 || run.ruleset === msg.runs[0].ruleset
    const never = el("ul", {className: "sim-never"}, ...steps.slice(0, 40).map(s => {
      const b = el("button", {type: "button", textContent: `${s.title}, step ${s.number || "?"}` +
        (s.line ? ` (line ${s.line})` : ""), title: s.id})
      b.addEventListener("click", () => {
        if (pick.value !== s.sequence) { pick.value = s.sequence; draw() }
        if (here && s.line && this.goTo) this.goTo(s.line)
      })
      return el("li", {}, b)
    }))
    if (steps.length > 40) never.append(el("li", {textContent: `and ${steps.length - 40} more (the text report lists them)`}))
    const said = steps.length ? `${steps.length === 1 ? "1 step" : `${steps.length} steps`} no game reached:`
      : "every step was reached"
    const fit = el("button", {type: "button", className: "fit", textContent: "Actual size", ariaPressed: "false",
                              title: "the chart at its own size, to scroll; again: fitted to the panel"})
    fit.addEventListener("click", () => {
      const own = box.classList.toggle("own-size")
      fit.textContent = own ? "Fit to the panel" : "Actual size"
      fit.setAttribute("aria-pressed", String(own))
    })
    return el("div", {className: "sim-coverage"},
      el("h4", {textContent: "The chart, shaded by how often each step ran"}),
      el("p", {className: "note", textContent: said}), never,
      el("div", {className: "chart-bar"}, pick, fit),
      el("p", {className: "note", textContent: "Each box says how often its step ran, over all the games; the " +
        "darker the blue, the more often; a step no game reached is outlined in red, dashed."}), box)
  }
}
