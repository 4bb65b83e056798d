"""A required key the spec gives a default for is not missing: the server uses the default when a
call leaves it out, as the docs' own CSV import call does (``/import/csv-job`` with neither
``separator``, ``quote`` nor ``escape``, which the importer spec lists as required with defaults)."""

from __future__ import annotations

from atlas_core.apicheck import ApiModel, Operation, check_request
from atlas_core.apicheck.model import Spec
from atlas_core.types import Param


def _csv_import() -> ApiModel:
    spec = Spec("importer", "Import", "importer.json", "/rest/2.0")
    job = Operation(
        "POST",
        "/import/csv-job",
        ("import", "csv-job"),
        body=(
            Param("file", "body", "string"),
            Param("separator", "body", "string", required=True, default=";"),
            Param("escape", "body", "string", required=True, default="\\"),
            Param("template", "body", "string", required=True),
        ),
        spec=spec,
    )
    return ApiModel((spec,), [job])


def test_a_required_key_with_a_default_may_be_left_out() -> None:
    model = _csv_import()
    body = {"file": "x.csv", "template": "{}"}
    assert check_request(model, "POST", "/import/csv-job", body=body)[1] == []
    # A required key without a default is still missing, and named alone.
    [missing] = check_request(model, "POST", "/import/csv-job", body={"file": "x.csv"})[1]
    assert missing.check == "missing-required"
    assert "'template'" in missing.message and "separator" not in missing.message
