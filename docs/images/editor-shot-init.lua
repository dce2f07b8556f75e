vim.o.termguicolors = true
vim.o.number = true
vim.o.signcolumn = "yes"
vim.cmd("syntax on")
local rulecraft = { name = "rulecraft", cmd = { "rulecraft", "lsp" },
                    root_dir = vim.fn.getcwd() }
vim.api.nvim_create_autocmd("FileType", { pattern = "yaml", callback = function(args)
  if vim.lsp.start then vim.lsp.start(rulecraft)
  else vim.lsp.buf_attach_client(args.buf, vim.lsp.start_client(rulecraft)) end
end })
vim.diagnostic.config({ virtual_text = true, underline = true, signs = true })
vim.diagnostic.config({
  virtual_text = { format = function(d) return d.message:gsub("\n.*", "") .. " [" .. d.code .. "]" end },
  float = { source = "always", format = function(d) return d.message .. "  [" .. d.code .. "]" end },
})
vim.cmd("highlight NormalFloat guibg=#2d3140 guifg=#e6e6e6")
vim.cmd("highlight DiagnosticUnderlineError gui=underline guisp=#ff5555")
