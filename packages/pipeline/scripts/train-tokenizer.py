"""Trains the small tokenizers this package ships and tests with, deterministically, from generated text.

Usage (from the repository root, with the Levanter environment's Python, which has `tokenizers`):

    PY=$(node --conditions=@marin/source --import tsx tools/python-env/python-env.mjs packages/pipeline/python/levanter.lock)
    "$PY" packages/pipeline/scripts/train-tokenizer.py

Writes:

* ``assets/tokenizers/marin-tiny-bpe/``: a byte-level BPE (1,024 ids, Llama-3-style BOS/EOS names) that
  ``transformers.AutoTokenizer`` and Levanter's ``load_tokenizer`` both load. Shipped for tests and examples.
* ``test/fixtures/tokenizers/tiny-unigram/``: a SentencePiece-style Unigram (NFKC + Metaspace), BOS/EOS given
  as ``{"content": ...}`` objects.
* ``test/fixtures/tokenizers/tiny-wordlevel/``: a WordLevel model with an EOS token and no BOS token.

The training text is generated here from a seeded PRNG (made-up words, prose, HTML and Markdown), so no
downloaded or copyrighted text is involved and re-running the script rewrites identical files.
"""

import json
import os
import random
import sys
from pathlib import Path

# Single-threaded training keeps merge order independent of scheduling.
os.environ["RAYON_NUM_THREADS"] = "1"
os.environ["TOKENIZERS_PARALLELISM"] = "false"

from tokenizers import Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers  # noqa: E402

PACKAGE = Path(__file__).resolve().parent.parent
SEED = 20240611

ONSETS = ["", "b", "c", "d", "f", "g", "h", "j", "k", "l", "m", "n", "p", "r", "s", "t", "v", "w", "th", "st", "pr", "tr", "ch", "sh", "bl", "gr"]
VOWELS = ["a", "e", "i", "o", "u", "ea", "ou", "ai", "io", "y"]
CODAS = ["", "", "n", "r", "s", "t", "l", "nd", "st", "ck", "ng", "m", "rd", "ss"]
FUNCTION_WORDS = [
    "the", "of", "and", "to", "in", "a", "is", "that", "for", "it", "as", "was", "with", "be", "by", "on",
    "not", "he", "she", "they", "this", "are", "or", "his", "her", "from", "at", "which", "but", "have",
    "an", "had", "were", "their", "one", "all", "we", "can", "there", "been", "if", "more", "when", "will",
]
TAGS = ["p", "div", "span", "li", "td", "h2", "em", "strong"]


def make_lexicon(rng: random.Random, size: int) -> list[str]:
    words: set[str] = set()
    while len(words) < size:
        syllables = rng.choice([1, 1, 2, 2, 2, 3, 3, 4])
        words.add("".join(rng.choice(ONSETS) + rng.choice(VOWELS) + rng.choice(CODAS) for _ in range(syllables)))
    return sorted(words)


def sentence(rng: random.Random, lexicon: list[str]) -> str:
    words = []
    for _ in range(rng.randint(4, 18)):
        r = rng.random()
        if r < 0.45:
            words.append(rng.choice(FUNCTION_WORDS))
        elif r < 0.93:
            words.append(rng.choice(lexicon))
        elif r < 0.97:
            words.append(str(rng.randint(0, 10 ** rng.randint(1, 6))))
        else:
            words.append(rng.choice(["1.5", "3.14", "2024", "42%", "$19.99", "10,000", "7:30", "2nd", "(see", "e.g."]))
    text = " ".join(words)
    if rng.random() < 0.2:
        cut = rng.randint(1, len(words) - 1)
        text = " ".join(words[:cut]) + ", " + " ".join(words[cut:])
    return text[0].upper() + text[1:] + rng.choice([".", ".", ".", "?", "!", ";", ":"])


def paragraph(rng: random.Random, lexicon: list[str]) -> str:
    return " ".join(sentence(rng, lexicon) for _ in range(rng.randint(2, 7)))


def html_document(rng: random.Random, lexicon: list[str]) -> str:
    title = " ".join(rng.choice(lexicon) for _ in range(3)).title()
    body = []
    for _ in range(rng.randint(2, 6)):
        tag = rng.choice(TAGS)
        attrs = rng.choice(["", ' class="content"', f' id="{rng.choice(lexicon)}"', ' style="color: #333;"'])
        inner = paragraph(rng, lexicon)
        if rng.random() < 0.4:
            word = rng.choice(lexicon)
            inner += f' <a href="https://example.org/{word}/{rng.randint(1, 999)}.html">{word}</a>'
        body.append(f"  <{tag}{attrs}>{inner}</{tag}>")
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n  <meta charset="utf-8">\n'
        f"  <title>{title}</title>\n</head>\n<body>\n" + "\n".join(body) + "\n</body>\n</html>"
    )


def markdown_document(rng: random.Random, lexicon: list[str]) -> str:
    parts = [f"# {' '.join(rng.choice(lexicon) for _ in range(3)).title()}", ""]
    for _ in range(rng.randint(2, 5)):
        kind = rng.random()
        if kind < 0.3:
            parts.append(f"## {rng.choice(lexicon).title()} {rng.choice(lexicon)}")
        elif kind < 0.5:
            parts.extend(f"- **{rng.choice(lexicon)}**: {sentence(rng, lexicon)}" for _ in range(rng.randint(2, 4)))
        elif kind < 0.6:
            parts.extend(f"{i}. {sentence(rng, lexicon)}" for i in range(1, rng.randint(3, 5)))
        elif kind < 0.7:
            name = rng.choice(lexicon)
            parts.append(f"```python\ndef {name}(x):\n    return x * {rng.randint(2, 9)}\n```")
        elif kind < 0.8:
            parts.append(f"| {rng.choice(lexicon)} | {rng.randint(0, 99)} |\n|---|---|\n| `{rng.choice(lexicon)}` | {rng.randint(0, 99)} |")
        else:
            word = rng.choice(lexicon)
            parts.append(paragraph(rng, lexicon) + f" See [{word}](https://example.org/{word}) and _{rng.choice(lexicon)}_.")
        parts.append("")
    return "\n".join(parts)


def corpus(num_documents: int) -> list[str]:
    rng = random.Random(SEED)
    lexicon = make_lexicon(rng, 3000)
    docs = []
    for _ in range(num_documents):
        r = rng.random()
        if r < 0.6:
            docs.append("\n\n".join(paragraph(rng, lexicon) for _ in range(rng.randint(1, 4))))
        elif r < 0.8:
            docs.append(html_document(rng, lexicon))
        else:
            docs.append(markdown_document(rng, lexicon))
    # A little non-ASCII so the Unigram and WordLevel vocabularies see it (byte-level BPE covers every byte anyway).
    docs.append("Café naïve résumé – “quoted” — déjà vu, 東京 and Zürich, 3 × 4 = 12, ½ ≈ 0.5.")
    return docs


def write_json(path: Path, value: dict) -> None:
    path.write_text(json.dumps(value, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def added_tokens_decoder(tokenizer: Tokenizer, tokens: list[str]) -> dict:
    return {
        str(tokenizer.token_to_id(t)): {
            "content": t, "lstrip": False, "normalized": False, "rstrip": False, "single_word": False, "special": True,
        }
        for t in tokens
    }


def save(out: Path, tokenizer: Tokenizer, config: dict, special_map: dict) -> None:
    out.mkdir(parents=True, exist_ok=True)
    tokenizer.save(str(out / "tokenizer.json"), pretty=True)
    write_json(out / "tokenizer_config.json", config)
    write_json(out / "special_tokens_map.json", special_map)
    print(f"wrote {out.relative_to(PACKAGE)} ({tokenizer.get_vocab_size()} ids)", file=sys.stderr)


def train_bpe(docs: list[str]) -> None:
    bos, eos = "<|begin_of_text|>", "<|end_of_text|>"
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=1024,
        min_frequency=2,
        special_tokens=[bos, eos],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tokenizer.train_from_iterator(docs, trainer=trainer)
    # Llama 3 style: transformers' default add_special_tokens=True prepends BOS; Levanter encodes without it.
    tokenizer.post_processor = processors.TemplateProcessing(
        single=f"{bos} $A", pair=f"{bos} $A {bos} $B", special_tokens=[(bos, tokenizer.token_to_id(bos))]
    )
    config = {
        "added_tokens_decoder": added_tokens_decoder(tokenizer, [bos, eos]),
        "bos_token": bos,
        "clean_up_tokenization_spaces": False,
        "eos_token": eos,
        "model_input_names": ["input_ids", "attention_mask"],
        "model_max_length": 4096,
        "tokenizer_class": "PreTrainedTokenizerFast",
    }
    save(PACKAGE / "assets/tokenizers/marin-tiny-bpe", tokenizer, config, {"bos_token": bos, "eos_token": eos})


def train_unigram(docs: list[str]) -> None:
    bos, eos, unk = "<s>", "</s>", "<unk>"
    tokenizer = Tokenizer(models.Unigram())
    tokenizer.normalizer = normalizers.Sequence([normalizers.NFKC(), normalizers.Replace(Regex(" {2,}"), " ")])
    tokenizer.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always")
    tokenizer.decoder = decoders.Metaspace(replacement="▁", prepend_scheme="always")
    trainer = trainers.UnigramTrainer(
        vocab_size=800, special_tokens=[unk, bos, eos], unk_token=unk, show_progress=False, max_piece_length=12
    )
    tokenizer.train_from_iterator(docs, trainer=trainer)
    # The trainer sums scores in hash-map order, so their last digits, and the order of tied pieces, vary
    # between runs; rounding and a (score, piece) sort after the special tokens make the file reproducible.
    spec = json.loads(tokenizer.to_str())
    vocab = spec["model"]["vocab"]
    specials, pieces = vocab[:3], [[piece, round(score, 6)] for piece, score in vocab[3:]]
    # Characters the trainer had to keep get made-up, strictly decreasing scores below every learned piece,
    # handed out in hash-map order; give the same scores out in character order instead.
    floor = min(score for piece, score in pieces if len(piece) > 1)
    tail = sorted((p for p in pieces if p[1] < floor), key=lambda p: -p[1])
    for entry, piece in zip(tail, sorted(p[0] for p in tail)):
        entry[0] = piece
    spec["model"]["vocab"] = specials + sorted(pieces, key=lambda p: (-p[1], p[0]))
    tokenizer = Tokenizer.from_str(json.dumps(spec))

    def token(content: str) -> dict:
        return {"__type": "AddedToken", "content": content, "lstrip": False, "normalized": False, "rstrip": False, "single_word": False}

    config = {
        "added_tokens_decoder": added_tokens_decoder(tokenizer, [unk, bos, eos]),
        "bos_token": token(bos),
        "eos_token": token(eos),
        "unk_token": token(unk),
        "tokenizer_class": "PreTrainedTokenizerFast",
    }
    save(PACKAGE / "test/fixtures/tokenizers/tiny-unigram", tokenizer, config, {"bos_token": bos, "eos_token": eos, "unk_token": unk})


def train_wordlevel(docs: list[str]) -> None:
    eos, unk = "[EOS]", "[UNK]"
    tokenizer = Tokenizer(models.WordLevel(unk_token=unk))
    tokenizer.normalizer = normalizers.Sequence([normalizers.NFD(), normalizers.StripAccents(), normalizers.Lowercase()])
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    trainer = trainers.WordLevelTrainer(vocab_size=600, special_tokens=[unk, eos], show_progress=False)
    tokenizer.train_from_iterator(docs, trainer=trainer)
    config = {
        "added_tokens_decoder": added_tokens_decoder(tokenizer, [unk, eos]),
        "eos_token": eos,
        "unk_token": unk,
        "tokenizer_class": "PreTrainedTokenizerFast",
    }
    save(PACKAGE / "test/fixtures/tokenizers/tiny-wordlevel", tokenizer, config, {"eos_token": eos, "unk_token": unk})


def main() -> None:
    docs = corpus(6000)
    train_bpe(docs)
    train_unigram(docs)
    train_wordlevel(docs)


if __name__ == "__main__":
    main()
