// The editor's text not saved yet, sent to the studio a moment after the typing settles (POST /api/draft), so a
// reload, a browser that crashed or a studio started again finds it (tools/studio/drafts.py); and the note that
// says a kept text was put back in the editor, with a button to take the file's text instead.
import {postJSON} from "./api.js"

const SETTLE = 400  // ms after the last keystroke

export class Drafts {
  // file(): the open file ({path, digest, saved, readOnly}) or null; text(): the editor's text
  constructor({file, text, onError}) {
    Object.assign(this, {file, text, onError, timer: null, kept: null, sending: null})
  }

  changed() {
    clearTimeout(this.timer)
    this.timer = setTimeout(() => this.flush(), SETTLE)
  }

  // the text sent now (and `null` once it is the file's again); `kept` is the text the studio holds (the tests wait
  // on it)
  async flush(keepalive = false) {
    clearTimeout(this.timer)
    const f = this.file()
    if (!f || f.readOnly || !f.path) return
    const text = this.text()
    const body = {path: f.path, text: text === f.saved ? null : text, digest: f.digest}
    if (body.text === this.kept) return
    if (keepalive) {  // the page is going away: the request outlives it
      fetch("/api/draft", {method: "POST", credentials: "same-origin", keepalive: true,
        headers: {"content-type": "application/json"}, body: JSON.stringify(body)}).catch(() => {})
      return
    }
    try {
      await postJSON("/api/draft", body)
      if (this.file() === f) this.kept = body.text
    } catch (err) {
      if (err.status) this.onError(err.message)  // no answer at all: the studio stopped, which the page says already
    }
  }

  // a file just opened: `draft` ({text, base, time}) as the studio kept it, or null
  opened(draft) {
    this.kept = draft ? draft.text : null
  }

  saved() { this.kept = null }
}

// the words of the note over the editor when a kept text was put back: when it was typed, and whether the file
// changed on disk since (then Save writes this text over the file's new one: said, so it is a choice)
export function restoredNote(path, draft, diskDigest) {
  const when = new Date(draft.time * 1000)
  const at = when.toDateString() === new Date().toDateString() ? when.toLocaleTimeString() : when.toLocaleString()
  const changed = draft.base !== diskDigest
  return `Your text of ${path} not saved (typed until ${at}) was kept and is back in the editor` +
    (changed ? "; the file on disk changed since: Save writes this text over it." : ": Save writes it to the file.")
}
