-- The README's Neovim snippet, run as a user's init would run it, driven
-- headless by tests/lsp.rs:
--   nvim --headless -u NONE -i NONE -n -c "luafile tests/nvim/readme.lua"
-- with POMP_SNIPPET (the snippet, cut from the README), POMP_C_FILE and
-- POMP_OUT (where the results go, as JSON) in the environment, and `pomp`
-- on the PATH. It opens the file, waits for the server, asks for a hover,
-- takes the code action "Show instrumented source" as a user would pick it
-- from the list, and runs :PompPreview.

local TIMEOUT = 30000
local results = {}

local function buffer_text(bufnr)
  return table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), "\n")
end

-- What the window opened by `action` shows, and the buffer's type.
local function opened_by(action)
  local before = #vim.api.nvim_list_wins()
  action()
  vim.wait(TIMEOUT, function()
    return #vim.api.nvim_list_wins() > before
  end, 20)
  local shown = { windows = #vim.api.nvim_list_wins() - before }
  if shown.windows > 0 then
    shown.text = buffer_text(0)
    shown.buftype = vim.bo.buftype
    shown.filetype = vim.bo.filetype
    vim.cmd("close")
  end
  return shown
end

local function session()
  vim.cmd("filetype on")
  vim.cmd("luafile " .. vim.fn.fnameescape(os.getenv("POMP_SNIPPET")))
  vim.cmd("edit " .. vim.fn.fnameescape(os.getenv("POMP_C_FILE")))
  local bufnr = vim.api.nvim_get_current_buf()
  local function attached()
    for _, client in pairs(vim.lsp.buf_get_clients(bufnr)) do
      if client.name == "pomp" and client.initialized then
        return client
      end
    end
  end
  vim.wait(TIMEOUT, function()
    return attached() ~= nil
  end, 20)
  local client = attached()
  results.attached = client ~= nil
  if not client then
    return
  end

  local directive
  for i, line in ipairs(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)) do
    if directive == nil and line:match("omp parallel") then
      directive = i - 1
    end
  end
  local hover = vim.lsp.buf_request_sync(bufnr, "textDocument/hover", {
    textDocument = { uri = vim.uri_from_bufnr(bufnr) },
    position = { line = directive, character = 2 },
  }, TIMEOUT)
  results.hover = hover and hover[client.id] and hover[client.id].result

  -- The user picks the first action the list offers.
  vim.ui.select = function(items, _, on_choice)
    results.actions = #items
    on_choice(items[1], 1)
  end
  vim.api.nvim_win_set_cursor(0, { directive + 1, 0 })
  results.code_action = opened_by(function()
    vim.lsp.buf.code_action()
  end)
  results.command = opened_by(function()
    vim.cmd("PompPreview")
  end)
end

local ok, failure = pcall(session)
results.ok = ok
results.failure = failure and tostring(failure)
local out = io.open(os.getenv("POMP_OUT"), "w")
out:write(vim.fn.json_encode(results))
out:close()
vim.cmd("qa!")
