// The live chart: the sequence under the cursor, drawn by the server (rulecraft/chart) a moment after the
// text settles; greyed with a note while the text has errors; a click on a box moves the cursor to its step,
// and the cursor's step is the highlighted box. A list picks any sequence's chart (one a variant inherits, too),
// with its title and line. The boxes are reached by the keyboard too (ARIA's roving tabindex: one Tab stop, the
// arrows move between the boxes in the order the steps are written, Enter goes to the step in the editor).
// ms after the last check shown before the chart is asked for: a pause in the typing, not every keystroke (at 150 ms
// a designer typing at 4-5 keys a second had a chart asked, drawn by Graphviz and put on the page every few keys)
const REDRAW_AFTER = 400

export class Chart {
  constructor(el, note, {request, moveTo, picker, stepText, download, stem}) {
    this.download = download  // <a> that downloads the chart shown as an SVG file
    this.stem = stem  // () => the open file's name without its suffix: the downloaded file is STEM-SEQUENCE.svg
    this.stepText = stepText  // (line) => the text of the step written from that line (a few lines)
    this.el = el
    this.note = note
    this.picker = picker  // <select> of the ruleset's sequences
    this.request = request  // (params) => Promise of the server's answer
    this.moveTo = moveTo  // (line, col, top?) => void: the cursor there (top: the line near the editor's top)
    this.svg = null  // the SVG shown
    this.boxes = []  // {id, line, col} of the chart shown, in the order the sequence writes them
    this.sequences = []
    this.sequence = null
    this.timer = -1
    this.asked = 0
    this.drawn = 0  // how many charts were put on the page (the benchmark and the tests count them)
    this.line = 1  // the cursor's line, as last told
    this.picked = null  // a sequence picked from the list, kept until the cursor moves into another one
    this.steps = "every"  // "every" step written (one that only sets values too), or "players": the sheets' chart
    this.focused = null  // the id of the box that holds the chart's one Tab stop (the last one reached)
    el.addEventListener("click", e => this.clicked(e))
    el.addEventListener("dblclick", e => this.drill(e))
    el.addEventListener("keydown", e => this.key(e))
    el.addEventListener("focusin", e => { const b = this.boxOf(e.target); if (b) this.rove(b.id) })
    picker.addEventListener("change", () => this.pick(picker.value))
  }

  // a sequence picked from the list: the cursor goes to where it is written (its chart follows); one written in
  // another file (the parent of a variant) is drawn as it is
  pick(id) {
    const s = this.sequences.find(q => q.id === id)
    if (!s) return
    if (s.line != null) {
      this.picked = null
      this.moveTo(s.line, 1, true)
      return
    }
    this.picked = id
    clearTimeout(this.timer)
    this.draw(this.line, id)
  }

  // the text changed (or a file was opened): draw again soon
  soon(line) {
    clearTimeout(this.timer)
    this.timer = setTimeout(() => this.draw(line, this.picked || undefined), REDRAW_AFTER)
  }

  async draw(line, sequence) {
    const ask = ++this.asked
    let answer
    try {
      answer = await this.request({line, sequence, steps: this.steps})
    } catch (err) {
      if (ask === this.asked) this.say(`the chart was not drawn: ${err.message || err}`, true)
      return
    }
    if (ask !== this.asked || !answer) return  // a newer request is on its way
    if (answer.status === "pending") return
    if (answer.status === "stale" && !answer.svg) {
      // no chart of the cursor's sequence was drawn without errors yet: another sequence's chart, greyed, would
      // read as this one's (a new sequence typed with a mistake showed the template's chart); where the server
      // cannot tell the sequence (the YAML itself broken) the one shown stays, greyed
      if (answer.sequence && answer.sequence !== this.sequence) {
        this.el.replaceChildren()
        Object.assign(this, {svg: null, boxes: [], sequence: answer.sequence})
        this.offer()
      }
      this.say(answer.note, true)
      return
    }
    this.show(answer, line)
  }

  // every step, or the sheets' chart (what players read): drawn again at once
  setSteps(steps) {
    this.steps = steps
    clearTimeout(this.timer)
    this.draw(this.line, this.picked || undefined)
  }

  show(answer, line) {
    const stale = answer.status === "stale"
    // the same drawing as the one shown (a keystroke in a comment, or in another sequence): the page keeps it
    const had = this.el.contains(document.activeElement)  // a box had the keyboard's focus: it keeps it
    if (answer.svg !== this.svg) this.el.innerHTML = answer.svg
    const changed = answer.svg !== this.svg || answer.sequence !== this.sequence
    this.svg = answer.svg
    this.boxes = answer.boxes
    this.reachable(answer.title || answer.sequence, had)  // the same drawing may have its steps on other lines
    this.sequences = answer.sequences
    this.sequence = answer.sequence
    if (!stale) {
      this.drawn++
      this.el.dataset.drawn = String(this.drawn)
    }
    this.say(stale ? answer.note : answer.title, stale)
    if (changed) this.offer()
    this.list()
    // the cursor moved while this chart was on its way (into another sequence): draw that one (once: only a
    // cursor that moved since the request asks again)
    const now = this.sequenceAt(this.line)
    if (!stale && !this.picked && line !== this.line && now && now !== this.sequence) this.soon(this.line)
    else this.highlight(this.line)
  }

  // the chart shown as a file to download (to put in a document), or no link when none is shown
  offer() {
    const a = this.download
    if (a.href.startsWith("blob:")) URL.revokeObjectURL(a.href)
    a.hidden = !this.svg
    if (!this.svg) return a.removeAttribute("href")
    a.href = URL.createObjectURL(new Blob([this.svg], {type: "image/svg+xml"}))
    a.download = `${this.stem()}-${this.sequence}.svg`
  }

  list() {
    const key = this.sequences.map(s => `${s.id}:${s.line}`).join(" ")
    if (this.picker.dataset.key !== key) {
      this.picker.replaceChildren(...this.sequences.map(s => new Option(
        `${s.title || s.id}${s.title && s.title !== s.id ? ` (${s.id})` : ""}${s.line == null ? ", written in the parent" : ""}`, s.id)))
      this.picker.dataset.key = key
    }
    this.picker.value = this.sequence
  }

  say(text, stale) {
    this.note.textContent = text
    this.el.classList.toggle("stale", stale)
    this.note.classList.toggle("stale", stale)
  }

  // the sequence written around `line`, by the lines the last chart gave
  sequenceAt(line) {
    let best = null
    for (const s of this.sequences) if (s.line != null && s.line <= line && (!best || s.line > best.line)) best = s
    return best ? best.id : null
  }

  // the cursor moved: highlight its step's box, or draw the sequence it moved into
  cursor(line) {
    this.line = line
    const seq = this.sequenceAt(line)
    if (seq && this.sequence && seq !== this.sequence && seq !== this.picked) {
      this.picked = null
      this.soon(line)
      return
    }
    this.highlight(line)
  }

  highlight(line) {
    for (const el of this.el.querySelectorAll(".current")) el.classList.remove("current")
    let box = null
    for (const b of this.boxes) if (b.line <= line && (!box || b.line >= box.line)) box = b
    if (!box) return
    const el = this.element(box.id)
    if (el) el.classList.add("current")
  }

  // each box of a step written here is a link the keyboard reaches: named by its words and line, one Tab stop for
  // the chart (the box reached last, else the first), the arrows, Home and End between them
  reachable(title, had) {
    const svg = this.el.querySelector("svg")
    if (!svg) return
    svg.setAttribute("role", "group")
    svg.setAttribute("aria-label", `the chart of ${title}: arrows move between its steps, Enter goes to the step`)
    for (const t of svg.querySelectorAll("title")) t.remove()  // Graphviz's ids ('turn/2.do.1'), read out otherwise
    let first = null
    for (const b of this.boxes) {
      const g = this.element(b.id)
      if (!g) continue
      const words = [...g.querySelectorAll("text")].map(t => t.textContent.trim()).filter(Boolean).join(" ")
      g.setAttribute("role", "link")
      g.setAttribute("aria-label", `${words.replace(/\s+/g, " ")}, line ${b.line}`)
      g.tabIndex = -1
      first = first || b.id
    }
    const keep = this.boxes.some(b => b.id === this.focused && this.element(b.id)) ? this.focused : first
    this.focused = null
    if (keep) this.rove(keep)
    if (had && keep) this.element(keep).focus()
  }

  // the chart's one Tab stop moves to the box `id`
  rove(id) {
    if (id === this.focused) return
    const old = this.focused && this.element(this.focused)
    if (old) old.tabIndex = -1
    const g = this.element(id)
    if (g) g.tabIndex = 0
    this.focused = id
  }

  key(e) {
    const at = this.boxes.findIndex(b => b.id === this.focused)
    const box = this.boxes[at]
    if (!box || !this.el.contains(document.activeElement)) return
    const to = {ArrowDown: at + 1, ArrowRight: at + 1, ArrowUp: at - 1, ArrowLeft: at - 1, Home: 0,
                End: this.boxes.length - 1}[e.key]
    if (to !== undefined) {
      e.preventDefault()
      const next = this.boxes[Math.max(0, Math.min(this.boxes.length - 1, to))]
      this.rove(next.id)
      this.element(next.id).focus()
    } else if (e.key === "Enter" && e.shiftKey) {  // the keyboard's double click: a called sequence's chart
      e.preventDefault()
      this.drillBox(box)
    } else if (e.key === "Enter" || e.key === " ") {  // a link's Enter: the step, in the editor, to edit
      e.preventDefault()
      this.moveTo(box.line, box.col)
    }
  }

  element(id) {
    return this.el.querySelector(`[id="${CSS.escape(id)}"]`) || this.el.querySelector(`[id="a_${CSS.escape(id)}"]`)
  }

  // a double click on a box that calls a sequence opens that sequence's chart (as a drill-down chart does)
  drill(e) {
    const box = this.boxOf(e.target)
    if (box) this.drillBox(box)
  }

  drillBox(box) {
    const m = /\bcall:?\s+["']?([A-Za-z_][A-Za-z0-9_]*)/.exec(this.stepText(box.line))
    if (m && this.sequences.some(s => s.id === m[1])) this.pick(m[1])
  }

  boxOf(target) {
    const ids = new Map(this.boxes.map(b => [b.id, b]))
    for (let el = target; el && el !== this.el; el = el.parentNode) {
      const id = el.id && el.id.startsWith("a_") ? el.id.slice(2) : el.id
      if (id && ids.has(id)) return ids.get(id)
    }
    return null
  }

  clicked(e) {
    const b = this.boxOf(e.target)
    if (b) this.moveTo(b.line, b.col)
  }

}
