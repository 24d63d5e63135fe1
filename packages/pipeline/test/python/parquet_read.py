"""Prints what pyarrow reads from parquet files: one JSON line per file, {"file", "schema", "rows"}.

usage: parquet_read.py <file>...
"""

import json
import sys

import pyarrow.parquet as pq

for path in sys.argv[1:]:
    table = pq.read_table(path)
    schema = {f.name: str(f.type) for f in table.schema}
    print(json.dumps({"file": path, "schema": schema, "rows": table.to_pylist()}, ensure_ascii=False))
