"""dpcourse: the one trusted implementation of every mechanism, bound and accountant of the course.

Every public function validates its arguments (see :mod:`dpcourse._validation`), takes ``rng=None``
when it is random, and names in its docstring the theorem of the book that proves its guarantee.
Figures live in :mod:`dpcourse.plots` and exercise checkers in :mod:`dpcourse.exercises`; neither is
imported here, so ``import dpcourse`` does not load matplotlib.
"""

from .audit import audit_epsilon
from .approx_dp import group_privacy
from .divergences import hockey_stick, mechanism_epsilon, privacy_loss
from .accounting import (ComposedEvent, EpsilonDeltaEvent, GaussianEvent, LaplaceEvent, NotApplicableError,
                         PoissonSampledEvent, PrivacyAccountant, PureDPEvent, RelationMismatchError, SequenceEvent, dpsgd_epsilon, dpsgd_noise_multiplier,
                         max_compositions, subsampling_amplification)
from .composition import (advanced_composition, advanced_composition_crossover, basic_composition,
                          gaussian_composition_epsilon, optimal_composition_delta, optimal_composition_epsilon,
                          rdp_gaussian, rdp_laplace, rdp_pure_dp, rdp_to_epsilon, zcdp_epsilon)
from .composition_basics import composed_epsilon, laplace_privacy_loss
from .discrete import (discrete_gaussian, discrete_gaussian_delta, discrete_gaussian_pmf, discrete_laplace,
                       discrete_laplace_pmf, geometric_mechanism)
from .lattice import GaussianLattice, LaplaceLattice, gaussian_lattice, laplace_lattice
from .gaussian import gaussian_delta, gaussian_epsilon
from .fdp import (clt_mu_poisson_gaussian, gdp_mu, gdp_mu_for_dp, tradeoff_curve, tradeoff_epsilon_delta,
                  tradeoff_from_profile, tradeoff_gaussian, tradeoff_laplace, tradeoff_randomized_response)
from .float_attack import impossible_output_mechanism, lattice_reachable, textbook_reachable
from .optimal_noise import geometric_remap_loss, knorm_l2_noise, optimal_count_mechanism
from .gaussian import analytic_gaussian_sigma, gaussian_loss_tail, gaussian_mechanism, gaussian_sigma
from .histogram import dp_histogram, exact_histogram, histogram_sensitivity
from .laplace import (counting_queries_sample_size, dp_mean, laplace_max_error_bound, laplace_max_error_quantile,
                      laplace_max_error_tail, laplace_mechanism, laplace_tail)
from .selection import (exponential_accuracy_gap, exponential_mechanism, exponential_probabilities,
                        noisy_max_probabilities, permute_and_flip, permute_and_flip_probabilities,
                        report_noisy_max, selection_support)
from .sensitivity import brute_force_sensitivity
from .local_dp import (krr, krr_estimate, krr_variance, local_hashing, local_hashing_estimate, local_hashing_variance,
                       oracle_probabilities, shuffle_amplification_epsilon, unary_encoding, unary_encoding_estimate,
                       unary_encoding_variance)
from .quantiles import (distance_to_instability, dp_median, dp_quantile, dp_quantile_probabilities, local_sensitivity,
                        propose_test_release, ptr_threshold, quantile_rank_error_bound, sample_and_aggregate,
                        smooth_median, smooth_median_beta, smooth_sensitivity)
from . import queries  # noqa: F401 - the compatibility module: dpcourse.queries.X after a bare import dpcourse
from .attacks import reconstruction_attack, tpr_at_fpr, tracing_scores
from .query_release import mwem, smalldb
from .svt import above_threshold, sparse_vector
from .rr import (randomized_response, rr_count_distribution, rr_epsilon, rr_estimate_mean,
                                  rr_sample_size, rr_standard_error, rr_truth_probability)
from .deidentification import (histogram_attack_posterior, k_anonymity, l_diversity, linkage_attack, posterior_bound,
                               rappor_epsilon)
from .scale import bound_contributions, dp_group_by, partition_selection_probability, select_partitions
from .learning import dp_logistic_regression
from .membership import dp_tpr_bound, gdp_tpr_bound
from .continual import (TreeCounter, factorization_counts, factorization_sensitivity, factorization_variance,
                        naive_counts, naive_variance, sqrt_factor, tree_counts, tree_levels, tree_node_variance,
                        tree_variance)
from .inference import (PrivateInterval, difference_interval_coverage, difference_of_means_interval,
                        interval_coverage, mean_interval, mean_interval_coverage, noise_aware_halfwidth,
                        proportion_interval, proportion_interval_coverage, quantile_interval,
                        quantile_interval_coverage)
from .lower_bounds import (bit_guessing_bound, fingerprinting_code, fingerprinting_sample_bound,
                           gaussian_means_sample_size, packing_error_bound, packing_failure_probability,
                           subset_sum_error_bound, tracing_trial)
from .synthetic import (SyntheticRelease, independent_synthesize, marginal_errors, mst_budget,
                        mst_synthesize)

__version__ = "0.1.0"
