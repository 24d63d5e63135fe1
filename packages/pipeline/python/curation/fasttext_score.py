"""Scores texts with a fastText classifier: the probability fastText predicts for one label (as its predict()
reports it, which adds 1e-5 before the log), Marin's quality attribute value.

Usage: fasttext_score.py <model.bin> <label>   (e.g. `hq` for __label__hq)
Reads JSON lines {"id", "text"} on stdin and writes JSON lines {"id", "quality_score"} on stdout, in order. Newlines in a
text become spaces (fastText predicts one line). Calls the bindings' low-level predict, which returns plain pairs,
so it does not depend on numpy's copy semantics.
"""

import json
import re
import sys

import fasttext

model = fasttext.load_model(sys.argv[1])
wanted = f"__label__{sys.argv[2]}"
k = len(model.labels)
out = sys.stdout
for line in sys.stdin:
    if not line.strip():
        continue
    record = json.loads(line)
    text = re.sub(r"[\n\r]", " ", record.get("text") or "")
    pairs = model.f.predict(text + "\n", k, 0.0, "strict")
    score = 0.0
    for prob, label in pairs:
        if label == wanted:
            score = prob
    out.write(json.dumps({"id": record["id"], "quality_score": score}) + "\n")
out.flush()
