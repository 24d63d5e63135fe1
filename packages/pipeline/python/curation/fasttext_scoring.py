"""The quality score of one text, shared by the streaming scorer (fasttext_score.py) and the pooled actor
(fasttext_actor.py), so both paths give the same value bit for bit: the probability fastText predicts for one label
(as its predict() reports it, which adds 1e-5 before the log), Marin's quality attribute value. Newlines in a text
become spaces (fastText predicts one line). Calls the bindings' low-level predict, which returns plain pairs, so it
does not depend on numpy's copy semantics."""

import re

import fasttext

_NEWLINES = re.compile(r"[\n\r]")


class LabelScorer:
    """A loaded model and the label whose probability is the score."""

    def __init__(self, model_path: str, label: str):
        self.model = fasttext.load_model(model_path)
        self.wanted = f"__label__{label}"
        self.k = len(self.model.labels)

    def score(self, text: str | None) -> float:
        pairs = self.model.f.predict(_NEWLINES.sub(" ", text or "") + "\n", self.k, 0.0, "strict")
        for prob, label in pairs:
            if label == self.wanted:
                return prob
        return 0.0
