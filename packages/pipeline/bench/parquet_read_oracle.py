"""pyarrow side of the parquet read benchmark.

usage: parquet_read_oracle.py write <docs.jsonl> <out.parquet> <codec> <row_group_rows>
       parquet_read_oracle.py read <file.parquet>
read prints JSON: {"arrow": timing, "python": timing, "chars", "bytes"}: the text column read into Arrow memory
(one thread), and read then turned into Python strings (to_pylist); each timing is {"cpu_seconds",
"wall_seconds"}, the best of 3 of each (chars: code points, bytes: UTF-8 bytes of the column): CPU time of this process (getrusage, user + system) and wall time.
"""

import json
import resource
import sys
import time

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.json as pj
import pyarrow.parquet as pq


def cpu_seconds():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def best(fn, n=3):
    cpu = []
    wall = []
    result = None
    for _ in range(n):
        start, start_cpu = time.perf_counter(), cpu_seconds()
        result = fn()
        cpu.append(cpu_seconds() - start_cpu)
        wall.append(time.perf_counter() - start)
    return {"cpu_seconds": min(cpu), "wall_seconds": min(wall)}, result


if sys.argv[1] == "write":
    table = pj.read_json(sys.argv[2])
    table = table.cast(pa.schema([pa.field("id", pa.int64()), pa.field("text", pa.string())]))
    pq.write_table(table, sys.argv[3], compression=sys.argv[4], row_group_size=int(sys.argv[5]))
else:
    path = sys.argv[2]
    arrow, table = best(lambda: pq.read_table(path, columns=["text"], use_threads=False))
    python, chars = best(lambda: sum(len(t) for t in pq.read_table(path, columns=["text"], use_threads=False).column("text").to_pylist()))
    utf8_bytes = pc.sum(pc.binary_length(table.column("text"))).as_py()
    print(json.dumps({"arrow": arrow, "python": python, "chars": chars, "bytes": utf8_bytes}))
