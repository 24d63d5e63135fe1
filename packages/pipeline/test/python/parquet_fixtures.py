"""Writes parquet fixtures with pyarrow for every codec, encoding and data page version, and prints what
pyarrow reads back from each file, so the TypeScript reader can be compared record by record.

usage: parquet_fixtures.py <out dir>
stdout: one JSON object per line: {"file": name, "rows": [record, ...]} (records as pyarrow's to_pylist)
"""

import json
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

CODECS = ["none", "snappy", "gzip", "brotli", "zstd", "lz4"]


def table() -> pa.Table:
    n = 257
    big = "".join(chr(0x41 + (i % 26)) for i in range(1_200_000)) + " é ✓ 🙂"
    texts = [None if i % 17 == 5 else f"document {i}: " + "word " * (i % 13) + "ünïcödé ✓" for i in range(n)]
    texts[100] = big
    return pa.table(
        {
            "id": pa.array(range(n), pa.int64()),
            "text": pa.array(texts, pa.string()),
            "large": pa.array([None if i % 11 == 3 else "L" * (i % 7) + str(i) for i in range(n)], pa.large_string()),
            "score": pa.array([None if i % 9 == 0 else i / 7 for i in range(n)], pa.float64()),
            "flag": pa.array([i % 3 == 0 for i in range(n)], pa.bool_()),
            "source": pa.array(["fineweb" if i % 2 else "dclm" for i in range(n)], pa.string()),
            "meta": pa.array(
                [None if i % 23 == 7 else {"url": f"https://example.com/{i}", "lang": "en", "n": i} for i in range(n)],
                pa.struct([("url", pa.string()), ("lang", pa.string()), ("n", pa.int32())]),
            ),
            "tags": pa.array([[f"t{j}" for j in range(i % 4)] if i % 19 != 4 else None for i in range(n)], pa.list_(pa.string())),
        }
    )


def main() -> None:
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    t = table()
    files = []
    for codec in CODECS:
        for dictionary in (True, False):
            for page in ("1.0", "2.0"):
                name = f"{codec}-{'dict' if dictionary else 'plain'}-v{page[0]}.parquet"
                pq.write_table(
                    t,
                    out / name,
                    compression=codec,
                    use_dictionary=dictionary,
                    data_page_version=page,
                    row_group_size=50,
                    data_page_size=64 * 1024,
                )
                files.append(name)
    for name in files:
        rows = pq.read_table(out / name).to_pylist()
        print(json.dumps({"file": name, "rows": rows}, ensure_ascii=False))


if __name__ == "__main__":
    main()
