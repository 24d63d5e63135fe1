"""datasketch's MinHash and MinHashLSH on given shingle sets.

Reads one JSON object on stdin: {"num_perm", "bands", "rows", "seed", "docs": [[shingle, ...], ...], "pairs": [[a, b], ...]}.
Prints {"estimates": [Jaccard estimate per pair], "clusters": [component label per doc]}: the connected components of
the LSH candidate graph (every document joined with every document its query returns).
"""

import json
import sys

from datasketch import MinHash, MinHashLSH

job = json.load(sys.stdin)
num_perm = job["num_perm"]
sigs = []
for shingles in job["docs"]:
    m = MinHash(num_perm=num_perm, seed=job["seed"])
    m.update_batch([s.encode("utf-8") for s in shingles])
    sigs.append(m)

estimates = [sigs[a].jaccard(sigs[b]) for a, b in job["pairs"]]

lsh = MinHashLSH(num_perm=num_perm, params=(job["bands"], job["rows"]))
for i, m in enumerate(sigs):
    if job["docs"][i]:
        lsh.insert(i, m)

parent = list(range(len(sigs)))


def find(x):
    while parent[x] != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x


for i, m in enumerate(sigs):
    if not job["docs"][i]:
        continue
    for j in lsh.query(m):
        ri, rj = find(i), find(j)
        if ri != rj:
            parent[max(ri, rj)] = min(ri, rj)

print(json.dumps({"estimates": estimates, "clusters": [find(i) for i in range(len(sigs))]}))
