"""Trains a fastText classifier the way Marin's train_fasttext does, from a file of labelled examples.

Usage: fasttext_train.py <examples.jsonl> <output dir> <seed> <val_frac> <fasttext args JSON>
Each input line is {"text", "label"}. Newlines in texts become spaces, lines become `__label__<label> <text>`, a
seeded `val_frac` of them go to data.val, the rest are shuffled (same seed) into data.train; `train_supervised` runs on
data.train with the given arguments (plus `seed`, `thread` 1 unless given, so the model is reproducible) and the
model is saved as model.bin with its validation metrics in metrics.json. Writes into <output dir> only files that
are complete: each one under a temp name, then renamed.
"""

import json
import os
import random
import re
import sys

import fasttext

examples_path, out_dir, seed, val_frac, args_json = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
fasttext_args = json.loads(args_json)
os.makedirs(out_dir, exist_ok=True)


def formatted(example):
    return f"__label__{example['label']} " + re.sub(r"[\n\r]", " ", example["text"])


with open(examples_path, encoding="utf-8") as f:
    lines = [formatted(json.loads(line)) for line in f if line.strip()]

rng = random.Random(seed)
train, val = [], []
for line in lines:
    (val if rng.random() < val_frac else train).append(line)
random.Random(seed).shuffle(train)


def write_atomic(name, text):
    tmp = os.path.join(out_dir, f".{name}.tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, os.path.join(out_dir, name))


write_atomic("data.train", "\n".join(train) + "\n")
write_atomic("data.val", "\n".join(val) + ("\n" if val else ""))

fasttext_args.setdefault("thread", 1)
fasttext_args.setdefault("seed", seed)
model = fasttext.train_supervised(os.path.join(out_dir, "data.train"), **fasttext_args)
metrics = {"train_examples": len(train), "val_examples": len(val), "labels": [label for label in model.labels]}
if val:
    n, precision, recall = model.test(os.path.join(out_dir, "data.val"))
    metrics.update({"val_precision_at_1": precision, "val_recall_at_1": recall})
tmp_model = os.path.join(out_dir, ".model.bin.tmp")
model.save_model(tmp_model)
os.replace(tmp_model, os.path.join(out_dir, "model.bin"))
write_atomic("metrics.json", json.dumps(metrics, indent=2, sort_keys=True) + "\n")
print(json.dumps(metrics))
