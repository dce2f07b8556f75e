// The Simulate tab's seed-matched comparison: its plots (A and B on one scale) and its table, every row the two runs
// have (win rates, length, each metric), A, B, B − A with its 95% interval, the rows beyond noise marked. Grouped
// by metric, each named with the ruleset's words for it; a tally's rows by key (dml: 30 of them, most with a handful
// of tallies) folded under one row that says how many are beyond noise. All text is textContent.

export function el(tag, {dataset, ...props} = {}, ...children) {
  const e = Object.assign(document.createElement(tag), props)
  Object.assign(e.dataset, dataset || {})
  e.append(...children)
  return e
}

export function svgImage(svg, alt) {
  return el("img", {src: "data:image/svg+xml;charset=utf-8," + encodeURIComponent(svg), alt})
}

function shown(stat, v) {
  if (v === null || v === undefined) return "–"
  return stat === "rate" ? `${(v * 100).toFixed(1)}%` : Number(v).toFixed(2)
}

function signed(stat, v) {
  if (v === null || v === undefined) return "–"
  return (v < 0 ? "−" : "+") + shown(stat, Math.abs(v))
}

const HEAD = ["", "A", "B", "B − A", "95% interval of B − A", "counted (A / B)", ""]
const TIPS = {
  "counted (A / B)": "how many games (or, for a row by key, tallies at that key) each side's figure is made from: " +
    "the fewer, the wider the interval",
  "95% interval of B − A": "the difference the games are 95% sure of; one that leaves out 0 is marked *",
}

function row(e, label, keyed) {
  return el("tr", {className: `${e.significant ? "marked" : ""}${keyed ? " keyed" : ""}`},
    el("td", {textContent: label}),
    el("td", {className: "n", textContent: shown(e.stat, e.a)}), el("td", {className: "n", textContent: shown(e.stat, e.b)}),
    el("td", {className: "n", textContent: signed(e.stat, e.diff)}),
    el("td", {className: "n", textContent: `${signed(e.stat, e.low)} .. ${signed(e.stat, e.high)}`}),
    el("td", {className: "n count", textContent: `${e.n_a} / ${e.n_b}`}),
    el("td", {textContent: e.significant ? "*" : ""}))
}

function table(rows, docs) {
  const body = [el("tr", {}, ...HEAD.map(t => el("th", {textContent: t, title: TIPS[t] || ""})))]
  const groups = new Map()
  for (const e of rows) {
    if (!groups.has(e.metric)) groups.set(e.metric, [])
    groups.get(e.metric).push(e)
  }
  for (const [metric, entries] of groups) {
    if (metric) {  // the metric's own words (its doc in the ruleset), once above its rows
      body.push(el("tr", {className: "metric"}, el("th", {colSpan: HEAD.length, scope: "rowgroup"},
        el("span", {textContent: metric}), docs[metric] ? ` ${docs[metric]}` : "")))
    }
    // a tally's rows by key: its own rows are 'per game' and 'rate'; the rest are keys
    const keyed = entries.filter(e => e.kind === "tally" && e.label !== "per game" && e.label !== "rate")
    for (const e of entries) if (!keyed.includes(e)) body.push(row(e, e.label))
    if (!keyed.length) continue
    const beyond = keyed.filter(e => e.significant).length
    const open = el("button", {type: "button", className: "keys", ariaExpanded: "false",
      textContent: `by key: ${keyed.length} rows, ${beyond} beyond noise — show them`})
    const rowsOf = keyed.map(e => Object.assign(row(e, `at ${e.label}`, true), {hidden: true}))
    open.addEventListener("click", () => {
      const show = open.getAttribute("aria-expanded") !== "true"
      for (const r of rowsOf) r.hidden = !show
      open.setAttribute("aria-expanded", String(show))
      open.textContent = `by key: ${keyed.length} rows, ${beyond} beyond noise — ${show ? "hide" : "show"} them`
    })
    body.push(el("tr", {className: "keys"}, el("td", {colSpan: HEAD.length}, open)), ...rowsOf)
  }
  return el("table", {className: "sim-compare"}, ...body)
}

export function comparison(msg) {
  const [a, b] = msg.runs
  const rows = msg.compare.filter(e => e.diff !== null)
  const marked = rows.filter(e => e.significant)
  const beyond = marked.map(e => e.metric ? `${e.metric} ${e.label}` : e.label)
  return el("section", {className: "sim-comparison"},
    el("h3", {textContent: `A: ${a.name} (${a.agents.join(", ")}) against B: ${b.name} (${b.agents.join(", ")})`}),
    el("p", {className: "note", textContent: `${a.games} seed-matched games each (seeds ${msg.seed}..` +
      `${msg.seed + a.games - 1}: game i of A and of B deal the same). A row is marked * when B differs from A by ` +
      `more than chance: the 95% interval of B − A leaves out 0. ${marked.length} of ${rows.length} rows are ` +
      `marked; with many rows expect about 1 in 20 marked by chance alone.`}),
    el("p", {className: "note sim-beyond", textContent: marked.length
      ? `Beyond noise: ${beyond.slice(0, 12).join("; ")}${beyond.length > 12 ? "; …" : ""}.`
      : "Nothing differs beyond noise: more games may show a smaller difference."}),
    // A and B in one plot each, on one scale (each side's own plots, folded below, have their own scales)
    el("div", {className: "sim-compare-figures"}, ...(msg.compareFigures || []).map(f =>
      el("figure", {className: "sim-figure", dataset: {name: f.name}}, svgImage(f.svg, f.caption),
         el("figcaption", {textContent: f.caption})))),
    table(rows, a.metrics || {}))
}
