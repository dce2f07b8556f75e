// Bundles the page (src/main.js and what it imports, src/style.css) into ../static/studio.js and studio.css, and a
// seat's page (src/play.js, play.css) into ../static/play.js and play.css,
// and records the hash of the sources beside them (tests/test_studio_server.py compares it with the sources).
import * as esbuild from "esbuild"
import {createHash} from "node:crypto"
import {readFileSync, readdirSync, writeFileSync} from "node:fs"
import {join, relative} from "node:path"

const here = import.meta.dirname
const out = join(here, "..", "static")

await esbuild.build({
  entryPoints: {studio: join(here, "src", "main.js"), play: join(here, "src", "play.js")},
  bundle: true, minify: true, format: "esm", target: "es2020", legalComments: "none",
  outdir: out, logLevel: "warning",
})

// the same walk as tests/test_studio_server.py's sources_hash: every file of src/, with the package files
function files(dir) {
  return readdirSync(dir, {withFileTypes: true}).flatMap(e =>
    e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)])
}
const names = [...files(join(here, "src")), ...["package.json", "package-lock.json", "build.mjs"].map(n => join(here, n))]
  .map(p => relative(here, p).split("\\").join("/")).sort()
const hash = createHash("sha256")
for (const name of names) {
  hash.update(name + "\0")
  hash.update(readFileSync(join(here, name)))
  hash.update("\0")
}
writeFileSync(join(out, "sources.sha256"), hash.digest("hex") + "\n")
