"""Measures a mixture's shares with Levanter's own data loader.

Usage: python mixture_shares.py <levanter_config.yaml> <seq_len> <batch_size> <num_sequences>

Reads the `data` section of the TrainLmConfig a train step wrote, builds the training set as train_lm
does (LmDataConfig.train_set: per-component shuffles, then MixtureDataset with the config's weights and
block size), samples the first <num_sequences> sequences and attributes each one to the one component
whose token ids it contains. The components' documents use disjoint token ids (apart from the special
tokens and ids every component has, which are ignored); every id of each component is collected from its
whole dataset first. Prints one JSON line: {"counts", "weights", "unattributed", "sampled", "shared_ids"}.
"""

import json
import sys

import draccus
import haliax as hax
import jax
import numpy as np
import yaml
from levanter.data.text import LmDataConfig
from levanter.schedule import BatchSchedule

config_path, seq_len, batch_size, num_sequences = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
with open(config_path) as f:
    data = draccus.decode(LmDataConfig, yaml.safe_load(f)["data"])

Pos = hax.Axis("position", seq_len)
key = jax.random.PRNGKey(0)
weights = data.train_weights if isinstance(data.train_weights, dict) else data.train_weights[0][1]
train_names = [name for name, w in weights.items() if w > 0]
special = {data.the_tokenizer.bos_token_id, data.the_tokenizer.eos_token_id}

# Each component's token ids, from its own dataset as the loader reads it.
ids = {}
for name, ds in data.train_sets(Pos, key=key, initial_batch_size=batch_size).items():
    sync = ds.as_sync_dataset()
    seen = set()
    for example in sync.get_batch(list(range(len(sync)))):
        seen.update(int(t) for t in np.asarray(example.tokens))
    ids[name] = seen - special
# Ids every component uses (the separator the tokenizer puts between long runs) identify none of them.
shared = set.intersection(*ids.values()) if len(ids) > 1 else set()
ids = {name: s - shared for name, s in ids.items()}
for a in ids:
    for b in ids:
        if a < b and ids[a] & ids[b]:
            raise SystemExit(f"components {a} and {b} share token ids {sorted(ids[a] & ids[b])[:10]}")

mixture = data.train_set(Pos, BatchSchedule(batch_size), key=key).as_sync_dataset()
counts = {name: 0 for name in train_names}
unattributed = 0
for start in range(0, num_sequences, 256):
    batch = mixture.get_batch(list(range(start, min(start + 256, num_sequences))))
    for example in batch:
        tokens = set(int(t) for t in np.asarray(example.tokens.array)) - special - shared
        owners = [name for name, s in ids.items() if tokens & s]
        if len(owners) == 1:
            counts[owners[0]] += 1
        else:
            unattributed += 1
total = sum(weights[n] for n in train_names)
print(json.dumps({"counts": counts, "weights": {n: weights[n] / total for n in train_names}, "unattributed": unattributed, "sampled": num_sequences, "shared_ids": sorted(shared)}))
