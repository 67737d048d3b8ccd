-- A headless Neovim opening one file with `capc lsp` attached: writes the diagnostics it
-- receives (`rule line:column message`, 0-based) to $OUT, then quits. Uses the client API of
-- Neovim 0.7 (Debian's) and later. With $SETUP set, the init file (docs/lsp.md's setup)
-- attaches the client when the file is opened; otherwise this script does.
local capc, root, file, out = os.getenv('CAPC_BIN'), os.getenv('ROOT'), os.getenv('FILE'), os.getenv('OUT')
local client = nil
if not os.getenv('SETUP') then
  client = vim.lsp.start_client({ name = 'capc', cmd = { capc, 'lsp' }, root_dir = root })
end
vim.cmd('edit ' .. vim.fn.fnameescape(file))
if client then
  vim.lsp.buf_attach_client(0, client)
end
vim.wait(20000, function() return #vim.diagnostic.get(0) > 0 end, 50)
local lines = {}
for _, d in ipairs(vim.diagnostic.get(0)) do
  local code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code) or '?'
  table.insert(lines, string.format('%s %d:%d %s', code, d.lnum, d.col, d.message:match('[^\n]*')))
end
table.sort(lines)
vim.fn.writefile(lines, out)
vim.cmd('qall!')
