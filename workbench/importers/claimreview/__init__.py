"""ClaimReview data in: schema.org ClaimReview markup (JSON-LD files, saved fact-check pages),
Fact Check Tools API `claims:search` responses and the DataCommons feed (shapes.py, read by
reading.py), each review a claim (transform.py), ratings folded into a label space by the
rating map (ratings.py, ratings.toml)."""
