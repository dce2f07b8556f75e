// The editor: CodeMirror 6 with YAML, the language server's completion, hover and go-to-definition through
// @codemirror/lsp-client, and its problems underlined (lint) at the range the server gives.
import {basicSetup} from "codemirror"
import {EditorView, keymap, ViewPlugin} from "@codemirror/view"
import {EditorState} from "@codemirror/state"
import {indentWithTab} from "@codemirror/commands"
import {yaml} from "@codemirror/lang-yaml"
import {setDiagnostics, lintGutter, forEachDiagnostic} from "@codemirror/lint"
import {LSPPlugin, serverCompletion, hoverTooltips, jumpToDefinitionKeymap} from "@codemirror/lsp-client"

const SYNC_AFTER = 40  // ms after the last keystroke before the text goes to the server

// our own sync (the package's waits 500 ms): a keystroke reaches the checks within SYNC_AFTER
const quickSync = ViewPlugin.fromClass(class {
  constructor() { this.pending = -1 }
  update(update) {
    if (!update.docChanged) return
    clearTimeout(this.pending)
    this.pending = setTimeout(() => {
      this.pending = -1
      const plugin = LSPPlugin.get(update.view)
      if (plugin) plugin.client.sync()
    }, SYNC_AFTER)
  }
  destroy() { clearTimeout(this.pending) }
})

const SEVERITY = {1: "error", 2: "warning", 3: "info", 4: "hint"}

export function makeEditor(parent, client, {uri, text, readOnly, onSave, onCursor, onChange, label}) {
  const extensions = [
    basicSetup,
    EditorView.contentAttributes.of({"aria-label": label}),  // what a screen reader names the text box
    // long lines wrap: at 1,024 px a variant's guiding comments were cut at "parameters: {NAME: {defaul", the syntax
    // a first user reads them for, behind a scroll to the right they did not know was there (session 20)
    EditorView.lineWrapping,
    yaml(),
    client.plugin(uri, "yaml"),
    serverCompletion(),
    hoverTooltips(),
    keymap.of([...jumpToDefinitionKeymap]),
    // Tab and Shift-Tab indent and dedent by two spaces (YAML's indentation), as in every code editor: without it
    // they left the editor and the next keys typed went to the page. Escape then Tab (or Ctrl-M) leaves it.
    keymap.of([indentWithTab]),
    quickSync,
    lintGutter(),
    keymap.of([{key: "Mod-s", preventDefault: true, run: () => { onSave(); return true }}]),
    // go to definition (F12) puts the definition near the top of the editor: scrolled only into view ("nearest"), a
    // sequence's name landed on the editor's last line with nothing of the sequence shown
    EditorState.transactionExtender.of(tr => tr.isUserEvent("select.definition") ? {effects: atTop(tr.newSelection.main.head)} : null),
    EditorView.updateListener.of(u => {
      if (u.selectionSet || u.docChanged) onCursor(u.state)
      if (u.docChanged) onChange(u.state)
    }),
  ]
  if (readOnly) extensions.push(EditorState.readOnly.of(true))
  return new EditorView({state: EditorState.create({doc: text, extensions}), parent})
}

// The server's diagnostics as underlines (with a quick fix where the server offers one), and as a list of
// {from, to, line, col, code, message, hint, severity} for the problems panel. Null when they are for
// another text than the editor's (an older version). The underlines are not set again (the list gets `same`) when they
// are the ones underlined already (the check after a keystroke in a ruleset without errors, or that left its errors
// where they were): set on every keystroke they were work for nothing.
const underlined = new WeakMap()  // view -> how many problems were set last (the gutter marks them)

export function showDiagnostics(view, client, params) {
  const plugin = LSPPlugin.get(view)
  const file = client.workspace.getFile(params.uri)
  if (!plugin || !file || file.getView() !== view) return null
  if (params.version != null && params.version !== file.version) return null
  const problems = params.diagnostics.map(item => {
    const from = plugin.unsyncedChanges.mapPos(plugin.fromPosition(item.range.start, plugin.syncedDoc))
    const to = plugin.unsyncedChanges.mapPos(plugin.fromPosition(item.range.end, plugin.syncedDoc))
    const [message, ...rest] = item.message.split("\nhint: ")
    const line = view.state.doc.lineAt(from)
    return {from, to, line: line.number, col: from - line.from + 1, code: item.code || "", message,
            hint: rest.join("\nhint: "), severity: SEVERITY[item.severity || 1], item}
  })
  const shown = []
  forEachDiagnostic(view.state, (d, from, to) => shown.push(`${from} ${to} ${d.severity} ${d.source} ${d.message}`))
  const now = problems.map(p => `${p.from} ${p.to} ${p.severity} ${p.code} ${p.message + (p.hint ? `\nhint: ${p.hint}` : "")}`)
  // an edit over a problem's whole range drops its underline, never its mark in the gutter: those underlined now are
  // the ones set last only when none was dropped so (a typo fixed by a paste left its red dot beside "no problems")
  if (shown.length === (underlined.get(view) ?? 0) && shown.length === now.length && shown.every((d, i) => d === now[i])) {
    problems.same = true
    return problems
  }
  underlined.set(view, problems.length)
  view.dispatch(setDiagnostics(view.state, problems.map(p => ({
    from: p.from, to: p.to, severity: p.severity, source: p.code,
    message: p.message + (p.hint ? `\nhint: ${p.hint}` : ""),
    actions: p.item.data && p.item.data.replacements ? [{
      name: "Quick fix", apply: view => quickFix(view, client, params.uri, p.item)}] : [],
  }))))
  return problems
}

// The language server's own quick fix (textDocument/codeAction), its first edit applied
async function quickFix(view, client, uri, diagnostic) {
  client.sync()
  const actions = await client.request("textDocument/codeAction", {
    textDocument: {uri}, range: diagnostic.range, context: {diagnostics: [diagnostic]}})
  const edits = actions && actions[0] && actions[0].edit && actions[0].edit.changes && actions[0].edit.changes[uri]
  const plugin = LSPPlugin.get(view)
  if (!edits || !plugin) return
  view.dispatch({changes: edits.map(e => ({
    from: plugin.fromPosition(e.range.start), to: plugin.fromPosition(e.range.end), insert: e.newText}))})
}

const atTop = pos => EditorView.scrollIntoView(pos, {y: "start", yMargin: 40})

// the cursor to a line and column, scrolled into view; `top`: with the line near the top of the editor (a definition,
// a sequence picked: what is written under it is what the designer came for)
export function moveTo(view, line, col, top = false) {
  const l = view.state.doc.line(Math.max(1, Math.min(line, view.state.doc.lines)))
  const pos = Math.min(l.from + Math.max(0, col - 1), l.to)
  view.dispatch(top ? {selection: {anchor: pos}, effects: atTop(pos)} : {selection: {anchor: pos}, scrollIntoView: true})
  view.focus()
}

// the cursor kept in view when the panel under the editor grows (the problems listed) and the editor shrinks
export function keepCursorInView(view) {
  if (view.hasFocus) view.dispatch({effects: EditorView.scrollIntoView(view.state.selection.main.head, {y: "nearest"})})
}
