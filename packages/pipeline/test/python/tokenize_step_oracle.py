"""Compares a token cache written by the TypeScript tokenize step with Levanter's own.

For each split: Levanter's own builder tokenizes the same JSON-lines files with the same tokenizer
into a cache of its own, Levanter's loader (`load_lm_dataset_cache`, which validates a sharded ledger)
opens the TypeScript cache, and the two are compared row by row.

argv[1]: a JSON spec {"tokenizer_dir", "ts_cache", "work_dir", "splits": {split: [files]}, "out"}.
Writes {split: {"rows", "tokens", "levanter_rows", "levanter_tokens", "is_sharded", "mismatched_rows"}} to "out".
"""

import json
import os
import sys

import numpy as np


def compare_split(split: str, files: list[str], spec: dict, tokenizer) -> dict:
    from levanter.data.sharded_datasource import datasource_from_jsonl
    from levanter.data.text.cache import build_lm_dataset_cache, load_lm_dataset_cache
    from levanter.data.text.formats import TextLmDatasetFormat

    ours = load_lm_dataset_cache(os.path.join(spec["ts_cache"], split), TextLmDatasetFormat(), tokenizer)
    theirs = build_lm_dataset_cache(
        os.path.join(spec["work_dir"], "levanter", split), datasource_from_jsonl(files), TextLmDatasetFormat(), tokenizer
    )
    our_rows = ours.get_batch_sync(list(range(len(ours))))
    their_rows = theirs.get_batch_sync(list(range(len(theirs))))
    mismatched = [
        i
        for i, (a, b) in enumerate(zip(our_rows, their_rows))
        if not np.array_equal(np.asarray(a["input_ids"], dtype=np.int64), np.asarray(b["input_ids"], dtype=np.int64))
    ]
    return {
        "rows": len(ours),
        "tokens": int(ours.flat_field_length("input_ids")),
        "levanter_rows": len(theirs),
        "levanter_tokens": int(theirs.flat_field_length("input_ids")),
        "is_sharded": bool(ours.is_sharded),
        "mismatched_rows": mismatched[:20],
    }


def main() -> None:
    with open(sys.argv[1]) as f:
        spec = json.load(f)
    from levanter.tokenizers import load_tokenizer

    tokenizer = load_tokenizer(spec["tokenizer_dir"])
    results = {split: compare_split(split, files, spec, tokenizer) for split, files in spec["splits"].items()}
    with open(spec["out"], "w") as f:
        json.dump(results, f)


if __name__ == "__main__":
    main()
