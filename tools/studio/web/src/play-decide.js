// The decision a seat is asked, as controls: options as buttons (cards as cards), a subset picked then sent, an
// amount as a number field with its legal range, yes/no as two buttons; `?` help, pass until, undo. The answer
// goes in the engine's wire form (docs/seatview.md, "The decision"), with the number of the decision it answers.
import {cardEl, el} from "./play-draw.js"

function button(text, cls, onClick) {
  const b = el("button", cls, text)
  b.type = "button"
  b.addEventListener("click", onClick)
  return b
}

function optionButton(o, onClick) {
  const b = button("", `option ${o.kind}`, onClick)
  if (o.kind === "card" && o.card) b.append(cardEl(o.card))
  else b.textContent = o.label
  return b
}

export function decisionEl(d, frame, send, help) {
  const box = el("div", "decision")
  const answer = wire => send({type: "answer", decision: frame.decisions, wire})
  if (d) {
    box.append(el("h2", "", d.prompt))
    if (d.secret) box.append(el("p", "small", "Your answer is secret until it is revealed."))
    if (d.roll) box.append(el("p", "", `Rolled ${d.roll.faces.join("+")} = ${d.roll.total}` +
                                       (d.roll.result ? ` (${d.roll.result})` : "") +
                                       (d.roll.target !== null ? `; target ${d.roll.target}` : "")))
    box.append(controls(d, answer))
  }
  const tools = el("div", "tools")
  if (d) tools.append(button("?", "help", help))
  if (frame.passUntil) tools.append(button("Pass until something changes", "pass-until",
                                           () => send({type: "passUntil", decision: frame.decisions})))
  if (frame.undo) tools.append(button("Undo my last decision", "undo", () => send({type: "undo"})))
  if (tools.childElementCount) box.append(tools)
  if (!d && !frame.view.over) box.append(el("p", "waiting", "Nothing to decide now."))
  if (frame.view.over && frame.seat !== null) {  // the next game: the same seats and options, the next seed; every
    const again = button("Play again", "again", () => {  // page of this game follows (`next` in its frames)
      again.disabled = true
      again.textContent = "Starting the next game…"
      send({type: "again"})
    })
    again.title = "A new game of the same rules, seats, bots and options, with the next seed; the other seats follow"
    const row = el("div", "tools")
    row.append(again)
    box.append(row)
  }
  return box
}

function controls(d, answer) {
  const row = el("div", "options")
  if (d.kind === "yesno") {
    row.append(button("Yes", "option yes", () => answer(true)), button("No", "option no", () => answer(false)))
  } else if (d.kind === "one") {
    d.options.forEach((o, i) => row.append(optionButton(o, () => answer(i))))
  } else if (d.kind === "subset") {
    const picked = new Set()
    const done = button("", "send", () => answer([...picked].sort((a, b) => a - b)))
    const update = () => {
      // "Pass (none)" only where none is an answer: greyed under a question that needs some it read as a pass refused
      done.textContent = picked.size ? `Play these ${picked.size}` : d.min > 0 ? `Pick ${d.min === d.max ? d.min : `at least ${d.min}`}`
        : d.options.length ? "Pass (none)" : "Go on"
      done.disabled = picked.size < d.min || picked.size > d.max
    }
    d.options.forEach((o, i) => {
      const b = optionButton(o, () => {
        if (picked.has(i)) picked.delete(i); else picked.add(i)
        b.classList.toggle("picked", picked.has(i))
        update()
      })
      row.append(b)
    })
    const how = !d.options.length ? "There is nothing you can pick now." : `Pick ${d.min === d.max ? d.min : `${d.min} to ${d.max}`}.`
    row.append(el("div", "small", how), done)
    update()
  } else if (d.kind === "amount" || d.kind === "number") {
    const input = el("input", "amount")
    Object.assign(input, {type: "number", min: d.min, max: d.max, step: 1, value: d.min})
    input.setAttribute("aria-label", `a whole number from ${d.min} to ${d.max}`)
    const go = button("Answer", "send", () => {
      const n = Number(input.value)
      if (!Number.isInteger(n) || n < d.min || n > d.max) { input.reportValidity(); return }  // the browser says why
      answer(d.kind === "number" ? n : d.options.findIndex(o => o.kind === "amount" && o.amount === n))
    })
    input.addEventListener("keydown", e => { if (e.key === "Enter") go.click() })  // Enter answers, as in a form
    row.append(input, el("span", "small", `from ${d.min} to ${d.max}`), go)
    if (d.passable) {
      row.append(button("Pass", "option pass", () =>
        answer(d.kind === "number" ? null : d.options.findIndex(o => o.kind === "pass"))))
    }
  }
  return row
}
