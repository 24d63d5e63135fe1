"""Writes a parquet file with pyarrow whose flat string columns hold nulls, empty strings and non-ASCII
values beside a dictionary-worthy string column, a number, a nested column and the text, and prints what
pyarrow reads back from it, so normalize's output can be compared value by value.

usage: string_columns_fixture.py <out file>
stdout: one JSON line: {"rows": [record, ...]} (records as pyarrow's to_pylist)
"""

import json
import sys

import pyarrow as pa
import pyarrow.parquet as pq


def main() -> None:
    n = 300
    texts = [f"document {i} ünïcödé ✓ {'w' * (i % 17)}" if i % 29 != 4 else "   " for i in range(n)]
    for i in range(10, n, 50):
        texts[i] = "a text seen more than once"
    table = pa.table(
        {
            "id": pa.array([None if i % 13 == 6 else f"src-{i}" for i in range(n)], pa.string()),
            "text": pa.array(texts, pa.string()),
            "url": pa.array([None if i % 7 == 2 else "" if i % 11 == 5 else f"https://例え.jp/{i}/🙂" for i in range(n)], pa.string()),
            "title": pa.array([f"título {i} — ✓" if i % 3 else "" for i in range(n)], pa.string()),
            "lang": pa.array(["en" if i % 4 else None for i in range(n)], pa.string()),
            "score": pa.array([None if i % 9 == 0 else i / 7 for i in range(n)], pa.float64()),
            "meta": pa.array(
                [None if i % 23 == 7 else {"host": f"h{i}.example", "n": i} for i in range(n)],
                pa.struct([("host", pa.string()), ("n", pa.int32())]),
            ),
            "tags": pa.array([[f"t{j}" for j in range(i % 4)] for i in range(n)], pa.list_(pa.string())),
        },
        schema=pa.schema(
            [
                pa.field("id", pa.string()),
                pa.field("text", pa.string(), nullable=False),
                pa.field("url", pa.string()),
                pa.field("title", pa.string(), nullable=False),
                pa.field("lang", pa.string()),
                pa.field("score", pa.float64()),
                pa.field("meta", pa.struct([("host", pa.string()), ("n", pa.int32())])),
                pa.field("tags", pa.list_(pa.string())),
            ]
        ),
    )
    pq.write_table(table, sys.argv[1], row_group_size=64, data_page_size=4096)
    print(json.dumps({"rows": pq.read_table(sys.argv[1]).to_pylist()}, ensure_ascii=False))


if __name__ == "__main__":
    main()
