"""The `rulecraft` command line: `main` builds the parser and dispatches, `commands` runs each verb, `options` declares its arguments."""
