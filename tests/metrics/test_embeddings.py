"""The embeddings matcher (``planeval[embeddings]``) with a small encoder built in the test.

No model can be downloaded here, so the test makes one (handwritten): a sentence-transformers
``StaticEmbedding`` over a word-level tokenizer whose word vectors are chosen by hand, saved to
a folder and loaded back by ``SentenceTransformer(folder)``, the code path WorfBench's
``node_eval.py`` uses for ``all-mpnet-base-v2``. Synonyms share a vector (``boil``/``heat``,
``grind``/``mill``), so a paraphrased step has cosine 1 with its gold step; ``Heat milk``
against ``Boil water`` has cosine 0.5 (under WorfBench's 0.6 threshold); ``hot`` against
``cold`` has cosine -1 (clipped to 0).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness.metrics import EmbeddingMatcher, TextMatcher, score_plan
from tests.cli_helpers import run_cli

pytest.importorskip(
    "sentence_transformers", reason="sentence-transformers not installed (planeval[embeddings])"
)

WORDS = {  # word -> (dimension, sign); synonyms share a dimension
    "boil": (0, 1),
    "heat": (0, 1),
    "water": (1, 1),
    "grind": (2, 1),
    "mill": (2, 1),
    "beans": (3, 1),
    "brew": (4, 1),
    "coffee": (5, 1),
    "milk": (6, 1),
    "hot": (7, 1),
    "cold": (7, -1),
    "start": (8, 1),
    "end": (9, 1),
}  # f1_graph matches START and END too

GOLD = (
    "Node:\n1: Boil water\n2: Grind beans\n3: Brew coffee\n"
    "Edge: (START,1) (START,2) (1,3) (2,3) (3,END)"
)  # two topological orders: 1 2 3 and 2 1 3
PARAPHRASE = GOLD.replace("Boil water", "Heat water").replace("Grind beans", "Mill beans")


def _static_embedding_class() -> Any:
    try:  # sentence-transformers >= 6
        from sentence_transformers.sentence_transformer.modules import StaticEmbedding
    except ImportError:
        from sentence_transformers.models import StaticEmbedding
    return StaticEmbedding


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A saved sentence-transformers model folder with the hand-chosen word vectors."""
    import numpy as np
    from sentence_transformers import SentenceTransformer
    from tokenizers import Tokenizer
    from tokenizers.models import WordLevel
    from tokenizers.normalizers import Lowercase
    from tokenizers.pre_tokenizers import Whitespace

    vocab = {"[UNK]": 0, **{word: i for i, word in enumerate(WORDS, 1)}}
    tokenizer = Tokenizer(WordLevel(vocab, unk_token="[UNK]"))
    tokenizer.normalizer = Lowercase()
    tokenizer.pre_tokenizer = Whitespace()
    weights = np.zeros((len(vocab), 10), dtype=np.float32)  # [UNK] stays the zero vector
    for word, (dim, sign) in WORDS.items():
        weights[vocab[word], dim] = sign
    encoder = _static_embedding_class()(tokenizer, embedding_weights=weights)
    folder = tmp_path_factory.mktemp("encoder") / "tiny-static"
    SentenceTransformer(modules=[encoder], device="cpu").save(str(folder))
    return folder


@pytest.fixture(scope="module")
def matcher(model_dir: Path) -> EmbeddingMatcher:
    return EmbeddingMatcher(str(model_dir))


class TestEmbeddingMatcher:
    def test_similarity_is_cosine_clipped_at_zero(
        self, matcher: EmbeddingMatcher, model_dir: Path
    ) -> None:
        """A model folder loads by name; synonyms 1, half-shared 0.5, opposite words 0."""
        matrix = matcher.similarity(["Heat water", "Heat milk", "hot"], ["Boil water", "cold"])
        assert matcher.name == f"embeddings:{model_dir}"
        assert matrix == [
            pytest.approx([1.0, 0.0], abs=1e-6),
            pytest.approx([0.5, 0.0], abs=1e-6),
            pytest.approx([0.0, 0.0], abs=1e-6),
        ]

    def test_paraphrase_scores_one_where_text_matching_misses(
        self, matcher: EmbeddingMatcher
    ) -> None:
        """Reworded steps match their gold steps: every WorfBench metric is 1; the text matcher
        (the documented deviation) misses both reworded steps."""
        embedded = score_plan(PARAPHRASE, GOLD, matcher=matcher).metrics
        texts = score_plan(PARAPHRASE, GOLD, matcher=TextMatcher()).metrics
        worfbench = {k: v for k, v in embedded.items() if k.startswith("worfbench.")}
        assert worfbench and all(v == pytest.approx(1.0) for v in worfbench.values()), worfbench
        assert texts["worfbench.f1_chain"] < 1.0
        assert texts["worfbench.f1_graph"] < 1.0

    def test_similarity_under_the_threshold_is_a_miss(self, matcher: EmbeddingMatcher) -> None:
        """``Heat milk`` is 0.5 like ``Boil water``: no match, the same scores as an unrelated
        step under the text matcher."""
        half = score_plan(PARAPHRASE.replace("Heat water", "Heat milk"), GOLD, matcher=matcher)
        unrelated = score_plan(GOLD.replace("Boil water", "Dance"), GOLD, matcher=TextMatcher())
        assert half.metrics == pytest.approx(unrelated.metrics)
        assert half.metrics["worfbench.recall_chain"] == pytest.approx(2 / 3)

    def test_each_text_is_encoded_once(self, model_dir: Path) -> None:
        """A gold with two topological orders: every distinct node text goes to the encoder
        once (embeddings are cached per text, not per order)."""
        from sentence_transformers import SentenceTransformer

        class CountingModel:
            def __init__(self) -> None:
                self.model = SentenceTransformer(str(model_dir), device="cpu")
                self.texts: list[str] = []

            def encode(self, texts: list[str], **kwargs: Any) -> Any:
                self.texts.extend(texts)
                return self.model.encode(texts, **kwargs)

        counting = CountingModel()
        result = score_plan(PARAPHRASE, GOLD, matcher=EmbeddingMatcher(counting))
        assert result.metrics["worfbench.f1_chain"] == pytest.approx(1.0)
        assert sorted(counting.texts) == sorted(set(counting.texts))
        assert {"Boil water", "Heat water", "Brew coffee"} <= set(counting.texts)

    @pytest.mark.parametrize("change", [1, -1])
    def test_a_model_giving_another_number_of_vectors_is_refused(
        self, model_dir: Path, change: int
    ) -> None:
        """A model object that returns one vector more or one fewer than the texts it was
        given: an error, never vectors paired with the wrong texts or some left out."""
        import torch
        from sentence_transformers import SentenceTransformer

        class Miscounting:
            def __init__(self) -> None:
                self.model = SentenceTransformer(str(model_dir), device="cpu")

            def encode(self, texts: list[str], **kwargs: Any) -> Any:
                vectors = self.model.encode(texts, **kwargs)
                if change > 0:
                    return torch.cat([vectors, vectors[:1]])
                return vectors[:-1]

        with pytest.raises(ValueError, match="zip"):
            EmbeddingMatcher(Miscounting()).similarity(["Heat water", "hot"], ["Boil water"])


class TestEmbeddingsFromTheCommandLine:
    def test_score_with_a_model_folder(
        self, capsys: pytest.CaptureFixture[str], model_dir: Path, tmp_path: Path
    ) -> None:
        """``planeval score --matcher embeddings --embedding-model DIR`` scores a paraphrase 1."""
        answer, gold = tmp_path / "answer.txt", tmp_path / "gold.txt"
        answer.write_text(PARAPHRASE, encoding="utf-8")
        gold.write_text(GOLD, encoding="utf-8")
        args = ("score", str(answer), "--reference", str(gold), "--format", "json")
        embedded = run_cli(
            capsys, *args, "--matcher", "embeddings", "--embedding-model", str(model_dir)
        )
        texts = run_cli(capsys, *args)
        assert embedded.code == 0, embedded.err
        assert json.loads(embedded.out)["metrics"]["worfbench.f1_graph"] == pytest.approx(1.0)
        assert json.loads(texts.out)["metrics"]["worfbench.f1_graph"] < 1.0

    @pytest.mark.parametrize("kind", ["missing", "empty"])
    def test_a_folder_that_is_no_model_is_one_line_exit_2(
        self, capsys: pytest.CaptureFixture[str], tmp_path: Path, kind: str
    ) -> None:
        """A missing or empty model folder: exit 2, one line naming it, no traceback."""
        folder = tmp_path / "no-model"
        if kind == "empty":
            folder.mkdir()
        gold = tmp_path / "gold.txt"
        gold.write_text(GOLD, encoding="utf-8")
        result = run_cli(
            capsys,
            "score",
            str(gold),
            "--reference",
            str(gold),
            "--matcher",
            "embeddings",
            "--embedding-model",
            str(folder),
        )
        assert result.code == 2
        lines = result.err.strip().splitlines()
        assert len(lines) == 1, result.err
        assert str(folder) in lines[0] and "cannot load" in lines[0]
        assert "Traceback" not in result.err

    def test_a_suite_run_scores_rows_with_the_suite_model(
        self, model_dir: Path, tmp_path: Path
    ) -> None:
        """A suite whose ``metrics:`` block names the embeddings matcher and the model folder:
        the paraphrased answer's results row scores 1 on f1_chain and f1_graph."""
        from harness.run import run_suite
        from harness.suite import load_suite
        from harness.testing import make_project, write_response

        prompt = "Plan as Node:/Edge: lines.\n{goal}\n"
        metrics = {"matcher": "embeddings", "embedding_model": str(model_dir)}
        suite = make_project(
            tmp_path,
            suite="coffee",
            prompt=prompt,
            cases=[{"id": "c1", "goal": "Make coffee", "reference": GOLD}],
            extra={"plan_format": "auto", "metrics": metrics},
        )
        write_response(tmp_path, "coffee", "planner", "c1", PARAPHRASE, template=prompt)
        row = run_suite(load_suite(suite), out=tmp_path / "run").rows[0]
        assert row.metric_status == "scored"
        assert row.metrics["worfbench.f1_chain"] == pytest.approx(1.0)
        assert row.metrics["worfbench.f1_graph"] == pytest.approx(1.0)
