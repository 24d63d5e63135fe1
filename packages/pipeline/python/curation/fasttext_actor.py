"""The quality stage's pooled scorer: a Fray actor (started by ``createActorGroup`` with a Python entry) that loads
the fastText model once and scores batches of texts, with the same value as fasttext_score.py (fasttext_scoring.py).
"""

from fasttext_scoring import LabelScorer


class FasttextScorer:
    def __init__(self, model_path: str, label: str):
        self._scorer = LabelScorer(model_path, label)

    def score(self, texts: list) -> list:
        """One score per text, in order (``None`` scores as the empty text)."""
        return [self._scorer.score(t) for t in texts]
