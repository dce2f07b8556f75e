// The page's one websocket to the studio: JSON-RPC text frames, the language server's messages and the
// studio's own (rulecraft/*) alike. The token travels in the studio's cookie, set when the page was opened.
import {LSPClient} from "@codemirror/lsp-client"

export function fileUri(path) {
  return "file://" + path.split("/").map(encodeURIComponent).join("/")
}

function socketTransport(url) {
  let handlers = []
  const sock = new WebSocket(url)
  sock.onmessage = e => { for (const h of handlers) h(String(e.data)) }
  return new Promise((resolve, reject) => {
    sock.onerror = () => reject(new Error("the studio's websocket did not open"))
    sock.onopen = () => resolve({
      socket: sock,
      send(message) { if (sock.readyState === WebSocket.OPEN) sock.send(message) },
      subscribe(handler) { handlers.push(handler) },
      unsubscribe(handler) { handlers = handlers.filter(h => h !== handler) },
    })
  })
}

// notifications: {method: (params) => void}, tried before the client's own handlers
export async function connect(root, notifications, onClose) {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:"
  const transport = await socketTransport(`${scheme}//${location.host}/ws`)
  transport.socket.addEventListener("close", onClose)
  const handlers = {}
  for (const [method, fn] of Object.entries(notifications)) {
    handlers[method] = (client, params) => { fn(params); return true }
  }
  const client = new LSPClient({
    rootUri: fileUri(root),
    timeout: 60000,  // a chart of a long sequence takes a while on a busy machine
    notificationHandlers: handlers,
    extensions: [{clientCapabilities: {textDocument: {publishDiagnostics: {versionSupport: true}}}}],
  }).connect(transport)
  await client.initializing
  return client
}
