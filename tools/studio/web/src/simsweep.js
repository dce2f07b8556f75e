// The Simulate tab's sweep: one numeric setting of the open ruleset at a few values, N games each on the same seeds,
// and any row of statistics (a win rate, the game length, a metric or one of its keys) plotted against the value.
// The plot is drawn on the server by matplotlib (tools/simulate/sweep.py), as the report's are, and shown as an
// image; the page asks for the row picked. All text is textContent.
import {el, svgImage} from "./simtable.js"

function shown(stat, v) {
  if (v === null || v === undefined) return "–"
  return stat === "rate" ? `${(v * 100).toFixed(1)}%` : Number(v).toFixed(2)
}

export function rowTitle(row) {
  return row.metric ? `${row.metric}: ${row.label}` : row.label
}

// the form's part: which setting (the ruleset's parameters with their ranges) and its values
export class SweepForm {
  constructor() {
    this.pick = el("select", {id: "sim-sweep", ariaLabel: "Sweep which setting"}, new Option("nothing", ""))
    this.values = el("input", {id: "sim-sweep-values", placeholder: "e.g. 50, 100, 150",
                               title: "2 to 8 values of the setting, separated by commas; each is played N games"})
    this.box = el("fieldset", {id: "sim-sweep-box"}, el("legend", {textContent: "Sweep one setting (N games at each value)"}),
      el("label", {className: "sim-field"}, el("span", {textContent: "Setting"}), this.pick),
      el("label", {className: "sim-field"}, el("span", {textContent: "Values"}), this.values))
    this.pick.addEventListener("change", () => {
      const p = this.knobs.find(k => k.name === this.pick.value)
      if (p) this.values.value = [p.min, p.default, p.max].filter((v, i, all) => v !== null && v !== undefined &&
        all.indexOf(v) === i).join(", ")
    })
    this.knobs = []
  }

  // the saved ruleset's parameters (numbers, each with its range): the settings a sweep may vary
  setKnobs(parameters) {
    const keep = this.pick.value || this.want || ""  // (want: the setting kept across a reload)
    this.want = ""
    this.knobs = parameters
    this.pick.replaceChildren(new Option("nothing", ""), ...parameters.map(p => {
      const range = p.min !== null && p.min !== undefined ? ` (${p.min} to ${p.max ?? "any"})` : ""
      const o = new Option(`${p.name}${range}`, p.name)
      o.title = p.doc || p.title || p.name
      return o
    }))
    this.pick.value = parameters.some(p => p.name === keep) ? keep : ""
  }

  // {name, values} for the start message, or null when nothing is swept
  asked() {
    if (!this.pick.value) return null
    const values = this.values.value.split(/[\s,;]+/).filter(Boolean).map(v => (v !== "" && !isNaN(Number(v)) ? Number(v) : v))
    return {name: this.pick.value, values}
  }
}

// the result: the row picked, plotted against the value, its figures in a table, and each value's text report
export function sweepView(msg, askPlot) {
  const sweep = msg.sweep
  const rows = sweep.rows
  const pick = el("select", {id: "sim-sweep-row", ariaLabel: "the row to plot against the setting"},
    ...rows.map((r, i) => Object.assign(new Option(rowTitle(r), String(i)), {title: r.doc || ""})))
  const plot = el("div", {className: "sim-sweep-plot"})
  const table = el("table", {className: "sim-compare sim-sweep-table"})
  const draw = () => {
    const row = rows[Number(pick.value)]
    plot.replaceChildren(el("p", {className: "note", textContent: "drawing…"}))
    askPlot(Number(pick.value))
    table.replaceChildren(el("tr", {}, ...[sweep.name, rowTitle(row), "95% interval", "counted"].map(t =>
      el("th", {textContent: t}))), ...sweep.values.map((v, i) => {
      const p = row.points[i]
      return el("tr", {}, el("td", {className: "n", textContent: v}),
        el("td", {className: "n", textContent: p ? shown(row.stat, p.estimate) : "–"}),
        el("td", {className: "n", textContent: p ? `${shown(row.stat, p.low)} to ${shown(row.stat, p.high)}` : "–"}),
        el("td", {className: "n", textContent: p ? String(p.n) : "0"}))
    }))
  }
  pick.addEventListener("change", draw)
  const head = el("h3", {textContent: `${sweep.ruleset}: ${msg.runs[0].games} games at each of ${sweep.name} = ` +
    `${sweep.values.join(", ")} (${msg.players} players, ${msg.runs[0].agents.join(", ")})`})
  const reports = msg.runs.map((run, i) => el("details", {className: "sim-side"},
    el("summary", {textContent: `${sweep.name} = ${sweep.values[i]}: ${run.done} games, the text report`}),
    ...(run.errors.length ? [el("p", {className: "note stale", textContent: `errors in ${run.errors.length} games; ` +
      `the first, seed ${run.errors[0].seed}: ${run.errors[0].error}`})] : []),
    el("pre", {textContent: run.text})))
  const view = el("div", {className: "sim-sweep"}, head,
    el("label", {className: "sim-field"}, el("span", {textContent: "Plot against the value"}), pick), plot, table,
    ...reports)
  if (rows.length) draw()
  return view
}

// the plot the server drew for the row asked last
export function showSweepPlot(out, msg) {
  const box = out.querySelector(".sim-sweep-plot")
  const pick = out.querySelector("#sim-sweep-row")
  if (box && pick && Number(pick.value) === msg.row) {
    box.replaceChildren(svgImage(msg.svg, `${pick.selectedOptions[0].textContent} against the setting swept`))
  }
}
