"""Checks token caches with Levanter's own loader, and builds one with Levanter's own builder.

Usage: python levanter_cache_oracle.py <spec.json>

The spec names a tokenizer directory (a byte-level BPE is trained there when it has no
tokenizer.json), caches to load, an optional corpus to build a Levanter cache from, and the file
the results go to. Expected rows come from the same deterministic formula the TypeScript test uses:
row r (with seed s) has 1 + ((r + s) * 7919) % max_len tokens, token i being ((r + s) * 31 + i * 17) % 50000.
"""

import asyncio
import json
import os
import sys

import numpy as np


def expected_row(r: int, max_len: int, seed: int) -> np.ndarray:
    n = 1 + ((r + seed) * 7919) % max_len
    return ((r + seed) * 31 + np.arange(n, dtype=np.int64) * 17) % 50000


def train_tokenizer(directory: str, corpus: list[str]) -> None:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    specials = ["<|begin_of_text|>", "<|end_of_text|>"]
    trainer = trainers.BpeTrainer(vocab_size=512, special_tokens=specials, initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(corpus, trainer)
    os.makedirs(directory, exist_ok=True)
    tok.save(os.path.join(directory, "tokenizer.json"))
    with open(os.path.join(directory, "tokenizer_config.json"), "w") as f:
        json.dump({"bos_token": specials[0], "eos_token": specials[1], "tokenizer_class": "PreTrainedTokenizerFast"}, f)


def check_cache(entry: dict, tokenizer) -> dict:
    from levanter.data.text.cache import load_lm_dataset_cache
    from levanter.data.text.datasets import TokenSeqDataset
    from levanter.data.text.formats import TextLmDatasetFormat

    # The loader LmDataConfig.build_caches uses for an existing cache.
    cache = load_lm_dataset_cache(entry["path"], TextLmDatasetFormat(), tokenizer)
    parts = entry["parts"]  # [{rows, max_len, seed}] concatenated in order
    expected = [expected_row(r, p["max_len"], p["seed"]) for p in parts for r in range(p["rows"])]
    result = {"rows": len(cache), "tokens": cache.flat_field_length("input_ids"), "is_sharded": cache.is_sharded}

    sample = entry.get("sample_rows")
    indices = list(range(len(expected))) if sample is None else [i for i in sample if i < len(expected)]
    rows = cache.get_batch_sync(indices) if indices else []
    mismatches = [i for i, row in zip(indices, rows) if not np.array_equal(np.asarray(row["input_ids"]), expected[i])]
    result["rows_checked"] = len(indices)
    result["row_mismatches"] = mismatches[:10]
    result["dtype"] = str(np.asarray(rows[0]["input_ids"]).dtype) if rows else None

    # Fixed windows across document boundaries, as training reads them.
    seq_len = entry["seq_len"]
    ds = TokenSeqDataset(cache, seq_len)
    n_windows = asyncio.run(ds.async_len())
    window_indices = sorted({i for i in entry.get("windows", []) if i < n_windows} | {0, n_windows - 1})
    windows = asyncio.run(ds.get_batch(window_indices))
    window_mismatches = []
    for k, w in zip(window_indices, windows):
        start, end = k * seq_len, (k + 1) * seq_len
        want = flat_slice(expected, start, end)
        if not np.array_equal(np.asarray(w["input_ids"]), want):
            window_mismatches.append(k)
    result["windows_checked"] = len(window_indices)
    result["window_mismatches"] = window_mismatches
    return result


def flat_slice(rows: list[np.ndarray], start: int, end: int) -> np.ndarray:
    out = []
    pos = 0
    for row in rows:
        if pos + len(row) > start and pos < end:
            out.append(row[max(0, start - pos) : min(len(row), end - pos)])
        pos += len(row)
        if pos >= end:
            break
    return np.concatenate(out) if out else np.zeros(0, dtype=np.int64)


def build_levanter_cache(build: dict, tokenizer) -> dict:
    from levanter.data.sharded_datasource import datasource_from_jsonl
    from levanter.data.text.cache import build_lm_dataset_cache
    from levanter.data.text.formats import TextLmDatasetFormat

    cache = build_lm_dataset_cache(build["cache_dir"], datasource_from_jsonl([build["jsonl"]]), TextLmDatasetFormat(), tokenizer)
    rows = cache.get_batch_sync(list(range(len(cache))))
    with open(build["rows_out"], "w") as f:
        json.dump([np.asarray(r["input_ids"]).tolist() for r in rows], f)
    return {"rows": len(cache), "tokens": cache.flat_field_length("input_ids"), "is_sharded": cache.is_sharded}


def main() -> None:
    with open(sys.argv[1]) as f:
        spec = json.load(f)
    tok_dir = spec["tokenizer_dir"]
    if not os.path.isfile(os.path.join(tok_dir, "tokenizer.json")):
        with open(spec["build"]["jsonl"]) as f:
            train_tokenizer(tok_dir, [json.loads(line)["text"] for line in f])
    from levanter.tokenizers import load_tokenizer

    tokenizer = load_tokenizer(tok_dir)
    results = {"caches": {name: check_cache(entry, tokenizer) for name, entry in spec["caches"].items()}}
    if spec.get("build"):
        results["build"] = build_levanter_cache(spec["build"], tokenizer)
    with open(spec["out"], "w") as f:
        json.dump(results, f)


if __name__ == "__main__":
    main()
