"""Marin's datakit normalize semantics on JSON-lines records, for comparison with the TypeScript step.

Reimplements `normalize.py`'s record path (has_text filter, normalize_record, the whitespace compactor
with Python's `re`, id = format(xxh3_128(text.encode()), "032x"), exact dedup by id) with the same
libraries, since Marin's own module needs `dupekit`, which is not on PyPI.

stdin: JSON {"records": [...], "text_field", "id_field", "max_whitespace_run_chars"}
stdout: JSON {"main": {id: record}, "dups": count, "filtered": count, "compacted": count}
"""

import json
import re
import sys

import xxhash


def generate_id(text: str) -> str:
    return format(xxhash.xxh3_128_intdigest(text.encode("utf-8")), "032x")


def main() -> None:
    job = json.load(sys.stdin)
    text_field, id_field, cap = job["text_field"], job["id_field"], job["max_whitespace_run_chars"]
    pattern = re.compile(r"\s{" + str(cap + 1) + r",}")
    main_out: dict[str, dict] = {}
    dups = filtered = compacted = 0
    for record in job["records"]:
        text = record.get(text_field)
        if text is None or str(text).strip() == "":
            filtered += 1
            continue
        text = str(text)
        source_id = record.get(id_field)
        out = {k: v for k, v in record.items() if k != id_field and not (k == text_field and text_field != "text")}
        out["id"] = generate_id(text)
        out["text"] = text
        if source_id is not None:
            out["source_id"] = source_id
        new_text = pattern.sub(lambda m: m.group(0)[:cap], text)
        if len(new_text) != len(text):
            compacted += 1
            out = {**out, "text": new_text, "id": generate_id(new_text)}
        if out["id"] in main_out:
            dups += 1
        else:
            main_out[out["id"]] = out
    print(json.dumps({"main": main_out, "dups": dups, "filtered": filtered, "compacted": compacted}, ensure_ascii=False))


if __name__ == "__main__":
    main()
