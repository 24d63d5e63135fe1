"""Scores texts with a fastText classifier (see fasttext_scoring.py for the value).

Usage: fasttext_score.py <model.bin> <label>   (e.g. `hq` for __label__hq)
Reads JSON lines {"id", "text"} on stdin and writes JSON lines {"id", "quality_score"} on stdout, in order.
"""

import json
import sys

from fasttext_scoring import LabelScorer

scorer = LabelScorer(sys.argv[1], sys.argv[2])
out = sys.stdout
for line in sys.stdin:
    if not line.strip():
        continue
    record = json.loads(line)
    out.write(json.dumps({"id": record["id"], "quality_score": scorer.score(record.get("text"))}) + "\n")
out.flush()
