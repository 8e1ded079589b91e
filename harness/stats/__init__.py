"""Statistics used by runs, reports, comparisons and the gate.

- ``wilson_interval`` / ``wilson_intervals``, ``mcnemar_exact``, ``pass_at_k``, ``pass_hat_k``:
  textbook binomial formulas (own code, checked against scipy in the tests).
- ``cluster_wilson`` (``cluster_wilson_interval`` for one group, math only): the pass-rate
  interval every figure prints, for several correlated samples per case
  (design-effect-adjusted Wilson; plain Wilson with one sample per case).
- ``paired_test``: base against candidate on the same cases, a verdict and an interval from one
  procedure (exact McNemar with its conditional exact interval, or a sign-flip permutation test
  with its inverted interval, enumerated exactly up to ``EXACT_CASES`` cases); ``paired_tests``
  for many comparisons at once (the same results, the random sign flips of every comparison
  applied in one matrix product); ``holm`` / ``holm_levels`` for several comparisons.

numpy and scipy are imported inside the functions that need them: ``planeval run`` needs only
``cluster_wilson_interval``.
"""

from harness.stats._binomial import (
    Z95,
    mcnemar_exact,
    pass_at_k,
    pass_hat_k,
    wilson_interval,
    wilson_intervals,
)
from harness.stats._cluster import (
    ClusterSums,
    cluster_wilson,
    cluster_wilson_interval,
    design_effect,
)
from harness.stats._mean import MeanDifference, clustered_mean, paired_mean_test
from harness.stats._paired import (
    EXACT_CASES,
    FLIPS,
    PairedResult,
    all_sign_sums,
    clopper_pearson,
    holm,
    holm_levels,
    paired_test,
    paired_tests,
    sign_flip_pvalues,
)

__all__ = [
    "EXACT_CASES",
    "FLIPS",
    "Z95",
    "ClusterSums",
    "MeanDifference",
    "PairedResult",
    "all_sign_sums",
    "clopper_pearson",
    "cluster_wilson",
    "cluster_wilson_interval",
    "clustered_mean",
    "design_effect",
    "holm",
    "holm_levels",
    "mcnemar_exact",
    "paired_mean_test",
    "paired_test",
    "paired_tests",
    "pass_at_k",
    "pass_hat_k",
    "sign_flip_pvalues",
    "wilson_interval",
    "wilson_intervals",
]
