-- Neovim's own LSP client talking to `pomp lsp`, run headless by
-- tests/lsp.rs:
--   nvim --headless -u NONE -i NONE -n -c "luafile tests/nvim/session.lua"
-- with POMP (the binary), POMP_C_FILE, POMP_FORTRAN_FILE and POMP_OUT (where
-- the results go, as JSON) in the environment. For each file it opens the
-- file, waits for its diagnostics, asks for a hover on its first parallel
-- directive
-- and for pomp/preview; in the C file it then fixes the broken directive by
-- an edit in the buffer and waits for the diagnostics of that version.

local TIMEOUT = 30000
local results = { files = {} }
local published = {}

local function on_diagnostics(err, result, ctx, config)
  published[result.uri] = published[result.uri] or {}
  table.insert(published[result.uri], result)
  vim.lsp.diagnostic.on_publish_diagnostics(err, result, ctx, config)
end

-- The diagnostics published for `uri` at `version` or later.
local function wait_for_diagnostics(uri, version)
  local found
  vim.wait(TIMEOUT, function()
    for _, p in ipairs(published[uri] or {}) do
      if p.version == nil or p.version >= version then
        found = p
      end
    end
    return found ~= nil
  end, 10)
  return found
end

-- The 0-based line of the first line matching `pattern`.
local function first_line(bufnr, pattern)
  for i, line in ipairs(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)) do
    if line:match(pattern) then
      return i - 1
    end
  end
end

local function session()
  vim.cmd("filetype on")
  local client_id = vim.lsp.start_client({
    name = "pomp",
    cmd = { os.getenv("POMP"), "lsp" },
    root_dir = vim.fn.fnamemodify(os.getenv("POMP_C_FILE"), ":h"),
    handlers = { ["textDocument/publishDiagnostics"] = on_diagnostics },
  })
  assert(client_id, "pomp lsp did not start")
  local client = vim.lsp.get_client_by_id(client_id)

  for _, name in ipairs({ "POMP_C_FILE", "POMP_FORTRAN_FILE" }) do
    local path = os.getenv(name)
    vim.cmd("edit " .. vim.fn.fnameescape(path))
    local bufnr = vim.api.nvim_get_current_buf()
    vim.lsp.buf_attach_client(bufnr, client_id)
    local uri = vim.uri_from_bufnr(bufnr)
    local entry = { path = path, uri = uri }

    local first = wait_for_diagnostics(uri, 0)
    entry.diagnostics = first and first.diagnostics
    entry.editor_diagnostics = #vim.diagnostic.get(bufnr)

    -- The first parallel construct, in C or in Fortran.
    local directive = first_line(bufnr, "omp parallel")
    local hover = vim.lsp.buf_request_sync(bufnr, "textDocument/hover", {
      textDocument = { uri = uri },
      position = { line = directive, character = 2 },
    }, TIMEOUT)
    entry.hover = hover and hover[client_id] and hover[client_id].result

    local preview = client.request_sync("pomp/preview", { uri = uri }, TIMEOUT, bufnr)
    entry.preview = preview and preview.result

    local broken = first_line(bufnr, "BROKEN")
    if broken then
      -- The line reads `#pragma omp parallel for /* é𝜋 BROKEN */ colapse(2)`:
      -- replace the misspelt clause after text outside ASCII.
      local line = vim.api.nvim_buf_get_lines(bufnr, broken, broken + 1, false)[1]
      local from = line:find("colapse", 1, true) - 1
      vim.api.nvim_buf_set_text(bufnr, broken, from, broken, from + #"colapse", { "collapse" })
      local version = vim.lsp.util.buf_versions[bufnr]
      local fixed = wait_for_diagnostics(uri, version)
      entry.fixed_version = version
      entry.fixed_diagnostics = fixed and fixed.diagnostics
      entry.fixed_text = table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), "\n") .. "\n"
      local after = client.request_sync("pomp/preview", { uri = uri }, TIMEOUT, bufnr)
      entry.fixed_preview = after and after.result
    end
    table.insert(results.files, entry)
  end
  client.stop()
end

local ok, failure = pcall(session)
results.ok = ok
results.failure = failure and tostring(failure) or nil
local out = io.open(os.getenv("POMP_OUT"), "w")
out:write(vim.fn.json_encode(results))
out:close()
vim.cmd("qall!")
