"""Node matchers for the WorfBench metrics: how similar a predicted node text is to a gold one.

WorfBench embeds node texts with a sentence-transformers model (``all-mpnet-base-v2``) and
takes ``max(cosine, 0)`` as the similarity. planeval's default matcher needs no model: two
texts are similar (1.0) when they are equal after normalization, else 0.0. That is a documented
deviation: a paraphrase the embedding model would match is a miss here.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from functools import lru_cache
from typing import Any, Protocol, runtime_checkable

__all__ = [
    "DEFAULT_EMBEDDING_MODEL",
    "EmbeddingMatcher",
    "Matcher",
    "TextMatcher",
    "normalize_text",
]

DEFAULT_EMBEDDING_MODEL = "all-mpnet-base-v2"
"""The model WorfBench's ``node_eval.py`` loads by default (``--eval_model``)."""

TEXTS_KEPT = 8192
"""Node texts whose ``normalize_text`` is kept, the most recently used (a gold's texts are
normalized again for each prediction scored against it; a run of distinct plans keeps no
more than this)."""

_NOT_WORD = re.compile(r"[\W_]+")
_ASCII_NOT_WORD = str.maketrans({chr(c): " " for c in range(128) if not chr(c).isalnum()})
"""ASCII characters ``[\\W_]`` matches, each to a space."""


@runtime_checkable
class Matcher(Protocol):
    """Scores every predicted node text against every gold node text."""

    name: str
    """A short name for reports (``text``, ``embeddings:<model>``)."""

    def similarity(self, pred: Sequence[str], gold: Sequence[str]) -> list[list[float]]:
        """A ``len(pred) x len(gold)`` matrix of similarities in ``[0, 1]``."""
        ...


@lru_cache(maxsize=TEXTS_KEPT)
def normalize_text(text: str) -> str:
    """NFKC, case-folded, every run of non-word characters one space, trimmed.

    ``"Rub the jade piece."`` and ``"rub  the Jade piece"`` normalize to the same string.
    """
    if text.isascii():  # NFKC keeps ASCII as it is, and casefold is lower: the same, faster
        return " ".join(text.lower().translate(_ASCII_NOT_WORD).split())
    folded = unicodedata.normalize("NFKC", text).casefold()
    return _NOT_WORD.sub(" ", folded).strip()


class TextMatcher:
    """Similarity 1.0 for texts equal after ``normalize_text``, else 0.0 (no model needed)."""

    name = "text"

    def similarity(self, pred: Sequence[str], gold: Sequence[str]) -> list[list[float]]:
        """Normalized-equality similarity matrix."""
        gold_norm = [normalize_text(g) for g in gold]
        return [[1.0 if p == g else 0.0 for g in gold_norm] for p in map(normalize_text, pred)]


class EmbeddingMatcher:
    """WorfBench's matcher: ``max(cos_sim(encode(pred), encode(gold)), 0)``.

    Needs ``pip install 'planeval[embeddings]'`` (sentence-transformers). The model is loaded
    the way ``node_eval.py`` loads it, ``SentenceTransformer(name_or_path)``, on first use.
    Embeddings are cached per text, so a gold node is encoded once however many topological
    orders it appears in.

    Args:
        model: a sentence-transformers model name or folder, or an already loaded model.
    """

    def __init__(self, model: str | Any = DEFAULT_EMBEDDING_MODEL) -> None:
        self._model_ref = model
        self._model: Any = None if isinstance(model, str) else model
        label = model if isinstance(model, str) else type(model).__name__
        self.name = f"embeddings:{label}"
        self._cache: dict[str, Any] = {}

    def _loaded(self) -> Any:
        if self._model is None:
            from harness._errors import InputError

            try:
                from sentence_transformers import SentenceTransformer
            except ImportError:
                raise InputError(
                    "the embeddings matcher needs sentence-transformers",
                    hint="pip install 'planeval[embeddings]'",
                ) from None
            try:
                self._model = SentenceTransformer(self._model_ref)
            except (OSError, ValueError) as exc:  # no such folder, not a model, no network
                reason = " ".join(str(exc).split())[:200].rstrip(".")
                raise InputError(
                    f"cannot load the sentence-transformers model: {reason}",
                    source=str(self._model_ref),
                    hint="give a model folder or a model name already in the local "
                    "Hugging Face cache (--embedding-model, or embedding_model in the suite)",
                ) from None
        return self._model

    def _embed(self, texts: Sequence[str]) -> Any:
        import torch

        todo = [t for t in dict.fromkeys(texts) if t not in self._cache]
        if todo:
            vectors = self._loaded().encode(todo, convert_to_tensor=True)
            for text, vector in zip(todo, vectors, strict=True):
                self._cache[text] = vector
        return torch.stack([self._cache[t] for t in texts])

    def similarity(self, pred: Sequence[str], gold: Sequence[str]) -> list[list[float]]:
        """Cosine similarity clipped at 0, as ``evaluator/graph_evaluator.py:match_node``."""
        if not pred or not gold:
            return [[] for _ in pred]
        self._loaded()  # first: without sentence-transformers the user reads what to install
        from sentence_transformers import util

        scores = util.cos_sim(self._embed(pred), self._embed(gold)).cpu().numpy()
        return [[max(float(v), 0.0) for v in row] for row in scores]
