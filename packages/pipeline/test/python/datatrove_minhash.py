"""datatrove's MinHash dedup pipeline (signatures, buckets, clusters, filter) on one JSON-lines corpus.

Usage: datatrove_minhash.py <corpus.jsonl> <workdir> <num_buckets> <hashes_per_bucket> <ngram_size>
Prints one JSON object: per-stage and total wall and CPU seconds, and each document's cluster label ({id: cluster or null}).
One task per stage (the buckets stage needs one per bucket; they run one after another on one worker).
"""

import json
import resource
import sys
import time

import datatrove.pipeline.dedup.minhash as datatrove_minhash
from datatrove.executor import LocalPipelineExecutor
from datatrove.pipeline.dedup.minhash import (
    MinhashConfig,
    MinhashDedupBuckets,
    MinhashDedupCluster,
    MinhashDedupFilter,
    MinhashDedupSignature,
)
from datatrove.pipeline.readers import JsonlReader
from datatrove.pipeline.writers import JsonlWriter
from datatrove.utils.hashing import HashConfig

corpus, workdir, num_buckets, hashes_per_bucket, ngrams = sys.argv[1], sys.argv[2], *map(int, sys.argv[3:6])
config = MinhashConfig(
    n_grams=ngrams, num_buckets=num_buckets, hashes_per_bucket=hashes_per_bucket, hash_config=HashConfig(precision=64)
)


class WhitespaceWords:
    """Splits datatrove's simplified text on whitespace: the same words our shingles use, and no NLTK data download."""

    def word_tokenize(self, text):
        return text.split()


# datatrove's English tokenizer needs spaCy or NLTK data (a download); after its punctuation-free simplification
# a whitespace split gives the same words, so the signature step gets that instead.
datatrove_minhash.load_word_tokenizer = lambda language: WhitespaceWords()


def signature_step():
    return MinhashDedupSignature(output_folder=f"{workdir}/sigs", config=config)


def reader():
    return JsonlReader(corpus, id_key="id", text_key="text", glob_pattern=None, doc_progress=False)


cpu = {}


def cpu_now():
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def run(name, pipeline, tasks):
    started, cpu_started = time.perf_counter(), cpu_now()
    LocalPipelineExecutor(pipeline=pipeline, tasks=tasks, workers=1, logging_dir=f"{workdir}/logs/{name}", skip_completed=False).run()
    cpu[name] = cpu_now() - cpu_started
    return time.perf_counter() - started


seconds = {
    "signatures": run("sig", [reader(), signature_step()], 1),
    "buckets": run(
        "buckets",
        [MinhashDedupBuckets(input_folder=f"{workdir}/sigs", output_folder=f"{workdir}/buckets", config=config)],
        num_buckets,
    ),
    "clusters": run(
        "clusters",
        [MinhashDedupCluster(input_folder=f"{workdir}/buckets", output_folder=f"{workdir}/remove", config=config, save_cluster_id=True)],
        1,
    ),
    "filter": run(
        "filter",
        [
            reader(),
            MinhashDedupFilter(
                input_folder=f"{workdir}/remove",
                exclusion_writer=JsonlWriter(f"{workdir}/removed", compression=None),
                load_cluster_ids=True,
            ),
            JsonlWriter(f"{workdir}/kept", compression=None),
        ],
        1,
    ),
}
seconds["total"] = sum(seconds.values())
cpu["total"] = sum(cpu.values())

import glob  # noqa: E402

clusters = {}
for path in glob.glob(f"{workdir}/kept/*.jsonl") + glob.glob(f"{workdir}/removed/*.jsonl"):
    with open(path) as f:
        for line in f:
            doc = json.loads(line)
            cid = doc["metadata"].get("minhash_cluster_id", -1)
            clusters[doc["id"]] = None if cid == -1 else cid
print(json.dumps({"seconds": seconds, "cpu_seconds": cpu, "clusters": clusters}))
