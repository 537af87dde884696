-- Driven by test_neovim.py: a real Neovim (0.7+) client talks to `playbook-ls serve`.
--
-- Environment:
--   PLAYBOOK_LS_NVIM_CMD   the playbook-ls executable
--   PLAYBOOK_LS_NVIM_ROOT  the workspace (a copy of examples/tag-inheritance)
--   PLAYBOOK_LS_NVIM_OUT   where to write the JSON result
--   PLAYBOOK_LS_NVIM_TIMEOUT_MS (optional, default 60000) how long to wait for each answer
--   PLAYBOOK_LS_NVIM_LOG_LEVEL  (optional) Neovim's LSP log level, e.g. "debug"
--   PLAYBOOK_LS_NVIM_INIT_OPTIONS (optional, JSON) the client's `init_options`
--   PLAYBOOK_LS_NVIM_SETTINGS     (optional, JSON) the client's `settings`, pushed with
--                                 workspace/didChangeConfiguration on init as Neovim 0.8+ does
--   PLAYBOOK_LS_NVIM_EXPECT_CODES (optional, default PLS101) wait until the rule codes of the
--                                 file's diagnostics are exactly these (comma-separated)
--
-- The result holds the hover text on task2, the diagnostics of its file, the messages the
-- server showed or logged, and the server's exit code. Any error is written into the result
-- as `error` and nvim exits non-zero (`cq`), so nothing is left waiting.

local uv = vim.uv or vim.loop
local out_path = os.getenv("PLAYBOOK_LS_NVIM_OUT")
local result = { messages = {}, client_errors = {} }
local started = uv.hrtime()

local function elapsed_ms()
  return math.floor((uv.hrtime() - started) / 1e6)
end

local function write_result()
  local file = assert(io.open(out_path, "w"))
  file:write(vim.json.encode(result))
  file:close()
end

local function env(name)
  local value = os.getenv(name)
  assert(value and value ~= "", name .. " is not set")
  return value
end

-- Record what the server shows or logs, then let Neovim's own handler run as usual.
local function recording(method, kind)
  local default = vim.lsp.handlers[method]
  return function(err, params, ctx, config)
    if #result.messages < 200 then
      table.insert(result.messages, { kind = kind, type = params and params.type, message = params and params.message })
    end
    if default and method ~= "window/showMessage" then -- shown messages stay in the result only
      return default(err, params, ctx, config)
    end
  end
end

local function hover_text(contents)
  if type(contents) == "string" then
    return contents
  end
  if type(contents) ~= "table" then
    return nil
  end
  if contents.value ~= nil then
    return contents.value
  end
  local parts = {}
  for _, item in ipairs(contents) do
    table.insert(parts, type(item) == "table" and item.value or item)
  end
  return table.concat(parts, "\n")
end

local function collect_diagnostics(bufnr)
  local collected = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    -- Neovim 0.7+ sets a top-level `code`; some releases kept it only in user_data.lsp.code.
    local code = d.code
    if code == nil and d.user_data and d.user_data.lsp then
      code = d.user_data.lsp.code
    end
    table.insert(collected, {
      message = d.message, code = code, source = d.source, line = d.lnum, col = d.col, severity = d.severity,
    })
  end
  return collected
end

local function json_env(name)
  local value = os.getenv(name)
  if value and value ~= "" then
    return vim.json.decode(value)
  end
end

local function codes_of(bufnr)
  local seen, codes = {}, {}
  for _, d in ipairs(collect_diagnostics(bufnr)) do
    local code = tostring(d.code)
    if not seen[code] then
      seen[code] = true
      table.insert(codes, code)
    end
  end
  table.sort(codes)
  return table.concat(codes, ",")
end

local function main()
  local cmd = env("PLAYBOOK_LS_NVIM_CMD")
  local root = env("PLAYBOOK_LS_NVIM_ROOT")
  local timeout_ms = tonumber(os.getenv("PLAYBOOK_LS_NVIM_TIMEOUT_MS") or "60000")
  if os.getenv("PLAYBOOK_LS_NVIM_LOG_LEVEL") then
    vim.lsp.set_log_level(os.getenv("PLAYBOOK_LS_NVIM_LOG_LEVEL"))
  end
  result.log_path = vim.lsp.get_log_path()
  result.nvim_version = tostring(vim.version().major) .. "." .. vim.version().minor .. "." .. vim.version().patch

  local expected = vim.split(os.getenv("PLAYBOOK_LS_NVIM_EXPECT_CODES") or "PLS101", ",", { trimempty = true })
  table.sort(expected)
  expected = table.concat(expected, ",")
  local settings = json_env("PLAYBOOK_LS_NVIM_SETTINGS")

  local exited = false
  local client_id = vim.lsp.start_client({
    name = "playbook-ls",
    cmd = { cmd, "serve" },
    root_dir = root,
    init_options = json_env("PLAYBOOK_LS_NVIM_INIT_OPTIONS"),
    settings = settings,
    on_init = function(client)
      if settings and vim.version().minor < 8 and vim.version().major == 0 then
        client.notify("workspace/didChangeConfiguration", { settings = settings })
      end
    end,
    handlers = {
      ["window/showMessage"] = recording("window/showMessage", "show"),
      ["window/logMessage"] = recording("window/logMessage", "log"),
    },
    on_error = function(code, err)
      table.insert(result.client_errors, { code = vim.lsp.client_errors[code] or code, err = tostring(err) })
    end,
    on_exit = function(code, signal)
      result.server_exit = { code = code, signal = signal }
      exited = true
    end,
  })
  assert(client_id, "vim.lsp.start_client failed for " .. cmd)

  vim.cmd("edit " .. vim.fn.fnameescape(root .. "/roles/sample/tasks/main.yml"))
  local bufnr = vim.api.nvim_get_current_buf()
  vim.bo[bufnr].filetype = "yaml" -- the languageId of didOpen (no ftplugin runs under -u NONE)
  assert(vim.lsp.buf_attach_client(bufnr, client_id), "vim.lsp.buf_attach_client failed")

  -- Diagnostics are published once the workspace is indexed and the rules have run (again
  -- after a change of settings).
  local got = vim.wait(timeout_ms, function()
    return codes_of(bufnr) == expected or exited
  end, 50)
  assert(not exited, "the server exited before publishing diagnostics")
  assert(got, "the diagnostics of roles/sample/tasks/main.yml have the codes [" .. codes_of(bufnr)
    .. "], not [" .. expected .. "], after " .. timeout_ms .. " ms")
  result.diagnostics_ms = elapsed_ms()

  local line, col
  for i, text in ipairs(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)) do
    local found = text:find("task2", 1, true)
    if found then
      line, col = i - 1, found - 1
      break
    end
  end
  assert(line, "no line with task2 in roles/sample/tasks/main.yml")
  result.hover_line = line

  local params = { textDocument = { uri = vim.uri_from_bufnr(bufnr) }, position = { line = line, character = col } }
  local deadline = elapsed_ms() + timeout_ms
  local last_err
  repeat
    local responses, err = vim.lsp.buf_request_sync(bufnr, "textDocument/hover", params, 5000)
    last_err = err
    local response = responses and responses[client_id]
    if response and response.err then
      last_err = vim.inspect(response.err)
    elseif response and response.result then
      local text = hover_text(response.result.contents)
      -- until the file is indexed, the hover says so ("indexing the workspace"): not the answer yet
      if text and text ~= "" and not text:find("indexing the workspace", 1, true) then
        result.hover = text
      end
    end
    if not result.hover then
      vim.wait(100)
    end
  until result.hover or exited or elapsed_ms() > deadline
  assert(result.hover, "no hover on task2 (line " .. line .. "): " .. tostring(last_err))
  result.hover_ms = elapsed_ms()

  result.diagnostics = collect_diagnostics(bufnr)

  -- A clean shutdown: `shutdown` then `exit`; the server should end by itself.
  vim.lsp.stop_client(client_id)
  vim.wait(10000, function() return exited end, 50)
  result.stopped_ms = elapsed_ms()
end

local ok, err = xpcall(main, debug.traceback)
if not ok then
  result.error = tostring(err)
end
if out_path then
  pcall(write_result)
end
if ok then
  vim.cmd("qa!")
else
  io.stderr:write(tostring(err) .. "\n")
  vim.cmd("cq")
end
