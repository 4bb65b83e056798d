-- Atlas language server (atlas-ls) for Neovim: hover docs, go-to-doc, workspace symbols, code
-- actions and deprecation warnings for Collibra APIs.
--
-- Neovim 0.11+ registers it with vim.lsp.config / vim.lsp.enable; 0.7-0.10 start it from a
-- FileType autocmd (vim.lsp.start, or vim.lsp.start_client on 0.7). Load it from init.lua
-- (`dofile("/path/to/atlas.lua")`), or copy it to ~/.config/nvim/plugin/atlas.lua.
--
-- Optional, set before this file runs:
--   vim.g.atlas_ls_cmd   = { "atlas-ls" }             -- the server command (a list)
--   vim.g.atlas_bundle   = "/path/to/bundle"          -- or a list of bundle directories
--   vim.g.atlas_settings = { workspaceSymbols = { maxResults = 100 } }  -- merged into `atlas`

local filetypes = {
  "python", "java", "groovy", "kotlin", "javascript", "javascriptreact", "typescript",
  "typescriptreact", "json", "jsonc", "yaml", "sh", "bash", "zsh", "markdown", "graphql",
}

local atlas = vim.tbl_deep_extend("force", {
  workspaceSymbols = { maxResults = 50 },
  diagnostics = { enabled = true },
}, vim.g.atlas_settings or {})
if vim.g.atlas_bundle ~= nil then
  atlas.bundle = vim.g.atlas_bundle
end

-- The same values go out twice: as initializationOptions, so the first bundle opened is the right
-- one, and as `settings`, which Neovim answers workspace/configuration requests from.
local settings = { atlas = atlas }
local cmd = vim.g.atlas_ls_cmd or { "atlas-ls" }

if vim.fn.has("nvim-0.11") == 1 then
  vim.lsp.config("atlas", {
    cmd = cmd,
    filetypes = filetypes,
    root_markers = { ".git" },
    settings = settings,
    init_options = settings,
  })
  vim.lsp.enable("atlas")
else
  -- Neovim 0.7 - 0.10: no vim.lsp.config. Start (or reuse) one client per project root.
  local function find_root(file)
    local git = vim.fn.finddir(".git", vim.fn.fnamemodify(file, ":p:h") .. ";")
    if git ~= "" then
      return vim.fn.fnamemodify(git, ":p:h:h")
    end
    return vim.fn.getcwd()
  end
  local clients = {} -- root -> client id, for 0.7 where vim.lsp.start does not reuse clients
  vim.api.nvim_create_autocmd("FileType", {
    group = vim.api.nvim_create_augroup("atlas_ls", { clear = true }),
    pattern = filetypes,
    callback = function(args)
      local root = find_root(args.file)
      local config = {
        name = "atlas",
        cmd = cmd,
        root_dir = root,
        settings = settings,
        init_options = settings,
      }
      if vim.lsp.start then -- 0.8+
        vim.lsp.start(config, { bufnr = args.buf })
      else
        clients[root] = clients[root] or vim.lsp.start_client(config)
        if clients[root] then
          vim.lsp.buf_attach_client(args.buf, clients[root])
        end
      end
    end,
  })
end
