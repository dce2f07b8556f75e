"""Play in the browser: each seat on its own screen, sent only what that seat may see (docs/studio.md, "Play")."""
