// The pieces of a seat's table: a card (its name, its types, its rules text as a tooltip) and a pile as the
// seat sees it (its cards, or how many, its top card, the cards it was shown). Text only, never HTML.

export function el(tag, cls = "", text = "") {
  const e = document.createElement(tag)
  if (cls) e.className = cls
  if (text !== "") e.textContent = text
  return e
}

export function cardTip(card) {
  return [card.name, card.types.join(", "), card.text].filter(Boolean).join("\n")
}

export function cardEl(card, tag = "span") {
  const c = el(tag, "card")
  c.title = cardTip(card)
  c.append(el("span", "name", card.name))
  if (card.types.length) c.append(el("span", "types", card.types.join(", ")))
  return c
}

export function zoneEl(z) {
  const d = el("div", "zone")
  d.append(el("span", "title", z.title))
  const cards = el("div", "cards")
  if (z.cards) {
    for (const c of z.cards) cards.append(cardEl(c))
    if (!z.cards.length) cards.append(el("span", "empty", "empty"))
  } else if (z.contents) {
    cards.append(el("span", "count", `${z.count} card${z.count === 1 ? "" : "s"}:`))
    for (const c of z.contents) cards.append(cardEl(c))
  } else if (!z.top && !z.known?.length) {
    cards.append(el("span", "count", z.text))  // "3 cards", "empty": the seat view's own words
  } else {
    cards.append(el("span", "count", z.count ? `${z.count} card${z.count === 1 ? "" : "s"}` : "empty"))
    if (z.top) cards.append(el("span", "small", "top:"), cardEl(z.top))
    if (z.known?.length) {
      cards.append(el("span", "small", "you were shown:"))
      for (const c of z.known) cards.append(cardEl(c))
    }
  }
  d.append(cards)
  return d
}
