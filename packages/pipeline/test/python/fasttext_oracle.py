"""Independent fastText scores: softmax of the output matrix times the sentence vector (the hidden layer fastText's
supervised predict computes), plus fastText's 1e-5, without calling predict.

Usage: fasttext_oracle.py <model.bin> <label>; JSON lines {"id", "text"} on stdin, {"id", "quality_score"} on stdout.
"""

import json
import re
import sys

import fasttext
import numpy as np

model = fasttext.load_model(sys.argv[1])
index = model.labels.index(f"__label__{sys.argv[2]}")
output = model.get_output_matrix()
for line in sys.stdin:
    if not line.strip():
        continue
    record = json.loads(line)
    hidden = model.get_sentence_vector(re.sub(r"[\n\r]", " ", record["text"] or ""))
    z = output @ hidden
    p = np.exp(z - z.max())
    p /= p.sum()
    print(json.dumps({"id": record["id"], "quality_score": float(p[index]) + 1e-5}))
