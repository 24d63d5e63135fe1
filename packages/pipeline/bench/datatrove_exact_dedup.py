"""datatrove's exact document dedup (signature → find duplicates → filter) on a folder of parquet files,
the Python side of the normalize benchmark. Like normalize, which writes the duplicates it drops to
`outputs/dups`, the filter writes the documents it excludes (its `exclusion_writer`, zstd parquet) beside
the kept ones, so both sides produce the same outputs.

usage: datatrove_exact_dedup.py <input folder> <work folder>
prints JSON: {"seconds", "cpu_seconds", "docs_out", "docs_removed"}; one task per stage, one after another.
"""

import json
import resource
import sys
import time

from datatrove.executor import LocalPipelineExecutor
from datatrove.pipeline.dedup import ExactDedupConfig, ExactDedupFilter, ExactDedupSignature, ExactFindDedups
from datatrove.pipeline.readers import ParquetReader
from datatrove.pipeline.writers import ParquetWriter


def content(doc) -> str:
    return doc.text


source, work = sys.argv[1], sys.argv[2]
config = ExactDedupConfig(content_getter=content)
start = time.perf_counter()
cpu0 = [resource.getrusage(w) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)]
for pipeline in (
    [ParquetReader(source), ExactDedupSignature(output_folder=f"{work}/sigs", config=config)],
    [ExactFindDedups(data_folder=f"{work}/sigs", output_folder=f"{work}/dups", config=config)],
    [ParquetReader(source), ExactDedupFilter(data_folder=f"{work}/dups", config=config, exclusion_writer=ParquetWriter(f"{work}/removed", compression="zstd")), ParquetWriter(f"{work}/out", compression="zstd")],
):
    LocalPipelineExecutor(pipeline=pipeline, tasks=1, workers=1, logging_dir=f"{work}/logs-{len(pipeline)}-{time.time()}", skip_completed=False).run()
cpu = [resource.getrusage(w) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)]
seconds = time.perf_counter() - start
import pyarrow.parquet as pq  # noqa: E402
import glob  # noqa: E402

docs_out = sum(pq.ParquetFile(f).metadata.num_rows for f in glob.glob(f"{work}/out/*.parquet"))
docs_removed = sum(pq.ParquetFile(f).metadata.num_rows for f in glob.glob(f"{work}/removed/*.parquet"))
cpu_seconds = sum(c.ru_utime + c.ru_stime for c in cpu) - sum(c.ru_utime + c.ru_stime for c in cpu0)
print(json.dumps({"seconds": seconds, "cpu_seconds": cpu_seconds, "docs_out": docs_out, "docs_removed": docs_removed}))
