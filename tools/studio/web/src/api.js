// The studio's HTTP routes, as the page calls them (the token is in the studio's cookie).
export async function getJSON(url) {
  const r = await fetch(url, {credentials: "same-origin"})
  const body = await r.json().catch(() => ({error: `${r.status} ${r.statusText}`}))
  if (!r.ok) throw Object.assign(new Error(body.error || `${r.status}`), {status: r.status, body})
  return body
}

export async function postJSON(url, data) {
  const r = await fetch(url, {method: "POST", credentials: "same-origin",
                              headers: {"content-type": "application/json"}, body: JSON.stringify(data)})
  const body = await r.json().catch(() => ({error: `${r.status} ${r.statusText}`}))
  if (!r.ok) throw Object.assign(new Error(body.error || `${r.status}`), {status: r.status, body})
  return body
}

// a printed page as a blob: URL for a frame, or an Error saying why there is none
export async function getBlobURL(url) {
  const r = await fetch(url, {credentials: "same-origin"})
  if (!r.ok) {
    const body = await r.json().catch(() => ({}))
    throw new Error(body.error || `${r.status} ${r.statusText}`)
  }
  return URL.createObjectURL(await r.blob())
}
