#!/bin/sh
# Remakes docs/images/editor-nvim-diagnostic.png: Neovim, started headless in tmux with `rulecraft lsp`
# (editor-shot-init.lua), on a copy of dml.yaml with one zone misspelled; the screen captured with
# `tmux capture-pane -e` and drawn cell by cell by terminal_png.py. Needs nvim, tmux and rulecraft on PATH.
set -e
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'tmux kill-session -t rulecraft-shot 2>/dev/null; rm -rf "$work"' EXIT
sed 's/to kings_pile;/to kings_pil;/' "$here/../../rulesets/dml/dml.yaml" > "$work/dml.yaml"
tmux new-session -d -s rulecraft-shot -x 112 -y 24 "nvim -u '$here/editor-shot-init.lua' '+call cursor(448, 66)' '$work/dml.yaml'"
sleep 12                       # the server starts and publishes its diagnostics
tmux send-keys -t rulecraft-shot zz
sleep 1
tmux send-keys -t rulecraft-shot ":lua vim.diagnostic.open_float()" Enter
sleep 3
tmux capture-pane -t rulecraft-shot -e -p > "$work/screen.ansi"
python "$here/terminal_png.py" "$work/screen.ansi" "$here/editor-nvim-diagnostic.png" \
    --title "Neovim 0.7.2 + rulecraft lsp: rulesets/dml/dml.yaml with a misspelled zone"
