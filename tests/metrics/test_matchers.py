"""The node matchers as a user meets them: which texts the default matcher calls equal, the
shape of a similarity matrix, a matcher's name in reports, and what a user reads when the
embeddings matcher cannot start (sentence-transformers missing, a model that does not load).
Runs without sentence-transformers: where the package is needed, a stand-in module plays it."""

from __future__ import annotations

import sys
import types
from typing import Any

import pytest

from harness._errors import InputError
from harness.metrics import (
    DEFAULT_EMBEDDING_MODEL,
    EmbeddingMatcher,
    Matcher,
    TextMatcher,
    normalize_text,
)
from tests.cli_helpers import run_cli


class TestNormalizeText:
    @pytest.mark.parametrize(
        ("text", "normalized"),
        [
            ("Rub the jade piece.", "rub the jade piece"),
            ("  rub  the Jade piece ", "rub the jade piece"),
            ("STRASSE", "strasse"),
            ("Straße", "strasse"),  # case folding, not only lower-casing
            ("ＡＢＣ １２", "abc 12"),  # NFKC: full-width letters and digits
            ("ﬁle", "file"),  # NFKC: the ligature
            ("a_b--c", "a b c"),  # underscores and every other non-word run: one space
            ("a\t\n b", "a b"),
            ("...", ""),
            ("", ""),
            ("é", "é"),  # a letter is a word character, accents kept
        ],
    )
    def test_what_the_default_matcher_compares(self, text: str, normalized: str) -> None:
        assert normalize_text(text) == normalized

    def test_ascii_text_normalizes_as_the_general_rule_says(self) -> None:
        """ASCII text takes a shorter path (lower-casing, one table): on 20,000 seeded strings
        of every ASCII character, control characters included, it gives what NFKC, case
        folding and the ``[\\W_]+`` rule give."""
        import random
        import re
        import unicodedata

        def general(text: str) -> str:
            folded = unicodedata.normalize("NFKC", text).casefold()
            return re.sub(r"[\W_]+", " ", folded).strip()

        rng = random.Random(4)
        for _ in range(20_000):
            text = "".join(chr(rng.randrange(128)) for _ in range(rng.randint(0, 24)))
            assert normalize_text.__wrapped__(text) == general(text), repr(text)


class TestTextMatcher:
    def test_a_matrix_of_pred_rows_and_gold_columns(self) -> None:
        """One row per predicted text, one column per gold text: 1.0 for texts equal after
        normalization, else 0.0."""
        matcher = TextMatcher()
        assert matcher.name == "text" and isinstance(matcher, Matcher)
        matrix = matcher.similarity(
            ["Boil water.", "grind beans", "Brew"], ["boil  WATER", "Brew coffee"]
        )
        assert matrix == [[1.0, 0.0], [0.0, 0.0], [0.0, 0.0]]
        assert matcher.similarity([], ["a"]) == []
        assert matcher.similarity(["a", "A"], []) == [[], []]


class _Model:
    """A loaded model handed to the matcher (never asked to encode in these tests)."""

    def encode(self, texts: list[str], **kwargs: Any) -> Any:
        raise AssertionError("not expected to encode")


def _absent(monkeypatch: pytest.MonkeyPatch) -> None:
    """sentence-transformers not installed: importing it raises ImportError."""
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)


def _refusing(monkeypatch: pytest.MonkeyPatch, error: Exception) -> list[Any]:
    """A sentence-transformers whose model loader raises ``error``; returns the names asked."""
    asked: list[Any] = []

    def load(name: Any) -> Any:
        asked.append(name)
        raise error

    module = types.ModuleType("sentence_transformers")
    module.SentenceTransformer = load  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "sentence_transformers", module)
    return asked


class TestEmbeddingMatcher:
    def test_its_name_in_reports(self) -> None:
        """The model name or folder as given, or the class of a model object handed in."""
        assert EmbeddingMatcher().name == f"embeddings:{DEFAULT_EMBEDDING_MODEL}"
        assert DEFAULT_EMBEDDING_MODEL == "all-mpnet-base-v2"
        assert EmbeddingMatcher("models/tiny").name == "embeddings:models/tiny"
        assert EmbeddingMatcher(_Model()).name == "embeddings:_Model"
        assert isinstance(EmbeddingMatcher(_Model()), Matcher)

    def test_nothing_to_compare_needs_no_model(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """No predicted or no gold text: an empty matrix of the right shape, without loading
        a model (or even needing sentence-transformers)."""
        _absent(monkeypatch)
        matcher = EmbeddingMatcher("no-such-model")
        assert matcher.similarity([], ["a", "b"]) == []
        assert matcher.similarity(["a", "b"], []) == [[], []]
        assert matcher.similarity([], []) == []

    def test_without_sentence_transformers_the_user_is_told_what_to_install(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        _absent(monkeypatch)
        with pytest.raises(InputError) as caught:
            EmbeddingMatcher("all-mpnet-base-v2").similarity(["a"], ["b"])
        error = caught.value
        assert error.what == "the embeddings matcher needs sentence-transformers"
        assert error.hint == "pip install 'planeval[embeddings]'"
        assert error.source is None
        assert error.__cause__ is None and error.__suppress_context__

    def test_without_sentence_transformers_planeval_score_is_one_line_exit_2(
        self, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Any
    ) -> None:
        """``planeval score --matcher embeddings`` without the package: exit 2 and one line
        saying what to install, not an ImportError traceback (round 6: the matcher imported
        sentence-transformers' util module before loading the model, so the message was never
        reached)."""
        _absent(monkeypatch)
        gold = tmp_path / "gold.txt"
        gold.write_text("Node:\n1: a\n2: b\nEdge: (START,1) (1,2) (2,END)\n", encoding="utf-8")
        result = run_cli(
            capsys, "score", str(gold), "--reference", str(gold), "--matcher", "embeddings"
        )
        assert result.code == 2
        assert result.err.strip().splitlines() == [
            "planeval: error: the embeddings matcher needs sentence-transformers. "
            "Pip install 'planeval[embeddings]'"
        ]

    @pytest.mark.parametrize(
        ("error", "reason"),
        [
            (OSError("models/absent is not a folder."), "models/absent is not a folder"),
            (ValueError("No model\n  in  models/x...."), "No model in models/x"),
            (OSError("x" * 250), "x" * 200),
            (OSError("y" * 199 + "..."), "y" * 199),  # cut to 200 first, then the dots go
            (OSError("no model named MAX"), "no model named MAX"),  # only full stops go
        ],
    )
    def test_a_model_that_does_not_load_is_one_clear_line(
        self, monkeypatch: pytest.MonkeyPatch, error: Exception, reason: str
    ) -> None:
        """The loader's message on one line (whitespace runs as one space), at most 200
        characters, without its closing full stops; the model named as the source."""
        asked = _refusing(monkeypatch, error)
        matcher = EmbeddingMatcher("models/absent")
        with pytest.raises(InputError) as caught:
            matcher.similarity(["a"], ["b"])
        assert asked == ["models/absent"]
        failure = caught.value
        assert failure.what == f"cannot load the sentence-transformers model: {reason}"
        assert failure.source == "models/absent"
        assert failure.hint == (
            "give a model folder or a model name already in the local Hugging Face cache "
            "(--embedding-model, or embedding_model in the suite)"
        )
        assert failure.__cause__ is None and failure.__suppress_context__

    def test_other_loader_errors_are_not_rewritten(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """Only a missing or unreadable model is the user's input error; a bug in the loader
        (here a KeyError) reaches the user as it is."""
        _refusing(monkeypatch, KeyError("weights"))
        with pytest.raises(KeyError):
            EmbeddingMatcher("models/x").similarity(["a"], ["b"])
