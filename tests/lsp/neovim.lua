-- A headless Neovim opening one file with `capc lsp` attached: writes the diagnostics it
-- receives (`rule line:column message`, 0-based) to $OUT, then quits. Uses the client API of
-- Neovim 0.7 (Debian's) and later.
local capc, root, file, out = os.getenv('CAPC_BIN'), os.getenv('ROOT'), os.getenv('FILE'), os.getenv('OUT')
local client = vim.lsp.start_client({ name = 'capc', cmd = { capc, 'lsp' }, root_dir = root })
vim.cmd('edit ' .. vim.fn.fnameescape(file))
vim.lsp.buf_attach_client(0, client)
vim.wait(20000, function() return #vim.diagnostic.get(0) > 0 end, 50)
local lines = {}
for _, d in ipairs(vim.diagnostic.get(0)) do
  local code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code) or '?'
  table.insert(lines, string.format('%s %d:%d %s', code, d.lnum, d.col, d.message:match('[^\n]*')))
end
table.sort(lines)
vim.fn.writefile(lines, out)
vim.cmd('qall!')
