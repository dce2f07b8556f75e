// The page's controls by the keyboard and the mouse, beyond what the browser gives: the tabs' arrows (ARIA's tabs
// pattern), the charts' Actual size button, and the keys' help that Escape closes.

// the tabs by the keyboard, as ARIA's tabs pattern has them: the arrows to the next or previous (round), Home and
// End to the first and last; the tab reached is shown (and its button clicked, so what a click starts starts)
export function tabKeys(e) {
  const tabs = [...document.querySelectorAll("#tabs button")]
  const at = tabs.indexOf(document.activeElement)
  const to = {ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: tabs.length - 1}[e.key]
  if (at < 0 || to === undefined) return
  e.preventDefault()
  const next = tabs[(to + tabs.length) % tabs.length]
  next.focus()
  next.click()
}

// a chart at its own size (to scroll) or fitted to its panel
export function fitToggle(button) {
  const target = document.getElementById(button.dataset.fit)
  button.addEventListener("click", () => {
    const own = !target.classList.contains("own-size")
    target.classList.toggle("own-size", own)
    button.textContent = own ? "Fit to the panel" : "Actual size"
    button.setAttribute("aria-pressed", String(own))
  })
}

// the keys' help (a <details>) closes with Escape, as a pop-up does, and gives the focus back to its summary
export function helpCloses(help) {
  help.addEventListener("keydown", e => {
    if (e.key === "Escape" && help.open) { help.open = false; help.querySelector("summary").focus() }
  })
}
