"""Exporting: the other way from workbench/importers/. Claims (in the generic import
schema, so an export can be imported again) and runs' predictions, as JSONL or CSV, to a
file (written atomically) or stdout; a claim's stored images beside the file.

    export_claims(store, "dataset:demo label:Refuted", "jsonl", Path("refuted.jsonl"))
    export_predictions(store, [run], "", "csv", None)
"""

from workbench.exporters.writing import IMAGE_EXTENSIONS, claim_record, export_claims, export_predictions

__all__ = ["IMAGE_EXTENSIONS", "claim_record", "export_claims", "export_predictions"]
