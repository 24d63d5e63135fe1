"""Reference decontamination in Python, following the rules of Marin's datakit decon (word n-grams of whitespace
tokens, n-grams without a letter skipped, one exact feature for a short paragraph of 3 to n-1 tokens, paragraph
overlap = fraction of its features found among the eval features, contaminated when the best paragraph's overlap is
above zero and at least the threshold). Uses an exact Python set of BLAKE2b-64 hashes, as Marin hashes features.

Reads {"ngram": {...}, "eval": [{"id", "text"}], "docs": [{"id", "text"}]} on stdin and prints
{"rows": [{"id", "contaminated", "max_overlap", "matched"}], "seconds", "cpu_seconds"} (marking only).
"""

import hashlib
import json
import sys
import time

MIN_SHORT = 3


def h(s):
    return int.from_bytes(hashlib.blake2b(s.encode(), digest_size=8).digest(), "big")


def has_alpha(s):
    return any(c.isalpha() for c in s)


def short_exact(text, n):
    tokens = text.split()
    if MIN_SHORT <= len(tokens) < n and has_alpha(text):
        return " ".join(tokens)
    return None


def ngrams(text, n, stride):
    tokens = text.split()
    out = []
    for i in range(0, len(tokens) - n + 1, stride + 1):
        g = " ".join(tokens[i : i + n])
        if has_alpha(g):
            out.append(g)
    return out


def paragraph_features(p, cfg):
    s = short_exact(p, cfg["ngram_length"])
    return [s] if s is not None else ngrams(p, cfg["ngram_length"], cfg["stride"])


def document_features(text, cfg):
    out = []
    for p in text.split(cfg["paragraph_delimiter"]):
        if p:
            out.extend(paragraph_features(p, cfg))
    if not out:
        s = short_exact(text, cfg["ngram_length"])
        if s is not None:
            out.append(s)
    return out


job = json.load(sys.stdin)
cfg = job["ngram"]
evals = set()
for record in job["eval"]:
    for f in document_features(record["text"] or "", cfg):
        evals.add(h(f))

started, cpu_started = time.perf_counter(), time.process_time()
rows = []
for doc in job["docs"]:
    text = doc["text"] or ""
    best, matched, any_features = 0.0, set(), False
    for p in text.split(cfg["paragraph_delimiter"]):
        if not p:
            continue
        feats = paragraph_features(p, cfg)
        if not feats:
            continue
        any_features = True
        hashes = [h(f) for f in feats]
        hits = [x for x in hashes if x in evals]
        matched.update(hits)
        best = max(best, len(hits) / len(hashes))
    if not any_features:
        s = short_exact(text, cfg["ngram_length"])
        if s is not None and h(s) in evals:
            best = 1.0
            matched.add(h(s))
    rows.append({"id": doc["id"], "contaminated": best > 0 and best >= cfg["overlap_threshold"], "max_overlap": best, "matched": len(matched)})
seconds = time.perf_counter() - started
cpu_seconds = time.process_time() - cpu_started
print(json.dumps({"rows": rows, "seconds": seconds, "cpu_seconds": cpu_seconds}))
