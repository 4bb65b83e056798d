"""Emacs + Eglot (batch mode) loads the exact ``editors/emacs/atlas-eglot.el`` and talks to
``atlas-ls``: hover, go-to-definition, workspace symbols and the settings it sends.

Skips unless ``emacs`` with Eglot is installed (Debian: ``apt-get install -y emacs-nox elpa-eglot``).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.lsp_support import ROOT, build_lsp_bundle, server_env

pytestmark = pytest.mark.slow

SNIPPET = ROOT / "editors" / "emacs" / "atlas-eglot.el"

DRIVER = r"""
(require 'json)
(defun atlas-test-write (value)
  (with-temp-file (getenv "RESULT_FILE") (insert (json-encode value))))
(condition-case err
    (let* ((file (getenv "SAMPLE"))
           (results nil))
      (load (getenv "SNIPPET") nil t)
      (find-file file)
      (setq eglot-sync-connect 60)
      (let ((inhibit-message t))
        (apply #'eglot (eglot--guess-contact)))
      ;; eglot-sync-connect returns on any process output (the server's stderr log included), so
      ;; wait for the buffer to be managed.
      (with-timeout (60 nil)
        (while (not (eglot-current-server)) (accept-process-output nil 0.1)))
      (let ((server (eglot-current-server)))
        (unless server (error "eglot did not connect"))
        (push (cons "mode" (symbol-name major-mode)) results)
        (cl-flet ((at (line col)
                    (goto-char (point-min)) (forward-line (1- line)) (forward-char col)
                    (eglot--TextDocumentPositionParams))
                  (ask (method params)
                    (jsonrpc-request server method params :timeout 30)))
          (push (cons "hover" (ask :textDocument/hover (at 3 31))) results)
          (push (cons "definition" (ask :textDocument/definition (at 1 22))) results)
          (push (cons "symbols" (ask :workspace/symbol '(:query "findass"))) results)
          (push (cons "debug" (ask :workspace/executeCommand '(:command "atlas.debugInfo")))
                results))
        (ignore-errors (let ((inhibit-message t)) (eglot-shutdown server))))
      (atlas-test-write results)
      (kill-emacs 0))
  (error (atlas-test-write (list (cons "error" (format "%S" err)))) (kill-emacs 2)))
"""

SAMPLE = """#!/bin/sh
lineage-harvester full-sync --config harvester.yaml
curl -X PATCH "$BASE/rest/2.0/assets/$ASSET_ID" -d @body.json
"""


@pytest.fixture(scope="module")
def emacs() -> str:
    binary = shutil.which("emacs")
    if binary is None:
        pytest.skip("emacs is not installed (Debian: apt-get install -y emacs-nox elpa-eglot)")
    probe = subprocess.run(
        [binary, "--batch", "-q", "--eval", "(require 'eglot)"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    if probe.returncode != 0:
        pytest.skip("Eglot is not installed for this Emacs (Debian: apt-get install -y elpa-eglot)")
    return binary


def test_eglot_with_the_shipped_snippet(
    emacs: str, hash_bundle: Path, tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    lsp_bundle = build_lsp_bundle(tmp_path_factory.getbasetemp())
    project = tmp_path / "project"
    project.mkdir()
    sample = project / "sync.sh"
    sample.write_text(SAMPLE, encoding="utf-8")
    driver = tmp_path / "driver.el"
    driver.write_text(DRIVER, encoding="utf-8")
    result_file = tmp_path / "result.json"
    bundles = " ".join(json.dumps(str(b)) for b in (hash_bundle, lsp_bundle))
    env = server_env(
        tmp_path / "home",
        HOME=str(tmp_path / "emacs-home"),
        PATH=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]),
        RESULT_FILE=str(result_file),
        SAMPLE=str(sample),
        SNIPPET=str(SNIPPET),
    )
    proc = subprocess.run(
        [emacs, "--batch", "-q", "--eval", f"(setq atlas-eglot-bundle (list {bundles}))",
         "-l", str(driver)],
        cwd=project, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
        timeout=180,
    )  # fmt: skip
    assert result_file.is_file(), f"emacs wrote no result (rc={proc.returncode}): {proc.stderr}"
    out = json.loads(result_file.read_text())
    assert "error" not in out, out.get("error")
    assert proc.returncode == 0
    assert out["mode"] == "sh-mode"

    hover = out["hover"]["contents"]["value"]
    assert "**PATCH** `/assets/{assetId}`" in hover

    definition = out["definition"]
    location = definition[0] if isinstance(definition, list) else definition
    assert location["uri"].startswith((lsp_bundle / "mirror").resolve().as_uri())
    lines = Path(location["uri"].removeprefix("file://")).read_text().splitlines()
    start = location["range"]["start"]["line"]
    assert "full-sync" in "\n".join(lines[start : start + 4])

    assert "findAssets" in [s["name"] for s in out["symbols"]]
    debug = out["debug"]
    assert debug["settings"]["bundle"] == [str(hash_bundle), str(lsp_bundle)]
    assert debug["settings"]["maxResults"] == 50
