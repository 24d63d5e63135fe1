"""pyarrow side of the parquet read benchmark.

usage: parquet_read_oracle.py write <docs.jsonl> <out.parquet> <codec> <row_group_rows>
       parquet_read_oracle.py read <file.parquet>
read prints JSON: {"arrow_seconds", "python_seconds", "chars"}: the text column read into Arrow memory
(one thread), and read then turned into Python strings (to_pylist), best of 3 each.
"""

import json
import sys
import time

import pyarrow as pa
import pyarrow.json as pj
import pyarrow.parquet as pq


def best(fn, n=3):
    times = []
    result = None
    for _ in range(n):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return min(times), result


if sys.argv[1] == "write":
    table = pj.read_json(sys.argv[2])
    table = table.cast(pa.schema([pa.field("id", pa.int64()), pa.field("text", pa.string())]))
    pq.write_table(table, sys.argv[3], compression=sys.argv[4], row_group_size=int(sys.argv[5]))
else:
    path = sys.argv[2]
    arrow_s, table = best(lambda: pq.read_table(path, columns=["text"], use_threads=False))
    python_s, chars = best(lambda: sum(len(t) for t in pq.read_table(path, columns=["text"], use_threads=False).column("text").to_pylist()))
    print(json.dumps({"arrow_seconds": arrow_s, "python_seconds": python_s, "chars": chars}))
